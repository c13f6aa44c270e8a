"""Workers start under a temporary folder of any length (the forkserver's socket or spawn)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ofc_audit.common.lifeline import UNIX_PATH_MAX

ROOT = Path(__file__).resolve().parents[2]


def _long_folder(base: Path) -> Path:
    """A folder whose path leaves no room for the forkserver's socket under it."""
    folder = base / ("t" * 60) / ("m" * 60)
    folder.mkdir(parents=True)
    assert len(os.fsencode(str(folder))) + len("/pymp-12345678/listener-12345678") > UNIX_PATH_MAX
    return folder


def _fits_under(tmpdir: Path) -> bool:
    script = "from ofc_audit.common.lifeline import forkserver_fits; print(forkserver_fits())"
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, TMPDIR=str(tmpdir)), check=True)
    return done.stdout.strip() == "True"


def test_the_forkserver_only_where_its_socket_fits(tmp_path: Path) -> None:
    assert not _fits_under(_long_folder(tmp_path))
    short = Path("/tmp")
    if len(str(short)) + len("/pymp-12345678/listener-12345678") <= UNIX_PATH_MAX:
        assert _fits_under(short)


def test_parallel_commands_work_under_a_long_temporary_folder(tmp_path: Path) -> None:
    """``session --jobs 2`` (its lanes and its JSON writer from a forkserver where it can) and
    ``audit --jobs 2`` under a TMPDIR too long for a Unix socket: the same results as under
    a short one, no "AF_UNIX path too long" (it was "cannot read input" and exit 2)."""
    from ofc_audit.game.ruleset import Ruleset
    from ofc_audit.simulate.simulator import SimulationOptions, simulate_text

    history = tmp_path / "hands.txt"
    options = SimulationOptions(ruleset=Ruleset.load(None), players=3, hands=600, tables=4,
                                seed=5)
    history.write_text(simulate_text(options), encoding="utf-8")
    assert history.stat().st_size > 512 * 1024  # past --jobs' threshold: workers start
    long = _long_folder(tmp_path)
    results = []
    for tmpdir in (long, tmp_path):
        env = dict(os.environ, TMPDIR=str(tmpdir))
        out = tmp_path / f"report-{len(str(tmpdir))}"
        session = subprocess.run(
            [sys.executable, "-m", "ofc_audit", "session", str(history), "--jobs", "2",
             "--out", str(out), "--json"], cwd=ROOT, capture_output=True, text=True, env=env)
        assert session.returncode in (0, 1), session.stderr
        assert "AF_UNIX" not in session.stderr
        audit = subprocess.run(
            [sys.executable, "-m", "ofc_audit", "audit", "--json", str(history), "--jobs", "2"],
            cwd=ROOT, capture_output=True, text=True, env=env)
        assert audit.returncode in (0, 1), audit.stderr
        results.append((json.loads(session.stdout)["players"], audit.stdout,
                        (out / "session.json").read_text(encoding="utf-8")))
    assert results[0] == results[1]


def _limited(limit: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


@pytest.fixture(scope="module")
def big_history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A history past --jobs' threshold, and its audit by a command without a limit."""
    from ofc_audit.game.ruleset import Ruleset
    from ofc_audit.simulate.simulator import SimulationOptions, simulate_text

    history = tmp_path_factory.mktemp("limits") / "hands.txt"
    options = SimulationOptions(ruleset=Ruleset.load(None), players=3, hands=600, tables=4,
                                seed=9)
    history.write_text(simulate_text(options), encoding="utf-8")
    assert history.stat().st_size > 512 * 1024
    audit = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "--json", str(history),
                            "--jobs", "2"], cwd=ROOT, capture_output=True, text=True)
    assert audit.returncode in (0, 1), audit.stderr
    return history, audit.stdout


@pytest.mark.parametrize("limit", range(12, 27))
def test_too_few_file_descriptors_for_workers_is_said_so_and_ends(
        big_history: tuple[Path, str], limit: int) -> None:
    """Under a low limit on open files the workers cannot all start: the command says so
    (exit 2), or runs as without the limit, and always ends. Before: "cannot read input: Too
    many open files" (any OSError while workers started was taken for the input's), and
    at 22 and 23 open files on this machine the command waited for good for the lane that
    had started before the next one failed (the pool had no thread yet to stop it)."""
    history, expected = big_history
    audit = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "--json", str(history),
                            "--jobs", "2"], cwd=ROOT, capture_output=True, text=True,
                           preexec_fn=lambda: _limited(limit), timeout=120)
    if audit.returncode == 2:
        assert audit.stderr.startswith("ofc-audit: error: cannot start the worker processes: "
                                       "Too many open files"), audit.stderr
        assert "Traceback" not in audit.stderr
    else:
        assert audit.returncode in (0, 1), audit.stderr
        assert audit.stdout == expected
    if limit == 12:
        assert audit.returncode == 2  # the limit is reached here: the test tests something


@pytest.mark.parametrize(("limit", "command"), [
    (12, ["review", "sample_histories/", "--player", "alice", "--jobs", "2", "--rollouts", "20"]),
    (12, ["simulate", "--hands", "3000", "--jobs", "2"]),
])
def test_review_and_simulate_say_they_cannot_start_workers(
        tmp_path: Path, limit: int, command: list[str]) -> None:
    if command[0] == "simulate":
        command = [*command, "--out", str(tmp_path / "hands.txt")]
    done = subprocess.run([sys.executable, "-m", "ofc_audit", *command], cwd=ROOT,
                          capture_output=True, text=True,
                          preexec_fn=lambda: _limited(limit), timeout=120)
    assert done.returncode == 2
    assert "ofc-audit: error: cannot start the worker processes: Too many open files" \
        in done.stderr, done.stderr
    assert "cannot read" not in done.stderr and "cannot write" not in done.stderr
