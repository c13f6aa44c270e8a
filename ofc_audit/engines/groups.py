"""Splitting an audit by table without changing a single result: the machinery the parallel
engines share (:mod:`ofc_audit.engines.dask_engine`, :mod:`ofc_audit.engines.processes`).

Nothing here imports Dask. What is here:

* **Sources** (:func:`expand_paths`): the files ``reader.read_hands(paths)`` reads, in the same
  order and with the same names.
* **The scan** (:func:`scan_entries`, :func:`scan_source`): a cheap pass of regular
  expressions over large blocks that finds where the reader will start each entry (with the
  reader's own test for a header line), its byte offset and first line, and the table name on
  its table line.
* **Reading one's own entries** (:func:`kept`, :class:`Chunks`): a byte stream that holds some
  entries as written and every other line as an empty line, so that the reader yields for each
  kept entry exactly the item it yields when it reads the whole file (same text, same line
  numbers).
* **Checks** (:func:`consistent`, :class:`EntryMatcher`): that the reader's items start where
  the scan said entries start, one per kept entry.
* **Rendering** (:func:`render_hand`, :class:`AuditWriter`): each hand as its audit JSON entry
  or its audit text lines, and the audit's output put together from rendered hands, byte for
  byte what :func:`ofc_audit.audit.write_audit_json` and ``ofc-audit audit`` print.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, NamedTuple

from .. import reader as _reader
from ..audit import AuditTotals, hand_json_text, rejection_json
from ..filters import Facts, Selection
from ..progress import Progress
from ..reader import HistoryParseError
from ..results import HandResult

__all__ = [
    "HEADER_START",
    "INCOMPLETE",
    "INVALID",
    "count_hand",
    "MISMATCHED",
    "SCAN_BLOCK",
    "AuditWriter",
    "Chunks",
    "Entry",
    "EntryMatcher",
    "Key",
    "Scan",
    "Source",
    "consistent",
    "expand_paths",
    "hand_flags",
    "kept",
    "open_source",
    "render_hand",
    "scan_entries",
    "scan_source",
]

#: Where an item (a hand or a rejection) stands in the session: (source index, first line).
Key = tuple[int, int]

INVALID, MISMATCHED, INCOMPLETE = 1, 2, 4  # hand flags


# -- sources ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One file in read order: ``file`` is the name the reader reports (``str(path)``, or
    ``-``), ``path`` the absolute path the workers open, ``data`` standard input's bytes."""

    index: int
    file: str
    path: str | None
    data: bytes | None = None


def expand_paths(paths: Iterable[str], stdin: IO[bytes] | None = None) -> list[Source]:
    """The files ``reader.read_hands(paths)`` reads, in the same order and with the same
    names: a folder is every ``*.txt`` under it, sorted by path; ``-`` is standard input
    (read here, on the client)."""
    sources: list[Source] = []
    for path in paths:
        if str(path) == "-":
            data = (stdin if stdin is not None else sys.stdin.buffer).read()
            sources.append(Source(len(sources), "-", None, data))
        elif Path(path).is_dir():
            for file in sorted(p for p in Path(path).rglob("*.txt") if p.is_file()):
                sources.append(Source(len(sources), str(file), os.path.abspath(file)))
        else:
            sources.append(Source(len(sources), str(path), os.path.abspath(path)))
    return sources


def open_source(source: Source) -> IO[bytes]:
    if source.path is None:
        return io.BytesIO(source.data or b"")
    try:
        return open(source.path, "rb")
    except OSError as error:
        # Name the file as the user gave it, as the local engine's error does.
        raise OSError(error.errno, error.strerror, source.file) from None


# -- the cheap pass: entry boundaries and table names -----------------------------------------

#: The reader's own test for a header line (after leading blanks). Without it an engine
#: cannot be sure to split where the reader does, and must read every file whole.
HEADER_START: Callable[[str], object] | None = _reader.HEADER_START
_BOM = b"\xef\xbb\xbf"
SCAN_BLOCK = 1 << 23  # bytes read at a time by the scan
# A line that may be a header: after a line end (a literal first, which the regular
# expression engine finds at memchr speed; "^" with MULTILINE is tried at every byte).
_CANDIDATE = re.compile(rb"\n[ \t]*OFC")
_FIRST_CANDIDATE = re.compile(rb"[ \t]*OFC")  # the same at the start of the buffer
# A line the reader does not skip: after leading blanks, not empty, not a comment, not "\r".
_CONTENT = re.compile(rb"^[ \t]*(?:[^ \t\r\n#]|\r[^\n])", re.MULTILINE)
_TABLE_LINE = re.compile(rb"Table[ \t]+'([^']*)'")
_BLANKS = re.compile(r"[ \t]+")


def is_header(line: bytes, first_line: bool) -> bool:
    """Whether the reader starts a new entry at this line (without its ``\\n``): one whose
    first non-blank text is the ``OFC Hand`` keyword, as the reader's own test says."""
    assert HEADER_START is not None
    if first_line and line.startswith(_BOM):
        line = line[len(_BOM):]
    stripped = line.lstrip(b" \t")
    return stripped[:1] == b"O" and bool(
        HEADER_START(stripped.decode("utf-8", "surrogateescape"))
    )


def table_after(buf: bytes, at: int, limit: int, eof: bool) -> tuple[str | None, bool]:
    """The table name on the table line of the hand whose header line ends before ``at``
    (None when the first two lines that count are no table line), and whether ``buf`` held
    enough lines to tell."""
    content = 0
    while content < 2:
        if at >= limit:
            return None, eof
        newline = buf.find(b"\n", at, limit)
        end = newline if newline >= 0 else limit
        text = buf[at:end].strip(b" \t\r")
        at = end + 1
        if not text or text.startswith(b"#"):
            continue
        # Only a line that starts with the keyword's first letter can be a header: the test
        # before the call keeps the match and table lines off the reader's pattern.
        if text[:1] == b"O" and is_header(text, False):
            return None, True
        content += 1  # the optional match line, then the table line
        match = _TABLE_LINE.match(text)
        if match:
            name = match[1].decode("utf-8", "surrogateescape")
            return _BLANKS.sub(" ", name).strip(), True
    return None, True


# (start byte, first line, table, is a hand) of an entry, as the scan finds it
_Start = tuple[int, int, str | None, bool]


def _starts(stream: IO[bytes], block: int) -> Generator[_Start, None, int]:
    """Every entry's start, in file order; returns the stream's size. No per-line Python
    except on lines that start with ``O`` and the few lines after a header. Text before the
    first header (other than blanks and comments) is an entry that is not a hand."""
    buf, base, base_line = b"", 0, 1  # buf starts at byte ``base``, line ``base_line``
    header_seen = content_before = eof = False
    while True:
        if not eof:
            chunk = stream.read(block)
            eof = not chunk
            buf += chunk
        limit = len(buf) if eof else buf.rfind(b"\n") + 1  # whole lines only
        if limit <= 0 and not eof:
            continue
        cut, previous, line = limit, 0, base_line
        starts = [m.start() + 1 for m in _CANDIDATE.finditer(buf, 0, limit)]
        if _FIRST_CANDIDATE.match(buf, 0, limit):
            starts.insert(0, 0)
        if base == 0 and buf.startswith(_BOM) and starts[:1] != [0]:
            starts.insert(0, 0)
        for at in starts:
            newline = buf.find(b"\n", at, limit)
            end = newline if newline >= 0 else limit
            if not is_header(buf[at:end], base + at == 0):
                continue
            table, complete = table_after(buf, end + 1, limit, eof)
            if not complete:
                cut = at  # read on, and look at this header again
                break
            if not header_seen:
                header_seen = True
                if content_before or _CONTENT.search(buf, 0, at):
                    yield 0, 1, None, False
            line += buf.count(b"\n", previous, at)
            previous = at
            yield base + at, line, table, True
        if not header_seen and _CONTENT.search(buf, 0, cut):
            content_before = True
        base_line += buf.count(b"\n", 0, cut)
        base += cut
        buf = buf[cut:]
        if eof and not buf:
            break
        if eof and cut == 0:  # cannot happen: at the end every look-ahead is complete
            break
    if not header_seen and content_before:
        yield 0, 1, None, False
    return base


class Entry(NamedTuple):
    """An entry the reader will yield: bytes ``start:end``, its first line, its table name
    (None when the scan found no table line) and whether it is a hand (not text before the
    first header)."""

    start: int
    end: int
    line: int
    table: str | None
    hand: bool


def scan_entries(source: Source, block: int = SCAN_BLOCK) -> Iterator[Entry]:
    """The entries of one file in file order, found as the file is read (constant memory)."""
    with open_source(source) as stream:
        starts = _starts(stream, block)
        last: _Start | None = None
        while True:
            try:
                start = next(starts)
            except StopIteration as stop:
                size: int = stop.value
                break
            if last is not None:
                yield Entry(last[0], start[0], last[1], last[2], last[3])
            last = start
        if last is not None:
            yield Entry(last[0], size, last[1], last[2], last[3])


@dataclass
class Scan:
    """The entries the reader will yield for one file: the byte offset and line where each
    starts, its table name; the first may be text before the first header (``preamble``)."""

    starts: list[int] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    tables: list[str | None] = field(default_factory=list)
    preamble: bool = False
    size: int = 0


def scan_source(source: Source, block: int = SCAN_BLOCK) -> Scan:
    """Every entry of one file at once (see :func:`scan_entries`)."""
    scan = Scan()
    with open_source(source) as stream:
        starts = _starts(stream, block)
        while True:
            try:
                start, line, table, hand = next(starts)
            except StopIteration as stop:
                scan.size = stop.value
                break
            scan.preamble = scan.preamble or not hand
            scan.starts.append(start)
            scan.lines.append(line)
            scan.tables.append(table)
    return scan


# -- reading one's own entries ----------------------------------------------------------------


class Chunks(io.RawIOBase):
    """A read-only binary stream over an iterator of byte strings."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        super().__init__()
        self._chunks = chunks
        self._rest = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:  # a writable buffer (typeshed: WriteableBuffer)
        while not self._rest:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._rest = memoryview(chunk)
        n = min(len(buffer), len(self._rest))
        buffer[:n] = self._rest[:n]
        self._rest = self._rest[n:]
        return n


_GAP_CHUNK = 1 << 20  # empty lines handed over at a time


def kept(
    stream: IO[bytes], rows: Iterable[Iterable[int]], kept: Any, misplaced: list[int]
) -> Iterator[bytes]:
    """The file as a reader of some of its entries sees it: those entries as written, every
    other line empty (so each line keeps its number). ``rows`` are (byte start, byte end,
    first line, 1 for a hand / 0 for text before the first header), in file order. Appends
    (first line, is a hand, line after the last) of each entry to ``kept`` (a list, or
    anything with ``append``), and to ``misplaced`` the first line of any entry that does not
    start on that line of the file (the lines between are counted)."""
    current, position = 1, 0  # the next line to give the reader, and its byte offset
    for start, end, line, hand in rows:
        stream.seek(position)
        counted, gap = current, start - position
        while gap > 0:
            chunk = stream.read(min(gap, SCAN_BLOCK))
            if not chunk:
                break
            counted += chunk.count(b"\n")
            gap -= len(chunk)
        if (counted, gap) != (line, 0):
            misplaced.append(line)
        while line > current:
            lines = min(line - current, _GAP_CHUNK)
            yield b"\n" * lines
            current += lines
        stream.seek(start)
        data = stream.read(end - start)
        position = start + len(data)
        current = line + data.count(b"\n")
        kept.append((line, bool(hand), current))
        yield data


def consistent(kept: list[tuple[int, bool, int]], seen: list[int]) -> bool:
    """Whether the reader's items (their first lines, ``seen``) are one per kept hand
    entry, at its header, plus at most one in kept text before the first header."""
    headers = {start for start, hand, _ in kept if hand}
    preamble = [(start, end) for start, hand, end in kept if not hand]
    used = False
    for line in seen:
        if line in headers:
            headers.discard(line)
        elif preamble and preamble[0][0] <= line < preamble[0][1] and not used:
            used = True
        else:
            return False
    return not headers


class EntryMatcher:
    """:func:`consistent` as the items come, in order: pairs each item the reader yields with
    the kept entry it stands for. Entries are added (``append``, as :func:`kept` does) with a
    tag each (``tag`` before ``append``); :meth:`match` gives the tag of an item's entry, or
    None when the item is not the next entry's (the reader did not split where the scan
    did)."""

    def __init__(self) -> None:
        self._tags: deque[int] = deque()
        self.pending: deque[tuple[int, int, bool, int]] = deque()  # (tag, line, hand, end)

    def tag(self, tag: int) -> None:
        self._tags.append(tag)

    def append(self, entry: tuple[int, bool, int]) -> None:
        line, hand, end = entry
        self.pending.append((self._tags.popleft(), line, hand, end))

    def match(self, line: int) -> int | None:
        pending = self.pending
        while pending:
            tag, start, hand, end = pending[0]
            if hand:
                if line != start:
                    return None
                pending.popleft()
                return tag
            pending.popleft()  # text before the first header: at most one item
            if start <= line < end:
                return tag
        return None


# -- rendering --------------------------------------------------------------------------------

Render = Literal["json", "text"]

def count_hand(totals: AuditTotals, flags: int) -> None:
    """Count a hand of these :func:`hand_flags` in the audit's totals."""
    totals.hands += 1
    if flags & INVALID:
        totals.with_violations += 1
    else:
        totals.valid += 1
    if flags & MISMATCHED:
        totals.with_mismatches += 1
    if flags & INCOMPLETE:
        totals.incomplete += 1


def hand_flags(result: HandResult) -> int:
    return (
        (0 if result.valid else INVALID)
        | (MISMATCHED if result.mismatches else 0)
        | (INCOMPLETE if result.incomplete is not None else 0)
    )


def render_hand(result: HandResult, render: Render) -> str:
    """A hand as ``ofc-audit audit --json`` prints it in its ``hands`` list, or as the text
    lines (without the last line end) ``ofc-audit audit`` prints for it."""
    if render == "json":
        return hand_json_text(result)
    from ..explain import hand_findings, hand_line

    return "\n".join([hand_line(result), *hand_findings(result)])


class AuditWriter:
    """The output of ``ofc-audit audit`` (``--json`` or text), written as rendered hands and
    rejections come in file order: byte for byte what the local engine prints."""

    def __init__(self, out: IO[str], render: Render, selection: Selection | None = None,
                 progress: Progress | None = None) -> None:
        self.out = out
        self.render = render
        self.totals = AuditTotals()
        self.selection = selection  # the --player/--table/--since/--until filters
        self.read = 0  # hands read, kept by the filters or not
        self.progress = progress
        if render == "json":
            out.write('{"hands": [')

    def wanted(self, facts: Facts | None) -> bool:
        """Whether the filters keep the hand of ``facts`` (counted as read either way)."""
        self.read += 1
        if self.progress is not None:
            self.progress.tick(self.read)
        return self.selection is None or facts is None or self.selection.keeps(facts)

    def hand(self, flags: int, text: str, facts: Facts | None = None, checked: bool = False
             ) -> None:
        """A hand, written when the filters keep it (``checked``: :meth:`wanted` said so)."""
        if not checked and not self.wanted(facts):
            return
        totals = self.totals
        count_hand(totals, flags)
        if self.render == "json":
            self.out.write(("\n  " if totals.hands == 1 else ",\n  ") + text)
        else:
            self.out.write(text + "\n")

    def rejection(self, error: HistoryParseError) -> None:
        self.totals.rejected += 1
        self.totals.rejections.append(error)
        if self.render == "text":
            self.out.write(f"REJECTED {error.file}:{error.line}:{error.column}: "
                           f"{error.message}\n")

    def close(self) -> AuditTotals:
        if self.progress is not None:
            self.progress.done()
        out, totals = self.out, self.totals
        if self.render == "json":
            out.write('\n ],\n "rejected": [')
            out.write(
                ",".join(
                    "\n  " + json.dumps(rejection_json(e), ensure_ascii=False)
                    for e in totals.rejections
                )
            )
            out.write('\n ],\n "totals": ' + json.dumps(totals.to_json()) + "\n}\n")
        else:
            out.write("\n" + totals.summary_line() + "\n")
        return totals
