"""An import killed mid-file (SIGKILL: no handler runs) leaves the archive as it was before
that file; the next import finishes the job (issue 21: imports are atomic per file)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from tests.archive.conftest import REPO, SAMPLES, cli, outputs_of


def _files_and_hands(archive: Path) -> tuple[list[str], int]:
    with duckdb.connect(str(archive), read_only=True) as con:
        names = [bytes(r[0]).decode() for r in
                 con.execute("SELECT name FROM files ORDER BY file_id").fetchall()]
        row = con.execute("SELECT count(*) FROM items").fetchone()
        assert row is not None
        return names, int(row[0])


def test_killed_mid_file(simulated: Path, tmp_path: Path) -> None:
    first = tmp_path / "a_small.txt"
    shutil.copy(SAMPLES / "classic_4p_session.txt", first)
    big = tmp_path / "b_big.txt"
    shutil.copy(simulated, big)
    archive = tmp_path / "a.duckdb"
    process = subprocess.Popen(
        [sys.executable, "-m", "ofc_audit", "import", str(first), str(big), "--archive",
         str(archive)],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert process.stderr is not None
    started = []
    for raw in process.stderr:
        started.append(raw.decode())
        if f"importing {big}" in started[-1]:
            break
    # Into the big file, well before its end: its 2,000 hands are replayed and stored in one
    # transaction, about a second on a quiet machine (a second's wait let it commit once).
    time.sleep(0.2)
    assert process.poll() is None, "the import ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert process.returncode == -signal.SIGKILL
    # The archive as before the big file: the small file's 3 hands, nothing of the big one.
    assert _files_and_hands(archive) == ([str(first)], 3)
    # The killed import's staging folder is removed by the next import of this archive; that
    # of another archive in the same folder is not.
    assert list(tmp_path.glob(".a.duckdb.importing-*"))
    neighbour = tmp_path / ".b.duckdb.importing-x1"
    neighbour.mkdir()
    again = cli(["import", first, big, "--archive", archive])
    assert not list(tmp_path.glob(".a.duckdb.importing-*"))
    assert neighbour.is_dir()
    assert again.code == 0
    assert again.stdout.startswith("files: 1 read, 1 skipped")
    assert "hands: 2000 new, 0 duplicate(s)" in again.stdout
    for extra in ([], ["--json"]):
        assert outputs_of(["audit", "--archive", archive, *extra]) == \
            outputs_of(["audit", first, big, *extra])


def test_an_archive_that_cannot_grow_says_why_and_stays_as_it_was(simulated: Path,
                                                                     tmp_path: Path) -> None:
    """A commit that fails (the archive's disk full; here a limit on the size of files the
    command may write, which fails the same way) says what failed (the log it could not
    write), leaves the archive as it was before the file, and the next import, with room,
    finishes the job. Before: "cannot rollback - no transaction is active", the error of
    the clean-up instead of the one that says what went wrong."""
    import resource

    first = tmp_path / "a_small.txt"
    shutil.copy(SAMPLES / "classic_4p_session.txt", first)
    big = tmp_path / "b_big.txt"
    shutil.copy(simulated, big)
    archive = tmp_path / "a.duckdb"
    assert cli(["import", first, "--archive", archive]).code == 0
    room = archive.stat().st_size + 256 * 1024  # the archive's blocks, not the big file's log

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))

    full = subprocess.run(
        [sys.executable, "-m", "ofc_audit", "import", str(big), "--archive", str(archive)],
        cwd=REPO, capture_output=True, text=True, preexec_fn=limited,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert full.returncode == 2
    assert full.stderr.startswith(f"importing {big}\nofc-audit: error: {archive}: "), full.stderr
    assert "File too large" in full.stderr and "no transaction" not in full.stderr
    assert "Traceback" not in full.stderr
    assert _files_and_hands(archive) == ([str(first)], 3)
    again = cli(["import", first, big, "--archive", archive])
    assert again.code == 0
    assert "hands: 2000 new, 0 duplicate(s)" in again.stdout
    assert outputs_of(["audit", "--archive", archive, "--json"]) == \
        outputs_of(["audit", first, big, "--json"])
