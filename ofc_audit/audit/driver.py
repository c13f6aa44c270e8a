"""The one driver of ``audit`` and ``session``: read the sources, replay every hand, and give
the results back in hand order, whichever runner does the work.

A *runner* (:class:`Runner`) replays the hands: :class:`InProcess` (this process, streaming;
the reference every runner matches), worker processes (``--jobs N``) or a Dask cluster
(:mod:`ofc_audit.engines`, passed in by the command line: nothing here imports them). The
driver builds the :class:`~ofc_audit.audit.work.Plan` of a run, takes the runner's windows
of payloads in order, and when a runner's check fails (or it does not take the run: too
small) finishes the run in this process from where the runner stopped. Its consumers:

* :func:`write_audit`: the audit's output (JSON or text) through the one
  :class:`~ofc_audit.audit.writer.AuditWriter`;
* :func:`session_tables`: the session tables, the runner's table pieces put in hand order;
* :func:`find_hand`: the hands with one id, replayed with explanations (``audit --hand``);
* :func:`stepped_values`: a command's own per-hand step (:data:`~ofc_audit.audit.work.HandStep`,
  run in the lanes right after each replay), its values in hand order (``review``).

A runner also maps a function over items where it computes (:meth:`Runner.each`): the
review values its hands, each on its own, on the runner's workers.

Library code: nothing here prints; an unreadable file raises
:class:`~ofc_audit.common.errors.UnreadableInput` before any work.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from ..common.errors import CannotWrite, UnreadableInput
from ..common.scratch import scratch_folder
from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError, read_hands, read_stream
from ..history.records import Hand
from ..history.sources import (
    STDIN,
    Source,
    history_files,
    open_source,
    real_name,
    source_bases,
)
from ..history.survey import HandIndex
from ..replay import Replayer
from ..replay.results import HandResult
from ..session.memory import release_memory
from .filters import Selection
from .json_doc import hand_json, hand_json_text, player_json
from .progress import CountingReader, Progress
from .work import (
    WORKER_TABLES,
    Fallback,
    HandRenderer,
    HandStep,
    Key,
    Outcome,
    Payload,
    Plan,
    RunStats,
    hand_flags,
    render_outcome,
    replay_hand,
    table_pieces,
)
from .writer import AuditTotals, AuditWriter, rejection_json

if TYPE_CHECKING:
    import pandas as pd

    from ..session.tables import SessionTables

__all__ = [
    "AuditTotals", "InProcess", "Runner", "StdinMode", "audit_items", "audit_paths",
    "find_hand", "hand_index", "hand_json", "hand_json_text", "local_items", "open_sources",
    "paths_index", "player_json", "rejection_json", "session_tables", "stepped_values",
    "write_audit", "write_audit_json",
]

_Item = TypeVar("_Item")
_Value = TypeVar("_Value")

#: How a runner takes standard input: read as it comes (``stream``, this process only),
#: copied to a temporary file first (``file``: workers open files by path), or read whole
#: (``memory``: sent to the workers with the plan).
StdinMode = Literal["stream", "file", "memory"]


class Runner(Protocol):
    """Where the hands are replayed. ``windows`` gives every window's payloads (lane ->
    payload) in order and raises :class:`~ofc_audit.audit.work.Fallback` after the last
    window that passed its checks (at once, from ``(0, 0)``, when it does not take the
    run); ``progress`` is told the bytes read as the windows come. ``each`` gives
    ``function`` of every item, in the items' order, computed where the runner computes
    (``function`` and the items must pickle, and the values must not depend on where they
    are computed). A runner may also have ``start(sources)``, called before the driver
    surveys the files (:func:`write_audit`): one whose workers take long to start starts
    them then."""

    stats: RunStats
    stdin: StdinMode

    def windows(self, plan: Plan, progress: Progress | None) -> Iterator[dict[int, Payload]]:
        ...

    def each(self, function: Callable[[_Item], _Value], items: Sequence[_Item]
             ) -> Iterator[_Value]:
        ...


# -- the loop in this process -----------------------------------------------------------------


def audit_items(
    items: Iterable[Hand | HistoryParseError], ruleset: Ruleset, explain: bool = False
) -> Iterator[HandResult | HistoryParseError]:
    """Replay every hand; a rejection passes through and breaks its table's chain (every
    chain of its file when its table line cannot be read)."""
    replayer = Replayer(ruleset, explain)
    for item in items:
        if isinstance(item, HistoryParseError):
            replayer.reject(item)
            yield item
        else:
            yield replayer.replay(item)


def audit_paths(
    paths: Iterable[str], ruleset: Ruleset, explain: bool = False
) -> Iterator[HandResult | HistoryParseError]:
    """Every hand of the paths replayed, in hand order, in this process, each once (the
    copies :func:`paths_index` leaves out are not read)."""
    return audit_items(paths_index(paths).keep(read_hands(paths)), ruleset, explain)


def paths_index(paths: Iterable[str]) -> HandIndex:
    """The duplicates and conflicts among the hands of ``paths`` (standard input aside)."""
    return HandIndex.of(file for file in history_files(paths) if file != STDIN)


def local_items(
    sources: Sequence[Source], ruleset: Ruleset, start: Key = (0, 0), explain: bool = False,
    progress: Progress | None = None, step: HandStep | None = None,
    index: HandIndex | None = None,
) -> Iterator[tuple[Key, Outcome]]:
    """The loop in this process: every item of the sources replayed in file order, keyed,
    from ``start`` on (the hands before it replayed too: the chains need them), with the
    bytes read told to ``progress``; ``step`` run on each hand after its replay. The entries
    ``index`` leaves out (a duplicate, a conflict's copies) are neither replayed nor
    counted: chains follow the first copies."""
    replayer = Replayer(ruleset, explain)
    base = 0
    for source in sources:
        with contextlib.ExitStack() as stack:
            if source.path is None and source.data is None:
                raw: IO[bytes] = sys.stdin.buffer  # read as it comes, left open
            else:
                raw = stack.enter_context(open_source(source))
            counting = None
            if progress is not None and source.path is not None:
                counting = CountingReader(raw, progress, base)
                raw = stack.enter_context(io.BufferedReader(counting, 1 << 16))
            items = read_stream(raw, source.file)
            for item in items if index is None else index.keep(items):
                if isinstance(item, HistoryParseError):
                    key = (source.index, item.entry_line)
                    replayer.reject(item)
                    if key >= start:
                        yield key, item
                    continue
                key = (source.index, item.line)
                if key >= start:
                    yield key, replay_hand(replayer, item, step)
                else:
                    # Before the start the chains are all that is needed: no step.
                    replayer.replay(item)
            if counting is not None:
                base += counting.count


def _in_process(plan: Plan, start: Key, progress: Progress | None,
                first_hand: int = 0) -> Iterator[dict[int, Payload]]:
    """The windows of the loop in this process, from ``start`` on: one lane; the session
    tables in batches of ``plan.table_batch`` hands or more (at a window's end, and the
    rest at the end), numbered from ``first_hand`` on. (One batch of every hand made the
    process grow by about 1 KB a hand: 2 GB at 1,000,000 hands.)"""
    from ..session.memory import release_memory

    builder = None
    if plan.render == "tables":
        from ..session.tables import TableBuilder

        builder = TableBuilder()
        builder.hand_count = first_hand
    batch_start = first_hand
    payload, count = Payload(), 0
    # From the start, the bytes read are the progress; after a runner's windows (which
    # told the progress up to theirs), the rest counts at the end.
    metered = progress if start == (0, 0) else None
    for key, outcome in local_items(plan.sources, plan.ruleset, start,
                                    plan.render == "explain", metered, plan.step, plan.index):
        render_outcome(payload, key, outcome, plan, builder)
        count += 1
        if count == plan.window:
            if builder is not None and builder.hand_count - batch_start >= plan.table_batch:
                payload.frames, payload.numbered = table_pieces(builder), True
                batch_start = builder.hand_count
                builder = TableBuilder()
                builder.hand_count = batch_start
                release_memory()  # the batch's rows, now its pieces
            yield {0: payload}
            payload, count = Payload(), 0
    if builder is not None:
        payload.frames = table_pieces(builder) if builder.hand_count > batch_start else None
        payload.numbered = True
    if progress is not None and metered is None:
        progress.read(source_bases(plan.sources)[-1])
    yield {0: payload}


class InProcess:
    """This process, streaming, in file order: the reference every runner matches."""

    stdin: StdinMode = "stream"

    def __init__(self, stats: RunStats | None = None) -> None:
        self.stats = stats if stats is not None else RunStats()

    def windows(self, plan: Plan, progress: Progress | None) -> Iterator[dict[int, Payload]]:
        return _in_process(plan, (0, 0), progress)

    def each(self, function: Callable[[_Item], _Value], items: Sequence[_Item]
             ) -> Iterator[_Value]:
        return map(function, items)


# -- the driver -------------------------------------------------------------------------------


@contextlib.contextmanager
def open_sources(paths: Sequence[str], stdin: StdinMode = "stream") -> Iterator[list[Source]]:
    """The files of ``paths`` as the reader reads them (standard input as ``stdin`` says),
    each opened once now: an unreadable one raises
    :class:`~ofc_audit.common.errors.UnreadableInput` before any work."""
    with contextlib.ExitStack() as stack:
        sources: list[Source] = []
        try:
            for file in history_files(paths):
                if file != STDIN:
                    sources.append(Source(len(sources), file,
                                          os.path.abspath(real_name(file))))
                elif stdin == "memory":
                    sources.append(Source(len(sources), STDIN, None, sys.stdin.buffer.read()))
                elif stdin == "file":
                    # In a folder of its own, marked as this process's: one that a command
                    # killed outright leaves (a year of histories piped in) is removed by
                    # the next (scratch_folder).
                    folder = scratch_folder("ofc-audit-stdin-")
                    stack.callback(shutil.rmtree, folder, True)
                    spool = folder / "stdin.txt"
                    _spool_stdin(spool)
                    sources.append(Source(len(sources), STDIN, str(spool)))
                else:
                    sources.append(Source(len(sources), STDIN, None))
            for source in sources:
                if source.path is not None:
                    open_source(source).close()
        except OSError as error:
            raise UnreadableInput.of(error) from None
        yield sources


def _spool_stdin(spool: Path) -> None:
    """Standard input copied to ``spool`` (``--jobs N`` reads a file by path). A copy that
    cannot be written (the temporary folder's disk full) is said as such: it was "cannot
    read input: No space left on device", as if standard input were at fault."""
    source = sys.stdin.buffer
    try:
        with open(spool, "wb") as copy:
            while True:
                try:
                    chunk = source.read(1 << 20)
                except OSError as error:
                    raise UnreadableInput.of(error, "standard input") from None
                if not chunk:
                    break
                copy.write(chunk)
    except OSError as error:
        raise CannotWrite(
            f"cannot keep a copy of standard input in the temporary folder "
            f"{spool.parent.parent}: "
            f"{error.strerror or error} (--jobs N reads it from there; TMPDIR chooses "
            f"the folder, --jobs 1 needs none)") from None


def _drive(plan: Plan, runner: Runner, progress: Progress | None,
           hands_so_far: Callable[[], int] | None = None) -> Iterator[dict[int, Payload]]:
    """Every window's payloads in order: the runner's, then (after a failed check, or when
    it does not take the run) this process's from where it stopped. ``hands_so_far``: a
    callable giving the hands numbered so far (the session tables go on from there)."""
    stats = runner.stats
    try:
        for payloads in runner.windows(plan, progress):
            stats.windows += 1
            yield payloads
        return
    except Fallback as fallback:
        start = fallback.key
        if start != (0, 0) or not isinstance(runner, InProcess):
            stats.fallback = start
    yield from _in_process(plan, start, progress,
                           hands_so_far() if hands_so_far is not None else 0)


def _unreadable(run: Iterator[dict[int, Payload]]) -> Iterator[dict[int, Payload]]:
    try:
        yield from run
    except OSError as error:
        raise UnreadableInput.of(error) from None


def hand_index(sources: Sequence[Source]) -> HandIndex:
    """Every hand of the sources once: the duplicates and conflicts among their hands
    (standard input is read once, as it comes, and is not surveyed)."""
    return HandIndex.of(source.file for source in sources if source.file != STDIN)


def write_audit(
    sources: Sequence[Source], ruleset: Ruleset, out: IO[str], render: Literal["json", "text"],
    runner: Runner, *, render_hand: HandRenderer | None = None,
    selection: Selection | None = None, progress: Progress | None = None,
) -> AuditWriter:
    """The audit of ``sources`` written to ``out`` as ``ofc-audit audit`` prints it (JSON, or
    text with ``render_hand``), hands in file order; returns the writer (its totals, the
    hands read). ``selection``: the filters (every hand is still replayed)."""
    start = getattr(runner, "start", None)
    if start is not None:
        start(sources)  # its workers start while the files are surveyed
    index = hand_index(sources)
    writer = AuditWriter(out, render, selection, progress, index)
    plan = Plan(tuple(sources), ruleset, render,
                render_hand=render_hand if render == "text" else hand_json_text,
                facts=selection is not None, index=index)
    for payloads in _unreadable(_drive(plan, runner, progress)):
        merged: list[Any] = []
        for payload in payloads.values():
            merged.extend(payload.hands)
            merged.extend(payload.rejections)
        merged.sort(key=_first)
        writer.merged(merged)
    writer.close()
    return writer


def write_audit_json(items: Iterable[HandResult | HistoryParseError],
                     out: IO[str], index: HandIndex | None = None) -> AuditTotals:
    """The audit's JSON document of items already replayed in order (tests, benchmarks),
    through the one writer, with the duplicates and conflicts of ``index``; returns the
    totals."""
    writer = AuditWriter(out, "json", index=index)
    for item in items:
        if isinstance(item, HistoryParseError):
            writer.rejection(item)
        else:
            writer.hand(hand_flags(item), hand_json_text(item))
    return writer.close()


def _first(entry: tuple[Any, ...]) -> Any:
    return entry[0]


def find_hand(sources: Sequence[Source], ruleset: Ruleset, hand_id: str,
              runner: Runner, index: HandIndex | None = None) -> list[HandResult]:
    """The hands with id ``hand_id``, each replayed with explanations after every hand
    before it, in file order, each once: the copies ``index`` leaves out (a duplicate, a
    conflict's) are not read (:func:`hand_index` of the sources when None)."""
    found: list[tuple[Key, HandResult]] = []
    plan = Plan(tuple(sources), ruleset, "explain", hand=hand_id,
                index=hand_index(sources) if index is None else index)
    for payloads in _unreadable(_drive(plan, runner, None)):
        for payload in payloads.values():
            found.extend(payload.found)
    return [result for _, result in sorted(found, key=_first)]


def stepped_values(
    sources: Sequence[Source], ruleset: Ruleset, step: HandStep, runner: Runner, *,
    progress: Progress | None = None, index: HandIndex | None = None,
) -> Iterator[Any]:
    """Every hand of ``sources`` replayed by ``runner`` and ``step`` run on it in the lane
    (right after its replay, with its table's state before it): the step's values, and each
    rejection (a :class:`~ofc_audit.history.reader.HistoryParseError`) in its place, in hand
    order; ``progress`` is told the bytes read. ``index``: the copies to leave out
    (:func:`hand_index`), each hand read once."""
    plan = Plan(tuple(sources), ruleset, "step", step=step, index=index)
    for payloads in _unreadable(_drive(plan, runner, progress)):
        merged: list[tuple[Key, Any]] = []
        for payload in payloads.values():
            merged.extend(payload.stepped)
            merged.extend(payload.rejections)
        merged.sort(key=_first)
        for _, value in merged:
            yield value


def session_tables(
    sources: Sequence[Source], ruleset: Ruleset, runner: Runner, *,
    progress: Progress | None = None, rejections: list[HistoryParseError] | None = None,
    on_rejection: Callable[[HistoryParseError], None] | None = None,
    index: HandIndex | None = None,
) -> SessionTables:
    """Every session table of ``sources`` (``ofc-audit session``'s), rows in hand order;
    each rejection is passed to ``on_rejection`` as it comes, in file order, and added to
    ``rejections``. ``index``: the copies to leave out (:func:`hand_index`), each hand
    counted once."""
    from ..session.tables import SessionTables, TableBuilder

    parts: list[list[pd.DataFrame]] = [[] for _ in WORKER_TABLES]

    def keep(table: int, frame: pd.DataFrame) -> None:
        parts[table].append(frame)

    _, rejected = session_pieces(sources, ruleset, runner, keep, progress=progress,
                                 rejections=rejections, on_rejection=on_rejection,
                                 index=index)
    empty = TableBuilder().build()
    built: dict[str, pd.DataFrame] = {}
    for t, name in enumerate(WORKER_TABLES):
        kept_parts = [frame for frame in parts[t] if not frame.empty]
        parts[t] = []
        if len(kept_parts) == 1:
            built[name] = kept_parts[0]  # one lane's rows, in its (the hands') order
        else:
            built[name] = _in_hand_order(kept_parts) if kept_parts else getattr(empty, name)
    release_memory()  # the pieces, joined into the tables
    return SessionTables(**built, rejected=rejected)


def session_pieces(
    sources: Sequence[Source], ruleset: Ruleset, runner: Runner,
    sink: Callable[[int, pd.DataFrame], None], *,
    progress: Progress | None = None, rejections: list[HistoryParseError] | None = None,
    on_rejection: Callable[[HistoryParseError], None] | None = None,
    index: HandIndex | None = None, step: HandStep | None = None,
    on_stepped: Callable[[list[tuple[Key, Any]]], None] | None = None,
) -> tuple[int, pd.DataFrame]:
    """The session tables of ``sources`` a piece at a time: ``sink(t, piece)`` gets each
    piece of the table ``WORKER_TABLES[t]`` as it comes, its ``hand`` the session's numbers
    (pieces of different lanes interleave; a hand's rows are in one piece, in order).
    Returns the number of hands and the rejected table; rejections and ``index`` as
    :func:`session_tables`. With ``step`` (the import), ``on_stepped`` gets the step's
    values of each window's hands in hand order (key, value), before the pieces of those
    hands reach ``sink``: the n-th value is that of the hand numbered n."""
    import numpy as np

    from ..session.tables import TableBuilder

    pending: dict[int, list[np.ndarray[Any, Any]]] = {}  # lane: numbers of unbatched hands
    rejected = TableBuilder()
    hands = 0

    def tick(before: int, after: int) -> None:
        if progress is not None:
            every = progress.every
            for n in range(before - before % every + every, after + 1, every):
                progress.tick(n)

    def numbered() -> int:  # where this process goes on numbering after a fallback
        return hands

    plan = Plan(tuple(sources), ruleset, "tables", index=index, step=step)
    for payloads in _unreadable(_drive(plan, runner, progress, numbered)):
        if on_stepped is not None:
            on_stepped(sorted((kv for p in payloads.values() for kv in p.stepped),
                              key=_first))
        order = sorted((key, lane, i) for lane, p in payloads.items()
                       for i, key in enumerate(p.keys))
        numbers: dict[int, np.ndarray[Any, Any]] = {
            lane: np.empty(len(p.keys), dtype=np.int64) for lane, p in payloads.items()}
        before = hands
        for _, lane, i in order:
            numbers[lane][i] = hands
            hands += 1
        for _, error in sorted((kv for p in payloads.values() for kv in p.rejections),
                               key=_first):
            rejected.reject(error)
            if rejections is not None:
                rejections.append(error)
            if on_rejection is not None:
                on_rejection(error)
        for lane, p in payloads.items():
            if p.numbered:
                pending.pop(lane, None)  # its hands are numbered in its pieces already
                for t, frame in enumerate(p.frames or ()):
                    sink(t, frame)
                continue
            if p.keys:
                pending.setdefault(lane, []).append(numbers[lane])
            if p.frames is None:
                continue
            # A batch: every hand of this lane since its last batch, in its order.
            arrays = pending.pop(lane, [])
            batch = np.concatenate(arrays) if arrays else np.empty(0, dtype=np.int64)
            for t, frame in enumerate(p.frames):
                if frame.empty:
                    continue
                # The frame came pickled from the lane: this process's own, so its numbers
                # are replaced in place (a copy would double it).
                frame["hand"] = batch[frame["hand"].to_numpy()]
                sink(t, frame)
        tick(before, hands)
    if progress is not None:
        progress.done()
    return hands, rejected.build().rejected


def _in_hand_order(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One table of the batches' pieces, rows in hand order. Batches of different lanes
    interleave; the order is stable, so a hand's rows (all from one lane) keep theirs.

    Column by column, each dropped from the pieces once joined and put in order: a
    ``concat`` and then a ``sort_values`` would hold the pieces, the joined table and the
    sorted one at the same time (three times a table of millions of rows)."""
    import numpy as np
    import pandas as pd

    from ..session.tables import join_labels

    hands = np.concatenate([frame["hand"].to_numpy() for frame in frames])
    order = np.argsort(hands, kind="stable")
    columns: dict[str, Any] = {}
    for column in list(frames[0].columns):
        dtype = frames[0][column].dtype
        if isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered:
            # Label columns: each piece has its own categories (a concat would give objects).
            joined = pd.Series(join_labels([frame[column].array for frame in frames]))
        else:
            joined = pd.concat([frame[column] for frame in frames], ignore_index=True)
        for frame in frames:
            del frame[column]
        columns[column] = joined.take(order).array
        del joined
    return pd.DataFrame(columns, copy=False)

