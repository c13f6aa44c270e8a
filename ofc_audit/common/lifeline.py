"""Worker processes that end when the command that started them has ended, however it ended.

A worker (a ``--jobs`` lane, a review's mapper, the session's JSON writer, a simulator's
writer) is stopped by the command itself when the command ends normally, on an error or on
Ctrl-C. When the command is killed (``kill -9``, the kernel's out-of-memory killer) it
cannot: its workers waited on their queues for good, each holding its share of memory, and
the forkserver with them (``--jobs 2``: four processes left after the command had gone).

The command holds the only writing end of a pipe, the *lifeline*, and never writes to it;
each worker is given the reading end and watches it in a thread of its own. When the
command's process is gone, for whatever reason, the kernel closes its end, the pipe reads as
ended, and the worker leaves at once (``os._exit``: what it was doing was for a command that
is no longer there to take it).

>>> reader = lifeline()
>>> reader is lifeline()  # one pipe for every worker of this process
True
>>> reader.poll(0)  # the command is alive: nothing to read
False
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Iterator
from multiprocessing.connection import Connection, Pipe
from typing import Any

from .errors import EngineError

__all__ = [
    "EXIT_ORPHANED",
    "forkserver_fits",
    "lifeline",
    "start_worker",
    "starting_workers",
    "watch_lifeline",
]

#: The longest path a Unix socket can have: ``sun_path`` less its terminating NUL (108 bytes
#: on Linux, 104 on macOS and the BSDs).
UNIX_PATH_MAX = 107 if sys.platform.startswith("linux") else 103

#: The status of a worker that left because the command that started it had gone.
EXIT_ORPHANED = 3

_READER: Connection | None = None
_WRITER: Connection | None = None
_LOCK = threading.Lock()


def lifeline() -> Connection:
    """The reading end of this process's lifeline, made at the first call: give it to each
    worker (in a process's arguments or a pool's ``initargs``), which passes it to
    :func:`watch_lifeline`. Started with ``forkserver`` or ``spawn``, a worker gets only the
    ends it is given; a forked one also gets the writing end, which :func:`watch_lifeline`
    closes there."""
    global _READER, _WRITER
    with _LOCK:
        if _READER is None:
            _READER, _WRITER = Pipe(duplex=False)
        return _READER


def watch_lifeline(reader: Connection) -> None:
    """In a worker: leave the process as soon as the command that gave ``reader`` has
    ended (its end of the pipe closed). Returns at once; the watching is a daemon thread,
    blocked in the kernel until then (it holds no lock and takes no CPU)."""
    global _WRITER
    if _WRITER is not None:
        # A forked worker holds a copy of the command's end: the pipe would never end.
        _WRITER.close()
        _WRITER = None
    threading.Thread(target=_watch, args=(reader,), name="ofc-audit lifeline",
                     daemon=True).start()


def start_worker(reader: Connection) -> None:
    """In a worker process, first: Ctrl-C is left to the command, which stops its workers
    itself (a terminal's Ctrl-C reaches the whole process group: a worker's own
    ``KeyboardInterrupt`` printed its traceback), and the worker leaves by itself when the
    command has gone (:func:`watch_lifeline`). SIGTERM has its default action (a forked
    worker inherits the command's handler): it is how a pool (``terminate()``) stops a
    worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    watch_lifeline(reader)


def _watch(reader: Connection) -> None:
    try:
        reader.poll(None)  # readable only once every writing end is closed: the command's
    except OSError:
        pass  # closed under us: the same news
    os._exit(EXIT_ORPHANED)


def forkserver_fits() -> bool:
    """Whether workers can start from a forkserver here: the start method exists, and the
    server's socket fits its path. The standard library puts the socket in a folder of its
    own under the temporary folder (``pymp-XXXXXXXX/listener-XXXXXXXX``), and under a long
    ``TMPDIR`` (a test runner's folder for one test, a CI's, macOS's ``/var/folders/...``)
    every worker failed to start: "AF_UNIX path too long", which the command reported as
    input it could not read. Workers are spawned then: each imports the engine itself (a
    slower start), with the same results."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    from multiprocessing import util

    # The folder is the one the server would use (made now, removed at the end as ever).
    listener = os.path.join(util.get_temp_dir(), "listener-" + "x" * 8)
    return len(os.fsencode(listener)) <= UNIX_PATH_MAX


@contextlib.contextmanager
def starting_workers(what: str = "worker processes", pool: Any = None) -> Iterator[None]:
    """Around the start of workers (their pipes, queues and processes): an ``OSError``
    there is a limit of the machine (too many open files, no more processes, no memory to
    fork), not of the input, and is raised as an :class:`EngineError` saying so. Before,
    the command's mapping of ``OSError`` to an unreadable input reported
    ``ulimit -n 20; ofc-audit audit big.txt --jobs 2`` as "cannot read input: Too many open
    files".

    ``pool``: the ``ProcessPoolExecutor`` whose ``submit`` starts its processes here. One
    that started some of its processes and failed on the next has no thread yet to stop
    them (the standard library starts it after the processes of a forking pool): those
    left waiting for work for good, and the command for them (``ulimit -n 22``: a hang).
    They are stopped here."""
    try:
        yield
    except OSError as error:
        if pool is not None:
            _stop_started(pool)
        raise EngineError(
            f"cannot start the {what}: {error.strerror or error} (a limit of this system: "
            f"open files, processes or memory; --jobs 1 starts none)") from None


def _stop_started(pool: Any) -> None:
    """The processes ``pool`` has started so far killed and waited for, when no thread of
    the pool would stop them. Killed, not terminated: they have done nothing yet, and one
    forked a moment ago may still have the command's SIGTERM handler (its initializer,
    :func:`start_worker`, not run yet): it took the signal for an exception, which the
    standard library's at-fork hook dropped, and went on to wait for work for good."""
    if getattr(pool, "_executor_manager_thread", None) is not None:
        return  # the pool's own shutdown stops them
    started = list((getattr(pool, "_processes", None) or {}).values())
    for process in started:
        process.kill()
    for process in started:
        process.join()
