"""What the paths of ``audit`` and ``session`` hold, before and after reading them.

A run that reads no hand at all is a usage error (docs/CLI.md: exit 2, saying where it looked),
not a clean session of zero hands: no file under a folder, only empty files, or only text
the reader rejects. An empty file among others is worth a warning and a line in the report
(a history that should have been there may not have been saved).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..common.errors import NoHistoryFound
from ..common.textfmt import quantity
from ..history.sources import STDIN, history_files
from .filters import Filters

if TYPE_CHECKING:
    from ..history.reader import HistoryParseError


@dataclass(frozen=True)
class Inputs:
    """The paths as given, the files they stand for (``-`` for standard input) and which
    of those files are empty (no bytes)."""

    paths: tuple[str, ...]
    files: tuple[str, ...]
    empty: tuple[str, ...]

    @classmethod
    def survey(cls, paths: Sequence[str]) -> Inputs:
        """The files ``reader.read_hands(paths)`` reads, in its order (a folder: every
        ``*.txt`` under it); a path that does not exist is left to the reader's error."""
        files: list[str] = []
        empty: list[str] = []
        for file in history_files(paths):
            files.append(file)
            if file == STDIN:
                continue
            try:
                if os.path.getsize(file) == 0:
                    empty.append(file)
            except OSError:
                pass  # reading it says why
        return cls(tuple(paths), tuple(files), tuple(empty))

    def where(self) -> str:
        """The paths as a reader of an error message wants them."""
        return ", ".join(self.paths)

    def check_survey(self) -> None:
        """Raise :class:`~ofc_audit.common.errors.NoHistoryFound` when no hand can be read,
        said before reading (no file, or only empty ones)."""
        if not self.files:
            raise NoHistoryFound(
                f"no hand histories found in {self.where()}: no *.txt file there "
                "(a folder stands for every *.txt file under it)")
        if STDIN not in self.files and len(self.empty) == len(self.files):
            what = "the file is empty" if len(self.files) == 1 else \
                f"all {len(self.files)} files are empty"
            raise NoHistoryFound(f"no hand histories found in {self.where()}: {what}")

    def check_read(self, hands: int, rejections: Sequence[HistoryParseError]) -> None:
        """Raise :class:`~ofc_audit.common.errors.NoHistoryFound` when the files, read, held
        nothing that looks like a hand history: no hand, and no rejected entry that had a
        hand header (a file whose every hand is rejected is a history: its rejections are
        findings, exit 1)."""
        if hands or any(not error.before_first_hand for error in rejections):
            return
        count = len(self.files)
        files = quantity(count, "file")
        them = "it" if count == 1 else "them"
        if rejections:
            many = len(rejections)
            entries = ("the entry in it" if count == 1 and many == 1 else
                       f"the {quantity(many, 'entry', many='entries')} in {them}")
            raise NoHistoryFound(
                f"no hand histories found in {self.where()}: {files} read, and {entries} "
                "could not be read as hands (listed above)")
        raise NoHistoryFound(
            f"no hand histories found in {self.where()}: {files} read, no hand in {them}")

    def warnings(self) -> list[str]:
        """One sentence per empty file, when other files are not."""
        return [f"{file} is empty: no hand read from it" for file in self.empty]


@dataclass(frozen=True)
class Scope:
    """What a run of ``audit`` or ``session`` reads, which of it it reports, and how much
    the terminal shows (``session --owes``: the pairwise table too)."""

    inputs: Inputs | None = None
    filters: Filters = field(default_factory=Filters)
    pairwise: bool = False

    def notes(self) -> list[str]:
        """Sentences for the report: the filters used, the empty files."""
        described = self.filters.sentence()
        return ([described] if described else []) + \
            (self.inputs.warnings() if self.inputs is not None else [])
