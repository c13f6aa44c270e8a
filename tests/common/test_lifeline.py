"""Workers start under a temporary folder of any length (the forkserver's socket or spawn)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
