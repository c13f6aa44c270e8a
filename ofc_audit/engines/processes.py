"""Worker processes on this machine: ``ofc-audit audit|session|review PATH... --jobs N``.

:class:`ProcessPool` is a runner of the one driver (:mod:`ofc_audit.audit.driver`). The
results are those of ``--jobs 1`` (the driver's loop in this process), byte for byte and row
for row, in file order, and they stream: the driver writes the output window by window while
the workers go on, and memory stays flat in the size of the files (``session`` keeps its
tables, which are its result).

How the work is split without changing a single result
------------------------------------------------------
The loop in one process replays the hands in file order with one :class:`~ofc_audit.replay.Replayer`
whose state is keyed by (file, table name); a rejected hand breaks its table's chain (every
chain of its file when its table line cannot be read: ``HistoryParseError.table`` is None).
Hands of different tables never see each other. The split is the code of
:mod:`ofc_audit.engines.lanes` (the deal, reading an entry alone, break points, rendering,
the fallback), which the Dask engine (:mod:`ofc_audit.engines.dask_engine`) shares: with as
many lanes, both replay the same tables in the same lane.

1. **Lanes.** There is one lane per worker process (``N``). The parent runs the cheap scan
   of every file once (:func:`~ofc_audit.engines.groups.scan_entries`: where the reader
   starts each entry, its byte range and first line, and the table name on its table line)
   and deals each (file, table) to a lane when it first turns up: to the lane with the
   fewest entries so far; a table's hands all go to one lane, in order, so every check
   across hands is exact. It sends each lane its entries (byte ranges and line numbers), a
   few windows ahead. A lane reads only its own entries' bytes, each with the reader alone
   from its first line on (:func:`~ofc_audit.history.reader.read_text` with ``first_line``: the same
   item as in the whole file), and replays them in file order with one ``Replayer`` that
   lives as long as the run.
2. **Windows.** The entries of all the files, in order, are cut into windows of ``window``
   entries. A lane reads its items one at a time and replays each as soon as it is read
   (while its records are fresh in the caches), up to ``lead`` windows past the window it
   is finishing, and reports each window it has read: its rejections and the table names it
   saw for the first time.
3. **Break points.** When every lane has read window ``k``, the parent sends every lane the
   break points of window ``k``: every rejection of every lane in it. A lane has replayed
   its items with the other lanes' rejections known so far; one that turns up now before
   items it has already replayed of a chain it breaks (its table's, which the deal gave to
   the lane that read the rejection, so in the usual case none here; or, its table not
   known, every table of its file) makes it replay its items of that chain after the
   rejection again, the chain broken there, exactly where the loop in one process breaks it
   (hands of other chains do not depend on them). Rejections of unknown tables are rare; a
   redo costs at most ``lead`` windows of one file's hands. Only then is window ``k``
   finished: its results are final.
4. **Output.** Each lane renders its hands in the worker: audit JSON entries or text lines
   right after each replay (the hand and its results are freed at once; a redo reads the
   entry again and renders it again), the session's table pieces of
   :class:`~ofc_audit.session.tables.TableBuilder` when the window is finished. It sends a
   finished window's to the parent, where the
   driver merges the lanes by (file, line) and writes the window (audit entries travel as
   UTF-8 bytes and go to standard output's byte stream as they are:
   :meth:`~ofc_audit.audit.writer.AuditWriter.merged`).
   The parent sends the break points of a window only while fewer than ``ahead`` windows wait
   to be written, which bounds what is in flight.
5. **Checks.** Each lane checks that the reader yields one item per entry, starting on the
   line the scan gave, and the parent that no table name (as parsed) turns up in two lanes.
   If a check fails at window ``k`` (a scan that does not split where the reader does), the
   windows before ``k`` are written and the driver does the rest in this process
   (:class:`~ofc_audit.audit.work.Fallback`), reading from the start and writing from window
   ``k`` on.

6. **Ending.** The parent reads the lanes' messages itself (:class:`_Receiver`), never
   waiting for the rest of one: a lane killed while it sends (``kill -9``, out of memory)
   is an error that names the process and the signal, not a wait without end. The lanes
   leave Ctrl-C to the parent, which stops them; they leave by themselves when the parent
   has gone, however (:mod:`ofc_audit.common.lifeline`).

How the workers start
---------------------
A lane is forked from this process when this process has a single thread then (the usual
``audit``: the lanes start with the engine already imported, at the moment the loop in one
process would replay its first hand; nothing but the initializer's arguments is used of
what they inherit). A process with other threads (a library's thread pool: NumPy's BLAS in
``session``; a progress display) must not fork, since a thread's lock held at the fork stays
held in the child for good: its lanes, and every :meth:`ProcessPool.each` worker, are started
by the ``forkserver`` (``spawn`` where there is none), which has imported the engine once.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.connection
import os
import pickle
import queue
import signal
import struct
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from multiprocessing.connection import Connection
from typing import IO, TYPE_CHECKING, Any, TypeVar

from ..audit.driver import StdinMode
from ..audit.progress import Progress
from ..audit.work import (
    Fallback,
    Item,
    Key,
    Outcome,
    Payload,
    Plan,
    RunStats,
    Sabotage,
    add_piece,
    render_outcome,
    render_piece,
    replay_hand,
    table_pieces,
)
from ..common.errors import EngineError
from ..common.lifeline import forkserver_fits, lifeline, start_worker, starting_workers
from ..history.reader import HistoryParseError
from ..history.records import Hand
from ..history.sources import Source, source_bases
from ..replay import Replayer
from ..session.memory import release_memory
from .lanes import (
    Break,
    Row,
    apply_breaks,
    as_read,
    deal,
    entry_item,
    item_key,
    read_entry,
    window_end,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AHEAD", "MIN_BYTES", "WINDOW", "ProcessPool"]

_Item = TypeVar("_Item")
_Value = TypeVar("_Value")

#: Entries (hands and rejections, of all lanes) per window.
WINDOW = 1000
#: Windows the lanes may be ahead of the output.
AHEAD = 5
#: Windows a lane reads and replays past the one it is finishing (the one whose break points
#: it waits for): it never waits while there is work, at the cost of replaying again the
#: hands after another lane's rejection in the same file (see ``_Lane._breaks``). Three, not
#: two: the lanes run on two cores whose speed moves with the host's other work, and this
#: process takes one of them from time to time (its scan of ``FEED`` windows at once); with
#: two windows of slack the lane on the other core waited for it, 0.3-0.5 s a run
#: (docs/PERFORMANCE.md, Round 12).
LEAD = 3
#: Windows of entries the parent sends beyond what the lanes may read (the lanes never wait
#: for the parent's scan while it waits for a core).
FEED = 8
#: Inputs smaller than this are audited in this process (starting workers costs more).
MIN_BYTES = 512 * 1024
#: Hands a lane puts in one batch of session table pieces (a DataFrame build costs ~35 ms
#: however few its rows: one per window would cost a tenth of the run).
TABLE_BATCH = 10_000
#: The workers' garbage collector thresholds (see :func:`_init_worker`).
GC_THRESHOLD = (50_000, 20, 100)
#: Seconds between checks that the workers are alive while waiting for them.
POLL = 1.0
#: Seconds the end of a run waits for the inboxes' feeder threads (see :func:`_end_feeders`).
FEEDER_WAIT = 0.5

# -- messages ---------------------------------------------------------------------------------
# lane -> parent:
#   ("parsed", lane, window, start key, [(key, file) of rejections], [(file, table) new], ok)
#   ("end", lane, number of windows)
#   ("out", lane, window, payload)
#   ("error", lane, exception)
# parent -> lane:
#   ("breaks", window, [(key, file) of every rejection in the window, sorted])
#   ("stop",)

# -- the lane (in a worker process) -----------------------------------------------------------

_INBOXES: list[Any] = []
_OUTBOX: Any = None


def _init_worker(inboxes: list[Any], outbox: Any, parent: Connection) -> None:
    global _INBOXES, _OUTBOX
    _INBOXES, _OUTBOX = inboxes, outbox
    start_worker(parent)
    # A lane holds a window or two of parsed hands, which the cyclic garbage collector would
    # walk again and again (a tenth of the run): the imported modules are set aside for
    # good, and young objects are collected less often. The audit makes no reference cycles
    # to speak of; reference counting frees its objects.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)


def _init_mapper(parent: Connection) -> None:
    start_worker(parent)


class _Stopped(Exception):
    pass


class _Lane:
    def __init__(self, plan: Plan, lane: int, inbox: Any, outbox: Any) -> None:
        self.plan = plan
        self.lane = lane
        self.inbox = inbox
        self.outbox = outbox
        self.window = plan.window
        # this lane's entries, as the parent sends them: window -> (its first entry's key,
        # [(index, source, start byte, end byte, first line, is a hand)]); None: no more
        self.entries: dict[int, tuple[Key, list[Row]] | None] = {}
        self.break_points: dict[int, list[Break]] = {}  # window -> its break points
        self.starts: dict[int, Key] = {}  # window -> its first entry's key, until reported
        # parsing
        self.frontier = 0  # entries before this one are parsed (own) or not this lane's
        self.reported = 0  # windows reported parsed
        self.ended = False
        self.windows: int | None = None
        self.rejections: dict[int, list[Break]] = {}
        self.new_tables: dict[int, list[tuple[str, str]]] = {}
        self.seen: set[tuple[str, str]] = set()
        # replaying (each item as soon as it is read)
        self.replayer = Replayer(plan.ruleset)
        # The items of the windows not finished, by window: [key, row as read, table name
        # (None: a rejection's that cannot be read), whether it is a rejection, what the
        # window's payload gets of it]. That is the item already rendered
        # (:func:`~ofc_audit.audit.work.render_piece`, right after its replay), or for the
        # session tables its outcome; the hand and its results are freed at once (a redo
        # reads its entry again), so a lane's few windows in flight stay small and the
        # memory of one hand is used again for the next, as in the loop in one process.
        self.done: dict[int, list[list[Any]]] = {}
        self.files: dict[int, IO[bytes]] = {}  # the streams opened, by source
        self.own: set[Key] = set()  # this lane's rejections in those windows
        self.pending: deque[Break] = deque()  # other lanes' rejections, not yet passed
        self.last: Key | None = None  # the last item replayed
        self.waited = 0.0  # seconds spent waiting for break points
        self.redone = 0  # items replayed again (another lane's rejection came late)
        self.builder: Any = None  # tables: a TableBuilder of the batch being filled

    # parsing

    def _pull(self) -> None:
        """Take the parent's next message: a window's entries or break points are kept for
        when they are needed; a flush is answered at once."""
        began = time.perf_counter()
        message = self.inbox.get()
        self.waited += time.perf_counter() - began
        kind = message[0]
        if kind == "stop":
            raise _Stopped
        if kind == "entries":
            self.entries[message[1]] = message[2]
        elif kind == "breaks":
            self.break_points[message[1]] = message[2]
        elif kind == "flush":  # a check failed: the pieces of the windows before it
            self.outbox.put(("flushed", self.lane, self._flush()))

    def _parse(self) -> Iterator[None]:
        """Reads this lane's items in file order, entry by entry as the parent dealt them,
        and replays each as soon as it is read (while its records are fresh in the caches);
        yields at the end of each window, with ``frontier`` moved on (a window is what the
        lane reports and waits on: nothing between two ends of a window looks at the lane).
        Stops early when the reader does not yield one item per entry where the scan found
        it (``ended``, with the failure reported)."""
        window, plan = self.window, self.plan
        files, sources, lane = self.files, plan.sources, self.lane
        seen, replay = self.seen, self._replay_one
        try:
            w = 0
            while True:
                while w not in self.entries:
                    self._pull()
                batch = self.entries.pop(w)
                if batch is None:
                    break
                self.starts[w], rows = batch
                for row in rows:
                    source = row[1]
                    read = as_read(plan, lane, row)
                    item = entry_item(read_entry(files, sources, read), row)
                    if item is None:
                        self.frontier = row[0]
                        self._fail()
                        return
                    key = item_key(source, item)
                    file = sources[source].file
                    if isinstance(item, HistoryParseError):
                        self.rejections.setdefault(w, []).append((key, file, item.table))
                    else:
                        table = (file, item.table.name)
                        if table not in seen:
                            seen.add(table)
                            self.new_tables.setdefault(w, []).append(table)
                    replay(w, key, item, read)
                w += 1
                self.frontier = w * window
                yield
            self.ended = True
            self.windows = w
        finally:
            self.close()

    def close(self) -> None:
        """Close the streams opened (a redo opens them again if it needs them)."""
        for stream in self.files.values():
            stream.close()
        self.files.clear()

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

    def _replay_one(self, window: int, key: Key, item: Item, row: Row) -> None:
        """Replay an item as soon as it is read (while its records are fresh in the caches),
        with the other lanes' rejections known so far, and render it; :meth:`_breaks` redoes
        it if one turns up later before it."""
        apply_breaks(self.replayer, self.pending, self.last, key)
        if isinstance(item, HistoryParseError):
            self.replayer.reject(item)
            self.own.add(key)
            self.done.setdefault(window, []).append(
                [key, row, item.table, True, self._kept(key, item)])
        else:
            outcome = replay_hand(self.replayer, item, self.plan.step)
            self.done.setdefault(window, []).append(
                [key, row, item.table.name, False, self._kept(key, outcome)])
        self.last = key

    def _kept(self, key: Key, outcome: Outcome) -> Any:
        """What a window's payload will get of an item: rendered now, or (session tables,
        whose builder takes the hands in batches when their window is finished) its
        outcome."""
        plan = self.plan
        return outcome if plan.render == "tables" else render_piece(key, outcome, plan)

    def _breaks(self, breaks: list[Break]) -> None:
        """The rejections of every lane in the window being finished: those of other lanes
        that stand before items this lane has already replayed, of a chain it holds (the
        rejection's table in the same file, or any table of the file when the rejection's
        table is not known), make it replay those items again, from the first such
        rejection on. A rejection of a table this lane never saw breaks nothing here: in the
        usual case (the scan dealt the rejected entry to its table's lane) nothing is
        replayed twice."""
        foreign = [b for b in breaks if b[0] not in self.own]
        if not foreign:
            return
        # (file, table or None for every table of the file) -> its first late rejection
        late: dict[tuple[str, str | None], Key] = {}
        later: list[Break] = []
        for where, file, table in foreign:
            if self.last is not None and where < self.last:
                if table is not None and (file, table) not in self.seen:
                    continue  # no chain of that table here, nor will there be before it
                chain = (file, table)
                if chain not in late or where < late[chain]:
                    late[chain] = where
            else:
                later.append((where, file, table))
        if later:
            self.pending.extend(later)
            self.pending = deque(sorted(self.pending, key=_where))
        for (file, table), first in late.items():
            self._redo(file, table, first, foreign)

    def _redo(self, file: str, table: str | None, first: Key, foreign: list[Break]) -> None:
        """Replay this lane's items of one chain after ``first`` again: those of ``table``
        in ``file``, or (None) of every table of the file (a file named twice is one file to
        the chains), the chain broken at every rejection known that breaks it. Other chains
        are not touched: their hands do not depend on these."""
        sources = self.plan.sources
        replayer = self.replayer

        def breaks(other: str | None) -> None:
            # A table's redo breaks only its own chain, whatever the rejection breaks.
            replayer.break_chains(file, table if table is not None else other)

        breaks(table)
        # Rejections of earlier windows stand before every item left to finish; later
        # windows' are not known yet: those of this window are all there is to apply.
        known = [(where, other) for where, name, other in foreign
                 if name == file and where > first
                 and (table is None or other is None or other == table)]
        previous = first
        for window in sorted(self.done):
            for entry in self.done[window]:
                key, row, name, rejected = entry[0], entry[1], entry[2], entry[3]
                if key <= first or sources[key[0]].file != file:
                    continue
                if rejected:
                    if table is None or name is None or name == table:
                        for where, other in known:
                            if previous < where < key:
                                breaks(other)
                        previous = key
                        breaks(name)
                    continue
                if table is not None and name != table:
                    continue
                for where, other in known:
                    if previous < where < key:
                        breaks(other)
                previous = key
                entry[4] = self._kept(key, replay_hand(replayer, self._again(row), self.plan.step))
                self.redone += 1

    def _again(self, row: Row) -> Hand:
        """A hand of this lane read again from its entry (for a redo), as it was read."""
        items = read_entry(self.files, self.plan.sources, row)
        if len(items) != 1 or not isinstance(items[0], Hand) or items[0].line != row[4]:
            raise EngineError("a file changed while it was being read")
        return items[0]

    def _finish(self, window: int) -> Payload:
        """The payload of a window whose rejections are all known: its items rendered."""
        plan = self.plan
        payload = Payload()
        builder = None
        if plan.render == "tables":
            if self.builder is None:
                from ..session.tables import TableBuilder

                self.builder = TableBuilder()
            builder = self.builder
        for key, _row, _name, _rejected, kept in self.done.pop(window, []):
            self.own.discard(key)
            if builder is None:
                add_piece(payload, kept)
            else:
                render_outcome(payload, key, kept, plan, builder)
        last = self.windows is not None and window == self.windows - 1
        if builder is not None and (builder.hand_count >= self.plan.table_batch or last):
            # The last batch's rows and pieces were freed (sent) long ago: given back, or
            # the lane's RSS keeps the peak of every batch it built.
            release_memory()
            payload.frames = self._flush()
        return payload

    def _flush(self) -> tuple[pd.DataFrame, ...] | None:
        """The table pieces of the batch (None when it has no hands); a new batch begins."""
        builder, self.builder = self.builder, None
        return table_pieces(builder)

    def _message(self, k: int) -> None:
        """Wait for the break points of window ``k``, and apply them."""
        while k not in self.break_points:
            self._pull()
        self._breaks(self.break_points.pop(k))

    def run(self) -> None:
        parse = self._parse()
        end_sent = False
        k = 0  # the window to finish next
        lead = max(1, self.plan.lead)
        while True:
            # Read and replay ahead, up to ``lead`` windows past the one to finish.
            while not self.ended and self.reported < k + lead:
                next(parse, None)
                if not self.ended:
                    self._report(self.frontier // self.window)
            if self.windows is not None and not end_sent:
                self._report(self.windows)
                self.outbox.put(("end", self.lane, self.windows))
                end_sent = True
            if self.windows is not None and k >= self.windows:
                return
            self._message(k)
            if self.plan.sabotage == "die" and self.lane == 0 and k == 1:
                _die_sending(self.outbox)
            self.outbox.put(("out", self.lane, k, self._finish(k)))
            k += 1


def _die_sending(outbox: Any) -> None:
    """Tests only (``sabotage="die"``): end this process in the middle of sending a message,
    as a lane killed then (``kill -9``, out of memory) does: the queue's lock taken, the
    message's length and a part of it in the pipe, the rest never."""
    outbox._wlock.acquire()
    os.write(outbox._writer.fileno(), struct.pack("!i", 1 << 20) + b"\x80" * 100)
    os._exit(1)


def _where(rejection: Break) -> Key:
    return rejection[0]


def _lane_main(plan: Plan, lane: int) -> tuple[float, float, int]:
    """Task: one lane, from the first entry to the last (or until the parent stops it);
    returns the CPU seconds of the lane, the seconds it waited for break points and the
    number of hands it replayed again."""
    outbox = _OUTBOX
    began = time.process_time()
    runner: _Lane | None = None
    try:
        runner = _Lane(plan, lane, _INBOXES[lane], outbox)
        try:
            runner.run()
        finally:
            runner.close()
    except _Stopped:
        outbox.cancel_join_thread()  # the parent reads no more
    except BaseException as error:  # noqa: BLE001 - every failure goes to the parent
        try:
            pickle.dumps(error)  # the queue pickles later, in a thread that cannot tell us
        except Exception:
            error = EngineError(f"a worker process failed: {type(error).__name__}: {error}")
        outbox.put(("error", lane, error))
    if runner is None:
        return time.process_time() - began, 0.0, 0
    return time.process_time() - began, runner.waited, runner.redone


# -- the parent -------------------------------------------------------------------------------


def _context() -> multiprocessing.context.BaseContext:
    if forkserver_fits():
        context = multiprocessing.get_context("forkserver")
        # Workers fork from a server that has imported the engine once (when this process
        # starts the server: it is shared by everything here that uses forkserver).
        context.set_forkserver_preload([__name__])
        return context
    return multiprocessing.get_context("spawn")


def _single_threaded() -> bool:
    """Whether this process has one thread (of the system's, not only Python's: a library's
    native thread pool counts), as far as this system tells; False when it does not."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _lane_context() -> multiprocessing.context.BaseContext:
    """How the lanes start: forked from this process when it is safe now (see the module's
    documentation), else as every worker does (:func:`_context`)."""
    if "fork" in multiprocessing.get_all_start_methods() and _single_threaded():
        return multiprocessing.get_context("fork")
    return _context()


def _start_server() -> None:
    """The forkserver started, if that is how workers start here, without waiting for it."""
    context = _context()
    if context.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        with starting_workers():
            forkserver.ensure_running()


@contextlib.contextmanager
def _workers(lanes: int, stats: RunStats | None = None
             ) -> Iterator[tuple[ProcessPoolExecutor, list[Any], _Receiver]]:
    context = _lane_context()
    if stats is not None:
        stats.start_method = context.get_start_method()
    with starting_workers():
        inboxes = [context.Queue() for _ in range(lanes)]
        outbox = context.Queue()
        executor = ProcessPoolExecutor(lanes, mp_context=context, initializer=_init_worker,
                                       initargs=(inboxes, outbox, lifeline()))
    receiver = _Receiver(outbox)
    try:
        yield executor, inboxes, receiver
    finally:
        for inbox in inboxes:
            inbox.put(("stop",))
            inbox.cancel_join_thread()
        # Taken before shutdown(), which forgets them: a lane still starting (an early
        # error) must be waited for, or the queues are freed while it unpickles them.
        processes = list((getattr(executor, "_processes", None) or {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        receiver.drain(processes)
        executor.shutdown(wait=True)
        outbox.cancel_join_thread()
        _end_feeders(inboxes)


def _end_feeders(inboxes: Sequence[Any]) -> None:
    """The inboxes' feeder threads (each writes what this process put into its pipe) told
    to end and given a moment to: a queue's semaphore is removed by whichever thread lets go
    of it last, and a feeder that ended after this process had let go of its queue did it
    while the interpreter was ending, cut off between removing the semaphore and telling
    the resource tracker ("There appear to be 1 leaked semaphore objects ... No such file
    or directory" at the end of a run whose lanes came from the forkserver, 1 run in 25). A
    feeder still blocked on a full pipe (its lane killed) is not waited for beyond
    ``FEEDER_WAIT``."""
    for inbox in inboxes:
        inbox.close()
    deadline = time.monotonic() + FEEDER_WAIT
    for inbox in inboxes:
        feeder = getattr(inbox, "_thread", None)
        if feeder is not None:
            feeder.join(max(0.0, deadline - time.monotonic()))


class _Receiver:
    """The lanes' messages, read from the outbox's pipe by this process (its only reader)
    without ever waiting for the rest of a message: a lane that dies while it sends one
    (killed, or out of memory) leaves half of it in the pipe, and ``Queue.get`` waited for
    the rest for good, the command hung instead of saying that a worker failed. The messages
    are framed as ``multiprocessing.connection`` frames them (``Queue.put`` sends with
    ``send_bytes``: a 4-byte big-endian length, or -1 and an 8-byte one past 2 GiB; the
    tests check it against the queue itself) and pickled. The pipe is read without
    blocking, each frame's body straight into a buffer of its size (the system calls of
    ``Queue.get``)."""

    def __init__(self, outbox: Any) -> None:
        self._pipe: Connection = outbox._reader
        self._fd = self._pipe.fileno()
        os.set_blocking(self._fd, False)
        self._head = bytearray()  # the frame's length, as read so far
        self._body: bytearray | None = None  # the frame's body, once its length is known
        self._got = 0  # bytes of the body read

    def get(self, timeout: float) -> tuple[Any, ...]:
        """The next whole message; ``queue.Empty`` when none is whole after ``timeout``
        seconds of waiting for bytes; ``EOFError`` when the pipe has ended."""
        deadline: float | None = None
        while True:
            try:
                message = self._read()
            except BlockingIOError:
                if deadline is None:
                    deadline = time.monotonic() + timeout
                left = deadline - time.monotonic()
                if left <= 0 or not multiprocessing.connection.wait([self._pipe], left):
                    raise queue.Empty from None
                continue
            if message is not None:
                return message

    def _read(self) -> tuple[Any, ...] | None:
        """One read of what the frame still lacks: the message once it is whole, else None;
        ``BlockingIOError`` when the pipe holds nothing now."""
        fd = self._fd
        body = self._body
        if body is None:
            head = self._head
            want = (12 if len(head) >= 4 and head[:4] == _LONG_FRAME else 4) - len(head)
            if want > 0:
                chunk = os.read(fd, want)
                if not chunk:
                    raise EOFError
                head += chunk
                return None
            size = struct.unpack_from("!Q", head, 4)[0] if len(head) == 12 \
                else struct.unpack_from("!i", head)[0]
            body = self._body = bytearray(size)
            self._got = 0
        if self._got < len(body):
            read = os.readv(fd, [memoryview(body)[self._got:]])
            if not read:
                raise EOFError
            self._got += read
            if self._got < len(body):
                return None
        self._head.clear()
        self._body = None
        message: tuple[Any, ...] = pickle.loads(body)
        return message

    def drain(self, processes: Sequence[multiprocessing.process.BaseProcess]) -> None:
        """Read and drop what the lanes still send until every worker has ended, so that
        none blocks flushing its queue at exit (bytes, not messages: a lane stopped while
        it sends one leaves half of it in the pipe)."""
        self._head.clear()
        self._body = None
        while alive := [process for process in processes if process.is_alive()]:
            # Woken by bytes in the pipe or by a worker's end (its sentinel), whichever
            # comes first: the command ends as soon as its workers have.
            ready = multiprocessing.connection.wait(
                [self._pipe, *(process.sentinel for process in alive)], timeout=0.05)
            if self._pipe in ready:
                try:
                    os.read(self._fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    return  # the pipe is gone: nothing more can block on it


#: The length that says a frame's length is in the next 8 bytes (a message past 2 GiB).
_LONG_FRAME = struct.pack("!i", -1)


def _windows(
    plan: Plan, ahead: int, stats: RunStats | None = None, progress: Progress | None = None
) -> Iterator[dict[int, Payload]]:
    """Every window's payloads (lane -> payload), in order; raises :class:`Fallback` after
    the last window that passed its checks. ``progress`` is told the bytes of the input up
    to each window's end as the window comes."""
    lanes = plan.lanes
    bases = source_bases(plan.sources)
    ends: dict[int, int] = {}  # window: bytes of the input up to its last entry's end
    with _workers(lanes, stats) as (executor, inboxes, receiver):
        # The copies to leave out are the deal's (here): the lanes never see them.
        lane_plan = replace(plan, index=None)
        with starting_workers(pool=executor):  # the pool starts its processes here
            futures: list[Future[tuple[float, float, int]]] = [
                executor.submit(_lane_main, lane_plan, lane) for lane in range(lanes)]
        # The workers, to say how one ended if it fails (the pool forgets them then).
        processes = list((getattr(executor, "_processes", None) or {}).values())
        parsed = [0] * lanes
        reports: dict[int, list[tuple[Any, ...]]] = {}
        outs: dict[int, dict[int, Payload]] = {}
        owners = stats.owners if stats is not None else {}
        windows: int | None = None
        sent = written = 0
        failed: Key | None = None
        failed_at: int | None = None
        dealt = deal(plan)
        fed, fed_all = 0, False  # windows whose entries went out; all of them did
        while True:
            # Each lane's entries, some windows ahead of what a lane may read and replay
            # (a busy machine may keep this process waiting): a window's entries are a few
            # tens of kilobytes, so memory stays flat.
            while not fed_all and failed is None and fed < sent + plan.lead + FEED:
                dealing = next(dealt, None)
                if dealing is None:
                    for inbox in inboxes:
                        inbox.put(("entries", fed, None))
                    fed_all = True
                    break
                w, start, rows = dealing
                ends[w] = window_end(bases, rows)
                for lane, inbox in enumerate(inboxes):
                    inbox.put(("entries", w, (start, rows[lane])))
                fed += 1
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
                breaks = sorted((b for r in window_reports for b in r[4]), key=_where)
                for inbox in inboxes:
                    inbox.put(("breaks", sent, breaks))
                sent += 1
            if written in outs and len(outs[written]) == lanes:
                if progress is not None:
                    progress.read(ends.pop(written, 0))
                yield outs.pop(written)
                written += 1
                continue
            if failed is not None and written == failed_at:
                # The lanes' table pieces not sent yet, then the rest is done here.
                for inbox in inboxes:
                    inbox.put(("flush",))
                flushed: dict[int, Payload] = {}
                while len(flushed) < lanes:
                    message = _receive(receiver, futures, processes)
                    if message[0] == "flushed":
                        flushed[message[1]] = Payload(frames=message[2])
                    elif message[0] == "error":
                        raise message[2]
                yield flushed
                raise Fallback(failed)
            if windows is not None and written == windows:
                if stats is not None:
                    for future in futures:
                        cpu, waited, redone = future.result()
                        stats.lane_cpu.append(cpu)
                        stats.lane_waited.append(waited)
                        stats.lane_redone.append(redone)
                return
            message = _receive(receiver, futures, processes)
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


def _receive(receiver: _Receiver, futures: Sequence[Future[Any]],
             processes: Sequence[multiprocessing.process.BaseProcess] = ()) -> tuple[Any, ...]:
    """The next message of a lane; an error if a worker died (saying how, when a signal
    ended it), or if every lane has returned and nothing more comes (a message was lost)."""
    idle = 0
    while True:
        try:
            return receiver.get(timeout=POLL)
        except queue.Empty:
            for future in futures:
                if future.done() and future.exception() is not None:
                    raise EngineError(f"a worker process failed: {_how_ended(processes)}"
                                      f"{future.exception()}") from None
            _check_alive(processes)
            idle = idle + 1 if all(future.done() for future in futures) else 0
            if idle > 2:
                raise EngineError("the worker processes stopped before the end") from None


def _check_alive(processes: Sequence[multiprocessing.process.BaseProcess]) -> None:
    """Raise if a worker has ended while the run needs it (the workers end only when the
    pool is shut down). The pool's own check can miss it: a pool whose workers start on
    demand (forkserver, spawn) wakes its manager thread before it starts the worker a task
    asks for, so a worker started by the last task may be left out of what that thread
    watches until something else wakes it, which a lane that died never does (CPython
    3.11 to 3.14, ``ProcessPoolExecutor.submit``): the run waited for good."""
    for process in processes:
        code = process.exitcode
        if code is not None:
            how = _how_ended(processes) or f"process {process.pid} ended with exit status {code}; "
            raise EngineError(f"a worker process failed: {how}it ended before the run did")


def _result(future: Future[_Value], processes: Sequence[multiprocessing.process.BaseProcess]
            ) -> _Value:
    """The future's value, the workers looked at while it is awaited (see
    :func:`_check_alive`)."""
    while True:
        try:
            return future.result(timeout=POLL)
        except TimeoutError:
            _check_alive(processes)


def _how_ended(processes: Sequence[multiprocessing.process.BaseProcess]) -> str:
    """How the first worker that a signal ended ended ("" when none did): SIGKILL is what
    the kernel sends when memory runs out, which is worth saying. A worker the pool itself
    ended once another had died (``terminate()``: SIGTERM) is an effect, not the cause: it
    is named only when no other signal ended one (it was named instead of the killed one
    when it came first among the pool's processes and had ended by the time this looked,
    a rare "was ended by SIGTERM" for a worker killed with SIGKILL)."""
    ended: list[tuple[int | None, str]] = []  # (pid, signal) in the pool's order
    for process in processes:
        code = process.exitcode
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            ended.append((process.pid, name))
    if not ended:
        return ""
    pid, name = next((e for e in ended if e[1] != "SIGTERM"), ended[0])
    why = " (sent by the system when memory runs out, or by kill -9)" \
        if name == "SIGKILL" else ""
    return f"process {pid} was ended by {name}{why}; "


# -- the runner -------------------------------------------------------------------------------


class ProcessPool:
    """The runner of ``--jobs N``: ``jobs`` worker processes, one lane each. Inputs smaller
    than ``min_bytes`` (default :data:`MIN_BYTES`) are left to the driver's loop in this
    process (starting workers costs more). ``window``, ``ahead``, ``sabotage`` and
    ``table_batch``: see :data:`WINDOW`, :data:`AHEAD`, :class:`~ofc_audit.audit.work.Plan`,
    :data:`TABLE_BATCH` (tests change them)."""

    stdin: StdinMode = "file"  # the workers open files by path

    def __init__(self, jobs: int, *, window: int | None = None, ahead: int | None = None,
                 min_bytes: int | None = None, sabotage: Sabotage = None,
                 table_batch: int | None = None, stats: RunStats | None = None) -> None:
        self.jobs = jobs
        self.window = window
        self.ahead = ahead
        self.min_bytes = min_bytes
        self.sabotage = sabotage
        self.table_batch = table_batch
        self.stats = stats if stats is not None else RunStats()

    def _takes(self, sources: Sequence[Source]) -> bool:
        """Whether the run over ``sources`` goes to worker processes."""
        # The module's settings are read when called: tests change them.
        min_bytes = MIN_BYTES if self.min_bytes is None else self.min_bytes
        return bool(sources) and self.jobs >= 2 and source_bases(sources)[-1] >= min_bytes

    def start(self, sources: Sequence[Source]) -> None:
        """Start the forkserver now when the run will need it (lanes that will not be
        forked from this process): it imports the engine (about 0.4 s of CPU), which the
        lanes would otherwise wait for after the survey of the files. It starts on its own
        (nothing here waits for it) and is shared by every pool of this process."""
        if self._takes(sources) and _lane_context().get_start_method() != "fork":
            _start_server()

    def windows(self, plan: Plan, progress: Progress | None) -> Iterator[dict[int, Payload]]:
        if not self._takes(plan.sources):
            raise Fallback((0, 0))
        plan = replace(plan, lanes=self.jobs,
                       window=WINDOW if self.window is None else self.window,
                       lead=LEAD, sabotage=self.sabotage,
                       table_batch=TABLE_BATCH if self.table_batch is None
                       else self.table_batch)
        self.stats.lanes = self.jobs
        yield from _windows(plan, AHEAD if self.ahead is None else self.ahead, self.stats,
                            progress)

    def each(self, function: Callable[[_Item], _Value], items: Sequence[_Item]
             ) -> Iterator[_Value]:
        """``function`` of every item, in order, on ``jobs`` worker processes, each item a
        task of its own (whatever its table: for work that is heavy per item, such as a
        review's hands); one item or none stays in this process."""
        if self.jobs < 2 or len(items) < 2:
            yield from map(function, items)
            return
        with starting_workers():
            pool = ProcessPoolExecutor(min(self.jobs, len(items)), mp_context=_context(),
                                       initializer=_init_mapper, initargs=(lifeline(),))
        with pool:
            with starting_workers(pool=pool):
                futures = [pool.submit(function, item) for item in items]
            processes = list((getattr(pool, "_processes", None) or {}).values())
            try:
                for future in futures:
                    try:
                        value = _result(future, processes)
                    except BrokenProcessPool as error:
                        # A worker killed (kill -9, out of memory): said as for the lanes,
                        # not a traceback.
                        raise EngineError(f"a worker process failed: "
                                          f"{_how_ended(processes)}{error}") from None
                    yield value
            finally:
                for future in futures:
                    future.cancel()
