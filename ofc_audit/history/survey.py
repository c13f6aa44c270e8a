"""Which files hold hand histories, and every hand once (the survey before the reading).

A folder is read for the histories it holds, whatever their names: a file is a history when
its first line that is neither blank nor a comment (after a byte-order mark) starts a hand
header. Other files are skipped and counted ("not text", "not a hand history", "empty"),
never rejected. The same file reached twice (named twice, through two folders, or through a
link) is read once.

Then every hand of the files is fingerprinted by its id and its text (line ends and the BOM
normalised): a hand seen again with the same text is a **duplicate** (read once, counted once,
listed), and the same id with a different text a **conflict** (no copy is scored, every copy is
listed). The survey reads each file once more than the reader does, a block at a time and
without parsing, so its cost is a hash of the bytes.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .reader import HEADER_PATTERN, HistoryParseError, packed
from .records import Hand
from .sources import real_name, shown_name

SkipReason = Literal["empty", "not text", "not a hand history", "not a file"]

#: Bytes read to decide what a file is: the first line that is not blank or a comment.
HEAD_BYTES = 1 << 16
_BLOCK = 1 << 23
_BOM = codecs.BOM_UTF8
_HEADER_LINE = re.compile(rb"^[ \t]*" + HEADER_PATTERN.encode("ascii"), re.M)
_HEADER_TEXT = re.compile(r"[ \t]*" + HEADER_PATTERN)
_HAND_ID = re.compile(rb"^[ \t]*OFC[ \t]+Hand[ \t]+#([^:\r\n]*?)[ \t]*:")
# Where a header may be: the keyword's first word (a literal, which the regular expression
# engine finds at memchr speed; the header pattern tried at every line start cost two thirds
# of the survey, which every audit waits for before its first hand).
assert HEADER_PATTERN.startswith("OFC")
_KEYWORD = re.compile(rb"OFC")


def _header_starts(data: bytes) -> list[int]:
    """Where each line of ``data`` that starts a hand header begins, in order: what
    ``[m.start() for m in _HEADER_LINE.finditer(data)]`` gives, looking only where ``OFC``
    stands."""
    starts: list[int] = []
    header = _HEADER_LINE.match
    previous = -1  # the previous hit (-1: none yet)
    for hit in _KEYWORD.finditer(data):
        keyword = hit.start()
        # The line's start, looked for back to the previous hit only (each byte looked at
        # once: a long line full of OFC stays linear).
        newline = data.rfind(b"\n", max(previous, 0), keyword)
        if newline < 0 and previous >= 0:
            previous = keyword
            continue  # on the line of an earlier hit: not the line's first word
        previous = keyword
        at = newline + 1
        # Only blanks before the keyword on its line (the line's first word), and a header.
        if not data[at:keyword].strip(b" \t") and header(data, at):
            starts.append(at)
    return starts


def what_file_is(path: str | Path) -> SkipReason | Literal["history"]:
    """``history``, or why a file is not one. A file that cannot be opened raises OSError."""
    with open(real_name(str(path)), "rb") as stream:
        head = stream.read(HEAD_BYTES)
    if not head:
        return "empty"
    if b"\0" in head:
        return "not text"
    if head.startswith(_BOM):
        head = head[len(_BOM):]
    text = head.decode("utf-8", errors="surrogateescape")
    for line in text.split("\n"):
        stripped = line.strip(" \t\r")
        if not stripped or stripped.startswith("#"):
            continue
        if _HEADER_TEXT.match(line):
            return "history"
        break
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return "not text"
    return "not a hand history"


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: SkipReason


@dataclass(frozen=True)
class NotAHistory:
    """A file named on the command line that holds no history: an error of its own."""

    path: str
    reason: SkipReason
    utf16: bool = False  # "not text" that starts with UTF-16's byte-order mark
    packed: str | None = None  # "not text" that is compressed or an archive: what it is

    def __str__(self) -> str:
        if self.packed is not None:
            return f"{self.path}: not a hand history: it is {self.packed}"
        if self.utf16:
            # Notepad's "Unicode": text, but not the UTF-8 a history is (docs/FORMAT.md).
            return (f"{self.path}: not a hand history: it is UTF-16 text; histories are "
                    f"UTF-8 (save it as UTF-8)")
        why = {"empty": "the file is empty", "not text": "it is not a text file",
               "not a hand history": "its first line is not a hand header (OFC Hand #...)",
               "not a file": "a pipe or a device, not a file (it can be read only "
                             "once): save it to a file first, or give it on standard "
                             "input as - (audit, session, review)"}
        if self.reason == "not a file":
            return f"{self.path}: {why[self.reason]}"
        return f"{self.path}: not a hand history: {why[self.reason]}"


def _not_text(path: str) -> NotAHistory:
    """A named file that is not text: UTF-16 (its byte-order mark, either order), compressed
    or an archive (what it is), or neither."""
    try:
        with open(real_name(path), "rb") as stream:
            head = stream.read(16)
    except OSError:
        head = b""
    return NotAHistory(shown_name(path), "not text", head[:2] in (b"\xff\xfe", b"\xfe\xff"),
                       packed(head))


def _stream(path: str) -> bool:
    """Whether ``path`` is a pipe, a socket or a device: something read once, as it comes."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # reading it says why
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _same_file_key(path: str) -> tuple[int, int] | str:
    try:
        status = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return (status.st_dev, status.st_ino)


@dataclass(frozen=True)
class Files:
    """The files to read, in reading order, each once; what was skipped in folders; the
    files named explicitly that hold no history."""

    files: tuple[str, ...]
    skipped: tuple[Skipped, ...] = ()
    not_histories: tuple[NotAHistory, ...] = ()

    def skipped_line(self) -> str | None:
        """``read 2 files; skipped 5: 3 not text, 2 not hand histories`` (None: none)."""
        if not self.skipped:
            return None
        counts: dict[str, int] = {}
        for skipped in self.skipped:
            counts[skipped.reason] = counts.get(skipped.reason, 0) + 1
        plural = {"empty": "empty", "not text": "not text",
                  "not a hand history": "not hand histories", "not a file": "not files"}
        parts = [
            f"{n} {reason if n == 1 else plural[reason]}"
            for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        ]
        read = len(self.files)
        return (f"read {read} {'file' if read == 1 else 'files'}; skipped "
                f"{len(self.skipped)}: {', '.join(parts)}")


def find_files(paths: Sequence[str]) -> Files:
    """The files ``paths`` stand for: ``-`` (standard input) as it is, a file as named (if it
    holds a history), a folder as every history under it (sorted by path, hidden files and
    folders included). A path that does not exist is left to the reader's error."""
    files: list[str] = []
    skipped: list[Skipped] = []
    not_histories: list[NotAHistory] = []
    seen: set[tuple[int, int] | str] = set()

    def take(path: str) -> bool:
        key = _same_file_key(path)
        if key in seen:
            return False
        seen.add(key)
        return True

    for path in paths:
        if path == "-":
            files.append(path)
            continue
        if Path(path).is_dir():
            regular, odd = [], []
            for entry in Path(path).rglob("*"):
                if entry.is_file():
                    regular.append(str(entry))
                elif not entry.is_dir():
                    # A pipe, a socket, a device or a link to nothing: not read (a pipe read
                    # here would be read once and lost; see above), but counted, not dropped.
                    odd.append(str(entry))
            skipped.extend(Skipped(shown_name(name), "not a file") for name in sorted(odd))
            for file in sorted(regular):
                if not take(file):
                    continue
                try:
                    kind = what_file_is(file)
                except OSError:
                    files.append(shown_name(file))  # the reader says why it cannot be read
                    continue
                if kind == "history":
                    files.append(shown_name(file))
                else:
                    skipped.append(Skipped(shown_name(file), kind))
            continue
        if not take(path):
            continue
        if _stream(path):
            # ``<(zcat h.txt.gz)``: every reading here (what it is, the copies, the hands)
            # would read another part of it; it read as "no hand in it".
            not_histories.append(NotAHistory(shown_name(path), "not a file"))
            continue
        try:
            kind = what_file_is(path)
        except OSError:
            files.append(shown_name(path))
            continue
        if kind == "history":
            files.append(shown_name(path))
        else:
            not_histories.append(_not_text(path) if kind == "not text"
                                 else NotAHistory(shown_name(path), kind))
    return Files(tuple(files), tuple(skipped), tuple(not_histories))


# -- every hand once ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Copy:
    """Where a hand stands: its file and its header's line."""

    file: str
    line: int


@dataclass(frozen=True)
class Duplicate:
    hand_id: str
    copy: Copy
    first: Copy


@dataclass(frozen=True)
class Conflict:
    hand_id: str
    copies: tuple[Copy, ...]


def _entries(path: str) -> Iterator[tuple[bytes, int, bytes]]:
    """Each hand of a file as (its id, its header's line, a digest of its normalised text),
    a block at a time."""
    for text, line in _texts(path):
        yield _entry(text, line)


#: :data:`_HAND_ID` where a header line starts in a block (``match(data, at)``: a ``^``
#: would only match at the block's first byte).
_HAND_ID_AT = re.compile(rb"[ \t]*OFC[ \t]+Hand[ \t]+#([^:\r\n]*?)[ \t]*:")


def _ids(path: str) -> Iterator[bytes]:
    """Each hand's id (empty when it has none), as :func:`_entries` reads it: taken where
    each header starts in the block, without cutting the entries out or counting their
    lines (every run on files waits for this survey before its first hand)."""
    match_id = _HAND_ID_AT.match
    for data, starts, last in _blocks(path):
        # A block's last header goes on to the next block, but in the file's last one.
        for start in starts if last else starts[:-1]:
            match = match_id(data, start)
            yield match.group(1).strip() if match else b""


def _texts(path: str) -> Iterator[tuple[bytes, int]]:
    """Each entry of a file (a header to the next) and its header's line."""
    line = 1
    for data, starts, last in _blocks(path):
        if last:
            starts = [*starts, len(data)]
        # Every entry from one header to the next is whole; the last one may go on.
        position = 0
        for start, end in zip(starts, starts[1:], strict=False):
            line += data.count(b"\n", position, start)
            position = start
            yield data[start:end], line
        if not last:
            line += data.count(b"\n", position, _carried(data, starts))


def _blocks(path: str) -> Iterator[tuple[bytes, list[int], bool]]:
    """The file a block at a time (a BOM left out): each block's bytes after what the one
    before carried on, where its headers start, and whether it is the file's last."""
    with open(real_name(path), "rb") as stream:
        offset, size = 0, _BLOCK  # where the next block starts in the file, and its size
        while True:
            # What a block carries on is read again with the next one, not joined to it (that
            # copied every block into new memory: 0.02 s of the survey's 0.11 s on 55 MB,
            # before the first hand of every run).
            stream.seek(offset)
            data = stream.read(size)
            last = len(data) < size
            skipped = 0
            if offset == 0 and data.startswith(_BOM):
                data, skipped = data[len(_BOM):], len(_BOM)
            starts = _header_starts(data)
            yield data, starts, last
            if last:
                return
            carried = _carried(data, starts)
            # A block that is one unfinished entry (or line) is read again, twice as long.
            size = size * 2 if carried == 0 else _BLOCK
            offset += skipped + carried


def _carried(data: bytes, starts: list[int]) -> int:
    """Where the part of a block that goes on to the next begins: its last entry, or with
    no header yet, its unfinished last line (it may be the start of one)."""
    return starts[-1] if starts else data.rfind(b"\n") + 1


def _entry(text: bytes, line: int) -> tuple[bytes, int, bytes]:
    match = _HAND_ID.match(text)
    hand_id = match.group(1).strip() if match else b""
    normal = text.replace(b"\r\n", b"\n").rstrip()
    return hand_id, line, hashlib.blake2b(normal, digest_size=16).digest()


#: Hands up to which :func:`_ids_differ` counts distinct ids in a set (above: with NumPy).
_SMALL_SURVEY = 1 << 18


def _ids_differ(files: Sequence[str]) -> bool:
    """Whether no two hands of ``files`` (a file read twice included) share an id: then
    there is no duplicate and no conflict, and the index is empty. Told from a 64-bit hash
    of each id, 8 bytes a hand (a dict of every hand's id, digest and place held about 300
    bytes a hand, and the parent of a million-hand ``session`` kept much of it after the
    survey); equal hashes (the same id, or two ids that hash alike) send the files to the
    exact survey, which reads them again."""
    hashes = array("q")
    for file in files:
        if file == "-":
            continue
        mark = len(hashes)
        try:
            hashes.extend(hash(hand_id) for hand_id in _ids(file) if hand_id)
        except OSError:
            del hashes[mark:]  # as the exact survey: a file that cannot be read adds nothing
    if len(hashes) <= _SMALL_SURVEY:
        # A set of a few hundred thousand ints is a few MB; NumPy's import alone would take
        # 0.1-0.2 s, before the first hand of an ``audit``, which imports nothing else of it.
        return len(set(hashes)) == len(hashes)
    import numpy as np

    values = np.frombuffer(hashes, dtype=np.int64)
    return len(np.unique(values)) == len(values)


@dataclass
class HandIndex:
    """Every hand of the files by id: the first copy of each text, the duplicates, the
    conflicts, and the copies a reading must leave out (:meth:`leaves_out`)."""

    duplicates: list[Duplicate] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    _left_out: set[tuple[str, int]] = field(default_factory=set)

    @classmethod
    def of(cls, files: Iterable[str]) -> HandIndex:
        files = list(files)
        if _ids_differ(files):
            return cls()
        return cls._of(files)

    @classmethod
    def _of(cls, files: Sequence[str]) -> HandIndex:
        first: dict[bytes, tuple[bytes, Copy]] = {}
        copies: dict[bytes, list[Copy]] = {}  # ids with more than one text: every copy
        index = cls()
        order: dict[str, int] = {}  # the files in reading order
        for file in files:
            order.setdefault(file, len(order))
            if file == "-":
                continue  # a stream is read once, as it comes
            try:
                entries = list(_entries(file))
            except OSError:
                continue  # the reader says why
            for hand_id, line, digest in entries:
                if not hand_id:
                    continue  # no id to know it by: the reader says what is wrong
                here = Copy(file, line)
                seen = first.get(hand_id)
                if seen is None:
                    first[hand_id] = (digest, here)
                    continue
                if hand_id in copies:
                    copies[hand_id].append(here)
                    index._left_out.add((file, line))
                elif seen[0] == digest:
                    index.duplicates.append(Duplicate(hand_id.decode("utf-8", "replace"),
                                                      here, seen[1]))
                    index._left_out.add((file, line))
                else:
                    copies[hand_id] = [seen[1], here]
                    index._left_out.update({(seen[1].file, seen[1].line), (file, line)})
        for hand_id, all_copies in copies.items():
            # Duplicates of a conflicting text are copies of the conflict, not duplicates.
            name = hand_id.decode("utf-8", "replace")
            extra = [d.copy for d in index.duplicates if d.hand_id == name]
            index.conflicts.append(Conflict(name, tuple(sorted(
                {*all_copies, *extra}, key=lambda c: (order[c.file], c.line)))))
            index.duplicates = [d for d in index.duplicates if d.hand_id != name]
        # In reading order: the copy read first first, as the archive lists them.
        index.conflicts.sort(key=lambda c: (order[c.copies[0].file], c.copies[0].line))
        return index

    def leaves_out(self, file: str, line: int) -> bool:
        """Whether the hand whose header is at ``line`` of ``file`` is not to be scored."""
        return (file, line) in self._left_out

    def keep(self, items: Iterable[Hand | HistoryParseError]
             ) -> Iterator[Hand | HistoryParseError]:
        """The items of a reading that are to be scored: those :meth:`leaves_out` leaves
        out are dropped (their chains follow the first copies)."""
        left_out = self._left_out
        if not left_out:
            yield from items
            return
        for item in items:
            line = item.entry_line if isinstance(item, HistoryParseError) else item.line
            if (item.file, line) not in left_out:
                yield item

    def about(self, hand_id: str) -> HandIndex:
        """The duplicates and the conflict of one hand id (``audit --hand ID``)."""
        return HandIndex([d for d in self.duplicates if d.hand_id == hand_id],
                         [c for c in self.conflicts if c.hand_id == hand_id])

    @property
    def clean(self) -> bool:
        return not self.duplicates and not self.conflicts
