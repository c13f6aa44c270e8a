"""The Dask engine: ``ofc-audit audit|session|review PATH... --engine dask [--scheduler
ADDRESS]``.

:class:`DaskRunner` is a runner of the one driver (:mod:`ofc_audit.audit.driver`): the same
results as the driver's loop in this process, computed on a Dask cluster: a ``LocalCluster`` on this
machine (2 worker processes, 1 thread each) or the scheduler at ``ADDRESS``. The workers open
the history files by absolute path, so on a real cluster the files (and ``--out``) must be
reachable at the same paths from every worker (a shared file system); the client reads them
too (the scan).

How the work is split without changing a single result
------------------------------------------------------
Exactly as ``--jobs N`` splits it (:mod:`ofc_audit.engines.processes`), with the same code
(:mod:`ofc_audit.engines.lanes`): one lane per worker thread of the cluster, so on the local
cluster the very chunks of ``--jobs 2``.

1. **The deal.** The client runs the cheap scan of every file once
   (:func:`~ofc_audit.engines.groups.scan_entries`) and deals each (file, table) to a lane
   when it first turns up (the lane with the fewest entries so far); a table's hands all go
   to one lane, in order, so every check across hands is exact. The entries of all the
   files, in order, are cut into windows of :data:`WINDOW` entries.
2. **Read tasks** (one per lane and window, on the lane's worker): the lane's entries of the
   window, each read alone from its own bytes (the same item as in the whole file), and
   checked: one item per entry, starting on the line the scan gave. A small result goes to
   the client and to the other lanes: the window's rejections, the tables seen, the check.
3. **Replay tasks** (one per lane and window, on the lane's worker): the lane's items of the
   window replayed in file order with the lane's ``Replayer``, carried from its previous
   window (through the client: no task depends on a long chain of earlier tasks). Parsing
   does not depend on replaying, so a window's replay tasks know every rejection of every
   lane in the window before they start: a rejection of another lane breaks its table's
   chain (every chain of its file when its table is not known) right where the loop in one
   process breaks it (``lanes.apply_breaks``, as ``--jobs`` does); nothing is ever replayed
   twice. Each renders its hands (audit JSON entries, audit
   text lines, session table pieces, or the hand of ``--hand``).
4. **Output.** The driver, in the client, merges a window's payloads by (file, line) and
   writes them (the very code of ``--jobs``: the runners only make the payloads), while the
   read tasks of the next :data:`AHEAD` windows run: memory stays flat in the
   size of the files (``session`` keeps its tables, which are its result).
5. **Checks.** If a read task's check fails, or a table name (as parsed) turns up in two
   lanes, the windows before are written and the driver does the rest in the client, as
   with ``--jobs``.

Tasks are pure (they read files and return values; the replayer state a task starts from is
an argument, never changed in place), so a task lost with a worker is simply run again:
nothing is lost or counted twice. Results are merged by (source, line) keys, never by
arrival order.

``session`` also writes the tables as partitioned Parquet datasets under
``OUT/dataset/TABLE/`` (written by the workers, part files with fixed names), and the same
:mod:`ofc_audit.session.summaries` functions summarise the very pandas tables of the loop in
one process.
"""

from __future__ import annotations

import copy
import gc
import logging
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import wraps
from pathlib import Path
from typing import IO, Any, ParamSpec, TypeVar

import dask
import dask.dataframe as dd
from distributed import Client, Future, LocalCluster, wait

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
    render_outcome,
    replay_hand,
    table_pieces,
)
from ..common.errors import EngineError
from ..common.textfmt import quantity
from ..history.reader import HistoryParseError
from ..history.sources import source_bases
from ..replay import Replayer
from ..session.tables import SessionTables
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
from .processes import GC_THRESHOLD

__all__ = [
    "AHEAD",
    "CONNECT_TIMEOUT",
    "LOCAL_WORKERS",
    "WINDOW",
    "DaskRunner",
    "connect",
    "describe",
    "write_dataset",
]

#: Seconds to wait for the scheduler at ``--scheduler ADDRESS`` before giving up.
CONNECT_TIMEOUT = 10.0
#: Seconds to wait for a reachable scheduler to have at least one worker.
WORKER_TIMEOUT = 60.0
#: Worker processes of the local cluster (one thread each).
LOCAL_WORKERS = 2
#: Entries (hands and rejections, of all lanes) per window. Larger than ``--jobs``'s: each
#: window costs every lane two tasks, a round trip to the client and a table build.
WINDOW = 5000
#: Windows whose read tasks may run ahead of the window being replayed and written.
AHEAD = 3
#: Partitions of each Parquet dataset per worker thread.
PARTITIONS_PER_THREAD = 2
#: The tables of a session, in :class:`~ofc_audit.session.tables.SessionTables` order.
TABLE_NAMES = ("hands", "seats", "pairs", "violations", "mismatches", "rejected")


# -- the tasks --------------------------------------------------------------------------------


_P = ParamSpec("_P")
_T = TypeVar("_T")
_Item = TypeVar("_Item")
_Value = TypeVar("_Value")


def _rarer_collections(task: Callable[_P, _T]) -> Callable[_P, _T]:
    """The task run with the garbage collector thresholds of ``--jobs``'s workers, for its
    time only (the worker may serve other work): a task holds a window of parsed hands,
    which the cyclic collector would walk again and again with the default thresholds
    (about 40% of a read task's time). The audit makes no reference cycles to speak of;
    reference counting frees its objects."""

    @wraps(task)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        before = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLD)
        try:
            return task(*args, **kwargs)
        finally:
            gc.set_threshold(*before)

    return run


@dataclass(frozen=True)
class _Checked:
    """What the client and the other lanes need of a read task (small): whether the reader
    yielded one item per entry where the scan said, the rejections (break points) and the
    tables (file, name as parsed) of the window."""

    ok: bool
    rejections: list[Break]
    tables: list[tuple[str, str]]


@dataclass
class _Read:
    items: list[tuple[Key, Item]]
    checked: _Checked


@_rarer_collections
def _read(plan: Plan, lane: int, rows: list[Row]) -> _Read:
    """Task: one lane's entries of one window, each read alone from its own bytes."""
    files: dict[int, IO[bytes]] = {}
    items: list[tuple[Key, Item]] = []
    rejections: list[Break] = []
    tables: dict[tuple[str, str], None] = {}
    ok = True
    try:
        for row in rows:
            item = entry_item(read_entry(files, plan.sources, as_read(plan, lane, row)), row)
            if item is None:
                ok = False
                break
            key = item_key(row[1], item)
            items.append((key, item))
            file = plan.sources[row[1]].file
            if isinstance(item, HistoryParseError):
                rejections.append((key, file, item.table))
            else:
                tables[(file, item.table.name)] = None
    finally:
        for stream in files.values():
            stream.close()
    return _Read(items, _Checked(ok, rejections, list(tables)))


def _checked(read: _Read) -> _Checked:
    return read.checked


@dataclass
class _LaneState:
    """What a lane carries from one window to the next: its replayer (the table chains) and
    the key of the last item it replayed."""

    replayer: Replayer
    last: Key | None = None


@dataclass
class _Replayed:
    state: _LaneState
    payload: Payload


def _where(rejection: Break) -> Key:
    return rejection[0]


@_rarer_collections
def _replay(plan: Plan, lane: int, state: _LaneState | None, read: _Read,
            checked: list[_Checked]) -> _Replayed:
    """Task: one lane's items of one window replayed and rendered, every lane's rejections of
    the window known (``checked``). ``state`` is copied, never changed: the task may run
    again."""
    if state is None:
        state = _LaneState(Replayer(plan.ruleset, explain=plan.render == "explain"))
    else:
        state = copy.deepcopy(state)
    replayer = state.replayer
    pending = deque(sorted((b for other, c in enumerate(checked) if other != lane
                            for b in c.rejections), key=_where))
    builder = None
    if plan.render == "tables":
        from ..session.tables import TableBuilder

        builder = TableBuilder()
    payload = Payload()
    for key, item in read.items:
        apply_breaks(replayer, pending, state.last, key)
        outcome: Outcome
        if isinstance(item, HistoryParseError):
            replayer.reject(item)
            outcome = item
        else:
            outcome = replay_hand(replayer, item, plan.step)
        state.last = key
        render_outcome(payload, key, outcome, plan, builder)
    # Other lanes' rejections after this lane's last item: before its next one.
    apply_breaks(replayer, pending, state.last, (len(plan.sources), 0))
    payload.frames = table_pieces(builder)
    return _Replayed(state, payload)


# -- the client side --------------------------------------------------------------------------


def _lane_workers(client: Client) -> list[str]:
    """A worker address per lane: one lane per worker thread."""
    workers = client.scheduler_info().get("workers", {})
    return [address for address in sorted(workers)
            for _ in range(max(1, int(workers[address].get("nthreads", 1))))]


def _windows(client: Client, plan: Plan, ahead: int, stats: RunStats,
             progress: Progress | None = None) -> Iterator[dict[int, Payload]]:
    """Every window's payloads (lane -> payload), in order, as ``processes._windows`` gives
    them; raises :class:`~ofc_audit.engines.lanes.Fallback` after the last window that passed
    its checks. Each lane goes on to its next window as soon as its replay of one is back
    (no lane waits for the others), up to ``ahead`` windows past the one to write.
    ``progress`` is told the bytes of the input up to each window's end as it is written."""
    lanes = plan.lanes
    bases = source_bases(plan.sources)
    ends: dict[int, int] = {}  # window: bytes of the input up to its last entry's end
    where = _lane_workers(client)
    # The copies to leave out are the deal's (here): the tasks never see them.
    planned = client.scatter(replace(plan, index=None), broadcast=True, hash=False)
    dealt = deal(plan)
    fed: dict[int, tuple[Key, list[Future], list[Future]]] = {}  # window -> start, tasks
    dealt_all = False
    states: list[_LaneState | None] = [None] * lanes
    replaying: dict[Future, tuple[int, int]] = {}  # replay task -> (lane, window)
    following = [0] * lanes  # the window each lane replays next
    outs: dict[int, dict[int, Payload]] = {}
    written = 0
    owners = stats.owners

    def submit(function: Any, lane: int, *args: Any, **options: Any) -> Future:
        # Not pure: the same task may read a file that changed since an earlier run. A lane's
        # tasks run on its worker (its reads stay there), or anywhere if that one is gone.
        return client.submit(function, *args, pure=False, workers=[where[lane % len(where)]],
                             allow_other_workers=True, **options)

    def feed() -> None:
        nonlocal dealt_all
        while not dealt_all and len(fed) < ahead + 1:
            dealing = next(dealt, None)
            if dealing is None:
                dealt_all = True
                return
            w, start, rows = dealing
            ends[w] = window_end(bases, rows)
            reads = [submit(_read, lane, planned, lane, rows[lane]) for lane in range(lanes)]
            fed[w] = (start, reads, [submit(_checked, lane, read)
                                     for lane, read in enumerate(reads)])

    def replay(lane: int) -> None:
        w = following[lane]
        if w in fed and not any(lane == other for other, _ in replaying.values()):
            _, reads, checks = fed[w]
            # Before any read task still waiting: the output waits for these.
            task = submit(_replay, lane, planned, lane, states[lane], reads[lane], checks,
                          priority=1)
            replaying[task] = (lane, w)

    try:
        while True:
            feed()
            for lane in range(lanes):
                replay(lane)
            if written in outs and len(outs[written]) == lanes:
                start, _, checks = fed.pop(written)
                window_checks: list[_Checked] = client.gather(checks)
                ok = all(c.ok for c in window_checks)
                for lane, c in enumerate(window_checks):
                    for table in c.tables:
                        if owners.setdefault(table, lane) != lane:
                            ok = False
                if not ok:
                    raise Fallback(start)
                written += 1
                if progress is not None:
                    progress.read(ends.pop(written - 1, 0))
                yield outs.pop(written - 1)
                continue
            if not replaying:
                return  # every window written
            done, _ = wait(list(replaying), return_when="FIRST_COMPLETED")
            for task in done:
                lane, w = replaying.pop(task)
                result: _Replayed = task.result()
                states[lane] = result.state
                outs.setdefault(w, {})[lane] = result.payload
                following[lane] = w + 1
    finally:
        client.cancel([f for _, reads, checks in fed.values() for f in (*reads, *checks)]
                      + list(replaying) + [planned])


def _lanes(client: Client) -> int:
    return max(1, len(_lane_workers(client)))


class DaskRunner:
    """The runner of ``--engine dask``: one lane per worker thread of ``client``'s cluster
    (on the local cluster, the very chunks of ``--jobs 2``). ``window``, ``ahead`` and
    ``sabotage``: see :data:`WINDOW`, :data:`AHEAD`, :class:`~ofc_audit.audit.work.Plan`."""

    stdin: StdinMode = "memory"  # sent to the workers with the plan

    def __init__(self, client: Client, *, window: int | None = None, ahead: int | None = None,
                 sabotage: Sabotage = None, stats: RunStats | None = None) -> None:
        self.client = client
        self.window = window
        self.ahead = ahead
        self.sabotage = sabotage
        self.stats = stats if stats is not None else RunStats()

    def windows(self, plan: Plan, progress: Progress | None) -> Iterator[dict[int, Payload]]:
        if not plan.sources:
            raise Fallback((0, 0))
        lanes = _lanes(self.client)
        plan = replace(plan, lanes=lanes, window=WINDOW if self.window is None else self.window,
                       sabotage=self.sabotage)
        self.stats.lanes = lanes
        yield from _windows(self.client, plan, AHEAD if self.ahead is None else self.ahead,
                            self.stats, progress)

    def each(self, function: Callable[[_Item], _Value], items: Sequence[_Item]
             ) -> Iterator[_Value]:
        """``function`` of every item, in order, on the cluster, each item a task of its own
        (whatever its table: for work that is heavy per item, such as a review's hands). The
        tasks are not pure (a task lost with a worker is run again) and are taken in order,
        so the first values come first."""
        if not items:
            return
        futures = self.client.map(function, list(items), pure=False)
        try:
            for future in futures:
                yield future.result()
        finally:
            self.client.cancel(futures)


@contextmanager
def _no_string_conversion() -> Iterator[None]:
    # Keep pandas' own string dtype: the local engine's tables do not use pyarrow strings.
    with dask.config.set({"dataframe.convert-string": False}):
        yield


def write_dataset(client: Client, tables: SessionTables, dataset: Path) -> None:
    """Each table as a partitioned Parquet dataset ``dataset/TABLE/``, written by the
    workers (which see ``dataset`` at the same absolute path)."""
    partitions = PARTITIONS_PER_THREAD * max(1, sum(client.nthreads().values()))
    dataset.mkdir(parents=True, exist_ok=True)
    with _no_string_conversion():
        writes = [
            dd.from_pandas(frame, npartitions=max(1, min(partitions, len(frame))), sort=False)
            .to_parquet(dataset / name, write_index=False, compute=False, overwrite=True)
            for name, frame in tables.items()
        ]
        client.compute(writes, sync=True)


# -- connecting -------------------------------------------------------------------------------


@contextmanager
def connect(
    scheduler: str | None = None,
    *,
    connect_timeout: float | None = None,
    workers: int = LOCAL_WORKERS,
) -> Iterator[Client]:
    """A client of the scheduler at ``scheduler``, or of a new local cluster (``workers``
    processes, one thread each) shut down on exit. An unreachable scheduler raises
    :class:`~ofc_audit.engines.EngineError` after ``connect_timeout`` seconds."""
    if scheduler is None:
        with (
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                         dashboard_address=None, silence_logs=logging.ERROR) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
    try:
        client = Client(scheduler, timeout=timeout)
    except Exception as error:  # OSError/TimeoutError when unreachable, ValueError if malformed
        raise EngineError(
            f"cannot reach the Dask scheduler at {scheduler} (waited {timeout:g} s): {error}"
        ) from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
        except TimeoutError:
            raise EngineError(
                f"the Dask scheduler at {scheduler} has no workers (waited {WORKER_TIMEOUT:g} s)"
            ) from None
        yield client
    finally:
        client.close()


def describe(client: Client, scheduler: str | None) -> str:
    """Which cluster a run uses, for people (the command line says it on standard error)."""
    where = scheduler or "a local cluster"
    workers = len(client.scheduler_info().get("workers", {}))
    return f"dask engine: {where}, {quantity(workers, 'worker')}"
