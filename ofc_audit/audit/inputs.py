"""What the paths of ``audit`` and ``session`` hold, before and after reading them.

A run that reads no hand at all is a usage error (docs/CLI.md: exit 2, saying where it looked),
not a clean session of zero hands: no file under a folder, only empty files, or only text
the reader rejects. An empty file among others is worth a warning and a line in the report
(a history that should have been there may not have been saved).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..common.errors import NoHistoryFound
from ..common.textfmt import quantity
from ..history.sources import STDIN
from ..history.survey import Files, NotAHistory, find_files
from .filters import Filters

if TYPE_CHECKING:
    from ..history.reader import HistoryParseError


@dataclass(frozen=True)
class Inputs:
    """The paths as given, the files they stand for (``-`` for standard input), which of
    those files are empty (no bytes: named explicitly, a warning as ever), the files named
    explicitly that hold no history (an error each) and the line that counts the files a
    folder held and that were skipped."""

    paths: tuple[str, ...]
    files: tuple[str, ...]
    empty: tuple[str, ...]
    not_histories: tuple[NotAHistory, ...] = ()
    skipped_line: str | None = None

    @classmethod
    def survey(cls, paths: Sequence[str]) -> Inputs:
        """The files ``reader.read_hands(paths)`` reads, in its order (a folder: every
        history under it, whatever its name), then the empty files; a path that does not
        exist is left to the reader's error."""
        found = find_files(paths)
        # An empty file, named or in a folder, is a warning as ever (a history that should
        # have been there may not have been saved), not a skipped or a wrong file.
        empty = tuple(sorted(
            [n.path for n in found.not_histories if n.reason == "empty"]
            + [s.path for s in found.skipped if s.reason == "empty"]))
        skipped = Files(found.files + empty,
                        tuple(s for s in found.skipped if s.reason != "empty"))
        return cls(tuple(paths), found.files + empty, empty,
                   tuple(n for n in found.not_histories if n.reason != "empty"),
                   skipped.skipped_line())

    def where(self) -> str:
        """The paths as a reader of an error message wants them."""
        return ", ".join(self.paths)

    def check_survey(self) -> None:
        """Raise :class:`~ofc_audit.common.errors.NoHistoryFound` when no hand can be read,
        said before reading (no file, or only empty ones)."""
        if not self.files and len(self.not_histories) == 1:
            raise NoHistoryFound(str(self.not_histories[0]))
        if not self.files:
            raise NoHistoryFound(
                f"no hand histories found in {self.where()}: no file there holds one "
                "(a folder stands for every hand history under it, whatever its name)")
        if STDIN not in self.files and len(self.empty) == len(self.files):
            what = "the file is empty" if len(self.files) == 1 else \
                f"all {len(self.files)} files are empty"
            raise NoHistoryFound(f"no hand histories found in {self.where()}: {what}")

    def check_read(self, hands: int, rejections: Sequence[HistoryParseError],
                   conflicts: int = 0) -> None:
        """Raise :class:`~ofc_audit.common.errors.NoHistoryFound` when the files, read, held
        nothing that looks like a hand history: no hand, no conflict (hands whose copies
        differ, not scored) and no rejected entry that had a hand header (a file whose every
        hand is rejected, or in conflict, is a history: those are findings, exit 1)."""
        if hands or conflicts or any(not error.before_first_hand for error in rejections):
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

    def errors(self) -> list[str]:
        """One sentence per file named explicitly that holds no history (the run goes on
        with the others)."""
        return [str(not_history) for not_history in self.not_histories]

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
