"""Worker processes on this machine: ``ofc-audit audit|session PATH... --jobs N``.

The results are those of ``--jobs 1`` (the local engine), byte for byte and row for row, in
file order, and they stream: the output is written window by window while the workers go
on, and memory stays flat in the size of the files (``session`` keeps its tables, which are
its result).

How the work is split without changing a single result
------------------------------------------------------
The local engine replays the hands in file order with one :class:`~ofc_audit.replay.Replayer`
whose state is keyed by (file, table name); a rejected hand breaks every chain of its file.
Hands of different tables never see each other. The split uses the machinery of
:mod:`ofc_audit.engines.groups` (the Dask engine's):

1. **Lanes.** There is one lane per worker process (``N``). Every lane runs the cheap scan of
   every file itself (:func:`~ofc_audit.engines.groups.scan_entries`: where the reader starts
   each entry, and the table name on its table line) and deals each (file, table) to a lane
   when it first turns up: to the lane with the fewest entries so far. The scan and the deal
   are deterministic, so all lanes agree on who owns what without talking. A lane reads its
   own entries (every other line is an empty line, so line numbers and texts are those of the
   whole file: :func:`~ofc_audit.engines.groups.kept`) with one reader per file, and replays
   them in file order with one ``Replayer``; its reader and its replayer live as long as the
   run, so nothing is read twice.
2. **Windows.** The entries of all the files, in order, are cut into windows of ``window``
   entries. A lane *parses* ahead (at least the window after the one it replays) and reports
   each window it has parsed: its rejections and the table names it saw for the first time.
3. **Break points.** A lane replays window ``k`` only once the parent has sent the break
   points of window ``k``: every rejection of every lane in it (the parent sends them when all
   lanes have parsed the window). Before a hand, the lane breaks the chains of each file that
   had a rejection since its previous item, exactly where the local engine would have. Parsing
   does not depend on replaying, so nothing is ever run twice.
4. **Output.** Each lane renders its hands of a window in the worker (audit JSON entries,
   audit text lines, or the session's table pieces of :class:`~ofc_audit.tables.TableBuilder`)
   and sends them to the parent, which merges the lanes by (file, line) and writes the window.
   The parent sends the break points of a window only while fewer than ``ahead`` windows wait
   to be written, which bounds what is in flight.
5. **Checks.** Each lane checks that every item its reader yields is the next entry the scan
   gave it (:class:`~ofc_audit.engines.groups.EntryMatcher`), and the parent that no table
   name (as parsed) turns up in two lanes. If a check fails at window ``k`` (a scan that does
   not split where the reader does), the windows before ``k`` are written and the rest is
   done here by the local engine's loop, which reads from the start and writes from window
   ``k`` on.

Worker processes are started with ``forkserver`` (``spawn`` where there is none); nothing
relies on memory inherited by a fork.
"""

from __future__ import annotations

import contextlib
import gc
import io
import multiprocessing
import os
import pickle
import queue
import shutil
import signal
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from ..filters import Facts, Selection, hand_facts
from ..progress import Progress
from ..reader import HistoryParseError, read_stream
from ..records import Hand
from ..replay import Replayer
from ..results import HandResult
from ..rules import Ruleset
from . import EngineError
from .groups import (
    SCAN_BLOCK,
    AuditWriter,
    Chunks,
    EntryMatcher,
    Key,
    Source,
    expand_paths,
    hand_flags,
    kept,
    open_source,
    render_hand,
    scan_entries,
)

if TYPE_CHECKING:
    import pandas as pd

    from ..inputs import Scope
    from ..report_view import ReportOptions
    from ..tables import SessionTables

__all__ = [
    "AHEAD",
    "MIN_BYTES",
    "WINDOW",
    "Plan",
    "audit_document",
    "run_audit",
    "run_session",
    "session_tables",
]

#: Entries (hands and rejections, of all lanes) per window.
WINDOW = 1000
#: Windows the lanes may be ahead of the output.
AHEAD = 3
#: Inputs smaller than this are audited in this process (starting workers costs more).
MIN_BYTES = 512 * 1024
#: Hands a lane puts in one batch of session table pieces (a DataFrame build costs ~35 ms
#: however few its rows: one per window would cost a tenth of the run).
TABLE_BATCH = 10_000
#: The workers' garbage collector thresholds (see :func:`_init_worker`).
GC_THRESHOLD = (50_000, 20, 100)
#: Seconds between checks that the workers are alive while waiting for them.
POLL = 1.0

Render = Literal["json", "text", "tables"]
Sabotage = Literal["deal", "lines"] | None
#: The session tables built in the workers, in :class:`~ofc_audit.tables.SessionTables` order.
WORKER_TABLES = ("hands", "seats", "pairs", "violations", "mismatches")


@dataclass(frozen=True)
class Plan:
    """What every lane is told: the files, the rules, what to render, how many lanes, the
    window size, and how many hands go in a batch of table pieces. ``sabotage`` (tests
    only) makes the checks fail: ``deal`` deals entries from the second window on to the
    lanes five at a time whatever their table, ``lines`` tells lane 0 that its entries from
    the third window on start a line later than they do."""

    sources: tuple[Source, ...]
    ruleset: Ruleset
    render: Render
    lanes: int
    window: int = WINDOW
    scan_block: int = SCAN_BLOCK
    sabotage: Sabotage = None
    table_batch: int = TABLE_BATCH
    facts: bool = False  # send what the --player/--table/--since/--until filters look at


# -- messages ---------------------------------------------------------------------------------
# lane -> parent:
#   ("parsed", lane, window, start key, [(key, file) of rejections], [(file, table) new], ok)
#   ("end", lane, number of windows)
#   ("out", lane, window, payload)
#   ("error", lane, exception)
# parent -> lane:
#   ("breaks", window, [(key, file) of every rejection in the window, sorted])
#   ("stop",)

Break = tuple[Key, str]
Item = Hand | HistoryParseError


@dataclass
class _Payload:
    """One lane's rendered window: hands (key, flags, text, what the filters look at) or
    the hands' keys, and its
    rejections; for the session tables, now and then, the table pieces of every hand since
    the last pieces (a batch: ``hand`` numbers them from 0 in the lane's order)."""

    hands: list[tuple[Key, int, str, Facts | None]] = field(default_factory=list)
    keys: list[Key] = field(default_factory=list)  # tables: the hands' keys, in order
    frames: tuple[pd.DataFrame, ...] | None = None
    rejections: list[tuple[Key, HistoryParseError]] = field(default_factory=list)


# -- the lane (in a worker process) -----------------------------------------------------------

_INBOXES: list[Any] = []
_OUTBOX: Any = None


def _init_worker(inboxes: list[Any], outbox: Any) -> None:
    global _INBOXES, _OUTBOX
    _INBOXES, _OUTBOX = inboxes, outbox
    # The parent stops the lanes itself (Ctrl-C reaches the whole process group).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A lane holds a window or two of parsed hands, which the cyclic garbage collector would
    # walk again and again (a tenth of the run): the imported modules are set aside for
    # good, and young objects are collected less often. The audit makes no reference cycles
    # to speak of; reference counting frees its objects.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


class _Stopped(Exception):
    pass


class _Shifted:
    """Tests only: tells a matcher that entries from the third window on start a line later
    than they do (a scan that disagrees with the reader)."""

    def __init__(self, matcher: EntryMatcher, window: int) -> None:
        self.matcher = matcher
        self.window = window

    def append(self, entry: tuple[int, bool, int]) -> None:
        late = self.matcher._tags[0] >= 2 * self.window
        self.matcher.append((entry[0] + late, entry[1], entry[2]))


class _Lane:
    def __init__(self, plan: Plan, lane: int, inbox: Any, outbox: Any) -> None:
        self.plan = plan
        self.lane = lane
        self.inbox = inbox
        self.outbox = outbox
        self.window = plan.window
        # the scan and the deal (the same in every lane)
        self.scanned = 0  # entries scanned, all lanes'
        self.loads = [0] * plan.lanes
        self.owner: dict[tuple[str, str | None], int] = {}
        self.starts: dict[int, Key] = {}  # window -> its first entry's key, until reported
        # parsing
        self.frontier = 0  # entries before this one are parsed (own) or not this lane's
        self.reported = 0  # windows reported parsed
        self.ended = False
        self.windows: int | None = None
        self.items: dict[int, list[tuple[Key, Item]]] = {}
        self.rejections: dict[int, list[Break]] = {}
        self.new_tables: dict[int, list[tuple[str, str]]] = {}
        self.seen: set[tuple[str, str]] = set()
        # replaying
        self.replayer = Replayer(plan.ruleset)
        self.breaks: deque[Break] = deque()
        self.breaks_known = 0  # windows whose break points came
        self.last: Key | None = None
        self.waited = 0.0  # seconds spent waiting for break points
        self.builder: Any = None  # tables: a TableBuilder of the batch being filled

    # parsing

    def _deal(self, file: str, table: str | None) -> int:
        if self.plan.sabotage == "deal" and self.scanned >= self.window:
            lane = self.scanned // 5 % self.plan.lanes
        else:
            lane = self.owner.get((file, table), -1)
            if lane < 0:
                loads = self.loads
                lane = min(range(len(loads)), key=lambda i: (loads[i], i))
                self.owner[(file, table)] = lane
        self.loads[lane] += 1
        return lane

    def _rows(self, source: Source, matcher: EntryMatcher) -> Iterator[tuple[int, int, int, int]]:
        """This lane's entries of one file, as :func:`kept` takes them; scans (and deals)
        every entry on the way."""
        window = self.window
        for entry in scan_entries(source, self.plan.scan_block):
            index = self.scanned
            if index % window == 0:
                self.starts[index // window] = (source.index, entry.line)
            owner = self._deal(source.file, entry.table)
            self.scanned = index + 1
            if owner == self.lane:
                matcher.tag(index)
                yield entry.start, entry.end, entry.line, int(entry.hand)

    def _parse(self) -> Iterator[None]:
        """Reads this lane's items in file order into their windows; yields after each item
        and at the end of each file, with ``frontier`` moved on. Stops early when the reader
        does not yield the entries the scan found (``ended``, with the failure reported)."""
        window = self.window
        shift = 1 if self.plan.sabotage == "lines" and self.lane == 0 else 0
        for source in self.plan.sources:
            matcher = EntryMatcher()
            sink: Any = matcher
            if shift:
                sink = _Shifted(matcher, window)
            misplaced: list[int] = []  # entries not on the line the scan said
            with open_source(source) as raw:
                stream = io.BufferedReader(
                    Chunks(kept(raw, self._rows(source, matcher), sink, misplaced)))
                for item in read_stream(stream, source.file):
                    error = isinstance(item, HistoryParseError)
                    line = item.entry_line if isinstance(item, HistoryParseError) else item.line
                    index = matcher.match(line)
                    if index is None or misplaced:
                        self._fail()
                        return
                    self.frontier = index
                    w = index // window
                    key = (source.index, line)
                    self.items.setdefault(w, []).append((key, item))
                    if error:
                        self.rejections.setdefault(w, []).append((key, source.file))
                    elif isinstance(item, Hand):
                        table = (source.file, item.table.name)
                        if table not in self.seen:
                            self.seen.add(table)
                            self.new_tables.setdefault(w, []).append(table)
                    yield
            if matcher.pending or misplaced:
                self._fail()
                return
            self.frontier = self.scanned
            yield
        self.ended = True
        self.windows = -(-self.scanned // window)

    def _fail(self) -> None:
        """Report the window where the reader and the scan parted (and all before it)."""
        failed = self.frontier // self.window
        self._report(failed)
        self.outbox.put(("parsed", self.lane, failed, self.starts.get(failed), [], [], False))
        self.ended = True

    def _report(self, upto: int) -> None:
        while self.reported < upto:
            w = self.reported
            self.outbox.put(("parsed", self.lane, w, self.starts.pop(w), self.rejections.pop(
                w, []), self.new_tables.pop(w, []), True))
            self.reported += 1

    # replaying

    def _wait_breaks(self, window: int) -> None:
        while self.breaks_known <= window:
            began = time.perf_counter()
            message = self.inbox.get()
            self.waited += time.perf_counter() - began
            if message[0] == "stop":
                raise _Stopped
            if message[0] == "flush":  # a check failed: the pieces of the windows before it
                self.outbox.put(("flushed", self.lane, self._flush()))
                continue
            _, w, breaks = message
            assert w == self.breaks_known
            self.breaks.extend(breaks)
            self.breaks_known += 1

    def _replay(self, window: int) -> _Payload:
        render = self.plan.render
        replayer = self.replayer
        breaks = self.breaks
        payload = _Payload()
        builder = None
        if render == "tables":
            if self.builder is None:
                from ..tables import TableBuilder

                self.builder = TableBuilder()
            builder = self.builder
        for key, item in self.items.pop(window, []):
            # The rejections of other lanes since this lane's previous item break chains
            # here, as they did in the local engine (a lane's own come as its items).
            files: set[str] = set()
            while breaks and breaks[0][0] < key:
                where, file = breaks.popleft()
                if self.last is not None and where > self.last:
                    files.add(file)
            for file in sorted(files):
                replayer.break_chains(file)
            self.last = key
            if isinstance(item, HistoryParseError):
                replayer.break_chains(item.file)
                payload.rejections.append((key, item))
                continue
            result = replayer.replay(item)
            if builder is not None:
                builder.add(result)
                payload.keys.append(key)
            else:
                assert render != "tables"
                payload.hands.append((key, hand_flags(result), render_hand(result, render),
                                      hand_facts(result) if self.plan.facts else None))
        last = self.windows is not None and window == self.windows - 1
        if builder is not None and (builder.hand_count >= self.plan.table_batch or last):
            payload.frames = self._flush()
        return payload

    def _flush(self) -> tuple[pd.DataFrame, ...] | None:
        """The table pieces of the batch (None when it has no hands); a new batch begins."""
        builder, self.builder = self.builder, None
        if builder is None or not builder.hand_count:
            return None
        tables = builder.build()
        return tuple(getattr(tables, name) for name in WORKER_TABLES)

    def run(self) -> None:
        parse = self._parse()
        end_sent = False
        k = 0
        while True:
            # Parse ahead: the window after the one to replay is reported before it is.
            while not self.ended and self.reported < k + 2:
                next(parse, None)
                if not self.ended:
                    self._report(self.frontier // self.window)
            if self.windows is not None and not end_sent:
                self._report(self.windows)
                self.outbox.put(("end", self.lane, self.windows))
                end_sent = True
            if self.windows is not None and k >= self.windows:
                return
            self._wait_breaks(k)
            self.outbox.put(("out", self.lane, k, self._replay(k)))
            k += 1


def _lane_main(plan: Plan, lane: int) -> tuple[float, float]:
    """Task: one lane, from the first entry to the last (or until the parent stops it);
    returns the CPU seconds of the lane and the seconds it waited for break points."""
    outbox = _OUTBOX
    began = time.process_time()
    runner: _Lane | None = None
    try:
        runner = _Lane(plan, lane, _INBOXES[lane], outbox)
        runner.run()
    except _Stopped:
        outbox.cancel_join_thread()  # the parent reads no more
    except BaseException as error:  # noqa: BLE001 - every failure goes to the parent
        try:
            pickle.dumps(error)  # the queue pickles later, in a thread that cannot tell us
        except Exception:
            error = EngineError(f"a worker process failed: {type(error).__name__}: {error}")
        outbox.put(("error", lane, error))
    return time.process_time() - began, runner.waited if runner is not None else 0.0


# -- the parent -------------------------------------------------------------------------------


class _Fallback(Exception):
    """A check failed at the window starting at ``key``: the rest is done locally."""

    def __init__(self, key: Key) -> None:
        super().__init__(key)
        self.key = key


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Workers fork from a server that has imported the engine once (when this process
        # starts the server: it is shared by everything here that uses forkserver).
        context.set_forkserver_preload([__name__])
        return context
    return multiprocessing.get_context("spawn")


@contextlib.contextmanager
def _workers(lanes: int) -> Iterator[tuple[ProcessPoolExecutor, list[Any], Any]]:
    context = _context()
    inboxes = [context.Queue() for _ in range(lanes)]
    outbox = context.Queue()
    executor = ProcessPoolExecutor(lanes, mp_context=context, initializer=_init_worker,
                                   initargs=(inboxes, outbox))
    try:
        yield executor, inboxes, outbox
    finally:
        for inbox in inboxes:
            inbox.put(("stop",))
            inbox.cancel_join_thread()
        executor.shutdown(wait=False, cancel_futures=True)
        # Read what the lanes still send, so that none blocks flushing its queue at exit.
        processes = list((getattr(executor, "_processes", None) or {}).values())
        while any(p.is_alive() for p in processes):
            with contextlib.suppress(queue.Empty):
                outbox.get(timeout=0.05)
        executor.shutdown(wait=True)
        outbox.cancel_join_thread()


def _windows(
    plan: Plan, ahead: int, stats: RunStats | None = None
) -> Iterator[dict[int, _Payload]]:
    """Every window's payloads (lane -> payload), in order; raises :class:`_Fallback` after
    the last window that passed its checks."""
    lanes = plan.lanes
    with _workers(lanes) as (executor, inboxes, outbox):
        futures: list[Future[tuple[float, float]]] = [executor.submit(_lane_main, plan, lane)
                                       for lane in range(lanes)]
        parsed = [0] * lanes
        reports: dict[int, list[tuple[Any, ...]]] = {}
        outs: dict[int, dict[int, _Payload]] = {}
        owners: dict[tuple[str, str], int] = {}
        windows: int | None = None
        sent = written = 0
        failed: Key | None = None
        failed_at: int | None = None
        while True:
            # Break points of every window all lanes have parsed, while the output keeps up.
            while (failed is None and sent < written + ahead and all(p > sent for p in parsed)
                   and (windows is None or sent < windows)):
                window_reports = reports.pop(sent)
                if len({r[3] for r in window_reports if r[3] is not None}) > 1:
                    raise EngineError("a file changed while it was being read")
                ok = all(r[6] for r in window_reports)
                for r in window_reports:
                    for table in r[5]:
                        if owners.setdefault(table, r[1]) != r[1]:
                            ok = False
                if not ok:
                    keys = [r[3] for r in window_reports if r[3] is not None]
                    failed, failed_at = (keys[0] if keys else (len(plan.sources), 0)), sent
                    break
                breaks = sorted(b for r in window_reports for b in r[4])
                for inbox in inboxes:
                    inbox.put(("breaks", sent, breaks))
                sent += 1
            if written in outs and len(outs[written]) == lanes:
                yield outs.pop(written)
                written += 1
                continue
            if failed is not None and written == failed_at:
                # The lanes' table pieces not sent yet, then the rest is done here.
                for inbox in inboxes:
                    inbox.put(("flush",))
                flushed: dict[int, _Payload] = {}
                while len(flushed) < lanes:
                    message = _receive(outbox, futures)
                    if message[0] == "flushed":
                        flushed[message[1]] = _Payload(frames=message[2])
                    elif message[0] == "error":
                        raise message[2]
                yield flushed
                raise _Fallback(failed)
            if windows is not None and written == windows:
                if stats is not None:
                    for future in futures:
                        cpu, waited = future.result()
                        stats.lane_cpu.append(cpu)
                        stats.lane_waited.append(waited)
                return
            message = _receive(outbox, futures)
            kind, lane = message[0], message[1]
            if kind == "parsed":
                assert message[2] == parsed[lane]
                reports.setdefault(message[2], []).append(message)
                parsed[lane] += 1
            elif kind == "out":
                outs.setdefault(message[2], {})[lane] = message[3]
            elif kind == "end":
                if windows not in (None, message[2]):
                    raise EngineError("a file changed while it was being read")
                windows = message[2]
            elif kind == "error":
                raise message[2]


def _receive(outbox: Any, futures: Sequence[Future[Any]]) -> tuple[Any, ...]:
    """The next message of a lane; an error if a worker died, or if every lane has returned
    and nothing more comes (a message was lost)."""
    idle = 0
    while True:
        try:
            message: tuple[Any, ...] = outbox.get(timeout=POLL)
            return message
        except queue.Empty:
            for future in futures:
                if future.done() and future.exception() is not None:
                    raise EngineError(
                        f"a worker process failed: {future.exception()}") from None
            idle = idle + 1 if all(future.done() for future in futures) else 0
            if idle > 2:
                raise EngineError("the worker processes stopped before the end") from None


def _local_items(
    sources: Sequence[Source], ruleset: Ruleset, start: Key
) -> Iterator[tuple[Key, HandResult | HistoryParseError]]:
    """The local engine's loop (``audit.audit_items`` over ``reader.read_hands``), keyed,
    from ``start`` on."""
    replayer = Replayer(ruleset)
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


@dataclass
class RunStats:
    """How a run went: lanes, windows written by the lanes, the key where the local engine
    took over after a failed check (None: it did not), and what each lane cost."""

    lanes: int = 0
    windows: int = 0
    fallback: Key | None = None
    lane_cpu: list[float] = field(default_factory=list)  # CPU seconds of each lane
    lane_waited: list[float] = field(default_factory=list)  # seconds each waited for others


# -- sources ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _sources(paths: Sequence[str]) -> Iterator[list[Source]]:
    """The files of ``paths`` as the reader reads them; standard input is copied to a
    temporary file first (the workers open files by path)."""
    with contextlib.ExitStack() as stack:
        sources: list[Source] = []
        for path in paths:
            if str(path) == "-":
                spool = stack.enter_context(tempfile.NamedTemporaryFile(prefix="ofc-stdin-"))
                shutil.copyfileobj(sys.stdin.buffer, spool)
                spool.flush()
                sources.append(Source(len(sources), "-", spool.name))
            else:
                for source in expand_paths([path]):
                    sources.append(Source(len(sources), source.file, source.path))
        for source in sources:
            open_source(source).close()  # an unreadable file fails now, before any work
        yield sources


def _defaults(
    window: int | None, ahead: int | None, min_bytes: int | None
) -> tuple[int, int, int]:
    """The module's settings where none are given (read when called: tests change them)."""
    return (WINDOW if window is None else window, AHEAD if ahead is None else ahead,
            MIN_BYTES if min_bytes is None else min_bytes)


def _size(sources: Sequence[Source]) -> int:
    total = 0
    for source in sources:
        with contextlib.suppress(OSError):  # opening it reports the error, naming the file
            total += os.path.getsize(source.path) if source.path else len(source.data or b"")
    return total


# -- audit ------------------------------------------------------------------------------------


def write_audit(
    sources: Sequence[Source], ruleset: Ruleset, out: IO[str], render: Literal["json", "text"],
    jobs: int, *, window: int | None = None, ahead: int | None = None,
    min_bytes: int | None = None, sabotage: Sabotage = None, stats: RunStats | None = None,
    selection: Selection | None = None, progress: Progress | None = None,
) -> AuditWriter:
    """Writes the audit of ``sources`` to ``out`` as ``ofc-audit audit`` prints it (JSON or
    text), with ``jobs`` worker processes; returns the writer (its ``totals``). ``window``,
    ``ahead`` and ``min_bytes`` default to :data:`WINDOW`, :data:`AHEAD`, :data:`MIN_BYTES`."""
    stats = stats if stats is not None else RunStats()
    window, ahead, min_bytes = _defaults(window, ahead, min_bytes)
    writer = AuditWriter(out, render, selection, progress)
    start: Key = (0, 0)
    if jobs > 1 and sources and _size(sources) >= min_bytes:
        plan = Plan(tuple(sources), ruleset, render, jobs, window, sabotage=sabotage,
                    facts=selection is not None)
        stats.lanes = jobs
        try:
            for payloads in _windows(plan, ahead, stats):
                stats.windows += 1
                _write_window(writer, payloads.values())
            writer.close()
            return writer
        except _Fallback as fallback:
            start = stats.fallback = fallback.key
    for key, item in _local_items(sources, ruleset, start):
        if isinstance(item, HistoryParseError):
            writer.rejection(item)
        elif writer.wanted(hand_facts(item)):
            writer.hand(hand_flags(item), render_hand(item, render), checked=True)
        del key
    writer.close()
    return writer


def _write_window(writer: AuditWriter, payloads: Any) -> None:
    merged: list[Any] = []
    for payload in payloads:
        merged.extend(payload.hands)
        merged.extend(payload.rejections)
    merged.sort(key=lambda entry: entry[0])
    for entry in merged:
        if len(entry) == 2:
            writer.rejection(entry[1])
        else:
            writer.hand(entry[1], entry[2], entry[3])


def audit_document(
    paths: Sequence[str], ruleset: Ruleset, jobs: int = 2, **options: Any
) -> str:
    """The ``ofc-audit audit --json`` document of the files (as ``local.audit_document``)."""
    out = io.StringIO()
    with _sources(paths) as sources:
        write_audit(sources, ruleset, out, "json", jobs, **options)
    return out.getvalue()


def _error(stderr: IO[str], message: str) -> int:
    stderr.write(f"ofc-audit: error: {message}\n")
    return 2


def run_audit(
    paths: Sequence[str], ruleset: Ruleset, jobs: int, *, as_json: bool = False,
    stdout: IO[str] | None = None, stderr: IO[str] | None = None,
    selection: Selection | None = None,
) -> int:
    """``ofc-audit audit --jobs N``: prints what the local engine prints; returns the exit
    status of CLI.md (or -1 when no hand was read at all: the caller says so)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        with _sources(paths) as sources:
            writer = write_audit(sources, ruleset, stdout, "json" if as_json else "text", jobs,
                                 selection=selection, progress=Progress(stderr))
    except EngineError as error:
        return _error(stderr, str(error))
    except OSError as error:
        return _error(stderr, f"cannot read {error.filename or 'input'}: "
                      f"{error.strerror or error}")
    if not writer.read:
        return -1
    return 0 if writer.totals.clean else 1


# -- session ----------------------------------------------------------------------------------


def build_tables(
    sources: Sequence[Source], ruleset: Ruleset, jobs: int, stderr: IO[str] | None = None,
    progress: Any = None, *, window: int | None = None, ahead: int | None = None,
    min_bytes: int | None = None, sabotage: Sabotage = None, stats: RunStats | None = None,
    table_batch: int = TABLE_BATCH,
) -> SessionTables:
    """The session tables of ``sources`` (``ofc-audit session``'s), built by ``jobs`` worker
    processes; each rejection is reported on ``stderr`` as it comes, as the local engine
    does."""
    import numpy as np

    from ..tables import SessionTables, TableBuilder

    stats = stats if stats is not None else RunStats()
    window, ahead, min_bytes = _defaults(window, ahead, min_bytes)
    parts: list[list[pd.DataFrame]] = [[] for _ in WORKER_TABLES]
    pending: dict[int, list[np.ndarray[Any, Any]]] = {}  # lane: numbers of unbatched hands
    rejected = TableBuilder()
    hands = 0

    def reject(error: HistoryParseError) -> None:
        rejected.reject(error)
        if stderr is not None:
            stderr.write(f"ofc-audit: rejected {error.file}:{error.line}:{error.column}: "
                         f"{error.message}\n")

    def tick(before: int, after: int) -> None:
        if progress is not None:
            every = progress.every
            for n in range(before - before % every + every, after + 1, every):
                progress.tick(n)

    start: Key | None = (0, 0)
    if jobs > 1 and sources and _size(sources) >= min_bytes:
        plan = Plan(tuple(sources), ruleset, "tables", jobs, window, sabotage=sabotage,
                    table_batch=table_batch)
        stats.lanes = jobs
        try:
            for payloads in _windows(plan, ahead, stats):
                stats.windows += 1
                order = sorted((key, lane, i) for lane, p in payloads.items()
                               for i, key in enumerate(p.keys))
                numbers: dict[int, np.ndarray[Any, Any]] = {
                    lane: np.empty(len(p.keys), dtype=np.int64) for lane, p in payloads.items()}
                before = hands
                for _, lane, i in order:
                    numbers[lane][i] = hands
                    hands += 1
                errors = sorted((kv for p in payloads.values() for kv in p.rejections),
                                key=lambda kv: kv[0])
                for _, error in errors:
                    reject(error)
                for lane, p in payloads.items():
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
                        # The frame came pickled from the lane: this process's own, so
                        # its numbers are replaced in place (a copy would double it).
                        frame["hand"] = batch[frame["hand"].to_numpy()]
                        parts[t].append(frame)
                tick(before, hands)
            start = None
        except _Fallback as fallback:
            start = stats.fallback = fallback.key
    if start is not None:
        builder = TableBuilder()
        builder.hand_count = hands
        before = hands
        for _, item in _local_items(sources, ruleset, start):
            if isinstance(item, HistoryParseError):
                reject(item)
            else:
                builder.add(item)
                tick(builder.hand_count - 1, builder.hand_count)
        tables = builder.build()
        for t, name in enumerate(WORKER_TABLES):
            parts[t].append(getattr(tables, name))
    empty = TableBuilder().build()
    built: dict[str, pd.DataFrame] = {}
    for t, name in enumerate(WORKER_TABLES):
        kept_parts = [frame for frame in parts[t] if not frame.empty]
        parts[t] = []
        built[name] = _in_hand_order(kept_parts) if kept_parts else getattr(empty, name)
    if progress is not None:
        progress.done()
    return SessionTables(**built, rejected=rejected.build().rejected)


def _in_hand_order(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """One table of the batches' pieces, rows in hand order. Batches of different lanes
    interleave; the order is stable, so a hand's rows (all from one lane) keep theirs.

    Column by column, each dropped from the pieces once joined and put in order: a
    ``concat`` and then a ``sort_values`` would hold the pieces, the joined table and the
    sorted one at the same time (three times a table of millions of rows)."""
    import numpy as np
    import pandas as pd

    hands = np.concatenate([frame["hand"].to_numpy() for frame in frames])
    order = np.argsort(hands, kind="stable")
    columns: dict[str, Any] = {}
    for column in list(frames[0].columns):
        joined = pd.concat([frame[column] for frame in frames], ignore_index=True)
        for frame in frames:
            del frame[column]
        columns[column] = joined.take(order).array
        del joined
    return pd.DataFrame(columns, copy=False)


def session_tables(
    paths: Sequence[str], ruleset: Ruleset, jobs: int = 2, **options: Any
) -> SessionTables:
    """Every session table of the files (as ``local.session_tables``)."""
    with _sources(paths) as sources:
        return build_tables(sources, ruleset, jobs, **options)


def run_session(
    paths: Sequence[str], ruleset: Ruleset, out: Path, jobs: int, *, as_json: bool = False,
    stdout: IO[str] | None = None, stderr: IO[str] | None = None, scope: Scope | None = None,
    options: ReportOptions | None = None, hand_pages: int = 1000,
) -> int:
    """``ofc-audit session --jobs N``: what the local engine prints and writes; returns the
    exit status of CLI.md."""
    from ..report import finish_session

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    progress = Progress(stderr)
    try:
        with _sources(paths) as sources:
            tables = build_tables(sources, ruleset, jobs, stderr, progress)
    except EngineError as error:
        return _error(stderr, str(error))
    except OSError as error:
        return _error(stderr, f"cannot read {error.filename or 'input'}: "
                      f"{error.strerror or error}")
    return finish_session(tables, out, as_json, stdout, stderr, jobs, options, scope=scope,
                          progress=progress, ruleset=ruleset, hand_pages=hand_pages)
