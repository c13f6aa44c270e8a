"""The output of ``ofc-audit audit``: its JSON document or its text, written as the hands
come in order. The one writer of the audit's output, whichever runner replayed the hands.
"""

from __future__ import annotations

import codecs
import io
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from ..common.textfmt import hands_sentence, number
from ..history.reader import HistoryParseError
from ..history.survey import Conflict, Duplicate, HandIndex
from .filters import Facts, Selection
from .progress import Progress
from .work import INCOMPLETE, INVALID, MISMATCHED, Key

__all__ = ["AuditTotals", "AuditWriter", "Merged", "rejection_json"]

#: What :meth:`AuditWriter.merged` writes: a hand (key, flags, text, what the filters look at)
#: or a rejection (key, error).
Merged = tuple[Key, int, str | bytes, Facts | None] | tuple[Key, HistoryParseError]


@dataclass
class AuditTotals:
    hands: int = 0
    valid: int = 0
    with_violations: int = 0
    with_mismatches: int = 0
    rejected: int = 0
    incomplete: int = 0  # hands whose text stops before the play is over (docs/CLI-EXTENSIONS)
    duplicates: int = 0  # copies read once (docs/CLI.md, every hand once)
    conflicts: int = 0  # hand ids with two texts: no copy scored
    rejections: list[HistoryParseError] = field(default_factory=list)

    def count(self, flags: int) -> None:
        """Count a hand of these :func:`~ofc_audit.audit.work.hand_flags`."""
        self.hands += 1
        if flags & INVALID:
            self.with_violations += 1
        else:
            self.valid += 1
        if flags & MISMATCHED:
            self.with_mismatches += 1
        if flags & INCOMPLETE:
            self.incomplete += 1

    @property
    def clean(self) -> bool:
        return not (
            self.with_violations or self.with_mismatches or self.rejected or self.incomplete
            or self.conflicts
        )

    def to_json(self) -> dict[str, int]:
        return {
            "hands": self.hands,
            "valid": self.valid,
            "with_violations": self.with_violations,
            "with_mismatches": self.with_mismatches,
            "rejected": self.rejected,
            "incomplete": self.incomplete,
            "duplicates": self.duplicates,
            "conflicts": self.conflicts,
        }

    def summary_line(self) -> str:
        """The last line ``ofc-audit audit`` prints for people (after a blank line)."""
        among = [f"{number(self.with_mismatches)} with recorded mismatches"]
        if self.incomplete:
            among.append(f"{number(self.incomplete)} incomplete")
        return hands_sentence(self.hands, self.valid, self.with_violations, among,
                              self.rejected)


def rejection_json(error: HistoryParseError) -> dict[str, Any]:
    return {
        "file": error.file,
        "line": error.line,
        "column": error.column,
        "message": error.message,
    }


def duplicate_json(duplicate: Duplicate) -> dict[str, Any]:
    return {"hand_id": duplicate.hand_id, "file": duplicate.copy.file,
            "line": duplicate.copy.line, "first_file": duplicate.first.file,
            "first_line": duplicate.first.line}


def conflict_json(conflict: Conflict) -> dict[str, Any]:
    return {"hand_id": conflict.hand_id,
            "copies": [{"file": c.file, "line": c.line} for c in conflict.copies]}


def copies_json(index: HandIndex | None) -> dict[str, list[dict[str, Any]]]:
    """docs/CLI.md's ``"duplicates"`` and ``"conflicts"`` for a document that had neither
    before them (``session --json``, session.json, ``review --json``): both lists once a
    hand was read twice, nothing when every hand was read once (the same bytes as before)."""
    if index is None or not (index.duplicates or index.conflicts):
        return {}
    return {"duplicates": [duplicate_json(d) for d in index.duplicates],
            "conflicts": [conflict_json(c) for c in index.conflicts]}


def keyed_lists_json(lists: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Each list as ``,\n "key": [...]``, an entry a line: the keys a streamed document
    (``audit --json``, ``review --json``) adds after the ones it always had."""
    pieces = []
    for key, entries in lists.items():
        inner = ",".join("\n  " + json.dumps(e, ensure_ascii=False) for e in entries)
        pieces.append(f",\n {json.dumps(key)}: [{inner}\n ]" if entries
                      else f",\n {json.dumps(key)}: []")
    return "".join(pieces)


def index_lines(index: HandIndex) -> list[str]:
    """The duplicates and conflicts of ``index`` as people read them."""
    return [f"duplicate #{d.hand_id} at {d.copy.file}:{d.copy.line}, first read at "
            f"{d.first.file}:{d.first.line}" for d in index.duplicates] + \
        [f"conflict #{c.hand_id}: " + ", ".join(f"{x.file}:{x.line}" for x in c.copies)
         + ": not scored" for c in index.conflicts]


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
    rejections come in file order. Hands may come rendered as text or as UTF-8 bytes
    (:func:`~ofc_audit.audit.work.rendered_bytes`); bytes go straight to the binary stream
    under ``out`` where there is one that prints the same."""

    def __init__(self, out: IO[str], render: Literal["json", "text"],
                 selection: Selection | None = None, progress: Progress | None = None,
                 index: HandIndex | None = None) -> None:
        self.out = out
        self.index = index if index is not None else HandIndex()
        self.render = render
        self.totals = AuditTotals(duplicates=len(self.index.duplicates),
                                  conflicts=len(self.index.conflicts))
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
        totals.count(flags)
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
            totals.count(entry[1])
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

    def _index_json(self) -> str:
        """The duplicates and conflicts, after the keys every document had before them."""
        return keyed_lists_json({
            "duplicates": [duplicate_json(d) for d in self.index.duplicates],
            "conflicts": [conflict_json(c) for c in self.index.conflicts]})

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
            self._write('\n ],\n "totals": ' + json.dumps(totals.to_json()))
            self._write(self._index_json() + "\n}\n")
        else:
            for line in index_lines(self.index):
                self._write(line + "\n")
            self._write("\n" + totals.summary_line() + "\n")
        if self.raw is not None:
            self.raw.flush()
        return totals
