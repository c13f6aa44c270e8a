"""What a run asks of a runner, and what a runner gives back: the plan, the payload of a
window, and what is made of each replayed hand.

The driver (:mod:`ofc_audit.audit.driver`) builds a :class:`Plan` and hands it to a runner
(in this process, worker processes, a Dask cluster); the runner gives back, window after
window, one :class:`Payload` per lane, which the driver merges in hand order. Every runner
makes its payloads with :func:`render_outcome`, so the same hand gives the same bytes
whichever runner replayed it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError
from ..history.records import Hand
from ..history.sources import Source
from ..history.survey import HandIndex
from ..replay import Replayer
from ..replay.results import HandResult
from ..replay.state import TableState
from .filters import Facts, hand_facts
from .json_doc import hand_json_text

if TYPE_CHECKING:
    import pandas as pd

    from ..session.tables import TableBuilder

__all__ = [
    "INCOMPLETE",
    "INVALID",
    "MISMATCHED",
    "WORKER_TABLES",
    "Fallback",
    "HandRenderer",
    "HandStep",
    "Item",
    "Key",
    "Outcome",
    "Payload",
    "Piece",
    "Plan",
    "Render",
    "RunStats",
    "Sabotage",
    "Stepped",
    "add_piece",
    "hand_flags",
    "render_outcome",
    "render_piece",
    "rendered_bytes",
    "replay_hand",
    "table_pieces",
]

#: Where an item (a hand or a rejection) stands in the run: (source index, first line).
Key = tuple[int, int]
Item = Hand | HistoryParseError
#: What a lane makes of each hand: audit JSON entries, audit text lines, session table
#: pieces, (``audit --hand ID``) the results of one hand replayed with explanations, or
#: (``step``) what the plan's :data:`HandStep` makes of each hand.
Render = Literal["json", "text", "tables", "explain", "step"]
Sabotage = Literal["deal", "lines", "die"] | None
#: A hand as the audit prints it (its JSON entry, or its text lines without the last line
#: end): a module-level function, so that a plan holding it can travel to a worker.
HandRenderer = Callable[[HandResult], str]
#: A command's own work on each hand, done in the lane right after the hand's replay (so in
#: the worker processes of ``--jobs`` and on the Dask workers too): called with the hand, its
#: replay and its table's state before it (None: the table's first hand, or its chain
#: broken), its value travels back in the payload. It must pickle (a module-level function,
#: or a ``functools.partial`` of one) and its value too; it must not depend on which lane
#: runs it: the driver's modules cannot import the commands' (the layers), so the command
#: hands its function in with the :class:`Plan`.
HandStep = Callable[[Hand, HandResult, TableState | None], Any]
#: The session tables built by the lanes, in :class:`~ofc_audit.session.tables.SessionTables`
#: order.
WORKER_TABLES = ("hands", "seats", "pairs", "violations", "mismatches")

INVALID, MISMATCHED, INCOMPLETE = 1, 2, 4  # hand flags


@dataclass(frozen=True)
class Plan:
    """What every lane is told: the files, the rules, what to make of each hand, and how the
    runner cuts the work (lanes, entries per window, hands per batch of table pieces, windows
    read ahead). ``render_hand``: the audit's hand renderer (``json``: the JSON entry when
    None). ``facts``: send what the --player/--table/--since/--until filters look at.
    ``hand``: the hand id of ``render="explain"``. ``step``: the :data:`HandStep` of
    ``render="step"``. ``sabotage`` (tests only) makes the
    checks of the parallel runners fail: ``deal`` deals entries from the second window on to
    the lanes five at a time whatever their table, ``lines`` tells lane 0 that its entries
    from the third window on start a line later than they do, ``die`` ends lane 0's process
    in the middle of sending its second window (``--jobs`` only)."""

    sources: tuple[Source, ...]
    ruleset: Ruleset
    render: Render
    lanes: int = 1
    window: int = 1000
    render_hand: HandRenderer | None = None
    scan_block: int = 1 << 23
    sabotage: Sabotage = None
    table_batch: int = 10_000
    lead: int = 2
    facts: bool = False
    hand: str | None = None
    step: HandStep | None = None
    index: HandIndex | None = None  # every hand once: the copies the reading leaves out


@dataclass
class Payload:
    """One lane's window: hands (key, flags, text, what the filters look at) or the hands'
    keys, and its rejections; for the session tables, now and then, the table pieces of
    every hand since the last pieces (a batch: ``hand`` numbers them from 0 in the lane's
    order, or, ``numbered``, already in the run's numbers); for ``explain``, the hands with
    the id asked for; for ``step``, the step's value of each hand."""

    hands: list[tuple[Key, int, str | bytes, Facts | None]] = field(default_factory=list)
    keys: list[Key] = field(default_factory=list)  # tables: the hands' keys, in order
    frames: tuple[pd.DataFrame, ...] | None = None
    numbered: bool = False
    rejections: list[tuple[Key, HistoryParseError]] = field(default_factory=list)
    found: list[tuple[Key, HandResult]] = field(default_factory=list)  # explain
    stepped: list[tuple[Key, Any]] = field(default_factory=list)  # step


class Fallback(Exception):
    """A runner's check failed at the window starting at ``key`` (or the runner does not
    take the run): the rest is done in this process, from ``key`` on."""

    def __init__(self, key: Key) -> None:
        super().__init__(key)
        self.key = key


@dataclass
class RunStats:
    """How a run went: lanes, windows written by the runner, the key where this process
    took over after a failed check (None: it did not), and what each lane cost."""

    lanes: int = 0
    windows: int = 0
    fallback: Key | None = None
    lane_cpu: list[float] = field(default_factory=list)  # CPU seconds of each lane
    lane_waited: list[float] = field(default_factory=list)  # seconds each waited for others
    lane_redone: list[int] = field(default_factory=list)  # hands each replayed again
    start_method: str | None = None  # how the lanes started ("fork", "forkserver", "spawn")
    #: The lane that replayed each table: (file, table name as parsed) -> lane.
    owners: dict[tuple[str, str], int] = field(default_factory=dict)


def hand_flags(result: HandResult) -> int:
    return (
        (0 if result.valid else INVALID)
        | (MISMATCHED if result.mismatches else 0)
        | (INCOMPLETE if result.incomplete is not None else 0)
    )


def rendered_bytes(text: str) -> str | bytes:
    """A rendered hand as the UTF-8 bytes a standard output prints (a worker's hands travel
    and are written as they are: the parent neither decodes nor encodes them), or as text
    when it is no UTF-8 (lone surrogates of undecodable input: the output's own error
    handler says what they become)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text


@dataclass(frozen=True)
class Stepped:
    """A hand replayed, and the value of the plan's step on it."""

    result: HandResult
    value: Any


#: What a lane has of an item once replayed.
Outcome = HandResult | Stepped | HistoryParseError


def replay_hand(replayer: Replayer, hand: Hand, step: HandStep | None) -> HandResult | Stepped:
    """One hand replayed by a lane's replayer, and ``step`` run on it (when given) with its
    table's state before the hand (the replay only reads that state: it is the same object
    afterwards, unchanged)."""
    if step is None:
        return replayer.replay(hand)
    previous = replayer.states.get((hand.file, hand.table.name))
    result = replayer.replay(hand)
    return Stepped(result, step(hand, result, previous))


#: An item's part of a payload, made as soon as it is replayed (:func:`render_piece`): where
#: it goes in the payload, and what goes there.
Piece = tuple[Literal["hands", "rejections", "found", "stepped"], Any] | None


def render_piece(key: Key, outcome: Outcome, plan: Plan) -> Piece:
    """What ``plan.render`` makes of one replayed item, for a payload without session
    tables (``tables`` renders with a :class:`~ofc_audit.session.tables.TableBuilder`, in
    :func:`render_outcome`): a lane makes it right after the replay, while the hand's
    results are fresh in the caches, and keeps only it until its window is finished."""
    if isinstance(outcome, HistoryParseError):
        return "rejections", (key, outcome)
    if isinstance(outcome, Stepped):
        return "stepped", (key, outcome.value)
    if plan.render == "explain":
        return ("found", (key, outcome)) if outcome.hand_id == plan.hand else None
    assert plan.render not in ("tables", "step")
    text = (plan.render_hand or hand_json_text)(outcome)
    return "hands", (key, hand_flags(outcome), rendered_bytes(text),
                     hand_facts(outcome) if plan.facts else None)


def add_piece(payload: Payload, piece: Piece) -> None:
    """Put an item's :func:`render_piece` into a lane's payload (in the items' order)."""
    if piece is not None:
        getattr(payload, piece[0]).append(piece[1])


def render_outcome(payload: Payload, key: Key, outcome: Outcome, plan: Plan,
                   builder: TableBuilder | None) -> None:
    """Put one replayed item into a lane's payload, as ``plan.render`` says."""
    if builder is None or isinstance(outcome, HistoryParseError):
        add_piece(payload, render_piece(key, outcome, plan))
    elif isinstance(outcome, Stepped):  # the session tables and a step's values (the import)
        payload.stepped.append((key, outcome.value))
        builder.add(outcome.result)
        payload.keys.append(key)
    else:
        builder.add(outcome)
        payload.keys.append(key)


def table_pieces(builder: TableBuilder | None) -> tuple[pd.DataFrame, ...] | None:
    """The session table pieces of a batch (None when it has no hands)."""
    if builder is None or not builder.hand_count:
        return None
    tables = builder.build()
    return tuple(getattr(tables, name) for name in WORKER_TABLES)
