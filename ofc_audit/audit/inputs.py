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
from pathlib import Path

from .filters import Filters


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
        for path in paths:
            if path == "-":
                files.append("-")
                continue
            if Path(path).is_dir():
                found = [str(p) for p in sorted(Path(path).rglob("*.txt")) if p.is_file()]
            else:
                found = [path]
            for file in found:
                files.append(file)
                try:
                    if os.path.getsize(file) == 0:
                        empty.append(file)
                except OSError:
                    pass  # reading it says why
        return cls(tuple(paths), tuple(files), tuple(empty))

    def where(self) -> str:
        """The paths as a reader of an error message wants them."""
        return ", ".join(self.paths)

    def nothing_to_read(self) -> str | None:
        """Why no hand can be read, said before reading (no file, or only empty ones)."""
        if not self.files:
            return (f"no hand histories found in {self.where()}: no *.txt file there "
                    "(a folder stands for every *.txt file under it)")
        if "-" not in self.files and len(self.empty) == len(self.files):
            what = "the file is empty" if len(self.files) == 1 else \
                f"all {len(self.files)} files are empty"
            return f"no hand histories found in {self.where()}: {what}"
        return None

    def no_hands_read(self, rejected: int | None = None) -> str:
        """The message when the files were read and no hand came of them (``rejected``:
        the entries rejected, None when not counted)."""
        count = len(self.files)
        files = "1 file" if count == 1 else f"{count} files"
        if rejected is None:
            return (f"no hand histories found in {self.where()}: {files} read, no hand in "
                    "them (any entry that could not be read is listed above)")
        if rejected:
            return (f"no hand histories found in {self.where()}: {files} read, and the "
                    f"{rejected} entr{'y' if rejected == 1 else 'ies'} in them could not be "
                    "read as hands (listed above)")
        return f"no hand histories found in {self.where()}: {files} read, no hand in them"

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
