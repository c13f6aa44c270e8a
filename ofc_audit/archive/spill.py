"""A plain ``session`` (files, no archive) through the archive's report path (issue 21.4).

The pieces of the session tables (:func:`ofc_audit.audit.driver.session_pieces`) are
written as they come to Parquet files in a temporary folder, column for column as the
archive stores them (``ord`` = the hand's number, ``pos`` = the row's place in its hand),
and an in-memory DuckDB database sees them as the archive's ``s_*`` tables (views over the
files). :class:`~ofc_audit.archive.stored_session.StoredSession` then summarises and reads
back exactly as for an archive: one report path, and the session's process never holds a
whole per-hand table.

Why not the importer into a temporary archive file: it renders and stores every hand's
text and its audit output too, in one process; measured in docs/PERFORMANCE.md ("Round 5"),
it is slower than ``session --jobs 2`` on the files.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..audit.work import WORKER_TABLES
from ..common.scratch import scratch_folder, scratch_writes
from .importer import stored_piece
from .schema import SESSION_TABLES

#: DuckDB's memory limit for the session's queries (aggregates and ranges of hands).
DUCKDB_MEMORY = "256MB"

_TABLE_OF = {name: table for table, (name, _) in SESSION_TABLES.items()}


class SpilledSession:
    """The temporary folder of one session's pieces; a context manager that removes it."""

    def __init__(self, parent: str | Path | None = None) -> None:
        # The folders that killed sessions left are removed first (scratch_folder).
        self.folder = scratch_folder("ofc-audit-session-", parent)
        self.written = dict.fromkeys(WORKER_TABLES, 0)

    def __enter__(self) -> SpilledSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def sink(self, t: int, frame: pd.DataFrame) -> None:
        """Stores a piece of the table ``WORKER_TABLES[t]`` (``driver.session_pieces``)."""
        if frame.empty:
            return
        name = WORKER_TABLES[t]
        table = _TABLE_OF[name]
        piece = stored_piece(table, frame, frame["hand"].to_numpy(dtype=np.int64))
        folder = self.folder / table
        with scratch_writes(self.folder):
            folder.mkdir(exist_ok=True)
            pq.write_table(piece, folder / f"{self.written[name]:06d}.parquet",
                           compression="snappy")
        self.written[name] += 1

    def connect(self, rejected: pd.DataFrame) -> duckdb.DuckDBPyConnection:
        """An in-memory database whose ``s_*`` tables are the pieces written (and
        ``rejected``), with no conflicts (``items``): what ``StoredSession`` reads."""
        con = duckdb.connect(":memory:")
        # DuckDB's own buffers are capped (its default is 80% of the machine's memory);
        # sorting a range of hands spills to this folder rather than grow the process.
        con.execute(f"SET temp_directory = '{_sql_text(str(self.folder / 'duckdb'))}'")
        con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
        con.execute("CREATE TABLE items (ord BIGINT, conflict BOOLEAN)")
        for table, (name, columns) in SESSION_TABLES.items():
            if self.written[name]:
                pattern = _sql_text(str(self.folder / table / "*.parquet"))
                con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet('{pattern}')")
            else:
                con.execute(_empty_table(table, columns))
        frame = pd.DataFrame({
            "ord": np.arange(len(rejected), dtype=np.int64),
            **{c: rejected[c].astype("string" if c in ("file", "message") else "int64")
               for c in ("file", "line", "column", "message")}})
        data = pa.Table.from_pandas(frame, preserve_index=False)
        con.register("rejected_pieces", data)
        con.execute("CREATE TABLE s_rejected AS SELECT * FROM rejected_pieces")
        con.unregister("rejected_pieces")
        return con


def _sql_text(text: str) -> str:
    return text.replace("'", "''")


def _empty_table(table: str, columns: Any) -> str:
    from .schema import _session_ddl

    return _session_ddl(table, columns)
