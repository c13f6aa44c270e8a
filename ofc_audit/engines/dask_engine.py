"""The Dask engine: ``ofc-audit audit|session PATH... --engine dask [--scheduler ADDRESS]``.

Same results as the local engine, computed on a Dask cluster: a ``LocalCluster`` on this
machine (2 worker processes, 1 thread each) or the scheduler at ``ADDRESS``. The workers open
the history files by absolute path, so on a real cluster the files (and ``--out``) must be
reachable at the same paths from every worker (a shared file system).

How the work is split without changing a single result
------------------------------------------------------
The local engine replays each file's hands in order with one :class:`~ofc_audit.replay.Replayer`
whose state is keyed by (file, table name): button, stacks, Fantasyland chains and sit-outs
are checked along each table's hands, and a rejected hand breaks every chain of its file.
Hands of different tables never see each other. So:

1. **Units.** One per distinct file name, in read order. A file named twice is one unit
   whose occurrences are read in turn, as the local engine carries its chains across them.
2. **Scan** (a task per unit worth splitting): a cheap pass of regular expressions over
   large blocks finds where the reader will start each entry (with the reader's own test
   for a header line), its byte offset and line, and the table name on its table line.
3. **Groups.** The client deals a big unit's tables into groups balanced by hand count (a
   table is never split; a small unit is one group, read as the local engine reads it). A
   group task reads its own entries by offset and gives the reader every other line as an
   empty line, so each hand keeps its text and line numbers and the reader yields exactly
   the items it yields for the whole file. It parses and replays its hands in order with its
   own ``Replayer`` and renders them (audit JSON, audit text lines, or pandas table pieces
   built by :class:`~ofc_audit.tables.TableBuilder`).
4. **Rejections.** A group knows the rejections it read itself; the others reach it as break
   points (it calls ``Replayer.break_chains`` where one lies between two of its hands).
   Round one knows none; a group whose table spans hold a rejection it did not know is run
   again with all of its unit's rejections. Parsing does not depend on break points, so the
   second round is final.
5. **Checks.** Each group checks that each of its entries starts on the line the scan says
   (counting the lines between), that every item the reader yields starts at a boundary the
   scan found, and the client that no table name (as parsed) turns up in two groups of a
   unit. If any check fails the unit is run again as one group: the whole file in order,
   exactly the local engine's loop.

Tasks are pure (they read files and return values; writing happens once, at the end, in the
Parquet step whose part files have fixed names), so a task lost with a worker is simply run
again: nothing is lost or counted twice. Results are merged by (source, line) keys, never by
arrival order.

The session tables come back as Dask DataFrames (groups dealt into two partitions per worker
thread, ``hand`` renumbered to the session's order, rows sorted by it), are written as a
partitioned Parquet dataset under ``OUT/dataset/TABLE/``, and are gathered into the very
pandas tables of the local engine, which the same :mod:`ofc_audit.summaries` functions
summarise.
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client, Future, LocalCluster

from ..audit import AuditTotals, hand_json, hand_json_text, rejection_json
from ..explain import hand_findings, hand_line
from ..filters import Facts, Selection, hand_facts
from ..inputs import Scope
from ..reader import HistoryParseError, read_stream
from ..replay import Replayer
from ..results import HandResult
from ..rules import Ruleset
from ..tables import SessionTables, TableBuilder
from . import EngineError
from .groups import HEADER_START as _HEADER_START
from .groups import (
    SCAN_BLOCK,
    Key,
    Source,
    count_hand,
    expand_paths,
    hand_flags,
    scan_source,
)
from .groups import Chunks as _Chunks
from .groups import Scan as _Scan
from .groups import consistent as _consistent
from .groups import kept as kept_entries
from .groups import open_source as _open

if TYPE_CHECKING:
    from ..report_view import ReportOptions

__all__ = [
    "CONNECT_TIMEOUT",
    "LOCAL_WORKERS",
    "Render",
    "RunStats",
    "Source",
    "Split",
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
#: Work units aimed at per worker thread (more units balance better, each costs a file read).
UNITS_PER_THREAD = 2
#: A file is split into groups of tables only when each group gets at least this many hands.
SPLIT_MIN_HANDS = 200
#: Partitions of the session tables per worker thread (each a task and a Parquet file).
PARTITIONS_PER_THREAD = 2
#: Fewest bytes a hand takes in a history (a scan is worth it only for files that may hold
#: enough hands to split).
MIN_HAND_BYTES = 600
#: The tables of a session, in :class:`~ofc_audit.tables.SessionTables` order; all but
#: ``rejected`` are built on the workers.
TABLE_NAMES = ("hands", "seats", "pairs", "violations", "mismatches", "rejected")
_WORKER_TABLES = TABLE_NAMES[:-1]



# -- sources and the scan (shared with the process engine: engines/groups.py) ----------------

_SCAN_BLOCK = SCAN_BLOCK  # bytes read at a time by the scan


def _scan_source(source: Source) -> _Scan:
    """Every entry of one file (:func:`ofc_audit.engines.groups.scan_source`)."""
    return scan_source(source, _SCAN_BLOCK)


def _scan_unit(sources: tuple[Source, ...]) -> list[_Scan]:
    """Task: the scan of every occurrence of one file."""
    return [_scan_source(source) for source in sources]


def _plan(counts: dict[str | None, int], groups: int) -> dict[str | None, int]:
    """Tables dealt into ``groups`` groups, biggest first to the lightest group."""
    loads = [0] * groups
    assignment: dict[str | None, int] = {}
    for table, hands in sorted(counts.items(), key=lambda item: -item[1]):
        group = min(range(groups), key=lambda g: (loads[g], g))
        assignment[table] = group
        loads[group] += hands
    return assignment


def _group_segments(
    scans: list[_Scan], assignment: dict[str | None, int], groups: int
) -> list[tuple[np.ndarray[Any, Any], ...]]:
    """Per group, per occurrence: its entries as rows (byte start, byte end, first line,
    1 for a hand / 0 for text before the first header)."""
    out: list[list[np.ndarray[Any, Any]]] = [[] for _ in range(groups)]
    for scan in scans:
        starts = np.asarray(scan.starts, dtype=np.int64)
        ends = np.append(starts[1:], np.int64(scan.size))
        lines = np.asarray(scan.lines, dtype=np.int64)
        hand = np.ones(len(starts), dtype=np.int64)
        if scan.preamble:
            hand[0] = 0
        rows = np.stack([starts, ends, lines, hand], axis=1) if len(starts) else np.zeros(
            (0, 4), dtype=np.int64)
        group_of = np.fromiter((assignment.get(t, 0) for t in scan.tables), dtype=np.int64,
                               count=len(scan.tables))
        for g in range(groups):
            out[g].append(rows[group_of == g])
    return [tuple(rows) for rows in out]


def _kept(
    stream: IO[bytes], rows: np.ndarray[Any, Any], kept: list[tuple[int, bool, int]],
    misplaced: list[int],
) -> Iterator[bytes]:
    """The file as this group's reader sees it (:func:`ofc_audit.engines.groups.kept`)."""
    return kept_entries(stream, rows.tolist(), kept, misplaced)


# -- the group task ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Render:
    """What a group task makes of each hand: ``json`` (the audit JSON entry), ``text`` (the
    audit's text lines), ``tables`` (session table pieces), ``explain`` (the results of hand
    ``hand_id``, replayed with explanations)."""

    kind: Literal["json", "text", "tables", "explain"]
    hand_id: str | None = None


@dataclass(frozen=True)
class _GroupTask:
    unit: int
    group: int
    file: str
    sources: tuple[Source, ...]
    segments: tuple[np.ndarray[Any, Any], ...] | None  # per source; None: whole files
    breaks: tuple[Key, ...]  # sorted rejections of other groups
    ruleset: Ruleset
    render: Render




@dataclass
class _GroupMeta:
    """What the client needs of a group's result to merge and check it (small)."""

    unit: int
    group: int
    breaks: tuple[Key, ...]
    consistent: bool = True
    hands: list[Key] = field(default_factory=list)
    flags: list[int] = field(default_factory=list)  # INVALID | MISMATCHED per hand
    rejections: list[tuple[Key, HistoryParseError]] = field(default_factory=list)
    spans: dict[str, tuple[Key, Key]] = field(default_factory=dict)  # table: first, last hand


@dataclass
class _GroupOutput:
    meta: _GroupMeta
    texts: list[str] = field(default_factory=list)  # json / text: one per hand
    facts: list[Facts] = field(default_factory=list)  # json / text: what filters look at
    tables: SessionTables | None = None  # tables
    found: list[tuple[Key, HandResult]] = field(default_factory=list)  # explain


def _run_group(task: _GroupTask) -> _GroupOutput:
    """Task: parse and replay one group's hands in file order; pure (reads files only)."""
    render = task.render
    replayer = Replayer(task.ruleset, explain=render.kind == "explain")
    builder = TableBuilder() if render.kind == "tables" else None
    meta = _GroupMeta(task.unit, task.group, task.breaks)
    out = _GroupOutput(meta)
    breaks = list(task.breaks)
    last: Key | None = None
    for i, source in enumerate(task.sources):
        kept: list[tuple[int, bool, int]] = []
        seen: list[int] = []
        misplaced: list[int] = []
        if task.segments is not None and not len(task.segments[i]):
            continue
        with _open(source) as raw:
            stream: IO[bytes] = raw
            if task.segments is not None:
                stream = io.BufferedReader(
                    _Chunks(_kept(raw, task.segments[i], kept, misplaced))
                )
            for item in read_stream(stream, source.file):
                line = item.entry_line if isinstance(item, HistoryParseError) else item.line
                seen.append(line)
                key = (source.index, line)
                if last is not None:
                    after = bisect_right(breaks, last)
                    if after < len(breaks) and breaks[after] < key:
                        replayer.break_chains(task.file)  # a rejection of another group
                last = key
                if isinstance(item, HistoryParseError):
                    replayer.break_chains(task.file)
                    meta.rejections.append((key, item))
                    continue
                result = replayer.replay(item)
                meta.hands.append(key)
                meta.flags.append(hand_flags(result))
                if render.kind in ("json", "text"):
                    out.facts.append(hand_facts(result))
                first = meta.spans.get(result.table, (key, key))[0]
                meta.spans[result.table] = (first, key)
                if render.kind == "json":
                    out.texts.append(hand_json_text(result))
                elif render.kind == "text":
                    out.texts.append("\n".join([hand_line(result), *hand_findings(result)]))
                elif builder is not None:
                    builder.add(result)
                elif result.hand_id == render.hand_id:
                    out.found.append((key, result))
        if task.segments is not None and (misplaced or not _consistent(kept, seen)):
            meta.consistent = False
    if builder is not None:
        out.tables = builder.build()
    return out


def _meta_of(output: _GroupOutput) -> _GroupMeta:
    return output.meta


def _partition(
    outputs: list[_GroupOutput], numbers: list[np.ndarray[Any, Any]]
) -> tuple[pd.DataFrame, ...]:
    """Task: the worker-built tables of some groups, each table as one partition, ``hand``
    renumbered to the session's order and the rows sorted by it (stable: a hand's rows keep
    their order)."""
    parts: list[tuple[pd.DataFrame, ...]] = []
    for output, number in zip(outputs, numbers, strict=True):
        assert output.tables is not None
        frames = []
        for name in _WORKER_TABLES:
            frame: pd.DataFrame = getattr(output.tables, name).copy()
            frame["hand"] = number[frame["hand"].to_numpy()]
            frames.append(frame)
        parts.append(tuple(frames))
    return tuple(
        pd.concat([part[i] for part in parts], ignore_index=True)
        .sort_values("hand", kind="stable")
        .reset_index(drop=True)
        for i in range(len(_WORKER_TABLES))
    )


def _table_of(partition: tuple[pd.DataFrame, ...], index: int) -> pd.DataFrame:
    return partition[index]


# -- the client side --------------------------------------------------------------------------


@dataclass
class RunStats:
    """How a run was split: units (distinct files), group tasks in the final result, units
    split into several groups, groups run a second time for rejections of other groups, and
    units run again whole because a check failed."""

    units: int = 0
    groups: int = 0
    split_units: int = 0
    reruns: int = 0
    fallbacks: int = 0


@dataclass
class _Final:
    output: Future
    meta: _GroupMeta
    value: _GroupOutput | None  # the output itself, when it came to the client


def _conflict(metas: Sequence[_GroupMeta]) -> bool:
    owner: dict[str, int] = {}
    for meta in metas:
        for table in meta.spans:
            if owner.setdefault(table, meta.group) != meta.group:
                return True
    return False


def _needs_rerun(meta: _GroupMeta, rejections: Sequence[Key]) -> bool:
    known = set(meta.breaks) | {key for key, _ in meta.rejections}
    return any(
        key not in known and any(first < key < last for first, last in meta.spans.values())
        for key in rejections
    )


@dataclass(frozen=True)
class Split:
    """How finely files are split. A unit (file) gets about its share, by size, of
    ``units_per_thread`` times the cluster's threads in groups, at most one per table and
    only as many as leave ``min_hands`` hands to each."""

    min_hands: int = SPLIT_MIN_HANDS
    units_per_thread: int = UNITS_PER_THREAD


def _size(source: Source) -> int:
    if source.path is None:
        return len(source.data or b"")
    try:
        return os.path.getsize(source.path)
    except OSError:
        return 0  # the task opening it reports the error


def _execute(
    client: Client,
    sources: Sequence[Source],
    ruleset: Ruleset,
    render: Render,
    split: Split = Split(),
    stats: RunStats | None = None,
) -> list[_Final]:
    """Run every group task to its final result (see the module docstring)."""
    stats = stats if stats is not None else RunStats()
    by_file: dict[str, list[Source]] = {}
    for source in sources:
        by_file.setdefault(source.file, []).append(source)
    units = [(file, tuple(found)) for file, found in by_file.items()]
    stats.units = len(units)
    if not units:
        return []
    threads = max(1, sum(client.nthreads().values()))
    min_hands = max(1, split.min_hands)
    sizes = [sum(_size(source) for source in found) for _, found in units]
    total = max(1, sum(sizes))
    shares = [-(-split.units_per_thread * threads * size // total) for size in sizes]
    scan = [
        u for u, size in enumerate(sizes)
        if _HEADER_START is not None and threads > 1 and shares[u] > 1
        and size >= 2 * min_hands * MIN_HAND_BYTES
    ]
    scans: dict[int, list[_Scan]] = dict(zip(
        scan, client.gather(client.map(_scan_unit, [units[u][1] for u in scan], pure=False)),
        strict=True,
    ))
    tasks: list[list[_GroupTask]] = []
    for u, (file, found) in enumerate(units):
        count: dict[str | None, int] = {}
        for table in (t for s in scans.get(u, []) for t in s.tables):
            count[table] = count.get(table, 0) + 1
        groups = max(1, min(len(count), shares[u], sum(count.values()) // min_hands))
        if groups == 1:
            tasks.append([_GroupTask(u, 0, file, found, None, (), ruleset, render)])
            continue
        stats.split_units += 1
        segments = _group_segments(scans[u], _plan(count, groups), groups)
        tasks.append([_GroupTask(u, g, file, found, segments[g], (), ruleset, render)
                      for g in range(groups)])

    # For the audit the whole output comes to the client anyway; the tables stay on the
    # workers, and only their metadata comes.
    tables = render.kind == "tables"

    def submit(task: _GroupTask) -> tuple[Future, Future]:
        # Not pure: the same task may read a file that changed since an earlier run.
        output = client.submit(_run_group, task, pure=False)
        return output, client.submit(_meta_of, output) if tables else output

    def metas_of(values: list[Any]) -> list[_GroupMeta]:
        return [v if isinstance(v, _GroupMeta) else v.meta for v in values]

    submitted = [[submit(task) for task in unit] for unit in tasks]
    gathered: list[list[Any]] = client.gather([[m for _, m in unit] for unit in submitted])
    metas = [metas_of(unit) for unit in gathered]

    # Checks and break points; every second-round task is submitted before any is awaited.
    again: dict[tuple[int, int], tuple[Future, Future]] = {}
    for u, unit_metas in enumerate(metas):
        if len(unit_metas) == 1:
            continue
        if not all(m.consistent for m in unit_metas) or _conflict(unit_metas):
            stats.fallbacks += 1
            tasks[u] = [replace(tasks[u][0], group=0, segments=None, breaks=())]
            submitted[u] = [submit(tasks[u][0])]
            again[(u, 0)] = submitted[u][0]
            metas[u], gathered[u] = unit_metas[:1], gathered[u][:1]
            continue
        rejections = sorted(key for m in unit_metas for key, _ in m.rejections)
        for g, meta in enumerate(unit_metas):
            if _needs_rerun(meta, rejections):
                stats.reruns += 1
                own = {key for key, _ in meta.rejections}
                task = replace(tasks[u][g], breaks=tuple(k for k in rejections if k not in own))
                submitted[u][g] = again[(u, g)] = submit(task)
    if again:
        values = client.gather([m for _, m in again.values()])
        for (u, g), value, meta in zip(again, values, metas_of(values), strict=True):
            metas[u][g], gathered[u][g] = meta, value
    finals = [
        _Final(output, meta, None if tables else value)
        for unit, unit_metas, unit_values in zip(submitted, metas, gathered, strict=True)
        for (output, _), meta, value in zip(unit, unit_metas, unit_values, strict=True)
    ]
    stats.groups = len(finals)
    return finals


def _rejections(finals: Sequence[_Final]) -> list[HistoryParseError]:
    return [error for _, error in sorted(
        (item for final in finals for item in final.meta.rejections), key=lambda kv: kv[0]
    )]


@contextmanager
def _no_string_conversion() -> Iterator[None]:
    # Keep pandas' own string dtype: the local engine's tables do not use pyarrow strings.
    with dask.config.set({"dataframe.convert-string": False}):
        yield


def _frames(
    client: Client, finals: Sequence[_Final], rejected: pd.DataFrame
) -> dict[str, dd.DataFrame]:
    """The session tables as Dask DataFrames, ``hand`` numbered in the session's order (the
    local engine's numbering). The groups are dealt into a few partitions of about equal
    size (two per worker thread): each is one task and, per table, one Parquet file."""
    order = sorted(key for final in finals for key in final.meta.hands)
    number = {key: i for i, key in enumerate(order)}
    numbers = [np.fromiter((number[k] for k in final.meta.hands), dtype=np.int64,
                           count=len(final.meta.hands)) for final in finals]
    count = min(len(finals), PARTITIONS_PER_THREAD * max(1, sum(client.nthreads().values())))
    batches: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for i in sorted(range(len(finals)), key=lambda i: -len(finals[i].meta.hands)):
        b = min(range(count), key=lambda b: (loads[b], b))
        batches[b].append(i)
        loads[b] += len(finals[i].meta.hands) + 1
    partitions = [
        client.submit(_partition, [finals[i].output for i in sorted(batch)],
                      [numbers[i] for i in sorted(batch)])
        for batch in batches
    ]
    empty = TableBuilder().build()
    frames: dict[str, dd.DataFrame] = {}
    with _no_string_conversion():
        for index, name in enumerate(_WORKER_TABLES):
            meta: pd.DataFrame = getattr(empty, name)
            parts = [client.submit(_table_of, partition, index) for partition in partitions]
            frames[name] = (dd.from_delayed(parts, meta=meta, verify_meta=False) if parts
                            else dd.from_pandas(meta, npartitions=1))
        frames["rejected"] = dd.from_pandas(rejected, npartitions=1)
    return frames


def session_tables(
    client: Client,
    paths: Sequence[str],
    ruleset: Ruleset,
    dataset: Path | None = None,
    *,
    split: Split = Split(),
    stats: RunStats | None = None,
    sources: Sequence[Source] | None = None,
) -> tuple[SessionTables, list[HistoryParseError]]:
    """Every session table of the files, equal to the local engine's, and the rejections in
    file order; with ``dataset``, also written as Parquet datasets ``dataset/TABLE/``."""
    sources = expand_paths(paths) if sources is None else sources
    finals = _execute(client, sources, ruleset, Render("tables"), split, stats)
    rejections = _rejections(finals)
    builder = TableBuilder()
    for error in rejections:
        builder.reject(error)
    rejected = builder.build().rejected
    frames = _frames(client, finals, rejected)
    with _no_string_conversion():
        writes = [
            frames[name].to_parquet(dataset / name, write_index=False, compute=False,
                                    overwrite=True)
            for name in TABLE_NAMES
        ] if dataset is not None else []
        if dataset is not None:
            dataset.mkdir(parents=True, exist_ok=True)
        computed = client.compute([frames[name] for name in _WORKER_TABLES] + writes, sync=True)
    tables: dict[str, pd.DataFrame] = {
        name: frame.sort_values("hand", kind="stable").reset_index(drop=True)
        for name, frame in zip(_WORKER_TABLES, computed, strict=False)
    }
    tables["rejected"] = rejected
    return SessionTables(**tables), rejections


@dataclass
class _AuditRun:
    """The merged audit: (key, flags, text) per hand and the rejections, in file order."""

    hands: list[tuple[Key, int, str]]
    rejections: list[HistoryParseError]
    items: list[tuple[Key, int, str] | tuple[Key, HistoryParseError]]
    read: int = 0  # hands read, kept by the filters or not


def _audit_run(
    client: Client, sources: Sequence[Source], ruleset: Ruleset, render: Render,
    split: Split, stats: RunStats | None, selection: Selection | None = None,
) -> _AuditRun:
    finals = _execute(client, sources, ruleset, render, split, stats)
    texts = [final.value.texts if final.value else [] for final in finals]
    facts = [final.value.facts if final.value else [] for final in finals]
    keyed = sorted(
        (entry for final, group_texts, group_facts in zip(finals, texts, facts, strict=True)
         for entry in zip(final.meta.hands, final.meta.flags, group_texts, group_facts,
                          strict=True)),
        key=lambda entry: entry[0],
    )
    # The filters see the hands in file order, as the other engines' do.
    hands = [(key, flags, text) for key, flags, text, facts in keyed
             if selection is None or selection.keeps(facts)]
    pairs = sorted((kv for final in finals for kv in final.meta.rejections), key=lambda kv: kv[0])
    items: list[tuple[Key, int, str] | tuple[Key, HistoryParseError]] = [*hands, *pairs]
    items.sort(key=lambda item: item[0])
    return _AuditRun(hands, [error for _, error in pairs], items, len(keyed))


def _totals(run: _AuditRun) -> AuditTotals:
    totals = AuditTotals()
    for _, flags, _ in run.hands:
        count_hand(totals, flags)
    totals.rejected = len(run.rejections)
    totals.rejections = list(run.rejections)
    return totals


def _write_audit_json(run: _AuditRun, out: IO[str]) -> AuditTotals:
    """The document of :func:`ofc_audit.audit.write_audit_json`, byte for byte, from hand
    entries rendered on the workers."""
    totals = _totals(run)
    out.write('{"hands": [')
    for i, (_, _, text) in enumerate(run.hands):
        out.write(("\n  " if i == 0 else ",\n  ") + text)
    out.write("\n ],\n \"rejected\": [")
    out.write(",".join("\n  " + json.dumps(rejection_json(e), ensure_ascii=False)
                       for e in totals.rejections))
    out.write("\n ],\n \"totals\": " + json.dumps(totals.to_json()) + "\n}\n")
    return totals


def audit_document(
    client: Client,
    paths: Sequence[str],
    ruleset: Ruleset,
    *,
    split: Split = Split(),
    stats: RunStats | None = None,
) -> str:
    """The ``ofc-audit audit --json`` document, equal to the local engine's."""
    run = _audit_run(client, expand_paths(paths), ruleset, Render("json"), split, stats)
    out = io.StringIO()
    _write_audit_json(run, out)
    return out.getvalue()


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
    split: Split = Split(),
    selection: Selection | None = None,
) -> int:
    """``ofc-audit audit --engine dask``: prints what the local engine prints; returns the
    exit status of CLI.md (or -1 when no hand was read at all: the caller says so)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        sources = expand_paths(paths)
        with _client(scheduler, client, stderr) as c:
            if hand is not None:
                finals = _execute(c, sources, ruleset, Render("explain", hand), split)
                keyed = sorted((kr for final in finals if final.value
                                for kr in final.value.found), key=lambda kr: kr[0])
                found = [r for _, r in keyed]
                return _print_explained(found, hand, paths, as_json, stdout, stderr)
            run = _audit_run(c, sources, ruleset, Render("json" if as_json else "text"),
                             split, None, selection)
    except EngineError as error:
        return _error(stderr, str(error))
    except OSError as error:
        return _error(stderr, _read_error(error))
    if as_json:
        totals = _write_audit_json(run, stdout)
    else:
        totals = _totals(run)
        for item in run.items:
            if len(item) == 2:
                e = item[1]
                stdout.write(f"REJECTED {e.file}:{e.line}:{e.column}: {e.message}\n")
            else:
                stdout.write(item[2] + "\n")
        stdout.write("\n" + totals.summary_line() + "\n")
    if not run.read:
        return -1
    return 0 if totals.clean else 1


def _print_explained(
    found: list[HandResult], hand: str, paths: Sequence[str], as_json: bool,
    stdout: IO[str], stderr: IO[str],
) -> int:
    from ..explain import explain_hand

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
    split: Split = Split(),
    scope: Scope | None = None,
    options: ReportOptions | None = None,
    hand_pages: int = 1000,
) -> int:
    """``ofc-audit session --engine dask``: the local engine's output and files, plus the
    tables as Parquet datasets under ``out/dataset/``; returns the exit status of CLI.md."""
    from ..report import finish_session

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    dataset = out.absolute() / "dataset"  # the workers of a remote cluster have their own cwd
    try:
        with _client(scheduler, client, stderr) as c:
            tables, rejections = session_tables(c, paths, ruleset, dataset, split=split)
    except EngineError as error:
        return _error(stderr, str(error))
    except OSError as error:
        if error.filename is not None and Path(str(error.filename)).is_relative_to(dataset):
            return _error(stderr, f"cannot write {error.filename}: {error.strerror or error}")
        return _error(stderr, _read_error(error))
    for e in rejections:  # as report.collect() says them, in file order
        stderr.write(f"ofc-audit: rejected {e.file}:{e.line}:{e.column}: {e.message}\n")
    stderr.write(f"ofc-audit: dask engine: Parquet datasets of the tables in {dataset}/\n")
    return finish_session(tables, out, as_json, stdout, stderr, scope=scope, options=options,
                          ruleset=ruleset, hand_pages=hand_pages)
