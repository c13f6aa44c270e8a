"""The Dask engine: ``ofc-audit audit|session PATH... --engine dask [--scheduler ADDRESS]``.

Same results as the local engine, computed on a Dask cluster: a ``LocalCluster`` on this
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
   lane in the window before they start: a rejection of another lane breaks the chains of
   its file right where the local engine breaks them (``lanes.apply_breaks``, as ``--jobs``
   does); nothing is ever replayed twice. Each renders its hands (audit JSON entries, audit
   text lines, session table pieces, or the hand of ``--hand``).
4. **Output.** The client merges a window's payloads by (file, line) and writes them
   (``processes.write_audit`` and ``processes.build_tables``, the very code of ``--jobs``),
   while the read tasks of the next :data:`AHEAD` windows run: memory stays flat in the
   size of the files (``session`` keeps its tables, which are its result).
5. **Checks.** If a read task's check fails, or a table name (as parsed) turns up in two
   lanes, the windows before are written and the rest is done in the client by the local
   engine's loop, as ``--jobs`` does.

Tasks are pure (they read files and return values; the replayer state a task starts from is
an argument, never changed in place), so a task lost with a worker is simply run again:
nothing is lost or counted twice. Results are merged by (source, line) keys, never by
arrival order.

``session`` also writes the tables as partitioned Parquet datasets under
``OUT/dataset/TABLE/`` (written by the workers, part files with fixed names), and the same
:mod:`ofc_audit.session.summaries` functions summarise the very pandas tables of the local engine.
"""

from __future__ import annotations

import copy
import gc
import io
import json
import logging
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial, wraps
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, ParamSpec, TypeVar

import dask
import dask.dataframe as dd
from distributed import Client, Future, LocalCluster, wait

from ..audit.driver import hand_json
from ..audit.filters import Selection
from ..audit.inputs import Scope
from ..audit.progress import Progress
from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError
from ..replay import Replayer
from ..replay.results import HandResult
from ..session.tables import SessionTables
from . import EngineError
from .groups import AuditWriter, Key, Source, expand_paths, open_source
from .lanes import (
    Break,
    Fallback,
    Item,
    Payload,
    Plan,
    Row,
    Sabotage,
    apply_breaks,
    as_read,
    deal,
    entry_item,
    item_key,
    local_items,
    read_entry,
    render_outcome,
    table_pieces,
)
from .processes import GC_THRESHOLD, RunStats, build_tables, write_audit

if TYPE_CHECKING:
    from ..present.report_view import ReportOptions

__all__ = [
    "AHEAD",
    "CONNECT_TIMEOUT",
    "LOCAL_WORKERS",
    "WINDOW",
    "RunStats",
    "Source",
    "audit_document",
    "connect",
    "expand_paths",
    "run_audit",
    "run_session",
    "session_tables",
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
                rejections.append((key, file))
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
    pending = deque(sorted(b for other, c in enumerate(checked) if other != lane
                           for b in c.rejections))
    builder = None
    if plan.render == "tables":
        from ..session.tables import TableBuilder

        builder = TableBuilder()
    payload = Payload()
    for key, item in read.items:
        apply_breaks(replayer, pending, state.last, key)
        outcome: HandResult | HistoryParseError
        if isinstance(item, HistoryParseError):
            replayer.break_chains(item.file)
            outcome = item
        else:
            outcome = replayer.replay(item)
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
    ``progress``: none is given (the Dask engine shows none, docs/RULINGS.md)."""
    del progress
    lanes = plan.lanes
    where = _lane_workers(client)
    planned = client.scatter(plan, broadcast=True, hash=False)
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


def _runner(client: Client) -> Any:
    return partial(_windows, client)


def _lanes(client: Client) -> int:
    return max(1, len(_lane_workers(client)))


def _checked_sources(paths: Sequence[str]) -> list[Source]:
    """The files of ``paths`` as the reader reads them; an unreadable one fails now, before
    anything is written."""
    sources = expand_paths(paths)
    for source in sources:
        open_source(source).close()
    return sources


def _write_audit(
    client: Client, sources: Sequence[Source], ruleset: Ruleset, out: IO[str], as_json: bool,
    *, window: int | None, ahead: int | None, stats: RunStats | None,
    selection: Selection | None = None, sabotage: Sabotage = None,
) -> AuditWriter:
    return write_audit(sources, ruleset, out, "json" if as_json else "text", _lanes(client),
                       window=WINDOW if window is None else window,
                       ahead=AHEAD if ahead is None else ahead, stats=stats,
                       selection=selection, sabotage=sabotage, runner=_runner(client))


def audit_document(
    client: Client, paths: Sequence[str], ruleset: Ruleset, *, window: int | None = None,
    ahead: int | None = None, stats: RunStats | None = None, sabotage: Sabotage = None,
) -> str:
    """The ``ofc-audit audit --json`` document, equal to the local engine's (``sabotage``:
    tests only, see :class:`~ofc_audit.engines.lanes.Plan`)."""
    out = io.StringIO()
    _write_audit(client, _checked_sources(paths), ruleset, out, True, window=window,
                 ahead=ahead, stats=stats, sabotage=sabotage)
    return out.getvalue()


def _explained(
    client: Client, sources: Sequence[Source], ruleset: Ruleset, hand: str, *,
    window: int | None = None, ahead: int | None = None, stats: RunStats | None = None,
) -> list[HandResult]:
    """The results of the hands with id ``hand``, replayed with explanations, in file order."""
    stats = stats if stats is not None else RunStats()
    found: list[tuple[Key, HandResult]] = []
    if not sources:
        return []
    plan = Plan(tuple(sources), ruleset, "explain", _lanes(client),
                WINDOW if window is None else window, hand=hand)
    try:
        for payloads in _windows(client, plan, AHEAD if ahead is None else ahead, stats):
            stats.windows += 1
            found.extend(kv for payload in payloads.values() for kv in payload.found)
    except Fallback as fallback:
        stats.fallback = fallback.key
        found.extend((key, item) for key, item in local_items(sources, ruleset, fallback.key,
                                                               explain=True)
                     if not isinstance(item, HistoryParseError) and item.hand_id == hand)
    return [result for _, result in sorted(found, key=lambda kv: kv[0])]


@contextmanager
def _no_string_conversion() -> Iterator[None]:
    # Keep pandas' own string dtype: the local engine's tables do not use pyarrow strings.
    with dask.config.set({"dataframe.convert-string": False}):
        yield


def _write_dataset(client: Client, tables: SessionTables, dataset: Path) -> None:
    """Each table as a partitioned Parquet dataset ``dataset/TABLE/``, written by the
    workers."""
    partitions = PARTITIONS_PER_THREAD * max(1, sum(client.nthreads().values()))
    dataset.mkdir(parents=True, exist_ok=True)
    with _no_string_conversion():
        writes = [
            dd.from_pandas(frame, npartitions=max(1, min(partitions, len(frame))), sort=False)
            .to_parquet(dataset / name, write_index=False, compute=False, overwrite=True)
            for name, frame in tables.items()
        ]
        client.compute(writes, sync=True)


def session_tables(
    client: Client,
    paths: Sequence[str],
    ruleset: Ruleset,
    dataset: Path | None = None,
    *,
    window: int | None = None,
    ahead: int | None = None,
    stats: RunStats | None = None,
    sources: Sequence[Source] | None = None,
    stderr: IO[str] | None = None,
    sabotage: Sabotage = None,
) -> tuple[SessionTables, list[HistoryParseError]]:
    """Every session table of the files, equal to the local engine's, and the rejections in
    file order (each also said on ``stderr`` as it comes); with ``dataset``, also written as
    Parquet datasets ``dataset/TABLE/``."""
    sources = expand_paths(paths) if sources is None else sources
    for source in sources:
        open_source(source).close()  # an unreadable file fails now, naming it
    rejections: list[HistoryParseError] = []
    tables = build_tables(sources, ruleset, _lanes(client), stderr,
                          window=WINDOW if window is None else window,
                          ahead=AHEAD if ahead is None else ahead, stats=stats,
                          sabotage=sabotage, runner=_runner(client), rejections=rejections)
    if dataset is not None:
        _write_dataset(client, tables, dataset)
    return tables, rejections


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


@contextmanager
def _client(scheduler: str | None, client: Client | None, stderr: IO[str]) -> Iterator[Client]:
    if client is not None:
        yield client
        return
    with connect(scheduler) as connected:
        where = scheduler or "a local cluster"
        stderr.write(f"ofc-audit: dask engine: {where}, "
                     f"{len(connected.scheduler_info().get('workers', {}))} worker(s)\n")
        yield connected


def _error(stderr: IO[str], message: str) -> int:
    stderr.write(f"ofc-audit: error: {message}\n")
    return 2


def _read_error(error: OSError) -> str:
    return f"cannot read {error.filename or 'input'}: {error.strerror or error}"


# -- the commands -----------------------------------------------------------------------------


def run_audit(
    paths: Sequence[str],
    ruleset: Ruleset,
    *,
    scheduler: str | None = None,
    as_json: bool = False,
    hand: str | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    client: Client | None = None,
    window: int | None = None,
    selection: Selection | None = None,
) -> int:
    """``ofc-audit audit --engine dask``: prints what the local engine prints; returns the
    exit status of docs/CLI.md (or -1 when no hand was read at all: the caller says so)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        sources = _checked_sources(paths)
        with _client(scheduler, client, stderr) as c:
            if hand is not None:
                found = _explained(c, sources, ruleset, hand, window=window)
                return _print_explained(found, hand, paths, as_json, stdout, stderr)
            writer = _write_audit(c, sources, ruleset, stdout, as_json, window=window,
                                  ahead=None, stats=None, selection=selection)
    except EngineError as error:
        return _error(stderr, str(error))
    except OSError as error:
        return _error(stderr, _read_error(error))
    if not writer.read:
        return -1
    return 0 if writer.totals.clean else 1


def _print_explained(
    found: list[HandResult], hand: str, paths: Sequence[str], as_json: bool,
    stdout: IO[str], stderr: IO[str],
) -> int:
    from ..present.explain import explain_hand

    if not found:
        return _error(stderr, f"no hand #{hand} in {', '.join(paths)}")
    if as_json:
        document = {"hands": [dict(hand_json(r), explanation=[
            {"line": s.line, "text": s.text} for s in r.log]) for r in found]}
        stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    else:
        stdout.write("\n\n".join(explain_hand(r) for r in found) + "\n")
    return 1 if any(not r.clean for r in found) else 0


def run_session(
    paths: Sequence[str],
    ruleset: Ruleset,
    out: Path,
    *,
    scheduler: str | None = None,
    as_json: bool = False,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    client: Client | None = None,
    window: int | None = None,
    scope: Scope | None = None,
    options: ReportOptions | None = None,
    hand_pages: int = 1000,
) -> int:
    """``ofc-audit session --engine dask``: the local engine's output and files, plus the
    tables as Parquet datasets under ``out/dataset/``; returns the exit status of docs/CLI.md."""
    from ..present.report import finish_session

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    dataset = out.absolute() / "dataset"  # the workers of a remote cluster have their own cwd
    try:
        sources = _checked_sources(paths)
        with _client(scheduler, client, stderr) as c:
            # Each rejection is said on stderr as it comes, as report.collect() says them.
            tables, _ = session_tables(c, paths, ruleset, dataset, window=window,
                                       sources=sources, stderr=stderr)
    except EngineError as error:
        return _error(stderr, str(error))
    except OSError as error:
        if error.filename is not None and Path(str(error.filename)).is_relative_to(dataset):
            return _error(stderr, f"cannot write {error.filename}: {error.strerror or error}")
        return _error(stderr, _read_error(error))
    stderr.write(f"ofc-audit: dask engine: Parquet datasets of the tables in {dataset}/\n")
    return finish_session(tables, out, as_json, stdout, stderr, scope=scope, options=options,
                          ruleset=ruleset, hand_pages=hand_pages)
