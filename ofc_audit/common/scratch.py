"""Temporary folders of a run, and the ones that killed runs left behind.

A session keeps its tables in a temporary folder while it runs (gigabytes for a long one)
and removes it when it ends, on an error, Ctrl-C, SIGTERM or SIGHUP. A run killed outright
(``kill -9``, the kernel's out-of-memory killer, a machine switched off) cannot: its folder
stays. So each folder is marked with its owner (the machine's name, the process id and the
process's start time), and a new folder is made only after the command's folders whose
owners have gone are removed. A folder whose owner still runs, whose owner is on
another machine (a shared temporary folder), whose owner cannot be told (no ``/proc``) or
that has no mark is left alone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import CannotWrite

__all__ = ["OWNER", "PREFIX", "owner_mark", "scratch_folder", "scratch_writes"]

#: The file in a temporary folder that names its owner.
OWNER = ".ofc-audit-owner"


def _started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, as the kernel counts them);
    None when there is no such process, or no ``/proc`` to ask."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    # The name (second field) is in parentheses and may hold spaces: count after it.
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else None


def owner_mark(pid: int | None = None) -> str | None:
    """The owner mark of process ``pid`` (this one by default): machine, pid, start time;
    None where a process's start time cannot be read (then nothing is ever swept)."""
    pid = os.getpid() if pid is None else pid
    started = _started(pid)
    return None if started is None else f"{socket.gethostname()} {pid} {started}"


def _gone(mark: str) -> bool:
    """Whether the owner a mark names has ended (on this machine, surely)."""
    parts = mark.split()
    if len(parts) != 3 or parts[0] != socket.gethostname() or not parts[1].isdigit():
        return False
    # A pid used again by another process is told apart by its start time.
    return _started(int(parts[1])) != parts[2]


#: What the name of every temporary folder of the command starts with.
PREFIX = "ofc-audit-"


def _sweep(parent: Path) -> None:
    if owner_mark() is None:
        return  # no way to tell whether an owner runs: sweep nothing
    with contextlib.suppress(OSError):
        for folder in parent.glob(PREFIX + "*"):
            try:
                mark = (folder / OWNER).read_text(encoding="utf-8")
            except OSError:
                continue  # not a folder, no mark (an older version's): not ours to judge
            if _gone(mark):
                shutil.rmtree(folder, ignore_errors=True)


def scratch_folder(prefix: str, parent: str | Path | None = None) -> Path:
    """A new temporary folder (``prefix``, which starts with :data:`PREFIX`, and a random
    part, under ``parent`` or the system's temporary folder), marked as this process's; the
    command's folders there whose owners have gone (of any kind: a session's tables, a copy
    of standard input) are removed first."""
    assert prefix.startswith(PREFIX)
    root = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    _sweep(root)
    with scratch_writes(root):
        folder = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
        mark = owner_mark()
        if mark is not None:
            try:
                (folder / OWNER).write_text(mark, encoding="utf-8")
            except OSError:
                shutil.rmtree(folder, ignore_errors=True)
                raise
    return folder


@contextlib.contextmanager
def scratch_writes(folder: Path) -> Iterator[None]:
    """Around writes into ``folder``, a temporary folder of this command's or the one it
    makes them in: an ``OSError`` there (its disk full) is a
    :class:`~ofc_audit.common.errors.CannotWrite` that names the temporary folder (not
    the command's own folders in it, which are gone by the time it is read) and what
    chooses it. Without a file's name (Parquet's writer gives none), it was "cannot read
    input: No space left on device" while a session's tables were kept, and a traceback
    while its report was made."""
    root = folder
    while root.name.startswith(PREFIX) and root.parent != root:
        root = root.parent
    try:
        yield
    except OSError as error:
        # Parquet's writer wraps the system's words ("Error writing bytes to file. Detail:
        # [errno 28] ..."): the system's own are enough.
        why = os.strerror(error.errno) if error.errno else error.strerror or str(error)
        raise CannotWrite(f"cannot write in the temporary folder {root}: {why} "
                          f"(TMPDIR chooses it)") from None
