"""Lanes and windows: how both parallel engines (``--jobs N``, :mod:`.processes`, and
``--engine dask``, :mod:`.dask_engine`) cut an audit into the same whole-table chunks.

Nothing here imports Dask or starts a process. What is here:

* **The deal** (:func:`deal`): the parent's one scan of every file
  (:func:`~ofc_audit.engines.groups.scan_entries`), each (file, table) dealt to the lane with
  the fewest entries when it first turns up, and the entries of all files cut into windows.
  A table's hands all go to one lane, in order, so every check across hands is exact.
* **Reading one's own entries** (:func:`read_entry`, :func:`entry_item`): an entry's bytes
  alone, read from its first line on, and the check that they are the one item the scan
  said (or None: the scan and the reader parted, the engine falls back).
* **Break points** (:func:`apply_breaks`): the rejections of other lanes, applied to a
  lane's ``Replayer`` where the local engine meets them (a rejection breaks every chain of
  its file).
* **Rendering** (:class:`Payload`, :func:`render_outcome`): a lane's window as the parent
  merges it, and :func:`write_window`, the merge by (file, line).
* **The fallback** (:class:`Fallback`, :func:`local_items`): the local engine's loop from the
  window where a check failed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import IO, TYPE_CHECKING, Any, Literal

from ..audit.filters import Facts, hand_facts
from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError, read_stream, read_text
from ..history.records import Hand
from ..replay import Replayer
from ..replay.results import HandResult
from .groups import (
    SCAN_BLOCK,
    AuditWriter,
    Key,
    Source,
    hand_flags,
    open_source,
    render_hand_bytes,
    scan_entries,
)

if TYPE_CHECKING:
    import pandas as pd

    from ..session.tables import TableBuilder

__all__ = [
    "WORKER_TABLES",
    "Break",
    "Fallback",
    "Item",
    "Payload",
    "Plan",
    "Render",
    "Row",
    "Sabotage",
    "apply_breaks",
    "as_read",
    "deal",
    "entry_item",
    "item_key",
    "local_items",
    "read_entry",
    "render_outcome",
    "table_pieces",
    "write_window",
]

#: What a lane makes of each hand: audit JSON entries, audit text lines, session table
#: pieces, or (Dask's ``audit --hand ID``) the results of one hand replayed with explanations.
Render = Literal["json", "text", "tables", "explain"]
Sabotage = Literal["deal", "lines"] | None
#: The session tables built by the lanes, in :class:`~ofc_audit.session.tables.SessionTables` order.
WORKER_TABLES = ("hands", "seats", "pairs", "violations", "mismatches")

#: A rejection as the lanes tell each other: (its key, its file's name).
Break = tuple[Key, str]
Item = Hand | HistoryParseError
#: An entry dealt to a lane: (index among all entries, source, start byte, end byte, first
#: line, is a hand).
Row = tuple[int, int, int, int, int, bool]


@dataclass(frozen=True)
class Plan:
    """What every lane is told: the files, the rules, what to render, how many lanes, the
    window size, and how many hands go in a batch of table pieces (``--jobs``). ``hand``: the
    hand id of ``render="explain"``. ``sabotage`` (tests only) makes the checks fail:
    ``deal`` deals entries from the second window on to the lanes five at a time whatever
    their table, ``lines`` tells lane 0 that its entries from the third window on start a
    line later than they do."""

    sources: tuple[Source, ...]
    ruleset: Ruleset
    render: Render
    lanes: int
    window: int
    scan_block: int = SCAN_BLOCK
    sabotage: Sabotage = None
    table_batch: int = 10_000
    lead: int = 2
    facts: bool = False  # send what the --player/--table/--since/--until filters look at
    hand: str | None = None


@dataclass
class Payload:
    """One lane's rendered window: hands (key, flags, text, what the filters look at) or
    the hands' keys, and its rejections; for the session tables, now and then, the table
    pieces of every hand since the last pieces (a batch: ``hand`` numbers them from 0 in the
    lane's order); for ``explain``, the hands with the id asked for."""

    hands: list[tuple[Key, int, str | bytes, Facts | None]] = field(default_factory=list)
    keys: list[Key] = field(default_factory=list)  # tables: the hands' keys, in order
    frames: tuple[pd.DataFrame, ...] | None = None
    rejections: list[tuple[Key, HistoryParseError]] = field(default_factory=list)
    found: list[tuple[Key, HandResult]] = field(default_factory=list)  # explain


class Fallback(Exception):
    """A check failed at the window starting at ``key``: the rest is done locally."""

    def __init__(self, key: Key) -> None:
        super().__init__(key)
        self.key = key


# -- the deal (in the parent) -----------------------------------------------------------------


def deal(plan: Plan) -> Iterator[tuple[int, Key, list[list[Row]]]]:
    """The scan of every file, once, here: each window's first entry and each lane's entries
    in it. Each (file, table) goes to the lane with the fewest entries when it first turns
    up, and stays there (``sabotage="deal"``, tests only: from the second window on, entries
    go to the lanes five at a time whatever their table)."""
    window, lanes = plan.window, plan.lanes
    loads = [0] * lanes
    index = 0
    rows: list[list[Row]] = [[] for _ in range(lanes)]
    start: Key | None = None
    # file -> its tables' lanes (a file named twice is one file: its tables stay in a lane)
    owners: dict[str, dict[str | None, int]] = {}
    for source in plan.sources:
        owner = owners.setdefault(source.file, {})
        number = source.index
        for entry in scan_entries(source, plan.scan_block):
            if start is None:
                start = (number, entry.line)
            if plan.sabotage == "deal" and index >= window:
                lane = index // 5 % lanes
            else:
                lane = owner.get(entry.table, -1)
                if lane < 0:
                    lane = owner[entry.table] = loads.index(min(loads))  # the first least
            loads[lane] += 1
            rows[lane].append((index, number, entry.start, entry.end, entry.line, entry.hand))
            index += 1
            if index % window == 0:
                yield index // window - 1, start, rows
                rows, start = [[] for _ in range(lanes)], None
    if start is not None:
        yield index // window, start, rows


# -- reading a lane's entries -----------------------------------------------------------------


def read_entry(files: dict[int, IO[bytes]], sources: Sequence[Source], row: Row) -> list[Item]:
    """The items the reader yields for one entry, read alone: its own bytes, its lines
    numbered as in its file (``files``: the streams opened so far, by source)."""
    _, source, start, end, line, _hand = row
    stream = files.get(source)
    if stream is None:
        stream = files[source] = open_source(sources[source])
    stream.seek(start)
    text = stream.read(end - start).decode("utf-8", "surrogateescape")
    return list(read_text(text, sources[source].file, line))


def as_read(plan: Plan, lane: int, row: Row) -> Row:
    """The row a lane reads: as dealt, or (``sabotage="lines"``, tests only) lane 0's entries
    from the third window on numbered from a line later than they start (the check,
    :func:`entry_item` against the row as dealt, fails)."""
    if plan.sabotage == "lines" and lane == 0 and row[0] >= 2 * plan.window:
        return (*row[:4], row[4] + 1, row[5])
    return row


def entry_item(items: list[Item], row: Row) -> Item | None:
    """The one item of an entry, or None when the reader did not yield exactly one item
    starting where the scan said (the engine falls back to the local loop)."""
    if len(items) != 1:
        return None
    item = items[0]
    first = item.entry_line if isinstance(item, HistoryParseError) else item.line
    if row[5] and first != row[4]:
        return None
    return item


def item_key(source: int, item: Item) -> Key:
    return (source, item.entry_line if isinstance(item, HistoryParseError) else item.line)


# -- break points -----------------------------------------------------------------------------


def apply_breaks(replayer: Replayer, pending: deque[Break], last: Key | None, key: Key) -> None:
    """Break the chains of the files with a rejection of another lane (``pending``, sorted)
    since this lane's previous item ``last`` and before ``key``, as the local engine breaks
    them in file order. Rejections before a lane's first item break nothing: it holds no
    chain yet."""
    files: set[str] = set()
    while pending and pending[0][0] < key:
        where, file = pending.popleft()
        if last is not None and where > last:
            files.add(file)
    for file in sorted(files):
        replayer.break_chains(file)


# -- rendering --------------------------------------------------------------------------------


def render_outcome(payload: Payload, key: Key, outcome: HandResult | HistoryParseError,
                   plan: Plan, builder: TableBuilder | None) -> None:
    """Put one replayed item into a lane's payload, as ``plan.render`` says."""
    render = plan.render
    if isinstance(outcome, HistoryParseError):
        payload.rejections.append((key, outcome))
    elif builder is not None:
        builder.add(outcome)
        payload.keys.append(key)
    elif render == "explain":
        if outcome.hand_id == plan.hand:
            payload.found.append((key, outcome))
    else:
        assert render != "tables"
        payload.hands.append((key, hand_flags(outcome), render_hand_bytes(outcome, render),
                              hand_facts(outcome) if plan.facts else None))


def table_pieces(builder: TableBuilder | None) -> tuple[pd.DataFrame, ...] | None:
    """The session table pieces of a batch (None when it has no hands)."""
    if builder is None or not builder.hand_count:
        return None
    tables = builder.build()
    return tuple(getattr(tables, name) for name in WORKER_TABLES)


def write_window(writer: AuditWriter, payloads: Any) -> None:
    """Every lane's payload of a window, merged by (file, line), to the audit's output."""
    merged: list[Any] = []
    for payload in payloads:
        merged.extend(payload.hands)
        merged.extend(payload.rejections)
    merged.sort(key=itemgetter(0))
    writer.merged(merged)


# -- the fallback -----------------------------------------------------------------------------


def local_items(
    sources: Sequence[Source], ruleset: Ruleset, start: Key, explain: bool = False
) -> Iterator[tuple[Key, HandResult | HistoryParseError]]:
    """The local engine's loop (``audit.audit_items`` over ``reader.read_hands``), keyed,
    from ``start`` on."""
    replayer = Replayer(ruleset, explain)
    for source in sources:
        with open_source(source) as raw:
            for item in read_stream(raw, source.file):
                if isinstance(item, HistoryParseError):
                    key = (source.index, item.entry_line)
                    replayer.break_chains(item.file)
                    if key >= start:
                        yield key, item
                    continue
                result = replayer.replay(item)
                key = (source.index, item.line)
                if key >= start:
                    yield key, result
