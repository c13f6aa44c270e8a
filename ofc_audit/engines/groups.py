"""The scan that splits a run by table without changing a single result, which the parallel
runners share (:mod:`ofc_audit.engines.processes`, :mod:`ofc_audit.engines.dask_engine`; how
they deal the entries to lanes is in :mod:`ofc_audit.engines.lanes`).

:func:`scan_entries` is a cheap pass of regular expressions over large blocks that finds where
the reader will start each entry (with the reader's own test for a header line), its byte
offset and first line, and the table name on its table line. Nothing here imports Dask.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterator
from typing import IO, NamedTuple

from ..history import reader as _reader
from ..history.sources import Source, open_source

__all__ = ["HEADER_START", "SCAN_BLOCK", "Entry", "scan_entries"]

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
    base, base_line = 0, 1  # each block starts at byte ``base``, line ``base_line``
    header_seen = content_before = False
    names: dict[bytes, str] = {}  # table names by their bytes: most tables have many hands
    head = _USUAL_HEAD.match if usual else None
    size = block
    while True:
        # Each block is read from where the last one's whole lines (and whole heads) ended:
        # what a block leaves is read again with the next, not carried and joined to it
        # (that copied every block into new memory: 0.01 s of the scan's 0.13 s on 55 MB).
        stream.seek(base)
        buf = stream.read(size)
        eof = len(buf) < size
        limit = len(buf) if eof else buf.rfind(b"\n") + 1  # whole lines only
        if limit <= 0 and not eof:
            size *= 2  # a line longer than the block: read on until it ends
            continue
        cut, previous, line = limit, 0, base_line
        # A byte-order mark at the file's start is no text before the first header.
        lead_in = len(_BOM) if base == 0 and buf.startswith(_BOM) else 0
        found: list[_Start] = []
        last_hit = -1  # the previous OFC of this block (-1: none yet)
        for hit in _KEYWORD.finditer(buf, 0, limit):
            at = keyword = hit.start()
            after, last_hit = last_hit, keyword
            usual_head = (head(buf, at, limit) if head is not None and (
                at == 0 or buf[at - 1] == 10) else None)
            if usual_head is not None:
                raw = usual_head[1]
                table = names.get(raw)
                if table is None:
                    table = names[raw] = _table_name(raw)
            else:
                # The start of the keyword's line, if only blanks (and, on the file's first
                # line, a byte-order mark) stand before it. Looked for back to the previous
                # OFC only: one on the same line stands before this one (so this one is not
                # the line's first word), and each byte is looked at once (a long line full
                # of OFC, untrusted input, stays linear).
                newline = buf.rfind(b"\n", max(after, 0), keyword)
                if newline < 0 and after >= 0:
                    continue
                at = newline + 1
                lead = buf[at:keyword]
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
                if content_before or _CONTENT.search(buf, lead_in, at):
                    found.append((0, 1, None, False))
            line += buf.count(b"\n", previous, at)
            previous = at
            found.append((base + at, line, table, True))
        if found:
            yield found
        if not header_seen and _CONTENT.search(buf, lead_in, cut):
            content_before = True
        base_line = line + buf.count(b"\n", previous, cut)  # each byte counted once
        base += cut
        if eof:  # at the end every look-ahead is complete: the block was read to its end
            break
        # A head whose look-ahead the block cut, at its start: read more of it at once.
        size = size * 2 if cut == 0 else block
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
