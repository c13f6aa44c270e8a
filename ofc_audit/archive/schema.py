"""The archive's tables, its schema version and the migrations between versions.

One DuckDB file holds everything. ``items`` has one row per entry read (a hand, or text the
reader rejected), ordered by ``ord`` (the file's number in import order, then the entry's
first line: the order a plain run of the same files reads them). A hand keeps its text
(line ends and byte-order mark normalised), what ``audit --json`` and ``audit`` print for it,
and what the filters look at. The ``s_*`` tables are the session tables of
:mod:`ofc_audit.session.tables`, row for row, keyed by ``ord`` instead of the session's
0-based ``hand`` (made again when a session reads them). ``files`` tracks every file read: its
path, size, modification time, the SHA-256 of the bytes read, where the next import goes on
(``offset``, ``next_line``) and each table's chain state there.

Text that may carry bytes that are not UTF-8 (the reader keeps them as lone surrogates) is
stored as BLOB (UTF-8 with ``surrogatepass``), or as ASCII JSON, so it comes back exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import duckdb

from ..game.ruleset import Ruleset
from ..session.tables import (
    HAND_COLUMNS,
    MISMATCH_COLUMNS,
    PAIR_COLUMNS,
    REJECTED_COLUMNS,
    SEAT_COLUMNS,
    VIOLATION_COLUMNS,
)

#: The schema this code writes and reads.
SCHEMA_VERSION = 1

#: The session tables as stored: archive table name -> (session table name, its columns).
SESSION_TABLES: dict[str, tuple[str, Mapping[str, Any]]] = {
    "s_hands": ("hands", HAND_COLUMNS),
    "s_seats": ("seats", SEAT_COLUMNS),
    "s_pairs": ("pairs", PAIR_COLUMNS),
    "s_violations": ("violations", VIOLATION_COLUMNS),
    "s_mismatches": ("mismatches", MISMATCH_COLUMNS),
}

#: DuckDB types of the session tables' column kinds (``category``: a row category's code,
#: -1 unknown; ``time`` is not stored: it is parsed again from ``timestamp``).
_SQL_TYPES = {
    "int": "BIGINT", "float": "DOUBLE", "bool": "BOOLEAN", "Int64": "BIGINT",
    "boolean": "BOOLEAN", "string": "VARCHAR", "label": "VARCHAR", "category": "TINYINT",
}


class ArchiveError(Exception):
    """An archive that cannot be used as asked (a newer schema, another ruleset, not an
    archive at all); the message says which file and why."""


class ArchiveBusy(ArchiveError):
    """An archive another process has open while one of them writes (DuckDB's file lock):
    it can be used once that process is done (``watch`` waits and tries again)."""


def stored_columns(columns: Mapping[str, Any]) -> list[str]:
    """The columns of a session table that the archive stores (all but ``hand``, which is
    the session's own numbering, and ``time``, parsed again from ``timestamp``)."""
    return [name for name, kind in columns.items() if name != "hand" and kind.name != "time"]


def _session_ddl(table: str, columns: Mapping[str, Any]) -> str:
    kinds = ", ".join(f'"{name}" {_SQL_TYPES[columns[name].name]}'
                      for name in stored_columns(columns))
    position = "" if table == "s_hands" else "pos INTEGER NOT NULL, "
    return f"CREATE TABLE {table} (ord BIGINT NOT NULL, {position}{kinds})"


def _version_1() -> list[str]:
    return [
        "CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
        """CREATE TABLE files (
            file_id INTEGER PRIMARY KEY,
            path BLOB NOT NULL UNIQUE,      -- the real path, links resolved (os.fsencode)
            name BLOB NOT NULL,             -- the name the hands carry (as first given)
            size BIGINT NOT NULL,
            mtime_ns BIGINT NOT NULL,
            sha256 VARCHAR NOT NULL,        -- of bytes [0, offset)
            "offset" BIGINT NOT NULL,       -- bytes read: the next import starts here
            next_line BIGINT NOT NULL,      -- the line number at offset
            held BIGINT NOT NULL,           -- bytes after offset left for the next import
            chains VARCHAR NOT NULL,        -- each table's chain state at offset (JSON)
            imported_at TIMESTAMPTZ NOT NULL)""",
        """CREATE TABLE items (
            ord BIGINT NOT NULL,            -- file_id * 2^32 + the entry's first line
            file_id INTEGER NOT NULL,
            line INTEGER NOT NULL,
            is_hand BOOLEAN NOT NULL,
            hand_id VARCHAR,
            text_sha VARCHAR,
            text BLOB,
            valid BOOLEAN,
            mismatched BOOLEAN,
            incomplete BOOLEAN,
            audit_json BLOB,                -- the hand as audit --json prints it
            audit_text BLOB,                -- the hand's lines as audit prints them
            facts VARCHAR,                  -- [table, [players], timestamp] (JSON)
            table_name VARCHAR,
            time TIMESTAMPTZ,
            rejection VARCHAR,              -- [file, line, column, message] (JSON)
            conflict BOOLEAN NOT NULL DEFAULT FALSE)""",
        "CREATE INDEX items_hand_id ON items (hand_id)",
        "CREATE INDEX items_table ON items (table_name)",
        "CREATE INDEX items_time ON items (time)",
        """CREATE TABLE duplicates (
            hand_id VARCHAR NOT NULL, file_id INTEGER NOT NULL, line INTEGER NOT NULL,
            first_ord BIGINT NOT NULL)""",
        """CREATE TABLE conflicts (
            hand_id VARCHAR NOT NULL, file_id INTEGER NOT NULL, line INTEGER NOT NULL,
            first_ord BIGINT NOT NULL, text_sha VARCHAR NOT NULL)""",
        *(_session_ddl(table, columns) for table, (_, columns) in SESSION_TABLES.items()),
        "CREATE INDEX s_seats_name ON s_seats (name)",
        "CREATE INDEX s_hands_table ON s_hands (\"table\")",
        """CREATE TABLE s_rejected (ord BIGINT NOT NULL, """
        + ", ".join(f'"{n}" {_SQL_TYPES[k.name]}' for n, k in REJECTED_COLUMNS.items())
        + ")",
        "CREATE TABLE schema_version (version INTEGER NOT NULL)",
    ]


#: Migrations: MIGRATIONS[v] takes a version-v archive to version v + 1, in one transaction
#: (SQL statements, or a function of the connection for what SQL alone cannot do).
Migration = str | Callable[[duckdb.DuckDBPyConnection], None]
MIGRATIONS: dict[int, Sequence[Migration]] = {}


def first_row(con: duckdb.DuckDBPyConnection, sql: str,
              params: Sequence[Any] | None = None) -> tuple[Any, ...] | None:
    """The first row of a query, or None; the result is read to its end (DuckDB refuses
    other work on a connection whose last result is unfinished)."""
    rows = con.execute(sql, params).fetchall() if params is not None else \
        con.execute(sql).fetchall()
    return tuple(rows[0]) if rows else None


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """End the open transaction without its changes, on the way out of an error: a COMMIT
    that failed (no space left on the device for the archive's log) has already ended it,
    and a ROLLBACK then raised "cannot rollback - no transaction is active", which took
    the place of the error that says what went wrong."""
    try:
        con.execute("ROLLBACK")
    except duckdb.TransactionException:
        pass  # none open: the failed statement's own rollback has been done


def ruleset_key(ruleset: Ruleset) -> str:
    """The options the stored results depend on (not the preset's name)."""
    options = {k: str(v) for k, v in asdict(ruleset).items() if k != "name"}
    return json.dumps(options, sort_keys=True)


def schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The archive's version: 0 for an empty database."""
    tables = {row[0] for row in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()}
    if "schema_version" not in tables:
        if tables:
            raise ArchiveError("not an ofc-audit archive (it has tables of its own)")
        return 0
    row = first_row(con, "SELECT max(version) FROM schema_version")
    return int(row[0]) if row is not None and row[0] is not None else 0


def migrate(con: duckdb.DuckDBPyConnection, target: int | None = None) -> int:
    """Bring the archive to ``target`` (default :data:`SCHEMA_VERSION`), one version per
    transaction; returns the version it was at. An empty database gets version 1 and then
    the migrations after it, as an old archive would."""
    target = SCHEMA_VERSION if target is None else target
    found = schema_version(con)
    if found > target:
        raise ArchiveError(f"made by a newer ofc-audit (schema version {found}; this one "
                           f"reads version {target}); upgrade ofc-audit to use it")
    version = found
    while version < target:
        steps: Sequence[Migration] = _version_1() if version == 0 else MIGRATIONS[version]
        con.execute("BEGIN TRANSACTION")
        try:
            for step in steps:
                if isinstance(step, str):
                    con.execute(step)
                else:
                    step(con)
            con.execute("DELETE FROM schema_version")
            con.execute("INSERT INTO schema_version VALUES (?)", [version + 1])
        except BaseException:
            rollback(con)
            raise
        con.execute("COMMIT")
        version += 1
    return found


def _cannot_open(path: str | Path, error: Exception) -> ArchiveError:
    """Why an archive does not open, in the words of someone who ran two commands: a DuckDB
    file is open in one process at a time when one of them writes (an import or watch
    writes; a report from the archive reads, and an import cannot start meanwhile), and
    DuckDB's own message names a lock and a PID: :class:`ArchiveBusy` then."""
    text = str(error)
    if "Could not set lock" not in text:
        return ArchiveError(f"{path}: cannot open the archive: {text}")
    holder = re.search(r"PID (\d+)", text)
    who = f"process {holder.group(1)}" if holder else "another process"
    return ArchiveBusy(f"{path}: cannot open the archive: it is in use by {who} (another "
                       "ofc-audit command on this archive?); try again when that has finished")


def open_archive(path: str | Path, ruleset: Ruleset | None = None, *,
                 create: bool = False, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A connection to the archive at ``path``, migrated to this code's version.

    ``create``: make the file when it does not exist (else that is an error). ``ruleset``:
    the rules the stored results must have been computed under (the first import records
    them); another ruleset is an error, since every stored result would differ."""
    target = Path(path)
    if not target.exists() and not create:
        raise ArchiveError(f"{path}: no such archive (ofc-audit import makes one)")
    try:
        con = duckdb.connect(str(target), read_only=read_only and target.exists())
    except duckdb.Error as error:
        raise _cannot_open(path, error) from None
    try:
        if read_only:
            version = schema_version(con)
            if version != SCHEMA_VERSION:
                con.close()
                con = duckdb.connect(str(target))
                migrate(con)
        else:
            migrate(con)
        if ruleset is not None:
            _check_ruleset(con, ruleset, path, record=not read_only)
    except ArchiveError as error:
        con.close()
        raise ArchiveError(f"{path}: {error}") from None
    except duckdb.IOException as error:
        # A file cut short or overwritten (a copy that stopped, a disk error): it was "cannot
        # bring the archive to schema version 1", the words of a migration.
        con.close()
        raise ArchiveError(f"{path}: cannot read the archive (is the file damaged or cut "
                           f"short? importing the histories into a new archive rebuilds "
                           f"it): {error}") from None
    except duckdb.Error as error:
        con.close()
        raise ArchiveError(f"{path}: cannot bring the archive to schema version "
                           f"{SCHEMA_VERSION}: {error}") from None
    except BaseException:
        con.close()
        raise
    return con


def _check_ruleset(con: duckdb.DuckDBPyConnection, ruleset: Ruleset, path: str | Path,
                   record: bool) -> None:
    key = ruleset_key(ruleset)
    row = first_row(con, "SELECT value FROM meta WHERE key = 'ruleset'")
    if row is None:
        if record:
            con.execute("INSERT INTO meta VALUES ('ruleset', ?), ('ruleset_name', ?)",
                        [key, ruleset.name])
        return
    if row[0] != key:
        name = first_row(con, "SELECT value FROM meta WHERE key = 'ruleset_name'")
        raise ArchiveError(
            f"its hands were replayed under other rules ({name[0] if name else 'unknown'}); "
            f"--rules {ruleset.name} needs an archive of its own (--archive FILE)")
