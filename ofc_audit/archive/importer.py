"""``ofc-audit import``: every hand read, replayed and stored once, one transaction a file.

A file is tracked by its real path (links resolved). Unchanged (same size and modification
time): skipped without reading. Grown, with the bytes already read unchanged (their
SHA-256): read from where the last import stopped, each table's chain (stacks, button,
match) going on from the state stored there. Otherwise (new, or rewritten): read from its
start.

Only whole hands are stored: the last hand of a file that stops before the hand is over (the
reader rejects it, or its play is incomplete) is left for the next import, which reads it
again once the file has grown (``final``: stored as it stands). With ``growing`` (``watch``:
the file is being written) the last hand is whole only when it ends with a line end and its
SUMMARY has a line for every seated player (a site that writes line by line may stop after
any line).

A hand whose id is already in the archive (or earlier in this import) is not replayed: with
the same text (line ends and byte-order mark normalised, trailing blanks left out) it
is a duplicate, counted once and listed; with other text it is a conflict, listed, and
neither copy is scored. So chains follow the hands as first read, and the stored
results of a hand are those of its first import.

Each file is one transaction: a file's hands, its tracking row and its chain state are
committed together or not at all (a killed import leaves the archive as it was before the
file; the next import reads the file again). The rows are not inserted as they are made:
each piece's rows go to Parquet files in a staging folder beside the archive
(:class:`Staging`), and at the file's end one ``INSERT ... SELECT`` a table moves them in
(DuckDB writes such a large insert to the database file as it goes). So the transaction
holds no rows while the file is read, looking up the ids already stored is a lookup in
committed rows, and the import's memory does not grow with the file (DuckDB's own buffers
are capped at :data:`DUCKDB_MEMORY`). A staging folder left by a killed import is removed by
the next one (only one process can write to an archive).
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import glob
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from ..audit.filters import hand_time
from ..audit.inputs import Inputs
from ..audit.json_doc import hand_json_text
from ..audit.writer import index_lines
from ..history.reader import HEADER_PATTERN, HEADER_START, HistoryParseError, read_text
from ..history.records import Hand
from ..history.sources import real_name
from ..history.survey import Conflict, Copy, Duplicate, HandIndex
from ..replay import Replayer
from ..replay.results import HandResult
from ..replay.state import TableState
from ..session.tables import REJECTED_COLUMNS, TableBuilder
from .schema import SESSION_TABLES, first_row, rollback, stored_columns

if TYPE_CHECKING:
    from ..audit.driver import Runner

#: Bytes read at a time; a piece of whole hands is read, replayed and stored at once.
PIECE = 1 << 22
#: DuckDB's memory limit while importing (its default is 80% of the machine's memory, which
#: a large insert fills); what does not fit goes to a temporary folder beside the archive.
DUCKDB_MEMORY = "256MB"
#: The staging folders of the archive ``NAME`` are ``.NAME`` + this + a random part, beside
#: it (see :class:`Staging`).
STAGING_SUFFIX = ".importing-"
_LINE_BITS = 32
_BOM = b"\xef\xbb\xbf"
assert HEADER_PATTERN.isascii()
# Where an entry may start: a line whose first text (after blanks, and on the file's first
# line a byte-order mark) is the header keyword; the reader's own test confirms each.
_HEADER_AT = re.compile(rb"^(?:\xef\xbb\xbf)?[ \t]*(?:" + HEADER_PATTERN.encode("ascii") + rb")",
                        re.MULTILINE)

RenderText = Callable[[HandResult], str]


def ord_of(file_id: int, line: int) -> int:
    """The key that orders everything stored: files in import order, entries by line."""
    return (file_id << _LINE_BITS) | line


@dataclass(frozen=True)
class Listed:
    """A duplicate or a conflict: the copy read now and the one read first."""

    hand_id: str
    file: str
    line: int
    first_file: str
    first_line: int

    def duplicate_line(self) -> str:
        """The duplicate in the words of ``audit`` on files (``audit.writer.index_lines``)."""
        return index_lines(HandIndex([Duplicate(self.hand_id, Copy(self.file, self.line),
                                                Copy(self.first_file, self.first_line))]))[0]

    def conflict_line(self) -> str:
        """The conflict in the words of ``audit`` on files: the first copy, then this one."""
        return index_lines(HandIndex([], [Conflict(self.hand_id, (
            Copy(self.first_file, self.first_line), Copy(self.file, self.line)))]))[0]


@dataclass
class ImportReport:
    """What an import did (``ofc-audit import`` prints it)."""

    read: list[str] = field(default_factory=list)  # files read (whole or from their offset)
    skipped: list[str] = field(default_factory=list)  # unchanged since the last import
    rewritten: list[str] = field(default_factory=list)  # changed before the offset: read again
    hands: int = 0  # new hands stored
    rejected: int = 0
    duplicates: list[Listed] = field(default_factory=list)
    conflicts: list[Listed] = field(default_factory=list)
    held: list[tuple[str, int]] = field(default_factory=list)  # (file, line) left for later

    @property
    def clean(self) -> bool:
        return not (self.rejected or self.conflicts)

    def merge(self, other: ImportReport) -> None:
        for f in dataclasses.fields(self):
            mine = getattr(self, f.name)
            if isinstance(mine, list):
                mine.extend(getattr(other, f.name))
            else:
                setattr(self, f.name, mine + getattr(other, f.name))

    def lines(self) -> list[str]:
        """What ``ofc-audit import`` prints: a line of counts of files, one of hands (each
        within 80 columns), then the lists."""
        out = [
            f"files: {len(self.read)} read, {len(self.skipped)} skipped (unchanged since "
            "the last import)",
            f"hands: {self.hands} new, {len(self.duplicates)} duplicate(s), "
            f"{len(self.conflicts)} conflict(s), {self.rejected} rejected",
        ]
        out += [f"read again from its start (changed since the last import): {f}"
                for f in self.rewritten]
        out += [d.duplicate_line() for d in self.duplicates]
        out += [c.conflict_line() for c in self.conflicts]
        out += [f"held back: the hand at {f}:{line} stops before it is over (is the file "
                "still being written?); read again when the file grows (--final imports it "
                "as it stands)" for f, line in self.held]
        return out


def normalized(text: bytes) -> bytes:
    """A hand's text as duplicates are compared, as :mod:`ofc_audit.history.survey` compares
    them in a plain run: no byte-order mark, ``\\n`` line ends, no trailing blanks."""
    if text.startswith(_BOM):
        text = text[len(_BOM):]
    return text.replace(b"\r\n", b"\n").rstrip()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _blob(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


# -- chain state ------------------------------------------------------------------------------


#: The set fields of a chain state, by the kind of set (their declared types).
_SET_FIELDS = {f.name: frozenset if str(f.type).startswith("frozenset") else set
               for f in dataclasses.fields(TableState)
               if str(f.type).startswith(("set", "frozenset"))}


def _state_json(state: TableState) -> dict[str, Any]:
    """A chain state as JSON values: a set as the sorted list of its members."""
    return {f.name: sorted(getattr(state, f.name)) if f.name in _SET_FIELDS
            else getattr(state, f.name) for f in dataclasses.fields(state)}


def _state_of(data: dict[str, Any]) -> TableState:
    values: dict[str, Any] = {name: _SET_FIELDS[name](value) if name in _SET_FIELDS
                              else value for name, value in data.items()}
    return TableState(**values)


def chains_json(replayer: Replayer, file: str) -> str:
    """Each table's chain state of ``file`` (ASCII JSON: names may not be UTF-8)."""
    return json.dumps({table: _state_json(state) for (name, table), state in
                       sorted(replayer.states.items(), key=_table_of) if name == file})


def _table_of(entry: tuple[tuple[str, str], TableState]) -> str:
    return entry[0][1]


def restore_chains(replayer: Replayer, file: str, text: str) -> None:
    for table, data in json.loads(text).items():
        replayer.states[(file, table)] = _state_of(data)


# -- splitting a file into whole entries ------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """Bytes of whole entries starting at file byte ``start`` and line ``line``, with the
    offsets (in ``data``) and first lines of the entries that start at a header."""

    start: int
    line: int
    data: bytes
    heads: list[tuple[int, int]]


def _heads(data: bytes, at_file_start: bool) -> list[int]:
    """Where header lines start in ``data`` (the reader's test confirms each)."""
    found = []
    for hit in _HEADER_AT.finditer(data):
        at = hit.start()
        if data.startswith(_BOM, at) and not (at_file_start and at == 0):
            continue
        end = data.find(b"\n", at)
        line = data[at:end if end >= 0 else len(data)]
        if at == 0 and at_file_start and line.startswith(_BOM):
            line = line[len(_BOM):]
        if HEADER_START(line.lstrip(b" \t").decode("utf-8", "surrogateescape")):
            found.append(at)
    return found


def pieces(stream: Any, start: int, line: int, end: int, block: int = PIECE
           ) -> Iterator[Piece]:
    """The bytes from ``start`` (an entry's start, at line ``line``, where ``stream``
    stands) to byte ``end``, in pieces that end where an entry starts (or at ``end``)."""
    buf = b""
    eof = False
    left = end - start
    while not eof:
        chunk = stream.read(min(block, left)) if left > 0 else b""
        left -= len(chunk)
        eof = not chunk
        buf += chunk
        heads = _heads(buf, start == 0)
        cut = len(buf) if eof else next((h for h in reversed(heads) if h > 0), 0)
        if cut == 0:
            continue  # no whole entry yet: read on
        data = buf[:cut]
        numbered: list[tuple[int, int]] = []
        previous, lineno = 0, line
        for head in heads:
            if head >= cut:
                break
            lineno += data.count(b"\n", previous, head)
            previous = head
            numbered.append((head, lineno))
        yield Piece(start, line, data, numbered)
        line += data.count(b"\n")
        start += cut
        buf = buf[cut:]


class ReadAgain(Exception):  # noqa: N818 - what the importer does, not an error
    """The lanes read a file otherwise than the importer's look at its headers said (a hand
    id the header's text does not give, or a copy left out whose first copy the reader
    rejected): the file is read again in this process, a piece at a time."""


# -- staging: a file's rows as Parquet pieces until its transaction inserts them --------------


class Staging:
    """A folder of Parquet pieces beside the archive, per table, inserted at once by
    :meth:`insert` (in the caller's transaction) and removed by :meth:`close`."""

    def __init__(self, prefix: Path) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=prefix.name, dir=prefix.parent))
        self.pieces: dict[str, list[Path]] = {}

    def add(self, table: str, data: pa.Table) -> None:
        if not data.num_rows:
            return
        pieces = self.pieces.setdefault(table, [])
        folder = self.folder / table
        if not pieces:
            folder.mkdir()
        path = folder / f"{len(pieces):06d}.parquet"
        pq.write_table(data, path, compression="zstd", compression_level=1)
        pieces.append(path)

    def insert(self, con: duckdb.DuckDBPyConnection) -> None:
        """Every piece into its table (rows in the order they were staged)."""
        for table, pieces in self.pieces.items():
            files = ", ".join(_sql_text(str(p)) for p in pieces)
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM read_parquet([{files}])")

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.pieces = {}


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def staging_prefix(con: duckdb.DuckDBPyConnection) -> tuple[Path, bool]:
    """Where the archive's staging folders go (``.NAME.importing-`` beside the archive
    ``NAME``; a temporary folder's for an in-memory database), and whether they are the
    archive's own."""
    row = first_row(con, "SELECT path FROM duckdb_databases() "
                    "WHERE database_name = current_database()")
    if row is None or not row[0]:
        return Path(tempfile.gettempdir()) / ("ofc-audit" + STAGING_SUFFIX), False
    archive = Path(row[0]).resolve()
    return archive.parent / f".{archive.name}{STAGING_SUFFIX}", True


def remove_stale_staging(prefix: Path) -> None:
    """The archive's staging folders left by imports that were killed (called with the
    archive open for writing: no other import of it runs)."""
    for stale in prefix.parent.glob(glob.escape(prefix.name) + "*"):
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)


# -- the import -------------------------------------------------------------------------------


@dataclass
class _File:
    file_id: int
    name: str
    path: bytes
    size: int
    mtime_ns: int
    offset: int
    next_line: int
    chains: str
    known: bool  # tracked before this import


class Importer:
    """Imports files into an open archive under one ruleset (see the module's docstring).
    ``render_text``: a hand's lines as ``ofc-audit audit`` prints them (the presentation
    layer's, given by the command); ``on_file``: told each file's name as its reading
    starts (``watch`` and the command's progress)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, ruleset: Any, render_text: RenderText,
                 *, final: bool = False, growing: bool = False,
                 on_file: Callable[[str], None] | None = None,
                 runner: Runner | None = None) -> None:
        self.con = con
        # The runner of the driver that replays a file read from its start (``--jobs N``,
        # Dask: :mod:`.lanes_import`); None: this process, a piece at a time.
        self.runner = runner
        self.ruleset = ruleset
        self.render_text = render_text
        self.final = final
        self.growing = growing
        self.on_file = on_file or (lambda name: None)
        self._names: dict[int, str] = {}
        self.prefix, own = staging_prefix(con)
        if own:
            remove_stale_staging(self.prefix)
        con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
        spill = self.prefix.parent / (self.prefix.name + "duckdb")
        con.execute(f"SET temp_directory = {_sql_text(str(spill))}")
        self._staging: Staging | None = None
        self._first_copies: list[int] = []  # ords of first copies that now conflict

    # tracking

    def _tracked(self, name: str) -> _File:
        real = real_name(name)
        path = os.fsencode(os.path.realpath(real))
        stat = os.stat(real)
        row = first_row(
            self.con, 'SELECT file_id, name, size, mtime_ns, "offset", next_line, chains, '
            "held FROM files WHERE path = ?", [path])
        if row is None:
            new_id = first_row(self.con, "SELECT coalesce(max(file_id), 0) + 1 FROM files")
            assert new_id is not None
            return _File(int(new_id[0]), name, path, stat.st_size, stat.st_mtime_ns, 0, 1,
                         "{}", False)
        stored_name = bytes(row[1]).decode("utf-8", "surrogatepass")
        tracked = _File(int(row[0]), stored_name, path, int(row[2]), int(row[3]),
                        int(row[4]), int(row[5]), str(row[6]), True)
        unchanged = (stat.st_size, stat.st_mtime_ns) == (tracked.size, tracked.mtime_ns)
        if unchanged and not (self.final and int(row[7])):
            tracked.offset = -1  # nothing to read (with --final, a held hand is read)
        tracked.size, tracked.mtime_ns = stat.st_size, stat.st_mtime_ns
        return tracked

    def _name_of(self, file_id: int) -> str:
        name = self._names.get(file_id)
        if name is None:
            row = first_row(self.con, "SELECT name FROM files WHERE file_id = ?", [file_id])
            name = bytes(row[0]).decode("utf-8", "surrogatepass") if row else "?"
            self._names[file_id] = name
        return name

    # the command

    def import_paths(self, paths: Sequence[str]) -> ImportReport:
        """Import every history file of ``paths`` (folders as ``audit`` reads them)."""
        report = ImportReport()
        seen: set[bytes] = set()
        for name in Inputs.survey(paths).files:
            if name == "-":
                raise OSError(0, "the archive imports files; save standard input to a "
                              "file first", "-")
            key = os.fsencode(os.path.realpath(name))
            if key in seen:
                continue  # the same file twice: read once
            seen.add(key)
            report.merge(self.import_file(name))
        return report

    def import_file(self, name: str) -> ImportReport:
        """One file, in one transaction."""
        report = ImportReport()
        tracked = self._tracked(name)
        if tracked.offset < 0:
            report.skipped.append(tracked.name)
            return report
        with open(real_name(name), "rb") as stream:
            if tracked.known and tracked.offset > 0:
                digest = hashlib.sha256()
                left = tracked.offset
                while left > 0:
                    chunk = stream.read(min(left, PIECE))
                    if not chunk:
                        break
                    digest.update(chunk)
                    left -= len(chunk)
                stored = first_row(self.con, "SELECT sha256 FROM files WHERE file_id = ?",
                                   [tracked.file_id])
                if left or stored is None or digest.hexdigest() != stored[0]:
                    report.rewritten.append(tracked.name)
                    stream.seek(0)
                    tracked.offset, tracked.next_line, tracked.chains = 0, 1, "{}"
            self.on_file(tracked.name)
            in_lanes = self.runner is not None and tracked.offset == 0
            start = (tracked.offset, tracked.next_line, tracked.chains)
            while True:
                attempt = ImportReport()
                self._staging = Staging(self.prefix)
                self._first_copies = []
                self.con.execute("BEGIN TRANSACTION")
                try:
                    tracked.offset, tracked.next_line, tracked.chains = start
                    self._read(stream, tracked, attempt, in_lanes)
                    self._staging.insert(self.con)
                    if self._first_copies:
                        self.con.executemany(
                            "UPDATE items SET conflict = TRUE WHERE ord = ?",
                            [[o] for o in dict.fromkeys(self._first_copies)])
                    self.con.execute("COMMIT")
                except ReadAgain:
                    rollback(self.con)
                    in_lanes = False
                    continue
                except BaseException:
                    rollback(self.con)
                    raise
                finally:
                    self._staging.close()
                    self._staging = None
                break
        report.merge(attempt)
        report.read.append(tracked.name)
        return report

    def _read(self, stream: Any, tracked: _File, report: ImportReport, in_lanes: bool
              ) -> None:
        replayer = Replayer(self.ruleset)
        file = tracked.name
        restore_chains(replayer, file, tracked.chains)
        if tracked.known and tracked.offset == 0:
            self._forget(tracked.file_id)  # read again from its start: as it is now
        self._names[tracked.file_id] = file
        pending: dict[str, tuple[str, int]] = {}  # hand id -> (sha, ord) stored in this file
        stream.seek(tracked.offset)
        if in_lanes:
            from .lanes_import import read_in_lanes

            assert self.runner is not None
            offset, line, held = read_in_lanes(self, self.runner, stream, tracked, report,
                                               pending, replayer)
        else:
            offset, line, held = self._read_pieces(stream, tracked, report, pending, replayer)
        stream.seek(0)
        digest = hashlib.sha256()
        left = offset
        while left > 0:
            chunk = stream.read(min(left, PIECE))
            digest.update(chunk)
            left -= len(chunk)
        self.con.execute("DELETE FROM files WHERE file_id = ?", [tracked.file_id])
        self.con.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [tracked.file_id, tracked.path, _blob(file), tracked.size, tracked.mtime_ns,
             digest.hexdigest(), offset, line, held, chains_json(replayer, file),
             datetime.now(UTC)])

    def _read_pieces(self, stream: Any, tracked: _File, report: ImportReport,
                     pending: dict[str, tuple[str, int]], replayer: Replayer
                     ) -> tuple[int, int, int]:
        """The file from ``tracked.offset`` on, in this process, a piece at a time; where
        the next import goes on (offset, line) and the bytes held back."""
        file = tracked.name
        offset, line = tracked.offset, tracked.next_line
        held = 0
        for piece in pieces(stream, tracked.offset, tracked.next_line, tracked.size):
            data, heads = piece.data, piece.heads
            last_at = heads[-1][0] if heads else -1
            at_end = piece.start + len(data) >= tracked.size
            whole = data
            tail: tuple[bytes, int] | None = None
            if at_end and heads and not self.final:
                whole = data[:last_at]
                tail = (data[last_at:], heads[-1][1])
            self._store(replayer, tracked, piece.line, whole, heads, report, pending)
            offset, line = piece.start + len(whole), piece.line + whole.count(b"\n")
            if tail is not None:
                kept = self._last_entry(replayer, tracked, tail, report, pending)
                if kept:
                    offset += len(tail[0])
                    line += tail[0].count(b"\n")
                else:
                    held = len(tail[0])
                    report.held.append((file, tail[1]))
        return offset, line, held

    def _forget(self, file_id: int) -> None:
        low, high = ord_of(file_id, 0), ord_of(file_id + 1, 0)
        for table in ["items", "s_rejected", *SESSION_TABLES]:
            self.con.execute(f"DELETE FROM {table} WHERE ord >= ? AND ord < ?", [low, high])
        for table in ("duplicates", "conflicts"):
            self.con.execute(f"DELETE FROM {table} WHERE file_id = ?", [file_id])

    def _last_entry(self, replayer: Replayer, tracked: _File, tail: tuple[bytes, int],
                    report: ImportReport, pending: dict[str, tuple[str, int]]) -> bool:
        """The file's last entry: stored when whole (see the module's docstring)."""
        data, first = tail
        if self.growing and not data.endswith(b"\n"):
            return False
        items = list(read_text(data.decode("utf-8", "surrogateescape"), tracked.name, first))
        if any(isinstance(item, HistoryParseError) for item in items):
            return False
        if self.growing and not all(_summarised(item) for item in items
                                    if isinstance(item, Hand)):
            return False
        saved = copy.deepcopy(replayer.states)
        unfinished = False
        for item in items:
            assert isinstance(item, Hand)
            if replayer.replay(item).incomplete is not None:
                unfinished = True
        replayer.states = saved
        if unfinished:
            return False
        self._store(replayer, tracked, first, data, [(0, first)], report, pending)
        return True

    def _store(self, replayer: Replayer, tracked: _File, first_line: int, data: bytes,
               heads: list[tuple[int, int]], report: ImportReport,
               pending: dict[str, tuple[str, int]]) -> None:
        """Read, replay and store the entries of ``data`` (starting at ``first_line``)."""
        if not data:
            return
        file, file_id = tracked.name, tracked.file_id
        items = list(read_text(data.decode("utf-8", "surrogateescape"), file, first_line))
        lines = [h[1] for h in heads]
        ends = [h[0] for h in heads[1:]] + [len(data)]

        def text_at(line: int) -> bytes:
            i = bisect.bisect_right(lines, line) - 1
            if i < 0:
                return b""
            return normalized(data[heads[i][0]:ends[i]])

        texts: dict[int, bytes] = {}
        ids = []
        for item in items:
            if isinstance(item, Hand):
                texts[item.line] = text_at(item.line)
                ids.append(item.hand_id)
        known = self._known(ids, pending)
        builder = TableBuilder()
        ords: list[int] = []
        rows: list[tuple[Any, ...]] = []
        rejected: list[tuple[Any, ...]] = []
        duplicates: list[tuple[Any, ...]] = []
        conflicts: list[tuple[Any, ...]] = []
        first_copies: list[int] = []
        render_text = self.render_text
        for item in items:
            if isinstance(item, HistoryParseError):
                replayer.reject(item)
                key = ord_of(file_id, item.entry_line)
                rows.append(rejection_row(key, file_id, item))
                rejected.append(rejected_row(key, item))
                report.rejected += 1
                continue
            text = texts[item.line]
            sha = _sha(text)
            key = ord_of(file_id, item.line)
            first = known.get(item.hand_id)
            if first is not None:
                first_sha, first_ord = first
                where = self._where(first_ord)
                listed = Listed(clean_text(item.hand_id), clean_text(file), item.line,
                                clean_text(where[0]), where[1])
                if first_sha == sha:
                    duplicates.append((item.hand_id, file_id, item.line, first_ord))
                    report.duplicates.append(listed)
                else:
                    conflicts.append((item.hand_id, file_id, item.line, first_ord, sha))
                    first_copies.append(first_ord)
                    report.conflicts.append(listed)
                continue
            known[item.hand_id] = pending[item.hand_id] = (sha, key)
            result = replayer.replay(item)
            builder.add(result)
            ords.append(key)
            rows.append(hand_row(key, file_id, item.line, sha, text,
                                 rendered(render_text, result)))
            report.hands += 1
        self.store_rows(rows, builder, ords, rejected, duplicates, conflicts, first_copies)

    def store_rows(self, rows: list[tuple[Any, ...]], builder: TableBuilder | None,
                   ords: list[int], rejected: list[tuple[Any, ...]],
                   duplicates: list[tuple[Any, ...]], conflicts: list[tuple[Any, ...]],
                   first_copies: list[int]) -> None:
        """Stage the rows of a piece, and list its duplicates and conflicts."""
        self._insert_items(rows)
        if builder is not None:
            self._insert_session(builder, np.array(ords, dtype=np.int64), rejected)
        elif rejected:
            self._insert_rejected(rejected)
        if duplicates:
            self.con.executemany("INSERT INTO duplicates VALUES (?, ?, ?, ?)", duplicates)
        if conflicts:
            self.con.executemany("INSERT INTO conflicts VALUES (?, ?, ?, ?, ?)", conflicts)
            self._first_copies.extend(first_copies)

    # for the lanes' import (:mod:`.lanes_import`)

    def known(self, ids: list[str], pending: dict[str, tuple[str, int]]
              ) -> dict[str, tuple[str, int]]:
        return self._known(ids, pending)

    def where(self, key: int) -> tuple[str, int]:
        return self._where(key)

    def last_entry(self, replayer: Replayer, tracked: _File, tail: tuple[bytes, int],
                   report: ImportReport, pending: dict[str, tuple[str, int]]) -> bool:
        return self._last_entry(replayer, tracked, tail, report, pending)

    @staticmethod
    def sha(text: bytes) -> str:
        return _sha(text)

    def _where(self, key: int) -> tuple[str, int]:
        return self._name_of(key >> _LINE_BITS), key & ((1 << _LINE_BITS) - 1)

    def _known(self, ids: list[str], pending: dict[str, tuple[str, int]]
               ) -> dict[str, tuple[str, int]]:
        """The first copy (text hash, ord) of each id already stored, in the archive or
        earlier in this file."""
        known = {i: pending[i] for i in ids if i in pending}
        wanted = [i for i in dict.fromkeys(ids) if i not in known]
        if wanted:
            asked = pa.table({"hand_id": pa.array(wanted, type=pa.string())})
            self.con.register("asked_ids", asked)
            try:
                for hand_id, sha, key in self.con.execute(
                        "SELECT i.hand_id, i.text_sha, i.ord FROM items i "
                        "JOIN asked_ids a ON i.hand_id = a.hand_id WHERE i.is_hand"
                ).fetchall():
                    known[hand_id] = (sha, int(key))
            finally:
                self.con.unregister("asked_ids")
        return known

    def insert_items(self, rows: list[tuple[Any, ...]]) -> None:
        self._insert_items(rows)

    def _insert_items(self, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        columns = list(zip(*rows, strict=True))
        names = ["ord", "file_id", "line", "is_hand", "hand_id", "text_sha", "text", "valid",
                 "mismatched", "incomplete", "audit_json", "audit_text", "facts",
                 "table_name", "time", "rejection", "conflict"]
        types = [pa.int64(), pa.int32(), pa.int32(), pa.bool_(), pa.string(), pa.string(),
                 pa.binary(), pa.bool_(), pa.bool_(), pa.bool_(), pa.binary(), pa.binary(),
                 pa.string(), pa.string(), pa.timestamp("us", tz="UTC"), pa.string(),
                 pa.bool_()]
        hand_ids = [None if v is None else clean_text(v) for v in columns[4]]
        arrays = [pa.array(hand_ids if i == 4 else list(values), type=kind)
                  for i, (values, kind) in enumerate(zip(columns, types, strict=True))]
        self._append("items", pa.table(arrays, names=names))

    def _append(self, table: str, data: pa.Table) -> None:
        assert self._staging is not None
        self._staging.add(table, data)

    def _insert_session(self, builder: TableBuilder, ords: np.ndarray,
                        rejected: list[tuple[Any, ...]]) -> None:
        tables = builder.build()
        for table, (name, _) in SESSION_TABLES.items():
            frame = getattr(tables, name)
            if not frame.empty:
                self.stage_session(table, frame, ords[frame["hand"].to_numpy()])
        self._insert_rejected(rejected)

    def stage_session(self, table: str, frame: Any, ords: np.ndarray) -> None:
        """A piece of a session table (its rows grouped by hand, in order), each row's
        hand's ``ord`` given."""
        self._append(table, stored_piece(table, frame, ords))

    def _insert_rejected(self, rejected: list[tuple[Any, ...]]) -> None:
        if rejected:
            keys, files, lines, cols, messages = zip(*rejected, strict=True)
            data = {"ord": pa.array(keys, type=pa.int64()),
                    "file": pa.array([clean_text(f) for f in files], type=pa.string()),
                    "line": pa.array(lines, type=pa.int64()),
                    "column": pa.array(cols, type=pa.int64()),
                    "message": pa.array([clean_text(m) for m in messages], type=pa.string())}
            assert list(data)[1:] == list(REJECTED_COLUMNS)
            self._append("s_rejected", pa.table(data))


#: What a hand's replay gives its row of ``items`` (:func:`rendered`): hand id, valid,
#: mismatched, incomplete, audit JSON, audit text, facts (JSON), table, time.
Rendered = tuple[str, bool, bool, bool, bytes, bytes, str, str, Any]


def rendered(render_text: RenderText, result: HandResult) -> Rendered:
    """What a replayed hand stores (in a lane of ``--jobs`` too: see :mod:`.lanes_import`)."""
    names = [p.name for p in result.players]
    return (result.hand_id, result.valid, bool(result.mismatches),
            result.incomplete is not None, _blob(hand_json_text(result)),
            _blob(render_text(result)), json.dumps([result.table, names, result.timestamp]),
            clean_text(result.table), hand_time(result.timestamp))


def rejection_row(key: int, file_id: int, error: HistoryParseError) -> tuple[Any, ...]:
    """A rejected entry's row of ``items``."""
    rejection = json.dumps([error.file, error.line, error.column, error.message])
    return (key, file_id, error.entry_line, False, None, None, None, None, None, None, None,
            None, None, None, None, rejection, False)


def rejected_row(key: int, error: HistoryParseError) -> tuple[Any, ...]:
    """A rejected entry's row of ``s_rejected``."""
    return (key, error.file, error.line, error.column, error.message)


def hand_row(key: int, file_id: int, line: int, sha: str, text: bytes, made: Rendered
             ) -> tuple[Any, ...]:
    """A hand's row of ``items``."""
    hand_id, valid, mismatched, incomplete, audit_json, audit_text, facts, table, moment = made
    return (key, file_id, line, True, hand_id, sha, text, valid, mismatched, incomplete,
            audit_json, audit_text, facts, table, moment, None, False)


def _summarised(hand: Hand) -> bool:
    """Whether the hand's SUMMARY has a line for every seated player (a hand being written
    line by line may look complete before its last SUMMARY lines)."""
    if hand.summary is None:
        return False
    named = {entry.player for entry in hand.summary.entries}
    return all(seat.name in named for seat in hand.seats)


def stored_piece(table: str, frame: Any, ords: np.ndarray) -> pa.Table:
    """A piece of a session table as the archive stores it in ``table``: its rows grouped
    by hand, in order, each row's hand's ``ord`` given, and (but in ``s_hands``) the row's
    place among its hand's rows."""
    columns = SESSION_TABLES[table][1]
    arrays: dict[str, Any] = {"ord": pa.array(ords)}
    if table != "s_hands":
        first = np.searchsorted(ords, ords, side="left")
        arrays["pos"] = pa.array((np.arange(len(ords)) - first).astype(np.int32))
    for column in stored_columns(columns):
        arrays[column] = _stored_array(frame[column], columns[column].name)
    return pa.table(arrays)


def _stored_array(column: Any, kind: str) -> Any:
    """A session table's column as the archive stores it (see schema._SQL_TYPES)."""
    if kind == "category":
        return pa.array(column.cat.codes.to_numpy().astype(np.int8))
    if kind == "label":
        return pa.array(column.astype("string").array).cast(pa.string())
    return pa.array(column.array, from_pandas=True)


def clean_text(text: str) -> str:
    """Text safe to store as VARCHAR, as the session tables clean it (lone surrogates of
    bytes that are not UTF-8 become ``\\udcff`` escapes)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def import_paths(con: duckdb.DuckDBPyConnection, paths: Sequence[str], ruleset: Any,
                 render_text: RenderText, **options: Any) -> ImportReport:
    """:meth:`Importer.import_paths` in one call."""
    return Importer(con, ruleset, render_text, **options).import_paths(paths)


def touched(path: str | Path) -> bool:
    """Whether ``path`` is a file the archive may read (for ``watch``)."""
    return Path(path).is_file()
