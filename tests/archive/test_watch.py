"""``ofc-audit watch``: files imported as they are written, a hand written in two parts
imported once it is whole."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import duckdb
import pytest

from ofc_audit.archive.importer import ImportReport
from ofc_audit.archive.schema import open_archive
from ofc_audit.archive.watch import watch
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.present.audit_text import audit_hand_text
from tests.archive.conftest import hand_starts, outputs_of


def _until(condition: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "watch did not import in time"
        time.sleep(0.1)


def test_a_file_written_in_two_parts(short_simulated: Path, tmp_path: Path) -> None:
    data = short_simulated.read_bytes()
    starts = hand_starts(data)
    # The first part stops inside hand 41, after its SHOWDOWN: it looks like a whole hand
    # but its SUMMARY is still missing.
    summary = data.index(b"*** SUMMARY ***", starts[40])
    cut = data.index(b"\n", summary) + 1
    folder = tmp_path / "histories"
    folder.mkdir()
    archive = tmp_path / "a.duckdb"
    ruleset = Ruleset.load("standard")
    open_archive(archive, ruleset, create=True).close()
    reports: list[ImportReport] = []
    ready = threading.Event()
    stop = threading.Event()
    worker = threading.Thread(target=watch, kwargs=dict(
        folder=str(folder), connect=lambda: open_archive(archive, ruleset), ruleset=ruleset,
        render_text=audit_hand_text, on_report=reports.append, stop=stop,
        debounce_ms=100, on_ready=ready.set))
    worker.start()
    try:
        assert ready.wait(60)
        path = folder / "live.txt"
        path.write_bytes(data[:cut])
        _until(lambda: sum(r.hands for r in reports) == 40)
        assert reports[-1].held == [(str(path), data.count(b"\n", 0, starts[40]) + 1)]
        with path.open("ab") as out:
            out.write(data[cut:])
        _until(lambda: sum(r.hands for r in reports) == len(starts))
    finally:
        stop.set()
        worker.join(30)
    assert not worker.is_alive()
    assert not any(r.rejected or r.conflicts or r.duplicates for r in reports)
    with duckdb.connect(str(archive), read_only=True) as con:
        row = con.execute("SELECT count(*) FROM items").fetchone()
        assert row is not None and int(row[0]) == len(starts)
    for extra in ([], ["--json"]):
        assert outputs_of(["audit", "--archive", archive, *extra]) == \
            outputs_of(["audit", path, *extra])


def _first_line(stream: IO[str], seconds: float = 120.0) -> str:
    """The first line the process writes to ``stream``: a failure, not a hang, when none
    comes (nothing has been read from the pipe before, so none waits in its buffer)."""
    ready, _, _ = select.select([stream], [], [], seconds)
    assert ready, f"no line from watch in {seconds:.0f} s"
    return stream.readline()


def _watching(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    """``ofc-audit watch`` of a new folder, once it has imported the first file written
    there (a history of three hands): the process, the folder and the archive."""
    from tests.archive.conftest import REPO, SAMPLES

    folder = tmp_path / "histories"
    folder.mkdir()
    archive = tmp_path / "a.duckdb"
    process = subprocess.Popen(
        [sys.executable, "-m", "ofc_audit", "watch", str(folder), "--archive", str(archive)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        assert process.stderr is not None and process.stdout is not None
        assert _first_line(process.stderr).startswith(f"watching {folder}")
        (folder / "new.txt").write_bytes((SAMPLES / "classic_4p_session.txt").read_bytes())
        line = _first_line(process.stdout)
        assert line.startswith("files: 1 read, 0 skipped"), line
        line = process.stdout.readline()  # written with the line before (in its buffer)
        assert line.startswith("hands: 3 new"), line
    except BaseException:
        process.kill()
        process.wait()
        raise
    return process, folder, archive


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_the_command_until_interrupted(tmp_path: Path, stop: str) -> None:
    """``ofc-audit watch DIR``: prints what each import did; Ctrl-C (SIGINT) or SIGTERM (a
    service being stopped) ends it, 0."""
    process, _, _ = _watching(tmp_path)
    process.send_signal(getattr(signal, stop))
    try:
        code = process.wait(120)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
        raise AssertionError(f"watch did not stop on {stop}; stderr: {stderr}") from None
    assert code == 0


def test_sigterm_during_an_import_ends_watch_with_0(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGTERM that comes while watch imports (not while it waits for changes, where the
    watcher turns every signal into ``KeyboardInterrupt``) ends it as Ctrl-C does, with 0
    (it ended with 143 then)."""
    from ofc_audit.archive import watch as watch_module
    from ofc_audit.cli.app import app
    from ofc_audit.cli.errors import Terminated
    from tests.support.histories import cli_runner

    def importing(*args: object, **kwargs: object) -> None:
        raise Terminated  # where the command's SIGTERM handler raises it

    monkeypatch.setattr(watch_module, "watch", importing)
    folder = tmp_path / "histories"
    folder.mkdir()
    result = cli_runner().invoke(
        app, ["watch", str(folder), "--archive", str(tmp_path / "a.duckdb")])
    assert result.exit_code == 0, result.output


def test_watch_waits_while_another_process_has_the_archive_open(tmp_path: Path) -> None:
    """A report reading the archive (another process) when a file changes: watch says so
    once and imports as soon as the archive is free, instead of ending."""
    from tests.archive.conftest import SAMPLES

    folder = tmp_path / "histories"
    folder.mkdir()
    (folder / "new.txt").write_bytes((SAMPLES / "classic_4p_session.txt").read_bytes())
    archive = tmp_path / "a.duckdb"
    ruleset = Ruleset.load("standard")
    open_archive(archive, ruleset, create=True).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys\n"
         f"con = duckdb.connect({str(archive)!r}, read_only=True)\n"
         "print('holding', flush=True)\nsys.stdin.readline()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    reports: list[ImportReport] = []
    busy: list[str] = []
    stop = threading.Event()
    worker = threading.Thread(target=watch, kwargs=dict(
        folder=str(folder), connect=lambda: open_archive(archive, ruleset), ruleset=ruleset,
        render_text=audit_hand_text, on_report=reports.append, stop=stop, debounce_ms=100,
        on_busy=busy.append))
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        worker.start()
        _until(lambda: bool(busy))
        time.sleep(1.5)  # several half-second tries while the archive is held
        assert reports == [] and len(busy) == 1 and worker.is_alive()
        assert f"it is in use by process {holder.pid}" in busy[0]
        holder.communicate("\n", timeout=30)
        _until(lambda: sum(r.hands for r in reports) == 3)
    finally:
        stop.set()
        worker.join(30)
        if holder.poll() is None:
            holder.kill()
    assert not worker.is_alive()


def test_the_command_started_while_another_process_has_the_archive_open(
        tmp_path: Path) -> None:
    """``ofc-audit watch`` started while a report reads the archive: it says so, watches,
    and imports once the archive is free (it used to end at once with exit 2)."""
    from tests.archive.conftest import REPO, SAMPLES

    folder = tmp_path / "histories"
    folder.mkdir()
    archive = tmp_path / "a.duckdb"
    open_archive(archive, Ruleset.load("standard"), create=True).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys\n"
         f"con = duckdb.connect({str(archive)!r}, read_only=True)\n"
         "print('holding', flush=True)\nsys.stdin.readline()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
    process = subprocess.Popen(
        [sys.executable, "-m", "ofc_audit", "watch", str(folder), "--archive", str(archive)],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)))
    try:
        assert process.stderr is not None and process.stdout is not None
        warning = _first_line(process.stderr)
        assert warning.startswith("ofc-audit: warning: ") and \
            f"it is in use by process {holder.pid}" in warning, warning
        # Written right after the warning: it may be in the stream's buffer already, where
        # select does not see it.
        assert process.stderr.readline().startswith(f"watching {folder}")
        holder.communicate("\n", timeout=30)
        (folder / "new.txt").write_bytes((SAMPLES / "classic_4p_session.txt").read_bytes())
        line = _first_line(process.stdout)
        assert line.startswith("files: 1 read, 0 skipped"), line
        assert process.stdout.readline().startswith("hands: 3 new")
    finally:
        if holder.poll() is None:
            holder.kill()
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(120)
        except subprocess.TimeoutExpired:
            process.kill()
            raise AssertionError("watch did not stop on SIGINT") from None
    assert code == 0


def test_a_folder_removed_while_watched_ends_watch_with_an_error(tmp_path: Path) -> None:
    """The watched folder removed (or renamed): watch says so and ends, exit 2, what it had
    imported kept. It watched on without a word for good (a service that would never
    import again, and nothing in its log to say why)."""
    import shutil

    process, folder, archive = _watching(tmp_path)
    try:
        shutil.rmtree(folder)
        code = process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
    assert code == 2
    assert process.stderr is not None
    assert process.stderr.read() == (f"ofc-audit: error: {folder}: the folder is gone (removed "
                                     f"or renamed while it was watched); what was imported "
                                     f"stays in the archive\n")
    with duckdb.connect(str(archive), read_only=True) as con:
        row = con.execute("SELECT count(*) FROM items").fetchone()
    assert row is not None and row[0] == 3
