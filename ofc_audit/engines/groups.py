"""Splitting an audit by table without changing a single result: the files, the scan and the
audit's output, which the parallel engines share (:mod:`ofc_audit.engines.processes`,
:mod:`ofc_audit.engines.dask_engine`; how they deal the entries to lanes is in
:mod:`ofc_audit.engines.lanes`).

Nothing here imports Dask. What is here:

* **Sources** (:func:`expand_paths`): the files ``reader.read_hands(paths)`` reads, in the same
  order and with the same names.
* **The scan** (:func:`scan_entries`): a cheap pass of regular expressions over large blocks
  that finds where the reader will start each entry (with the reader's own test for a header
  line), its byte offset and first line, and the table name on its table line.
* **Rendering** (:func:`render_hand`, :class:`AuditWriter`): each hand as its audit JSON entry
  or its audit text lines, and the audit's output put together from rendered hands, byte for
  byte what :func:`ofc_audit.audit.driver.write_audit_json` and ``ofc-audit audit`` print.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import re
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, NamedTuple

from ..audit.driver import AuditTotals, hand_json_text, rejection_json
from ..audit.filters import Facts, Selection
from ..audit.progress import Progress
from ..history import reader as _reader
from ..history.reader import HistoryParseError
from ..replay.results import HandResult

__all__ = [
    "HEADER_START",
    "INCOMPLETE",
    "INVALID",
    "MISMATCHED",
    "SCAN_BLOCK",
    "AuditWriter",
    "Entry",
    "Key",
    "Source",
    "count_hand",
    "expand_paths",
    "hand_flags",
    "open_source",
    "render_hand",
    "render_hand_bytes",
    "scan_entries",
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

# Where a header may be: the keyword's first word anywhere (a literal, which the regular
# expression engine finds at memchr speed, against a pattern tried at every line end).
_KEYWORD = re.compile(rb"OFC")
# The usual head of a hand, from the keyword at a line's start: the header line (the reader's
# own header test, as bytes), an optional match line and the table line, with nothing
# between them for the look-ahead of :func:`table_after` to skip. What it names is what
# :func:`table_after` would find; any other head takes that slower path.
assert _reader.HEADER_PATTERN.isascii()
_USUAL_HEAD = re.compile(
    b"(?:" + _reader.HEADER_PATTERN.encode("ascii") + rb")[^\n]*\n"
    rb"(?:Match[^\n]*\n)?Table[ \t]+'([^'\n]*)'"
)


def _table_name(raw: bytes) -> str:
    """A table name as it stands between the quotes, as the reader folds it."""
    return _BLANKS.sub(" ", raw.decode("utf-8", "surrogateescape")).strip()


def _starts(stream: IO[bytes], block: int, usual: bool = True
            ) -> Generator[list[_Start], None, int]:
    """Every entry's start, in file order, a list per block read; returns the stream's size.
    Python looks only at the places where ``OFC`` stands: a usual head (:data:`_USUAL_HEAD`)
    is one match; anything else (indented, a byte-order mark, comments or blank lines between
    the head's lines, no table line) goes through :func:`is_header` and :func:`table_after`,
    as does every head when ``usual`` is false (tests: both ways find the same). Text before
    the first header (other than blanks and comments) is an entry that is not a hand."""
    buf, base, base_line = b"", 0, 1  # buf starts at byte ``base``, line ``base_line``
    header_seen = content_before = eof = False
    names: dict[bytes, str] = {}  # table names by their bytes: most tables have many hands
    head = _USUAL_HEAD.match if usual else None
    while True:
        if not eof:
            chunk = stream.read(block)
            eof = not chunk
            buf = buf + chunk if buf else chunk
        limit = len(buf) if eof else buf.rfind(b"\n") + 1  # whole lines only
        if limit <= 0 and not eof:
            continue
        cut, previous, line = limit, 0, base_line
        found: list[_Start] = []
        for hit in _KEYWORD.finditer(buf, 0, limit):
            at = hit.start()
            usual_head = (head(buf, at, limit) if head is not None and (
                at == 0 or buf[at - 1] == 10) else None)
            if usual_head is not None:
                raw = usual_head[1]
                table = names.get(raw)
                if table is None:
                    table = names[raw] = _table_name(raw)
            else:
                # The start of the keyword's line, if only blanks (and, on the file's first
                # line, a byte-order mark) stand before it.
                at = buf.rfind(b"\n", 0, at) + 1
                lead = buf[at:hit.start()]
                if base + at == 0 and lead.startswith(_BOM):
                    lead = lead[len(_BOM):]
                if lead.strip(b" \t"):
                    continue
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
                    found.append((0, 1, None, False))
            line += buf.count(b"\n", previous, at)
            previous = at
            found.append((base + at, line, table, True))
        if found:
            yield found
        if not header_seen and _CONTENT.search(buf, 0, cut):
            content_before = True
        base_line = line + buf.count(b"\n", previous, cut)  # each byte counted once
        base += cut
        buf = buf[cut:]
        if eof and not buf:
            break
        if eof and cut == 0:  # cannot happen: at the end every look-ahead is complete
            break
    if not header_seen and content_before:
        yield [(0, 1, None, False)]
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


def scan_entries(source: Source, block: int = SCAN_BLOCK, usual: bool = True
                 ) -> Iterator[Entry]:
    """The entries of one file in file order, found as the file is read (constant memory);
    ``usual=False`` (tests) looks at every head the slow way."""
    with open_source(source) as stream:
        starts = _starts(stream, block, usual)
        last: _Start | None = None
        while True:
            try:
                found = next(starts)
            except StopIteration as stop:
                size: int = stop.value
                break
            for start in found:
                if last is not None:
                    yield Entry(last[0], start[0], last[1], last[2], last[3])
                last = start
        if last is not None:
            yield Entry(last[0], size, last[1], last[2], last[3])


# -- rendering --------------------------------------------------------------------------------

Render = Literal["json", "text"]
#: What :meth:`AuditWriter.merged` writes: a hand (key, flags, text, what the filters look at)
#: or a rejection (key, error).
Merged = tuple[Key, int, str | bytes, Facts | None] | tuple[Key, HistoryParseError]

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
    from ..present.explain import hand_findings, hand_line

    return "\n".join([hand_line(result), *hand_findings(result)])


def render_hand_bytes(result: HandResult, render: Render) -> str | bytes:
    """:func:`render_hand` as the UTF-8 bytes a standard output prints (a worker's hands
    travel and are written as they are: the parent neither decodes nor encodes them), or
    as text when it is no UTF-8 (lone surrogates of undecodable input: the output's own
    error handler says what they become)."""
    text = render_hand(result, render)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text


def _byte_stream(out: IO[str]) -> IO[bytes] | None:
    """The binary stream under ``out`` when bytes written there are what writing their
    UTF-8 text to ``out`` gives (a UTF-8 text stream without line buffering, on a system
    whose line end is ``\\n``), after what ``out`` holds is flushed; else None."""
    if not isinstance(out, io.TextIOWrapper) or out.line_buffering or os.linesep != "\n":
        return None
    try:
        if codecs.lookup(out.encoding).name != "utf-8":
            return None
        buffer: IO[bytes] = out.buffer
        out.flush()
    except (LookupError, AttributeError, ValueError, OSError):
        return None
    return buffer


class AuditWriter:
    """The output of ``ofc-audit audit`` (``--json`` or text), written as rendered hands and
    rejections come in file order: byte for byte what the local engine prints. Hands may
    come rendered as text or as UTF-8 bytes (:func:`render_hand_bytes`); bytes go straight
    to the binary stream under ``out`` where there is one that prints the same."""

    def __init__(self, out: IO[str], render: Render, selection: Selection | None = None,
                 progress: Progress | None = None) -> None:
        self.out = out
        self.render = render
        self.totals = AuditTotals()
        self.selection = selection  # the --player/--table/--since/--until filters
        self.read = 0  # hands read, kept by the filters or not
        self.progress = progress
        self.raw = _byte_stream(out)
        if render == "json":
            self._write('{"hands": [')

    def _write(self, piece: str | bytes) -> None:
        raw = self.raw
        if raw is None:
            self.out.write(piece.decode("utf-8") if isinstance(piece, bytes) else piece)
            return
        if isinstance(piece, str):
            try:
                data = piece.encode("utf-8")
            except UnicodeEncodeError:
                # Not UTF-8: the text stream's own error handler decides, written now so
                # that the bytes after it stay in order.
                self.out.write(piece)
                self.out.flush()
                return
        else:
            data = piece
        raw.write(data)

    def wanted(self, facts: Facts | None) -> bool:
        """Whether the filters keep the hand of ``facts`` (counted as read either way)."""
        self.read += 1
        if self.progress is not None:
            self.progress.tick(self.read)
        return self.selection is None or facts is None or self.selection.keeps(facts)

    def hand(self, flags: int, text: str | bytes, facts: Facts | None = None,
             checked: bool = False) -> None:
        """A hand, written when the filters keep it (``checked``: :meth:`wanted` said so)."""
        if not checked and not self.wanted(facts):
            return
        totals = self.totals
        count_hand(totals, flags)
        if self.render == "json":
            self._write(("\n  " if totals.hands == 1 else ",\n  ") if isinstance(text, str)
                        else (b"\n  " if totals.hands == 1 else b",\n  "))
            self._write(text)
        else:
            self._write(text)
            self._write("\n" if isinstance(text, str) else b"\n")

    def merged(self, entries: Iterable[Merged]) -> None:
        """Hands ``(key, flags, text, facts)`` and rejections ``(key, error)`` in order, as
        :meth:`hand` and :meth:`rejection` write them; without filters, a run of hands in
        UTF-8 bytes goes to the byte stream in one write."""
        raw = self.raw
        if raw is None or self.selection is not None:
            for entry in entries:
                if len(entry) == 2:
                    self.rejection(entry[1])
                else:
                    self.hand(entry[1], entry[2], entry[3])
            return
        as_json = self.render == "json"
        totals, progress = self.totals, self.progress
        pieces: list[bytes] = []
        for entry in entries:
            if len(entry) == 2 or not isinstance(entry[2], bytes):
                if pieces:
                    raw.write(b"".join(pieces))
                    pieces.clear()
                if len(entry) == 2:
                    self.rejection(entry[1])
                else:
                    self.hand(entry[1], entry[2], entry[3])
                continue
            self.read += 1
            if progress is not None:
                progress.tick(self.read)
            count_hand(totals, entry[1])
            if as_json:
                pieces.append(b"\n  " if totals.hands == 1 else b",\n  ")
                pieces.append(entry[2])
            else:
                pieces.append(entry[2])
                pieces.append(b"\n")
        if pieces:
            raw.write(b"".join(pieces))

    def rejection(self, error: HistoryParseError) -> None:
        self.totals.rejected += 1
        self.totals.rejections.append(error)
        if self.render == "text":
            self._write(f"REJECTED {error.file}:{error.line}:{error.column}: "
                        f"{error.message}\n")

    def close(self) -> AuditTotals:
        if self.progress is not None:
            self.progress.done()
        totals = self.totals
        if self.render == "json":
            self._write('\n ],\n "rejected": [')
            self._write(
                ",".join(
                    "\n  " + json.dumps(rejection_json(e), ensure_ascii=False)
                    for e in totals.rejections
                )
            )
            self._write('\n ],\n "totals": ' + json.dumps(totals.to_json()) + "\n}\n")
        else:
            self._write("\n" + totals.summary_line() + "\n")
        if self.raw is not None:
            self.raw.flush()
        return totals
