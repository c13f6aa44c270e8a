"""What ``audit --archive``, ``session --archive`` and ``review --archive`` read back from
an archive.

Everything comes back in the order a plain run reads the same files (``ord``); a hand in a
conflict is left out (neither copy is scored), a duplicate was never stored. The audit gets
each hand as it was rendered at import; the session gets its tables with the dtypes the
:class:`~ofc_audit.session.tables.TableBuilder` gives them, so every file a session writes
from them is the same, byte for byte. The review gets the hands themselves, read again from
their stored text, to replay them (:func:`stored_items`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb
import numpy as np
import pyarrow as pa

from ..audit.filters import Facts
from ..history.reader import HistoryParseError, read_text
from ..history.records import Hand
from ..history.survey import Conflict, Copy, Duplicate, HandIndex
from ..session.tables import REJECTED_COLUMNS, SessionTables
from .importer import Listed, clean_text
from .schema import SESSION_TABLES, ArchiveError, first_row, stored_columns

if TYPE_CHECKING:
    import pandas as pd

#: Rows fetched at a time: the audit streams, whatever the archive's size.
BATCH = 8192
SCORED = "ord NOT IN (SELECT ord FROM items WHERE conflict)"


@dataclass(frozen=True)
class StoredHand:
    """A hand as the audit writes it: its flags, its rendering, what the filters see."""

    valid: bool
    mismatched: bool
    incomplete: bool
    text: str
    facts: Facts


@dataclass(frozen=True)
class StoredRejection:
    """An entry the reader rejected (``HistoryParseError``'s fields)."""

    file: str
    line: int
    column: int
    message: str


def _text(blob: Any) -> str:
    return bytes(blob).decode("utf-8", "surrogatepass")


def audit_entries(con: duckdb.DuckDBPyConnection, as_json: bool
                  ) -> Iterator[StoredHand | StoredRejection]:
    """Every scored hand and every rejection, in order, rendered for ``audit --json``
    (``as_json``) or ``audit``."""
    column = "audit_json" if as_json else "audit_text"
    reader = con.sql(
        f"SELECT is_hand, valid, mismatched, incomplete, {column}, facts, rejection "
        f"FROM items WHERE NOT conflict ORDER BY ord").to_arrow_reader(BATCH)
    for batch in reader:
        for is_hand, valid, mismatched, incomplete, text, facts, rejection in zip(
                *(batch.column(i).to_pylist() for i in range(7)), strict=True):
            if is_hand:
                table, names, timestamp = json.loads(facts)
                yield StoredHand(valid, mismatched, incomplete, _text(text),
                                 (table, tuple(names), timestamp))
            else:
                file, line, col, message = json.loads(rejection)
                yield StoredRejection(file, line, col, message)


def stored_items(con: duckdb.DuckDBPyConnection
                 ) -> Iterator[tuple[Hand | HistoryParseError, bool]]:
    """Every entry stored, in order: each hand read again from its stored text (its lines
    numbered as in its file, under the name its file was read by), each rejection as the
    reader gave it, and whether it is scored (False: the first copy of a hand in a
    conflict, which was replayed when it was imported, so the hands after it on its table
    went on from it)."""
    reader = con.sql(
        "SELECT i.is_hand, i.line, i.text, i.rejection, i.conflict, f.name FROM items i "
        "JOIN files f ON f.file_id = i.file_id ORDER BY i.ord").to_arrow_reader(BATCH)
    for batch in reader:
        for is_hand, line, text, rejection, conflict, name in zip(
                *(batch.column(i).to_pylist() for i in range(6)), strict=True):
            if not is_hand:
                file, at, column, message = json.loads(rejection)
                yield HistoryParseError(file, at, column, message, "", entry_line=line), True
                continue
            items = list(read_text(bytes(text).decode("utf-8", "surrogateescape"),
                                   _text(name), line))
            if len(items) != 1 or not isinstance(items[0], Hand):
                raise ArchiveError(f"the archive's hand at {_text(name)}:{line} does not read "
                                 "back as the one hand it was")
            yield items[0], not conflict


def _arrow(con: duckdb.DuckDBPyConnection, sql: str) -> pa.Table:
    return con.sql(sql).to_arrow_table()


def _column(kind: Any, values: pa.ChunkedArray) -> Any:
    """A stored column as the session table's own column (``kind``: its column kind)."""
    if len(values) == 0:
        return kind(())
    array = values.combine_chunks()
    name = kind.name
    if name in ("int", "float", "bool"):
        chunk: Any = array.to_numpy(zero_copy_only=False)
    elif name == "category":
        chunk = array.to_numpy(zero_copy_only=False).astype(np.int8)
    elif name in ("string", "time"):
        chunk = array.cast(pa.large_string())
    elif name == "label":
        chunk = array.cast(pa.large_string()).dictionary_encode()
    else:  # Int64, boolean: Arrow arrays with their nulls
        chunk = array
    return kind.join([chunk])


def scored_hand_ords(con: duckdb.DuckDBPyConnection) -> np.ndarray:
    """The ``ord`` of every scored hand, in session order (a hand's place here is its
    ``hand``, the 0-based key of the session tables)."""
    data = _arrow(con, f"SELECT ord FROM s_hands WHERE {SCORED} ORDER BY ord")
    ords: np.ndarray = data.column("ord").to_numpy()
    return ords


def stored_frame(data: pa.Table, columns: Mapping[str, Any], hand_ords: np.ndarray
                 ) -> pd.DataFrame:
    """Stored rows (``data``: an ``s_*`` table's columns with ``ord``) as the session
    table of ``columns`` makes them, ``hand`` numbered by the rows' places in
    ``hand_ords``."""
    import pandas as pd

    ords = data.column("ord").to_numpy()
    hands = np.searchsorted(hand_ords, ords).astype(np.int64)
    out: dict[str, Any] = {}
    for column, kind in columns.items():
        if column == "hand":
            out[column] = kind.join([hands]) if len(hands) else kind(())
        elif kind.name == "time":
            out[column] = _column(kind, data.column("timestamp"))
        else:
            out[column] = _column(kind, data.column(column))
    assert list(out) == list(columns) and set(stored_columns(columns)) <= set(out)
    return pd.DataFrame(out, copy=False)


def session_tables(con: duckdb.DuckDBPyConnection) -> SessionTables:
    """The session tables of every scored hand, as a plain session of the same files
    builds them (``hand``: the 0-based place of the hand among them)."""

    hand_ords = scored_hand_ords(con)
    frames: dict[str, pd.DataFrame] = {}
    for table, (name, columns) in SESSION_TABLES.items():
        order = "ord" if table == "s_hands" else "ord, pos"
        data = _arrow(con, f"SELECT * FROM {table} WHERE {SCORED} ORDER BY {order}")
        frames[name] = stored_frame(data, columns, hand_ords)
    frames["rejected"] = rejected_frame(con)
    return SessionTables(**frames)


def rejected_frame(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every rejected entry, in order (the ``rejected`` session table)."""
    import pandas as pd

    data = _arrow(con, "SELECT * FROM s_rejected ORDER BY ord")
    return pd.DataFrame(
        {column: _column(kind, data.column(column)) for column, kind in
         REJECTED_COLUMNS.items()}, copy=False)


def hand_count(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """(scored hands, rejected entries) in the archive."""
    row = first_row(con, f"SELECT count(*) FILTER (WHERE is_hand AND {SCORED}), "
                    "count(*) FILTER (WHERE NOT is_hand) FROM items")
    assert row is not None
    return int(row[0]), int(row[1])


def _listed(con: duckdb.DuckDBPyConnection, table: str) -> list[Listed]:
    rows = con.execute(
        f"SELECT d.hand_id, f.name, d.line, g.name, d.first_ord & 4294967295 FROM {table} d "
        "JOIN files f ON f.file_id = d.file_id "
        "JOIN files g ON g.file_id = d.first_ord >> 32 ORDER BY d.file_id, d.line").fetchall()
    return [Listed(h, clean_text(_text(f)), int(line), clean_text(_text(g)), int(first))
            for h, f, line, g, first in rows]


def duplicates(con: duckdb.DuckDBPyConnection) -> list[Listed]:
    """Every duplicate ever imported (counted once), in the order read."""
    return _listed(con, "duplicates")


def conflicts(con: duckdb.DuckDBPyConnection) -> list[Listed]:
    """Every conflict ever imported (neither copy scored), in the order read."""
    return _listed(con, "conflicts")


def stored_index(con: duckdb.DuckDBPyConnection) -> HandIndex:
    """The archive's duplicates and conflicts as a plain run lists them from the same files
    (:meth:`HandIndex.of`): a conflict with every copy in reading order, the first copy and
    its duplicates among them; the duplicates of other hands in the order read."""
    Where = tuple[int, int]  # (file_id, line): the reading order

    def copies(table: str) -> list[tuple[str, Copy, Where, Copy, Where]]:
        rows = con.execute(
            f"SELECT d.hand_id, d.file_id, d.line, f.name, g.name, d.first_ord FROM {table} d "
            "JOIN files f ON f.file_id = d.file_id "
            "JOIN files g ON g.file_id = d.first_ord >> 32 ORDER BY d.file_id, d.line"
        ).fetchall()
        found = []
        for hand_id, file_id, line, name, first_name, first_ord in rows:
            first_line = int(first_ord) & 0xFFFFFFFF
            found.append((str(hand_id), Copy(clean_text(_text(name)), int(line)),
                          (int(file_id), int(line)),
                          Copy(clean_text(_text(first_name)), first_line),
                          (int(first_ord) >> 32, first_line)))
        return found

    every: dict[str, dict[Copy, Where]] = {}  # a conflict's copies, where each was read
    for hand_id, here, at, first, first_at in copies("conflicts"):
        every.setdefault(hand_id, {first: first_at})[here] = at
    duplicates = []
    for hand_id, here, at, first, _ in copies("duplicates"):
        if hand_id in every:  # a copy of a conflicting text is one more copy of the conflict
            every[hand_id][here] = at
        else:
            duplicates.append(Duplicate(hand_id, here, first))
    conflicts = [Conflict(hand_id, tuple(sorted(found, key=found.__getitem__)))
                 for hand_id, found in every.items()]
    conflicts.sort(key=lambda c: every[c.hand_id][c.copies[0]])
    return HandIndex(duplicates, conflicts)
