"""A command stopped from outside leaves nothing behind.

* SIGTERM (``kill``, ``timeout``, a service stopped) and SIGHUP (the terminal closed) stop a
  command as Ctrl-C does: its workers stopped, its temporary folder removed, then exit 143
  or 129 (128 + the signal), no traceback. Before, Python's default action ended the
  command at once and left its ``--jobs`` workers and forkserver waiting for good, and a
  session's temporary tables (gigabytes for a long one) in the temporary folder.
* A command killed outright (``kill -9``, the kernel's out-of-memory killer) cannot stop its
  workers: they leave by themselves (:mod:`ofc_audit.common.lifeline`). Before, four
  processes of ``audit --jobs 2`` stayed, each with its memory.

Each command here writes to a pipe that nobody reads, so it stops at a known place with its
workers started (the output does not fit in the pipe), and stays there until signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ofc_audit.game.ruleset import Ruleset
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A history past ``--jobs``' threshold (512 KiB), so that workers start."""
    path = tmp_path_factory.mktemp("terminate") / "hands.txt"
    options = SimulationOptions(ruleset=Ruleset.load(None), players=3, hands=600, tables=4,
                                seed=5)
    path.write_text(simulate_text(options), encoding="utf-8")
    assert path.stat().st_size > 512 * 1024
    return path


def _children() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    return children


def descendants(pid: int) -> list[int]:
    children, found, todo = _children(), [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie that nobody has reaped yet has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def all_end(pids: list[int], seconds: float = 15) -> list[int]:
    """The processes of ``pids`` still running after ``seconds`` (none, when all ended)."""
    wait_for(lambda: not any(map(alive, pids)), seconds)
    return [pid for pid in pids if alive(pid)]


@contextlib.contextmanager
def started(args: list[str], workers: int, session: bool = False,
            env: dict[str, str] | None = None
            ) -> Iterator[tuple[subprocess.Popen[bytes], list[int]]]:
    """The command (in a process group of its own with ``session``), once ``workers``
    processes below it do work; and the processes below it."""
    command = subprocess.Popen([sys.executable, "-m", "ofc_audit", *args], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=session, env=env)
    below: list[int] = []
    try:
        assert wait_for(lambda: len(descendants(command.pid)) >= workers, 60), \
            f"no {workers} workers started: {descendants(command.pid)}"
        time.sleep(0.5)  # the workers at their work (their lifeline watched)
        below = descendants(command.pid)
        yield command, below
    finally:
        command.kill()
        command.wait(30)
        for pid in below:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def stderr_of(command: subprocess.Popen[bytes]) -> str:
    return command.stderr.read().decode() if command.stderr else ""


AUDIT = ["audit", "--json", "--jobs", "2"]
#: The processes below ``audit --jobs 2``: its two lanes, forked from the command (it has
#: one thread; no forkserver is started then).
AUDIT_WORKERS = 2
SIMULATE = ["simulate", "--hands", "200000", "--jobs", "3", "--seed", "2"]  # forked writers


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_stops_the_workers_and_exits_128_plus_it(history: Path,
                                                              stop: signal.Signals) -> None:
    with started([*AUDIT, str(history)], workers=AUDIT_WORKERS) as (command, below):
        command.send_signal(stop)
        assert command.wait(30) == 128 + stop
        assert "Traceback" not in stderr_of(command)
        assert all_end(below) == []


def test_a_stopped_session_leaves_no_temporary_folder(history: Path, tmp_path: Path) -> None:
    """``session --jobs 2`` keeps its tables in a temporary folder while it runs: removed
    when SIGTERM stops it, as on Ctrl-C; two signals at once (SIGHUP, then SIGTERM before
    the first was handled) stop it once, without a traceback (the handler that ignored
    the second made Python raise "Signal 15 ignored due to race condition" in the middle
    of the clean-up)."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, TMPDIR=str(temporary))
    args = ["session", str(history), "--jobs", "2", "--out", str(tmp_path / "report")]
    with started(args, workers=3, env=env) as (command, below):
        assert [p.name for p in temporary.iterdir() if p.name.startswith("ofc-audit-")]
        command.send_signal(signal.SIGHUP)
        command.send_signal(signal.SIGTERM)
        assert command.wait(30) == 128 + signal.SIGHUP
        assert "Traceback" not in stderr_of(command)
        assert all_end(below) == []
    assert [p.name for p in temporary.iterdir() if p.name.startswith("ofc-audit-")] == []


@pytest.mark.parametrize("args", [AUDIT, SIMULATE], ids=["audit-jobs-2", "simulate-jobs-3"])
def test_sigterm_to_the_process_group_as_timeout_sends_it(history: Path,
                                                          args: list[str]) -> None:
    """``timeout`` signals the command, then its whole process group: the workers die of it,
    the command stops the rest and exits 143, without a word (the simulator's
    ``multiprocessing.Pool`` waited for good for a lock that a killed writer held)."""
    paths = [str(history)] if args is AUDIT else []
    with started([*args, *paths], workers=2 if args is SIMULATE else AUDIT_WORKERS,
                 session=True) as (command, below):
        command.send_signal(signal.SIGTERM)
        os.killpg(command.pid, signal.SIGTERM)
        assert command.wait(30) == 143
        stderr = stderr_of(command)
        assert "error" not in stderr and "Traceback" not in stderr, stderr
        assert all_end(below) == []


@pytest.mark.parametrize("args", [AUDIT, SIMULATE], ids=["audit-jobs-2", "simulate-jobs-3"])
def test_stop_signals_until_the_end_still_end_it_with_143(history: Path,
                                                           args: list[str]) -> None:
    """SIGTERM to the process group again and again until the command has ended (``timeout``'s
    second signal, on a busy machine, can come that late): one comes while the interpreter
    ends, after the clean-up, where a handled signal has its default action back. The
    command still ends with 143, without a word (it ended by the signal, -15, in every run
    before the stop signals were ignored once the clean-up is done)."""
    paths = [str(history)] if args is AUDIT else []
    with started([*args, *paths], workers=2 if args is SIMULATE else AUDIT_WORKERS,
                 session=True) as (command, below):
        deadline = time.monotonic() + 30
        while command.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(command.pid, signal.SIGTERM)
            time.sleep(0.0005)
        assert command.wait(30) == 143
        stderr = stderr_of(command)
        assert "error" not in stderr and "Traceback" not in stderr, stderr
        assert "race condition" not in stderr, stderr
        assert all_end(below) == []


@pytest.mark.parametrize("args", [AUDIT, SIMULATE, ["watch"]],
                         ids=["audit-jobs-2", "simulate-jobs-3", "watch"])
def test_ctrl_c_again_and_again_still_ends_it_as_once(history: Path, tmp_path: Path,
                                                      args: list[str]) -> None:
    """Ctrl-C pressed again while the command stops (SIGINT to the process group every
    0.5 ms until it has ended): the first stops it, the others do not cut its clean-up
    short, and it ends as after one (130; watch: 0), without a word. Before: the second
    KeyboardInterrupt came in the middle of the clean-up, a page of "Exception ignored ...
    KeyboardInterrupt" followed, and the command ended by the signal (-2) in every run."""
    if args[0] == "watch":
        folder = tmp_path / "incoming"
        folder.mkdir()
        args = ["watch", str(folder), "--archive", str(tmp_path / "club.duckdb")]
        paths: list[str] = []
        workers, expected = 0, 0
    else:
        paths = [str(history)] if args is AUDIT else []
        workers, expected = (2 if args is SIMULATE else AUDIT_WORKERS), 130
    with started([*args, *paths], workers=workers, session=True) as (command, below):
        if args[0] == "watch":
            assert wait_for(lambda: (tmp_path / "club.duckdb").exists(), 60)
        deadline = time.monotonic() + 30
        while command.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(command.pid, signal.SIGINT)
            time.sleep(0.0005)
        assert command.wait(30) == expected
        stderr = stderr_of(command)
        assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
        assert "error" not in stderr, stderr
        assert all_end(below) == []


@pytest.mark.parametrize("args", [AUDIT, SIMULATE], ids=["audit-jobs-2", "simulate-jobs-3"])
def test_workers_leave_when_the_command_is_killed(history: Path, args: list[str]) -> None:
    paths = [str(history)] if args is AUDIT else []
    with started([*args, *paths], workers=2 if args is SIMULATE else AUDIT_WORKERS
                 ) as (command, below):
        command.send_signal(signal.SIGKILL)
        command.wait(30)
        assert all_end(below) == []
