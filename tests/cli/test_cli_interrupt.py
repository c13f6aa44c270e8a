"""Ctrl-C (SIGINT) ends every command quietly with 130, as a shell reports it, also when it
comes while DuckDB runs a query of the archive: DuckDB takes the signal itself and raises an
error of its own instead of ``KeyboardInterrupt`` (the command printed a traceback and
exited 1). ``watch`` ends with 0 on Ctrl-C, whenever it comes."""

from __future__ import annotations

import os
import signal
import threading
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
    """What DuckDB raises when SIGINT comes in the middle of a query (a real one, sent to
    this process while a long query runs)."""
    con = duckdb.connect()
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    raised: BaseException | None = None
    timer.start()
    try:
        con.execute("SELECT sum(i * j) FROM range(200000000) t(i), range(1000) u(j)").fetchall()
    except BaseException as error:  # noqa: BLE001 - whatever DuckDB makes of the signal
        raised = error
    finally:
        timer.join()
        con.close()
    # Had the signal come after the query, Python's own KeyboardInterrupt would be here.
    assert raised is not None, "the query ended before the signal"
    return raised


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
