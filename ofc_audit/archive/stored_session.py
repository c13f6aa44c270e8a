"""A session report from an archive without its per-hand tables in memory (issue 21.4).

:func:`~ofc_audit.archive.queries.session_tables` loads every table whole, as a plain run
holds them. Here the database does the work instead:

- the summaries (per player, head to head, matches, royalties, totals, who owes whom) are
  SQL aggregates, finished by the same pandas code as a plain run's
  (``summaries.*_of``, ``settle_up.*_of``), so their frames are the same;
- the per-hand tables are read back a piece of rows at a time, in session order, for the
  writers (:meth:`StoredSession.source`): a piece is converted as
  :func:`~ofc_audit.archive.queries.stored_frame` converts a whole table;
- the report gets slim tables (:meth:`StoredSession.report_tables`): the problem hands, the
  findings and rejections, and of the seats only the columns the results charts draw.

The match summary (a row per match and player: as long as the seat table when matches are
short) is stored too, in a temporary folder, and read back in order a piece at a time.
What still grows with the archive: the hands' ``ord`` and time (16 bytes a hand) and the
slim seats (about 40 bytes a seat row).
"""

from __future__ import annotations

import shutil
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..common.scratch import scratch_folder, scratch_writes
from ..session import settle_up
from ..session.exports import TableSource
from ..session.summaries import (
    MATCH_COLUMNS,
    SessionSummaries,
    head_to_head_of,
    match_counts,
    match_rows_of,
    match_summary,
    player_rates_of,
    player_summary_of,
    royalties_of,
    totals_of,
)
from ..session.tables import (
    CATEGORIES,
    HAND_COLUMNS,
    ROW_NAMES,
    SEAT_COLUMNS,
    SessionTables,
    plain_labels,
    text_array,
)
from .queries import SCORED, rejected_frame, scored_hand_ords, stored_frame
from .schema import SESSION_TABLES, stored_columns
from .spill import DUCKDB_MEMORY

#: Hands read back per query: a range of ``ord`` whose rows DuckDB sorts on its own (the
#: seats and pairs of 16,384 hands are about 50,000 rows, 10 MB as Arrow).
HANDS_PER_QUERY = 16_384

#: Seat rows of a share of the match summary at most, read and summarised at once (short
#: matches make a group of nearly every seat row: the share's frame and its groups).
MATCH_ROWS_PER_QUERY = 262_144

#: First hands a query of the stored match summary reads back (about 180,000 rows of
#: short matches, 30 MB as Arrow, sorted by the database).
MATCH_HANDS_PER_QUERY = 65_536

#: The seat columns a match summary sums or takes the first of.
_MATCH_FIRSTS = ("hand", "hand_id", "position")
_MATCH_SEAT_COLUMNS = (
    "table", "match", "name", "currency", "stake", "points", "transfer", "royalties",
    "royalties_top", "royalties_middle", "royalties_bottom", "fouled", "in_fantasyland",
    "fantasyland_next", *_MATCH_FIRSTS)
#: The stored match summary's order (:data:`~ofc_audit.session.summaries.MATCH_ORDER`,
#: then the group's first seat row: the order the groups first appear).
_MATCH_KEYS = ("match_first", "position", "first_hand", "first_pos")

#: The seat columns the report draws (the results charts and the players' sparklines).
SLIM_SEATS = ("hand", "name", "currency", "stake", "transfer", "points")

_PROBLEM = "(NOT valid OR mismatches > 0 OR unverifiable > 0 OR incomplete IS NOT NULL)"


def _text_index(values: Any) -> Any:
    """Key text as the ``string`` columns a plain run's summaries have."""
    return text_array(values)


class StoredSession:
    """The scored hands of an open archive, summarised and read back in pieces."""

    def __init__(self, con: duckdb.DuckDBPyConnection, parent: Path | None = None) -> None:
        """``parent``: where the session's temporary folder goes (the system's when None)."""
        self.con = con
        self._parent = parent
        self._folder: Path | None = None
        # DuckDB's allocator keeps the pages a query freed (about 120 MB after the match
        # summary of 200,000 hands) until its background threads purge them, and they are
        # off by default: the session's process would carry them through every later stage.
        con.execute("SET allocator_background_threads = true")
        # An archive's blocks stay in DuckDB's buffer pool once read, up to its memory limit
        # (80% of the machine by default): reading every table back would keep the archive
        # in this process. Capped as for a spilled session; what a sort needs past it
        # goes to this session's own temporary folder (an archive may be read-only).
        con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
        con.execute(f"SET temp_directory = '{_sql_text(str(self._work_folder() / 'duckdb'))}'")
        self.hand_ords = scored_hand_ords(con)
        self._times: pd.Series | None = None

    @property
    def hands(self) -> int:
        return len(self.hand_ords)

    def _arrow(self, sql: str) -> pa.Table:
        return self.con.sql(sql).to_arrow_table()

    def _seat_sums(self, keys: str, extra: str = "") -> pa.Table:
        """``_player_counts``' columns per ``keys`` (SQL column names)."""
        return self._arrow(f"""
            SELECT {keys}, count(*) AS hands, count(points) AS scored,
              count(fouled) AS boards,
              coalesce(sum(points), 0)::DOUBLE AS points,
              coalesce(fsum(points * stake), 0)::DOUBLE AS money,
              coalesce(sum(transfer), 0)::DOUBLE AS net,
              coalesce(fsum(transfer * stake), 0)::DOUBLE AS net_money,
              coalesce(sum(royalties), 0)::DOUBLE AS royalties,
              coalesce(sum(royalties_top), 0)::DOUBLE AS royalties_top,
              coalesce(sum(royalties_middle), 0)::DOUBLE AS royalties_middle,
              coalesce(sum(royalties_bottom), 0)::DOUBLE AS royalties_bottom,
              count(*) FILTER (WHERE fouled) AS fouls,
              count(*) FILTER (WHERE fantasyland_next AND NOT in_fantasyland) AS fantasylands,
              count(*) FILTER (WHERE fantasyland_next AND in_fantasyland) AS fantasyland_repeats,
              count(*) FILTER (WHERE in_fantasyland) AS fantasyland_hands,
              count(*) FILTER (WHERE fouled IS NOT NULL AND NOT in_fantasyland)
                AS fantasyland_chances,
              max(points)::DOUBLE AS biggest_win, min(points)::DOUBLE AS biggest_loss{extra}
            FROM s_seats WHERE {SCORED} GROUP BY {keys}""")

    @staticmethod
    def _counts(data: pa.Table, keys: list[str]) -> pd.DataFrame:
        frame: pd.DataFrame = data.to_pandas()
        for key in keys:
            frame[key] = _text_index(data.column(key))
        frame["biggest_win"] = frame["biggest_win"].clip(lower=0)
        frame["biggest_loss"] = frame["biggest_loss"].clip(upper=0)
        return frame.set_index(keys)

    def summaries(self) -> SessionSummaries:
        """Every summary, the frames a plain run's :meth:`SessionSummaries.of` makes."""
        sums = self._seat_sums("name, currency")
        counts = self._counts(sums, ["name", "currency"])
        keys = sums.select(["name", "currency"])
        counts["money"] = self._money("s_seats", keys, "points * stake")
        counts["net_money"] = self._money("s_seats", keys, "transfer * stake")
        players = player_summary_of(counts)
        rates = player_rates_of(self._counts(self._seat_sums("name"), ["name"]))
        moved = [(str(c), float(k), str(a), str(b), int(t), int(h)) for c, k, a, b, t, h in
                 self.con.execute(f"""
                     SELECT currency, stake, a, b, sum(transferred)::BIGINT, count(*)
                     FROM s_pairs WHERE transferred IS NOT NULL AND {SCORED}
                     GROUP BY currency, stake, a, b""").fetchall()]
        return SessionSummaries(
            players=players,
            rates=rates,
            head_to_head=self._head_to_head(),
            matches=self._matches(),
            royalties=self._royalties().reset_index(),
            totals=self._totals(),
            owes=settle_up.who_owes_whom_of(moved),
            payments=settle_up.payments(settle_up.settled_balances_of(moved)),
        )

    def _head_to_head(self) -> pd.DataFrame:
        rows = " + ".join(f"count(*) FILTER (WHERE {row} {{op}} 0)" for row in ROW_NAMES)
        data = self._arrow(f"""
            SELECT a AS player, b AS opponent, currency, count(*) AS hands,
              count(points_due) AS scored,
              coalesce(sum(points_due), 0)::DOUBLE AS points,
              coalesce(fsum(points_due * stake), 0)::DOUBLE AS money,
              coalesce(sum(transferred), 0)::DOUBLE AS transferred,
              {rows.format(op='>')} AS rows_won,
              {rows.format(op='<')} AS rows_lost,
              {rows.format(op='=')} AS rows_tied,
              count(*) FILTER (WHERE scoop > 0) AS scoops_won,
              count(*) FILTER (WHERE scoop < 0) AS scoops_lost,
              coalesce(sum(royalties), 0)::DOUBLE AS royalties,
              count(*) FILTER (WHERE capped) AS capped
            FROM s_pairs WHERE {SCORED} GROUP BY a, b, currency""")
        frame = data.to_pandas()
        for key in ("player", "opponent", "currency"):
            frame[key] = _text_index(data.column(key))
        keys = data.select(["player", "opponent", "currency"]).rename_columns(
            ["a", "b", "currency"])
        frame["money"] = self._money("s_pairs", keys, "points_due * stake")
        return head_to_head_of(frame)

    def _matches(self) -> TableSource:
        """The match summary, stored and read back in order a piece at a time (a row per
        match and player: as many as the seat rows when matches are short, 2.7 million at
        1,000,000 hands on the benchmark's files).

        Each share of the matches (a hash of the match picks its share, so a match is whole
        in one; at most :data:`MATCH_ROWS_PER_QUERY` seat rows) is summarised by the whole
        tables' own code from its seat rows in session order (so its money is pandas'
        compensated sum in that order, bit for bit) and stored as a Parquet file with its
        order's keys; the pieces are then read back a range of first hands at a time,
        sorted by the database: the match's first hand, the settlement position, then the
        order the groups first appear (their first seat row)."""
        folder = self._work_folder() / "matches"
        with scratch_writes(folder.parent):
            folder.mkdir()
        shares = max(1, -(-self._count("s_seats") // MATCH_ROWS_PER_QUERY))
        wanted = {c: SEAT_COLUMNS[c] for c in _MATCH_SEAT_COLUMNS}
        stored = ", ".join(f'"{c}"' for c in stored_columns(wanted))
        rows = 0
        for share in range(shares):
            which = f' AND hash("table", match) % {shares} = {share}' if shares > 1 else ""
            data = self._arrow(f"SELECT ord, pos, {stored} FROM s_seats "
                               f"WHERE {SCORED}{which} ORDER BY ord, pos")
            if not len(data):
                continue
            seats = stored_frame(data, wanted, self.hand_ords)
            seats["pos"] = data.column("pos").to_numpy().astype(np.int64)
            del data
            found = match_rows_of(match_counts(seats, (*_MATCH_FIRSTS, "pos")))
            del seats
            found = found.rename(columns={"hand": "first_hand", "pos": "first_pos"})
            table = pa.Table.from_pandas(found[[*MATCH_COLUMNS, *_MATCH_KEYS]],
                                         preserve_index=False)
            with scratch_writes(folder.parent):
                pq.write_table(table, folder / f"{share:05d}.parquet",
                               row_group_size=16_384)
            rows += len(found)
            del found, table
        empty = match_summary(_empty("s_seats"))
        schema = pa.Table.from_pandas(empty, preserve_index=False).schema
        pattern = _sql_text(str(folder / "*.parquet"))
        columns = ", ".join(f'"{c}"' for c in MATCH_COLUMNS)
        order = ", ".join(_MATCH_KEYS)

        def ranges() -> Iterator[pa.Table]:
            # A range of first hands a query: the database filters by the stored files'
            # row group statistics and sorts the range alone.
            step = MATCH_HANDS_PER_QUERY
            for start in range(0, self.hands, step):
                yield self._arrow(
                    f"SELECT {columns} FROM read_parquet('{pattern}') "
                    f"WHERE match_first >= {start} AND match_first < {start + step} "
                    f"ORDER BY {order}")

        def pieces(size: int) -> Iterator[pd.DataFrame]:
            if not rows:
                yield empty
                return
            for part in _rechunked(ranges(), size):
                yield pd.DataFrame({c: _match_column(part.column(c), empty[c].dtype)
                                    for c in MATCH_COLUMNS}, copy=False)

        def groups(size: int) -> Iterator[pa.Table]:
            for part in _rechunked(ranges(), size):
                yield pa.Table.from_arrays(
                    [_arrow_column("string" if f.type == pa.large_string() else "float"
                                   if f.type == pa.float64() else "int",
                                   part.column(f.name).combine_chunks())
                     for f in schema], schema=schema)

        return TableSource(rows, empty, pieces, groups)

    def _work_folder(self) -> Path:
        """A temporary folder of this session's own (the stored match summary), removed
        when the session is let go or the process ends."""
        if self._folder is None:
            self._folder = scratch_folder("ofc-audit-report-", self._parent)
            weakref.finalize(self, shutil.rmtree, self._folder, True)
        return self._folder

    def _count(self, table: str) -> int:
        row = self.con.execute(f"SELECT count(*) FROM {table}").fetchall()
        return int(row[0][0])

    def _money(self, table: str, keys: pa.Table, value: str) -> np.ndarray:
        """The sum of ``value`` per row of ``keys`` (the groups of an aggregate of
        ``table``), bit for bit as pandas' groupby sums it: a compensated (Kahan) sum in
        session order. SQL's own sums add in another order, and the last bit shows (a
        match's money rounds to -0.00 or 0.00). Read a range of hands at a time."""
        names = keys.column_names
        groups = keys.append_column("gid", pa.array(np.arange(len(keys), dtype=np.int64)))
        self.con.register("money_groups", groups)
        on = " AND ".join(f's."{n}" = g."{n}"' for n in names)
        order = "s.ord" if table == "s_hands" else "s.ord, s.pos"
        sums = [0.0] * len(keys)
        comp = [0.0] * len(keys)
        try:
            for where in self._ranges("s.", HANDS_PER_QUERY * 8):
                data = self._arrow(
                    f"SELECT g.gid, ({value})::DOUBLE AS v FROM {table} s "
                    f"JOIN money_groups g ON {on} WHERE {where} ORDER BY {order}")
                gids = data.column("gid").to_numpy().tolist()
                values = data.column("v").to_numpy(zero_copy_only=False).tolist()
                for g, v in zip(gids, values, strict=True):
                    if v is None or v != v:
                        continue
                    y = v - comp[g]
                    t = sums[g] + y
                    c = t - sums[g] - y
                    comp[g] = 0.0 if c != c else c
                    sums[g] = t
        finally:
            self.con.unregister("money_groups")
        return np.array(sums, dtype=np.float64)

    def _ranges(self, prefix: str = "", hands: int | None = None) -> Iterator[str]:
        """SQL conditions that cut the scored rows into ranges of ``hands`` hands
        (:data:`HANDS_PER_QUERY`), in order."""
        ords = self.hand_ords
        step = hands or HANDS_PER_QUERY
        for start in range(0, len(ords), step):
            end = start + step
            high = f" AND {prefix}ord < {int(ords[end])}" if end < len(ords) else ""
            yield (f"{prefix}ord >= {int(ords[start])}{high} AND "
                   f"{prefix}ord NOT IN (SELECT ord FROM items WHERE conflict)")

    def _royalties(self) -> pd.DataFrame:
        sums = {}
        for row in ROW_NAMES:
            got = self.con.execute(
                f"SELECT {row}, coalesce(sum(royalties_{row}), 0)::DOUBLE FROM s_seats "
                f"WHERE {row} >= 0 AND {SCORED} GROUP BY {row}").fetchall()
            sums[row] = pd.Series({CATEGORIES[int(code)]: total for code, total in got},
                                  dtype="float64")
        return royalties_of(sums)

    def _totals(self) -> pd.DataFrame:
        row = self.con.execute(f"""
            SELECT count(*), count(*) FILTER (WHERE valid),
              count(*) FILTER (WHERE mismatches > 0),
              count(*) FILTER (WHERE unverifiable > 0), count(incomplete)
            FROM s_hands WHERE {SCORED}""").fetchall()[0]
        rejected = self.con.execute("SELECT count(*) FROM s_rejected").fetchall()[0][0]
        players = self.con.execute(
            f"SELECT count(DISTINCT name) FROM s_seats WHERE {SCORED}").fetchall()[0][0]
        times = self.times()
        return totals_of(hands=int(row[0]), valid=int(row[1]), with_mismatches=int(row[2]),
                         with_unverifiable=int(row[3]), rejected=int(rejected),
                         incomplete=int(row[4]), players=int(players),
                         first_time=times.min(), last_time=times.max())

    def times(self) -> pd.Series:
        """The hands' time (UTC, NaT where the zone has no fixed offset) indexed by
        ``hand``, parsed as the hands table parses it: once (the totals and the charts
        both read it; the parse is most of its cost)."""
        if self._times is None:
            self._times = self._parsed_times()
        return self._times.copy(deep=False)

    def _parsed_times(self) -> pd.Series:
        kind = HAND_COLUMNS["time"]
        data = self._arrow(f"SELECT timestamp FROM s_hands WHERE {SCORED} ORDER BY ord")
        values = kind.join([data.column("timestamp").combine_chunks()
                            .cast(pa.large_string())]) if len(data) else kind(())
        return pd.Series(values, index=np.arange(len(data), dtype=np.int64))

    def point_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Every known result in points and how many seats had it (the histogram's data)."""
        rows = self.con.execute(f"""
            SELECT points, count(*) FROM s_seats
            WHERE points IS NOT NULL AND {SCORED} GROUP BY points ORDER BY points""").fetchall()
        return (np.array([r[0] for r in rows], dtype=np.int64),
                np.array([r[1] for r in rows], dtype=np.int64))

    def biggest_seats(self, n: int) -> pd.DataFrame:
        """The seat rows among which ``charts.biggest_hands`` finds the ``n`` biggest wins
        and losses: the first ``n`` of each in its order (ties in session order), the rows
        in session order."""
        wanted = ", ".join(f'"{c}"' for c in ("hand_id", "name", "currency", "stake",
                                             "transfer", "points"))
        picked = f"""
            (SELECT ord, pos FROM s_seats WHERE points > 0 AND {SCORED}
             ORDER BY points DESC, ord, pos LIMIT {n})
            UNION ALL
            (SELECT ord, pos FROM s_seats WHERE points < 0 AND {SCORED}
             ORDER BY points, ord, pos LIMIT {n})"""
        data = self._arrow(f"""
            SELECT s.ord, {wanted} FROM s_seats s JOIN ({picked}) p USING (ord, pos)
            ORDER BY s.ord, s.pos""")
        return stored_frame(data, {c: SEAT_COLUMNS[c] for c in ("hand", *wanted
                                   .replace('"', "").split(", "))}, self.hand_ords)

    def report_tables(self, with_seats: bool = True) -> SessionTables:
        """What the report reads of the tables: the problem hands (every column), the slim
        seats (:meth:`slim_seats`; without ``with_seats``, none: the caller reads them when
        it needs them), no pairs (the summaries have them), the findings and the
        rejections."""
        frames: dict[str, pd.DataFrame] = {
            "hands": self._frame("s_hands", f"WHERE {_PROBLEM} AND {SCORED} ORDER BY ord"),
            "seats": self.slim_seats(every=with_seats),
            "pairs": _empty("s_pairs"),
        }
        for table in ("s_violations", "s_mismatches"):
            frames[SESSION_TABLES[table][0]] = self._frame(
                table, f"WHERE {SCORED} ORDER BY ord, pos")
        frames["rejected"] = rejected_frame(self.con)
        return SessionTables(**frames)

    def slim_seats(self, every: bool = True) -> pd.DataFrame:
        """The seats' hand, name, currency, stake, transfer and points, in session order
        (what the results charts and the players' sparklines read; three rows a hand), or
        none of them (the columns alone) without ``every``."""
        seats = {c: SEAT_COLUMNS[c] for c in SLIM_SEATS}
        stored = ", ".join(f'"{c}"' for c in SLIM_SEATS if c != "hand")
        rows = f"WHERE {SCORED} ORDER BY ord, pos" if every else "LIMIT 0"
        return stored_frame(self._arrow(f"SELECT ord, {stored} FROM s_seats {rows}"),
                            seats, self.hand_ords)

    def _frame(self, table: str, where: str) -> pd.DataFrame:
        return stored_frame(self._arrow(f"SELECT * FROM {table} {where}"),
                            SESSION_TABLES[table][1], self.hand_ords)

    def source(self, name: str) -> TableSource:
        """The session table ``name`` (hands, seats, pairs, violations, mismatches,
        rejected) to write, a piece at a time: each query reads a range of hands (sorted by
        the database within it), and the rows are cut into pieces of exactly ``rows`` (the
        last shorter)."""
        if name == "rejected":
            return TableSource.of(rejected_frame(self.con))
        table = next(t for t, (n, _) in SESSION_TABLES.items() if n == name)
        columns = SESSION_TABLES[table][1]
        order = "ord" if table == "s_hands" else "ord, pos"
        count = self.con.execute(f"SELECT count(*) FROM {table} WHERE {SCORED}").fetchall()
        empty = stored_frame(self._arrow(f"SELECT * FROM {table} LIMIT 0"), columns,
                             self.hand_ords)

        def pieces(rows: int) -> Iterator[pd.DataFrame]:
            held: list[pa.RecordBatch] = []
            count = 0
            made = False
            for batch in self._batches(table, order):
                held.append(batch)
                count += len(batch)
                while count >= rows:
                    joined = pa.Table.from_batches(held).combine_chunks()
                    yield stored_frame(joined.slice(0, rows), columns, self.hand_ords)
                    made = True
                    rest = joined.slice(rows)
                    held, count = rest.to_batches(), len(rest)
            if count or not made:
                joined = (pa.Table.from_batches(held) if held else
                          self._arrow(f"SELECT * FROM {table} LIMIT 0"))
                yield stored_frame(joined.combine_chunks(), columns, self.hand_ords)

        schema = pa.Table.from_pandas(plain_labels(empty), preserve_index=False).schema

        def groups(rows: int) -> Iterator[pa.Table]:
            # Each batch converted as it comes (its stored form dropped), a group's columns
            # joined one at a time: a row group is held about once, never twice.
            held: list[pa.Table] = []
            count = 0
            for batch in self._batches(table, order):
                held.append(self._arrow_rows(pa.Table.from_batches([batch]), columns, schema))
                del batch
                count += held[-1].num_rows
                while count >= rows:
                    whole = pa.concat_tables(held)
                    rest = whole.slice(rows)
                    parts = [whole.slice(0, rows)]
                    del whole
                    held, count = [rest], len(rest)
                    del rest
                    group = _combined(parts)
                    yield group
                    del group
            if count:
                parts = [pa.concat_tables(held)]
                held = []
                yield _combined(parts)

        return TableSource(int(count[0][0]), empty, pieces, groups)

    def _arrow_rows(self, data: pa.Table, columns: Any, schema: pa.Schema) -> pa.Table:
        """Stored rows as ``pa.Table.from_pandas(plain_labels(stored_frame(data)))`` makes
        them, without the pandas frame: a Parquet row group (a million rows) is held once,
        not as pandas and Arrow at once. The same values and types, so the same file
        (``tests/archive/test_stored_session.py`` compares the tables and the bytes)."""
        hands = np.searchsorted(self.hand_ords, data.column("ord").to_numpy()).astype(np.int64)
        arrays: list[pa.Array] = []
        for column, kind in columns.items():
            if column == "hand":
                arrays.append(pa.array(hands))
            elif kind.name == "time":
                # The hands' times parsed once (:meth:`times`), taken by hand.
                arrays.append(pa.array(self.times().array.take(hands)))
            else:
                arrays.append(_arrow_column(kind.name, data.column(column).combine_chunks()))
        return pa.Table.from_arrays(arrays, schema=schema)

    def _batches(self, table: str, order: str) -> Iterator[pa.RecordBatch]:
        for where in self._ranges():
            yield from self._arrow(
                f"SELECT * FROM {table} WHERE {where} ORDER BY {order}").to_batches()


def _rechunked(tables: Iterable[pa.Table], rows: int) -> Iterator[pa.Table]:
    """The rows of ``tables`` in order, cut into tables of exactly ``rows`` rows (the last
    shorter), each column in one chunk."""
    held: list[pa.Table] = []
    count = 0
    for table in tables:
        held.append(table)
        count += len(table)
        while count >= rows:
            whole = pa.concat_tables(held)
            held, count = [whole.slice(rows)], len(whole) - rows
            yield whole.slice(0, rows).combine_chunks()
            del whole
    if count:
        yield pa.concat_tables(held).combine_chunks()


def _match_column(values: pa.ChunkedArray, dtype: Any) -> Any:
    """A column of the stored match summary as the whole tables' summary has it."""
    if isinstance(dtype, pd.StringDtype):
        return text_array(values)
    return values.to_numpy().astype(dtype, copy=False)


def _sql_text(text: str) -> str:
    return text.replace("'", "''")


def _combined(parts: list[pa.Table]) -> pa.Table:
    """The table ``parts`` holds alone (taken out of it) with each column in one piece,
    as from_pandas makes it; each column's chunks are let go once it is joined, so the
    rows are not held twice."""
    rows = parts.pop()
    schema = rows.schema
    arrays = []
    for name in schema.names:
        arrays.append(rows.column(name).combine_chunks())
        rows = rows.drop_columns([name])
    return pa.Table.from_arrays(arrays, schema=schema)


#: A row category's labels, as pandas gives an ordered Categorical to Arrow.
_CATEGORY_LABELS = pa.array(CATEGORIES, type=pa.string())


def _arrow_column(kind: str, values: pa.Array) -> pa.Array:
    """A stored column as Arrow has the session table's column of ``kind`` once pandas
    has given it (label columns as plain text)."""
    if kind == "float":  # pandas' NaN is Arrow's null
        return pc.if_else(pc.is_nan(values), pa.scalar(None, pa.float64()), values)
    if kind in ("string", "label"):
        return values.cast(pa.large_string())
    if kind == "category":  # a code, -1 unknown
        codes = pc.if_else(pc.equal(values, -1), pa.scalar(None, pa.int8()),
                           values.cast(pa.int8()))
        return pa.DictionaryArray.from_arrays(codes, _CATEGORY_LABELS, ordered=True)
    return values  # int64, bool, nullable int64 and bool: as stored


def _empty(table: str) -> pd.DataFrame:
    name, columns = SESSION_TABLES[table]
    return pd.DataFrame({c: kind(()) for c, kind in columns.items()})
