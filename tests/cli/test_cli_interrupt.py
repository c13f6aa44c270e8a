"""Ctrl-C (SIGINT) ends every command quietly with 130, as a shell reports it, also when it
comes while DuckDB runs a query of the archive: DuckDB takes the signal itself and raises an
error of its own instead of ``KeyboardInterrupt`` (the command printed a traceback and
exited 1). ``watch`` ends with 0 on Ctrl-C, whenever it comes."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import duckdb
import pytest

from ofc_audit.archive import stored_session
from ofc_audit.cli.app import app
from ofc_audit.cli.errors import interrupted
from tests.support.histories import cli_runner

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_histories"


def duckdb_interrupted() -> BaseException:
    """What DuckDB raises when SIGINT comes in the middle of a query: real signals, sent to
    this process every 50 ms while a query of about a second runs. A signal DuckDB does not
    see (it came before the query started or after it ended) is Python's: the handler here
    raises ``KeyboardInterrupt`` only during the query, and the query is run again."""
    con = duckdb.connect()
    querying = threading.Event()
    done = threading.Event()

    def on_sigint(signum: int, frame: object) -> None:
        # Raises once per query, and only while it runs: a signal handled anywhere else in
        # this function (before the query, after it, while cleaning up) does nothing.
        if querying.is_set():
            querying.clear()
            raise KeyboardInterrupt

    def send() -> None:
        while not done.wait(0.05):
            os.kill(os.getpid(), signal.SIGINT)

    previous = signal.signal(signal.SIGINT, on_sigint)
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    try:
        for _ in range(50):
            try:
                querying.set()
                con.execute("SELECT sum(i * j) FROM range(200000) t(i), range(1000) u(j)"
                            ).fetchall()
                querying.clear()
            except KeyboardInterrupt:
                continue  # Python's, around the query: again
            except Exception as error:  # noqa: BLE001 - whatever DuckDB makes of the signal
                querying.clear()
                return error
        raise AssertionError("no query of 50 was interrupted by SIGINT")
    finally:
        querying.clear()
        done.set()
        sender.join()
        time.sleep(0.2)  # a signal sent last is handled here, by the handler that ignores it
        signal.signal(signal.SIGINT, previous)
        con.close()


@pytest.fixture(scope="module")
def duckdb_interruption() -> BaseException:
    return duckdb_interrupted()


def test_what_duckdb_raises_on_sigint_is_an_interruption(
        duckdb_interruption: BaseException) -> None:
    assert not isinstance(duckdb_interruption, KeyboardInterrupt)  # why the boundary looks
    assert interrupted(duckdb_interruption)
    wrapped = RuntimeError("a step of the report failed")
    wrapped.__cause__ = duckdb_interruption
    assert interrupted(wrapped)
    assert interrupted(KeyboardInterrupt())
    assert not interrupted(RuntimeError("Query failed"))
    assert not interrupted(duckdb.InvalidInputException("no such column"))


def _archive(tmp_path: Path) -> Path:
    archive = tmp_path / "a.duckdb"
    done = cli_runner().invoke(app, ["import", str(SAMPLES), "--archive", str(archive)])
    assert done.exit_code == 0, done.output
    return archive


def test_ctrl_c_during_an_archive_query_exits_130_without_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        duckdb_interruption: BaseException) -> None:
    archive = _archive(tmp_path)

    def interrupted_query(*_: object) -> None:
        raise duckdb_interruption

    monkeypatch.setattr(stored_session.StoredSession, "summaries", interrupted_query)
    result = cli_runner().invoke(app, ["session", "--archive", str(archive), "--out",
                                       str(tmp_path / "out")])
    assert result.exit_code == 130, result.output
    assert "Traceback" not in result.output and "Query interrupted" not in result.output


def test_watch_ends_with_0_on_ctrl_c_during_an_import_query(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        duckdb_interruption: BaseException) -> None:
    from ofc_audit.archive import watch

    def interrupted_import(*_: object, **__: object) -> None:
        raise duckdb_interruption

    monkeypatch.setattr(watch, "watch", interrupted_import)
    folder = tmp_path / "histories"
    folder.mkdir()
    result = cli_runner().invoke(app, ["watch", str(folder), "--archive",
                                       str(tmp_path / "w.duckdb")])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output


def test_other_errors_of_watch_are_not_taken_for_ctrl_c(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ofc_audit.archive import watch

    def failing(*_: object, **__: object) -> None:
        raise RuntimeError("Query failed")

    monkeypatch.setattr(watch, "watch", failing)
    folder = tmp_path / "histories"
    folder.mkdir()
    result = cli_runner().invoke(app, ["watch", str(folder), "--archive",
                                       str(tmp_path / "w.duckdb")])
    assert result.exit_code != 0 and isinstance(result.exception, RuntimeError)
