"""Temporary folders marked with their owner; the ones of owners that have gone (a session
killed outright) are removed before a new one is made, and nothing else is."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ofc_audit.common.scratch import OWNER, owner_mark, scratch_folder

ROOT = Path(__file__).resolve().parents[2]
PREFIX = "ofc-audit-session-"


def _ended_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _folder(parent: Path, name: str, mark: str | None) -> Path:
    folder = parent / name
    (folder / "s_hands").mkdir(parents=True)
    (folder / "s_hands" / "000000.parquet").write_bytes(b"rows")
    if mark is not None:
        (folder / OWNER).write_text(mark, encoding="utf-8")
    return folder


def test_a_new_folder_is_marked_as_this_process(tmp_path: Path) -> None:
    folder = scratch_folder(PREFIX, tmp_path)
    assert folder.parent == tmp_path and folder.name.startswith(PREFIX)
    mark = (folder / OWNER).read_text(encoding="utf-8")
    assert mark == owner_mark()
    host, pid, started = mark.split()
    assert host == socket.gethostname() and int(pid) == os.getpid() and started.isdigit()


def test_the_folders_of_owners_that_have_gone_are_removed(tmp_path: Path) -> None:
    me = owner_mark()
    assert me is not None
    host, pid, started = me.split()
    dead = _folder(tmp_path, PREFIX + "dead", f"{host} {_ended_pid()} 12345")
    reused = _folder(tmp_path, PREFIX + "reused", f"{host} {pid} {int(started) + 1}")
    alive = _folder(tmp_path, PREFIX + "alive", me)
    elsewhere = _folder(tmp_path, PREFIX + "elsewhere", f"another-{host} {_ended_pid()} 1")
    unmarked = _folder(tmp_path, PREFIX + "unmarked", None)
    garbled = _folder(tmp_path, PREFIX + "garbled", "not a mark")
    other_kind = _folder(tmp_path, "ofc-audit-stdin-dead", f"{host} {_ended_pid()} 1")
    not_ours = _folder(tmp_path, "another-tool-dead", f"{host} {_ended_pid()} 1")
    made = scratch_folder(PREFIX, tmp_path)
    assert not dead.exists() and not reused.exists() and not other_kind.exists()
    for kept in (alive, elsewhere, unmarked, garbled, not_ours, made):
        assert kept.exists(), kept.name


@pytest.mark.slow
def test_a_session_killed_outright_leaves_its_folder_to_the_next_one(tmp_path: Path) -> None:
    """``kill -9`` in the middle of ``session --jobs 2``: its temporary tables stay (nothing
    can remove them then); the next session in the same temporary folder removes them."""
    from ofc_audit.game.ruleset import Ruleset
    from ofc_audit.simulate.simulator import SimulationOptions, simulate_text

    history = tmp_path / "hands.txt"
    history.write_text(simulate_text(SimulationOptions(
        ruleset=Ruleset.load(None), players=3, hands=600, tables=4, seed=5)), encoding="utf-8")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, TMPDIR=str(temporary))

    def session(out: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [sys.executable, "-m", "ofc_audit", "session", str(history), "--jobs", "2",
             "--out", str(tmp_path / out)], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    killed = session("first")
    deadline = time.monotonic() + 60
    while not list(temporary.glob(PREFIX + "*/s_*")) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = list(temporary.glob(PREFIX + "*"))
    assert left, "the session wrote no tables"
    killed.send_signal(signal.SIGKILL)
    killed.wait(30)
    time.sleep(1)  # its workers end by themselves (the lifeline)
    assert all(folder.exists() for folder in left)
    second = session("second")
    assert second.wait(120) in (0, 1), second.stderr.read() if second.stderr else ""
    assert not any(folder.exists() for folder in left)
    assert list(temporary.glob(PREFIX + "*")) == []  # the second one's own, removed at its end


def test_standard_input_spooled_for_the_workers_is_removed(tmp_path: Path) -> None:
    """``audit - --jobs 2`` copies standard input to a file the workers can open: in a
    folder of its own, removed at the end; one that a killed run left is removed first."""
    from ofc_audit.game.ruleset import Ruleset
    from ofc_audit.simulate.simulator import SimulationOptions, simulate_text

    text = simulate_text(SimulationOptions(ruleset=Ruleset.load(None), players=3, hands=400,
                                           tables=3, seed=9))
    assert len(text.encode()) > 512 * 1024  # past --jobs' threshold: workers read the copy
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    host = socket.gethostname()
    left = _folder(temporary, "ofc-audit-stdin-left", f"{host} {_ended_pid()} 7")
    env = dict(os.environ, TMPDIR=str(temporary))
    jobs = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "-", "--jobs", "2",
                           "--json", "--exit-zero"], cwd=ROOT, env=env, input=text.encode(),
                          capture_output=True, timeout=300)
    one = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "-", "--json",
                          "--exit-zero"], cwd=ROOT, env=env, input=text.encode(),
                         capture_output=True, timeout=300)
    assert jobs.returncode == 0, jobs.stderr
    assert jobs.stdout == one.stdout
    assert not left.exists()
    assert list(temporary.iterdir()) == []
