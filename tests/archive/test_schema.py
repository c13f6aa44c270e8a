"""The archive's schema version and migrations, and archives that cannot be used."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ofc_audit.archive import schema
from ofc_audit.archive.schema import ArchiveError, open_archive
from ofc_audit.game.ruleset import Ruleset
from tests.archive.conftest import SAMPLES, cli


def _version(path: Path) -> int:
    with duckdb.connect(str(path), read_only=True) as con:
        row = con.execute("SELECT version FROM schema_version").fetchone()
        assert row is not None
        return int(row[0])


def test_a_new_archive_is_version_1(tmp_path: Path) -> None:
    path = tmp_path / "a.duckdb"
    open_archive(path, Ruleset.load("standard"), create=True).close()
    assert _version(path) == schema.SCHEMA_VERSION == 1


def test_migration_from_version_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An archive of version 1 with hands in it is migrated, in one transaction, by the
    next version's steps (here a made-up version 2 that adds a column), and keeps them."""
    path = tmp_path / "a.duckdb"
    assert cli(["import", SAMPLES / "classic_4p_session.txt", "--archive", path]).code == 0
    seen: list[int] = []

    def count_hands(con: duckdb.DuckDBPyConnection) -> None:
        row = con.execute("SELECT count(*) FROM items").fetchone()
        assert row is not None
        seen.append(int(row[0]))

    monkeypatch.setattr(schema, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(schema, "MIGRATIONS", {
        1: ["ALTER TABLE files ADD COLUMN note VARCHAR", count_hands]})
    with open_archive(path) as con:
        columns = [r[0] for r in con.execute("DESCRIBE files").fetchall()]
    assert "note" in columns and seen == [3]
    assert _version(path) == 2


def test_a_failed_migration_changes_nothing(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.duckdb"
    open_archive(path, create=True).close()
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(schema, "MIGRATIONS", {
        1: ["ALTER TABLE files ADD COLUMN note VARCHAR", "SELECT no_such_column FROM files"]})
    with pytest.raises(ArchiveError, match="cannot bring the archive to schema version 2"):
        open_archive(path)
    assert _version(path) == 1
    with duckdb.connect(str(path)) as con:
        assert "note" not in [r[0] for r in con.execute("DESCRIBE files").fetchall()]


def test_a_newer_archive_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.duckdb"
    open_archive(path, create=True).close()
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE schema_version SET version = 7")
    run = cli(["audit", "--archive", path])
    assert run.code == 2
    assert "made by a newer ofc-audit (schema version 7" in run.stderr


def test_not_an_archive(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(ArchiveError, match="not an ofc-audit archive"):
        open_archive(path)


def test_missing_archive_and_other_rules(tmp_path: Path) -> None:
    path = tmp_path / "a.duckdb"
    missing = cli(["session", "--archive", path])
    assert missing.code == 2 and "no such archive (ofc-audit import makes one)" in \
        missing.stderr
    assert cli(["import", SAMPLES / "classic_4p_session.txt", "--archive", path]).code == 0
    other = cli(["audit", "--archive", path, "--rules", "pokerdom"])
    assert other.code == 2 and "replayed under other rules (standard)" in other.stderr


def test_archive_and_paths_together_is_a_usage_error(tmp_path: Path) -> None:
    run = cli(["audit", SAMPLES, "--archive", tmp_path / "a.duckdb"])
    assert run.code == 2 and "give no PATH with it" in run.stderr
    nothing = cli(["session"])
    assert nothing.code == 2 and "or --archive FILE" in nothing.stderr


def test_default_archive_from_the_environment(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli(["import", SAMPLES / "classic_4p_session.txt"]).code == 0
    assert (tmp_path / "ofc-archive.duckdb").exists()
    monkeypatch.setenv("OFC_AUDIT_ARCHIVE", str(tmp_path / "env.duckdb"))
    assert cli(["import", SAMPLES / "classic_4p_session.txt"]).code == 0
    assert (tmp_path / "env.duckdb").exists()


def test_an_archive_another_process_writes_to_says_so(tmp_path: Path) -> None:
    """DuckDB lets a file be open in one process at a time when one of them writes: a
    command run while another holds the archive says that, with the process's number, and
    to try again (exit 2 from the command line), not DuckDB's lock message."""
    import subprocess
    import sys

    path = tmp_path / "busy.duckdb"
    open_archive(path, create=True).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time\n"
         f"con = duckdb.connect({str(path)!r})\nprint('holding', flush=True)\n"
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        with pytest.raises(ArchiveError) as raised:
            open_archive(path)
        assert str(raised.value) == (
            f"{path}: cannot open the archive: it is in use by process {holder.pid} "
            "(another ofc-audit command on this archive?); try again when that has finished")
    finally:
        holder.communicate("", timeout=30)


def test_an_archive_cut_short_is_said_to_be_damaged(tmp_path: Path) -> None:
    """An archive file cut short (a copy that stopped): the message says the file may be
    damaged and how to rebuild it, not "cannot bring the archive to schema version 1"."""
    archive = tmp_path / "a.duckdb"
    assert cli(["import", SAMPLES / "classic_4p_session.txt", "--archive", archive]).code == 0
    size = archive.stat().st_size
    with open(archive, "r+b") as file:
        file.truncate(size // 2)
    run = cli(["audit", "--archive", archive])
    assert run.code == 2
    assert run.stderr.startswith(f"ofc-audit: error: {archive}: cannot read the archive (is "
                                 f"the file damaged or cut short? importing the histories "
                                 f"into a new archive rebuilds it): "), run.stderr
