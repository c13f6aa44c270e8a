"""``--out DIR`` belongs to the tool: what a run writes there is listed in a manifest, and the
next run into the folder removes what the last one wrote and this one did not (a dispute page
of a hand no longer in the input, the charts of a currency no longer played), never anything
else.

What a run wrote is told by the file system itself: every file under the folder modified since
the run claimed it. The mark is a file's modification time taken on that file system, so a
clock that differs from this machine's cannot shift it.
"""

from __future__ import annotations

import errno
import json
import os
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "ofc-audit-manifest.json"
_FORMAT = 1


def _previous(out: Path) -> list[str]:
    """The files the last run listed, as relative paths; nothing when there is no manifest
    or it is not one of ours. A listed path that leaves the folder is never trusted."""
    path = out / MANIFEST
    if not path.is_file():
        return []
    try:
        document = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return []
    if not isinstance(document, dict) or document.get("format") != _FORMAT:
        return []
    files = document.get("files")
    if not isinstance(files, list):
        return []
    return [name for name in files if isinstance(name, str) and _inside(name)]


def _inside(name: str) -> bool:
    relative = Path(name)
    return (
        bool(name)
        and not relative.is_absolute()
        and ".." not in relative.parts
        and name != MANIFEST
    )


@dataclass
class OwnedFolder:
    """The output folder of one run: :meth:`claim` before writing, :meth:`release` after."""

    out: Path
    since_ns: int
    previous: list[str]

    @classmethod
    def claim(cls, out: Path) -> OwnedFolder:
        if out.exists() and not out.is_dir():
            # Was "File exists", true and no help.
            raise NotADirectoryError(errno.ENOTDIR, "it is a file, not a folder", str(out))
        out.mkdir(parents=True, exist_ok=True)
        previous = _previous(out)
        mark = out / f".{MANIFEST}.run"
        mark.write_bytes(b"")
        since = mark.stat().st_mtime_ns
        mark.unlink()
        return cls(out, since, previous)

    def written(self) -> list[str]:
        """Every regular file under the folder modified since the claim (the manifest aside),
        as sorted relative paths with '/' separators."""
        names = []
        for folder, _, files in os.walk(self.out):
            for file in files:
                path = Path(folder) / file
                if path.is_symlink() or not path.is_file():
                    continue
                name = path.relative_to(self.out).as_posix()
                if name != MANIFEST and path.stat().st_mtime_ns >= self.since_ns:
                    names.append(name)
        return sorted(names)

    def release(self) -> list[str]:
        """Remove what the last run wrote and this one did not, write this run's manifest,
        and return the removed files' relative paths. Folders emptied by the removal go too
        (only those)."""
        written = self.written()
        kept = set(written)
        removed = []
        for name in self.previous:
            if name in kept:
                continue
            path = self.out / name
            if path.is_symlink() or not path.is_file():
                continue
            path.unlink()
            removed.append(name)
            parent = path.parent
            while parent != self.out and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
        self._list(written)
        return removed

    def abandon(self) -> None:
        """A run that failed or was stopped part-way (a full disk, Ctrl-C): nothing is
        removed, and the manifest lists what the last run wrote and what this one had
        written, so that the next run removes whichever of them it does not write again.
        Before, the files of a run that never finished were listed nowhere and stayed for
        good (the dispute page of a hand no longer in the input, after a Ctrl-C). A
        manifest that cannot be written (the disk still full) leaves the last one as it
        was."""
        try:
            self._list(sorted({*self.previous, *self.written()}))
        except OSError:
            pass  # the error that stopped the run is the one to report

    def _list(self, names: list[str]) -> None:
        """The manifest written whole or not at all (a half-written one would be taken for
        none, and what it listed would never be removed)."""
        document = {"format": _FORMAT, "tool": "ofc-audit", "files": names}
        partial = self.out / f".{MANIFEST}.partial"
        try:
            partial.write_text(json.dumps(document, indent=1) + "\n", "utf-8")
            os.replace(partial, self.out / MANIFEST)
        finally:
            partial.unlink(missing_ok=True)
