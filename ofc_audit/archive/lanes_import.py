"""A file imported by a runner's lanes: ``ofc-audit import --jobs N`` and ``--engine dask``.

The archive's content is that of the import in one process (:mod:`.importer`), row for row,
with the same chain states stored at the file's end; only who replays changes. The runner is
the driver's (:mod:`ofc_audit.audit.driver`), passed down by the command (the archive does
not import the engines), and splits the file by table as for ``audit --jobs``.

1. **A look at the headers** (here, one pass over the file's bytes): each entry's first line
   and bytes, its hand id as its header line says it and the SHA-256 of its text. An id
   already stored (in the archive, or earlier in the file) makes the entry a duplicate or a
   conflict, as the import in one process would; such an entry is read here to be sure it
   is the hand it seems (a rejected entry is no copy of anything), listed, and left out of
   the run (:class:`~ofc_audit.history.survey.HandIndex`), so chains follow the first
   copies. Unless the file is ``--final``, its last entry is left out too and taken
   afterwards as the import in one process takes it (stored when whole, else held back).
2. **The run**: the lanes replay and render every other entry (the step :func:`lane_row`:
   what ``items`` stores of a hand, and the table state before it) and build the session
   table pieces; here the rows are staged as Parquet pieces, the hand's text taken from the
   file, and the file's transaction inserts them (:class:`~.importer.Staging`).
3. **Checks**: every hand the lanes read must have the id its header line gave, and no
   copy left out may have a first copy the reader rejected. Otherwise (headers this look
   cannot read as the reader does) the transaction is rolled back and the file read again
   in one process (:class:`~.importer.ReadAgain`): the content is the same either way.
4. **The chains at the end**: each table's last hand is replayed again here from the state
   before it (sent by its lane), unless a later rejection broke its chain; so a file that
   grows goes on from the states the import in one process would store. A grown file's
   new part is read in one process (it is usually small).
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from array import array
from typing import TYPE_CHECKING, Any

import numpy as np

from ..audit.driver import Runner, session_pieces
from ..audit.work import WORKER_TABLES, Key
from ..history.reader import HistoryParseError, read_text
from ..history.records import Hand
from ..history.sources import Source
from ..history.survey import HandIndex
from ..replay import Replayer
from ..replay.hand import HandReplay
from ..replay.results import HandResult
from ..replay.state import TableState
from .importer import (
    Listed,
    ReadAgain,
    RenderText,
    clean_text,
    hand_row,
    normalized,
    ord_of,
    pieces,
    rejected_row,
    rejection_row,
    rendered,
)
from .schema import SESSION_TABLES

if TYPE_CHECKING:
    import pandas as pd

    from .importer import Importer, ImportReport, _File

# A hand id as its header line gives it (the reader's test decides what is a hand).
_HAND_ID = re.compile(rb"[ \t]*OFC[ \t]+Hand[ \t]+#([^:\r\n]*?)[ \t]*:")
_TABLE_OF = {name: table for table, (name, _) in SESSION_TABLES.items()}


def lane_row(render_text: RenderText, hand: Hand, result: HandResult,
             before: TableState | None) -> tuple[Any, str, TableState | None]:
    """The step run in the lanes: what ``items`` stores of the hand, its table's name as
    the chains know it, and the table's state before it (for the chains at the end)."""
    return rendered(render_text, result), hand.table.name, before


def read_in_lanes(importer: Importer, runner: Runner, stream: Any, tracked: _File,
                  report: ImportReport, pending: dict[str, tuple[str, int]],
                  replayer: Replayer) -> tuple[int, int, int]:
    """The whole file, replayed by ``runner``'s lanes (see the module's docstring); where
    the next import goes on (offset, line) and the bytes held back. ``replayer`` is left
    with the chain states of the file's end."""
    file, file_id, size = tracked.name, tracked.file_id, tracked.size
    starts, ends, lines = array("q"), array("q"), array("q")  # every headed entry
    left_out: set[tuple[str, int]] = set()
    firsts_here: set[int] = set()  # ords in this file of the first copies of copies left out
    tail: tuple[bytes, int] | None = None
    newlines = 0
    for piece in pieces(stream, 0, 1, size):
        data, heads = piece.data, piece.heads
        newlines += data.count(b"\n")
        bounds = [h[0] for h in heads[1:]] + [len(data)] if heads else []
        if piece.start + len(data) >= size and heads and not importer.final:
            tail = (data[heads[-1][0]:], heads[-1][1])
            left_out.add((file, heads[-1][1]))
            heads, bounds = heads[:-1], bounds[:-1]
        found: list[tuple[bytes, int, bytes | None, str]] = []
        for (at, line), end in zip(heads, bounds, strict=True):
            starts.append(piece.start + at)
            ends.append(piece.start + end)
            lines.append(line)
            text = normalized(data[at:end])
            match = _HAND_ID.match(text)
            found.append((data[at:end], line, match[1].strip() if match else None,
                          importer.sha(text)))
        ids = [i.decode("utf-8", "surrogateescape") for *_, i, _ in found if i is not None]
        stored = importer.known(ids, {})
        duplicates: list[tuple[Any, ...]] = []
        conflicts: list[tuple[Any, ...]] = []
        first_copies: list[int] = []
        for raw, line, raw_id, sha in found:
            if raw_id is None:
                continue  # no id the header gives: the reader says what the entry is
            hand_id = raw_id.decode("utf-8", "surrogateescape")
            key = ord_of(file_id, line)
            first = pending.get(hand_id) or stored.get(hand_id)
            if first is None:
                pending[hand_id] = (sha, key)
                continue
            items = list(read_text(raw.decode("utf-8", "surrogateescape"), file, line))
            if len(items) != 1 or not isinstance(items[0], Hand):
                continue  # rejected: no copy of anything (the lanes reject it)
            if items[0].hand_id != hand_id:
                raise ReadAgain
            first_sha, first_ord = first
            if first_ord >> 32 == file_id:
                firsts_here.add(first_ord)
            where = importer.where(first_ord)
            listed = Listed(clean_text(hand_id), clean_text(file), line, clean_text(where[0]),
                            where[1])
            if first_sha == sha:
                duplicates.append((hand_id, file_id, line, first_ord))
                report.duplicates.append(listed)
            else:
                conflicts.append((hand_id, file_id, line, first_ord, sha))
                first_copies.append(first_ord)
                report.conflicts.append(listed)
            left_out.add((file, line))
        importer.store_rows([], None, [], [], duplicates, conflicts, first_copies)

    run = _Run(importer, tracked, report, pending, stream, starts, ends, lines)
    step = functools.partial(lane_row, importer.render_text)
    path = os.fsdecode(tracked.path)
    session_pieces([Source(0, file, path)], importer.ruleset, runner, run.sink,
                   on_rejection=run.rejection, index=HandIndex(_left_out=left_out),
                   step=step, on_stepped=run.stepped)
    run.flush()
    if firsts_here & run.rejected_ords:
        raise ReadAgain
    run.chains_at_end(replayer)
    if tail is None:
        return size, 1 + newlines, 0
    if importer.last_entry(replayer, tracked, tail, report, pending):
        return size, 1 + newlines, 0
    report.held.append((file, tail[1]))
    return size - len(tail[0]), tail[1], len(tail[0])


class _Run:
    """What comes back from the lanes, staged as it comes."""

    def __init__(self, importer: Importer, tracked: _File, report: ImportReport,
                 pending: dict[str, tuple[str, int]], stream: Any, starts: array[int],
                 ends: array[int], lines: array[int]) -> None:
        self.importer = importer
        self.tracked = tracked
        self.report = report
        self.pending = pending
        self.stream = stream
        self.starts, self.ends, self.lines = starts, ends, lines
        self.ords = array("q")  # of the hands in the session's numbering
        self.last: dict[str, tuple[int, TableState | None]] = {}  # table -> last hand
        self.breaks: list[tuple[int, str | None]] = []  # rejections: (line, table)
        self.rejected_ords: set[int] = set()
        self.rejections: list[tuple[int, HistoryParseError]] = []  # not staged yet

    def text(self, line: int) -> bytes:
        """The entry starting at ``line``, as the archive keeps a hand's text."""
        return normalized(self.raw(line))

    def raw(self, line: int) -> bytes:
        """The entry starting at ``line``, as it stands in the file."""
        i = bisect.bisect_left(self.lines, line)
        if i == len(self.lines) or self.lines[i] != line:
            raise ReadAgain  # a hand where the look at the headers saw none
        self.stream.seek(self.starts[i])
        return bytes(self.stream.read(self.ends[i] - self.starts[i]))

    def stepped(self, values: list[tuple[Key, Any]]) -> None:
        file_id = self.tracked.file_id
        rows = []
        for (_, line), (made, table, before) in values:
            key = ord_of(file_id, line)
            first = self.pending.get(made[0])
            if first is None or first[1] != key:
                raise ReadAgain  # the header's id is not the one the reader read
            rows.append(hand_row(key, file_id, line, first[0], self.text(line), made))
            self.ords.append(key)
            self.last[table] = (line, before)
        self.importer.insert_items(rows)
        self.report.hands += len(rows)
        self.flush()

    def flush(self) -> None:
        """Stage the rejections not staged yet."""
        if self.rejections:
            file_id = self.tracked.file_id
            self.importer.store_rows(
                [rejection_row(key, file_id, error) for key, error in self.rejections],
                None, [], [rejected_row(key, error) for key, error in self.rejections],
                [], [], [])
            self.rejections = []

    def sink(self, t: int, frame: pd.DataFrame) -> None:
        numbers = frame["hand"].to_numpy()
        ords = np.frombuffer(self.ords, dtype=np.int64)[numbers]  # a copy: indexed
        self.importer.stage_session(_TABLE_OF[WORKER_TABLES[t]], frame, ords)

    def rejection(self, error: HistoryParseError) -> None:
        key = ord_of(self.tracked.file_id, error.entry_line)
        self.rejected_ords.add(key)
        self.breaks.append((error.entry_line, error.table))
        self.rejections.append((key, error))
        self.report.rejected += 1

    def chains_at_end(self, replayer: Replayer) -> None:
        """Each table's state after its last hand (see the module's docstring)."""
        file = self.tracked.name
        for table, (line, before) in self.last.items():
            if any(at > line and broken in (None, table) for at, broken in self.breaks):
                continue
            items = list(read_text(self.raw(line).decode("utf-8", "surrogateescape"),
                                   file, line))
            assert len(items) == 1 and isinstance(items[0], Hand)
            result, state = HandReplay(items[0], self.importer.ruleset, before).run()
            if result.incomplete is None:
                replayer.states[(file, table)] = state
