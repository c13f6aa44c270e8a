"""The session report computed where the hands are stored (issue 21.4): the database's
summaries and the per-hand tables read back in pieces are those of the whole tables, and
every file written from them is the same, byte for byte."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from ofc_audit.archive import stored_session
from ofc_audit.archive.queries import session_tables
from ofc_audit.archive.schema import open_archive
from ofc_audit.archive.spill import SpilledSession
from ofc_audit.audit.driver import InProcess, open_sources, session_pieces
from ofc_audit.cli.archive_commands import stored_report
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.present.report import finish_session
from ofc_audit.session import exports
from ofc_audit.session.exports import TableSource
from ofc_audit.session.summaries import SessionSummaries
from ofc_audit.session.tables import SessionTables, plain_labels
from tests.archive.conftest import SAMPLES, cli
from tests.support.runs import tables_of

RULES = Ruleset.preset("standard")
TABLES = ("hands", "seats", "pairs", "violations", "mismatches", "rejected")


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    """The sample histories (violations, mismatches, hidden cards, Fantasyland, several
    currencies) imported, opened read-only."""
    path = tmp_path_factory.mktemp("stored") / "a.duckdb"
    assert cli(["import", SAMPLES, "--archive", path]).code in (0, 1)
    con = open_archive(path, RULES, read_only=True)
    yield con
    con.close()


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file()}


def test_the_database_summaries_are_the_whole_tables_summaries(
        archive: duckdb.DuckDBPyConnection) -> None:
    want = SessionSummaries.of(session_tables(archive))
    got = stored_session.StoredSession(archive).summaries()
    for name in ("players", "rates", "head_to_head", "matches", "royalties", "totals", "owes",
                 "payments"):
        expected = getattr(want, name)
        assert len(expected)  # the samples have rows in every summary
        pd.testing.assert_frame_equal(_whole(getattr(got, name)), expected, check_exact=True,
                                      obj=name)


def _whole(table: pd.DataFrame | TableSource, rows: int = 1000) -> pd.DataFrame:
    """A summary given as a source, its pieces joined."""
    if isinstance(table, pd.DataFrame):
        return table
    pieces = list(table.pieces(rows))
    assert all(len(p) <= rows for p in pieces) and sum(map(len, pieces)) == table.rows
    return pd.concat(pieces, ignore_index=True)


@pytest.mark.parametrize("rows_per_query, hands_per_query, rows",
                         [(7, 3, 5), (50, 10_000, 1), (10_000, 1, 10_000)])
def test_the_match_summary_stored_in_shares_and_read_in_pieces_is_the_same(
        archive: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch,
        rows_per_query: int, hands_per_query: int, rows: int) -> None:
    """Shares of a few seat rows (many matches' groups in each, in hash order), ranges of
    a few first hands read back, pieces of a few rows: the whole tables' summary in order."""
    monkeypatch.setattr(stored_session, "MATCH_ROWS_PER_QUERY", rows_per_query)
    monkeypatch.setattr(stored_session, "MATCH_HANDS_PER_QUERY", hands_per_query)
    want = SessionSummaries.of(session_tables(archive)).matches
    assert isinstance(want, pd.DataFrame) and len(want) > 40
    stored = stored_session.StoredSession(archive)
    got = stored._matches()
    assert stored._folder is not None
    assert len(list((stored._folder / "matches").glob("*.parquet"))) > (rows_per_query < 50)
    pd.testing.assert_frame_equal(_whole(got, rows), want, check_exact=True)
    # As the files have it: its Arrow row groups are what pandas gives Arrow.
    import pyarrow as pa

    assert got.arrow is not None
    for group, piece in zip(got.arrow(rows), got.pieces(rows), strict=True):
        assert group.equals(pa.Table.from_pandas(piece, preserve_index=False),
                            check_metadata=True)
    folder = stored._folder
    del stored, got
    import gc

    gc.collect()
    assert not folder.exists()  # the stored summary goes with the session


@pytest.mark.parametrize("hands_per_query, rows", [(3, 7), (1, 1), (10_000, 5)])
def test_the_pieces_are_the_whole_tables_in_order(
        archive: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch,
        hands_per_query: int, rows: int) -> None:
    monkeypatch.setattr(stored_session, "HANDS_PER_QUERY", hands_per_query)
    whole = session_tables(archive)
    stored = stored_session.StoredSession(archive)
    for name in TABLES:
        want = getattr(whole, name)
        source = stored.source(name)
        pieces = list(source.pieces(rows))
        assert all(len(p) <= rows for p in pieces)
        assert source.rows == len(want)
        got = pd.concat([plain_labels(p) for p in pieces], ignore_index=True)
        pd.testing.assert_frame_equal(got, plain_labels(want), check_exact=True, obj=name)
        assert dict(plain_labels(source.empty).dtypes) == dict(plain_labels(want).dtypes)


@pytest.mark.parametrize("hands_per_query, rows", [(3, 7), (10_000, 16), (10_000, 10_000)])
def test_the_arrow_row_groups_are_what_pandas_gives_arrow(
        archive: duckdb.DuckDBPyConnection, monkeypatch: pytest.MonkeyPatch,
        hands_per_query: int, rows: int) -> None:
    """A Parquet row group made from the stored rows without pandas is the Arrow table
    pandas would give of the same rows: types, values, nulls and the pandas metadata."""
    import pyarrow as pa

    monkeypatch.setattr(stored_session, "HANDS_PER_QUERY", hands_per_query)
    stored = stored_session.StoredSession(archive)
    for name in ("hands", "seats", "pairs", "violations", "mismatches"):
        source = stored.source(name)
        assert source.rows and source.arrow is not None
        want = [pa.Table.from_pandas(plain_labels(p), preserve_index=False)
                for p in source.pieces(rows)]
        got = list(source.arrow(rows))
        assert [len(t) for t in got] == [len(t) for t in want]
        for g, w in zip(got, want, strict=True):
            assert g.equals(w, check_metadata=True), name
            assert all(c.num_chunks == 1 for c in g.columns)


def test_arrow_row_groups_write_the_parquet_file_of_the_whole_table(
        archive: duckdb.DuckDBPyConnection, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stored_session, "HANDS_PER_QUERY", 5)
    whole = session_tables(archive)
    stored = stored_session.StoredSession(archive)
    for group_rows in (16, exports.ROW_GROUP_ROWS):
        monkeypatch.setattr(exports, "ROW_GROUP_ROWS", group_rows)
        for name in ("hands", "seats", "pairs"):
            want = exports.write_parquet(getattr(whole, name), tmp_path / f"{name}.a.parquet",
                                         rows=group_rows)
            got = exports.write_parquet_pieces(stored.source(name),
                                               tmp_path / f"{name}.b.parquet")
            assert got.read_bytes() == want.read_bytes(), (name, group_rows)


def test_pieces_write_the_files_of_the_whole_table(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    seats = tables_of([str(SAMPLES)], RULES).seats
    assert len(seats) > 40
    monkeypatch.setattr(exports, "ROW_GROUP_ROWS", 16)  # several row groups
    monkeypatch.setattr(exports, "CHUNK_ROWS", 9)
    source = TableSource.of(seats)
    whole = {"csv": exports.write_csv(seats, tmp_path / "a.csv", rows=9),
             "parquet": exports.write_parquet(seats, tmp_path / "a.parquet", rows=16),
             "json": exports.write_json(seats, tmp_path / "a.json", rows=9)}
    for suffix, path in whole.items():
        written = exports.PIECE_WRITERS[suffix](source.pieces, tmp_path / f"b.{suffix}")
        assert written.read_bytes() == path.read_bytes(), suffix
    import pyarrow.parquet as pq

    assert pq.ParquetFile(tmp_path / "b.parquet").num_row_groups == -(-len(seats) // 16)


@pytest.fixture(scope="module")
def whole_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[bool, str, Path]:
    """The report of the whole tables (findings, standard output, its folder): the
    reference of every spilled session, written once."""
    out = tmp_path_factory.mktemp("whole")
    tables = tables_of([str(SAMPLES)], RULES)
    stdout = io.StringIO()
    findings = finish_session(tables, out, True, stdout, io.StringIO(), ruleset=RULES)
    return findings, stdout.getvalue(), out


def _spilled_report(out: Path, jobs: int) -> tuple[bool, str, SessionTables]:
    with SpilledSession() as spill:
        with open_sources([str(SAMPLES)]) as sources:
            hands, rejected = session_pieces(sources, RULES, InProcess(), spill.sink)
        assert hands > 40
        con = spill.connect(rejected)
        try:
            tables, precomputed = stored_report(con)
            stdout = io.StringIO()
            findings = finish_session(tables, out, True, stdout, io.StringIO(), jobs=jobs,
                                      ruleset=RULES, precomputed=precomputed)
        finally:
            con.close()
    assert not spill.folder.exists()  # the pieces are gone with the session
    return findings, stdout.getvalue(), tables


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_spilled_session_writes_what_the_whole_tables_write(
        tmp_path: Path, jobs: int, whole_report: tuple[bool, str, Path]) -> None:
    *want, whole_out = whole_report
    findings, stdout, slim = _spilled_report(tmp_path / "spilled", jobs)
    assert [findings, stdout] == want
    whole, spilled = _files(whole_out), _files(tmp_path / "spilled")
    assert list(spilled) == list(whole)
    for name, data in whole.items():
        assert spilled[name] == data, name
    assert "csv/seats.csv" in whole and any(n.startswith("hands/") for n in whole)
    # What the report held: the problem hands and six seat columns, no pairs.
    assert len(slim.hands) < len(tables_of([str(SAMPLES)], RULES).hands)
    assert list(slim.seats.columns) == list(stored_session.SLIM_SEATS)
    assert slim.pairs.empty


@pytest.mark.parametrize("hands_per_query", [7, 10_000])
def test_money_is_summed_bit_for_bit_as_pandas_sums_it(monkeypatch: pytest.MonkeyPatch,
                                                       hands_per_query: int) -> None:
    """The last bit of a float sum depends on the order and the algorithm (a match's money
    rounded to -0.00 or 0.00 told them apart): pandas' compensated sum in session order."""
    import numpy as np
    import pyarrow as pa

    monkeypatch.setattr(stored_session, "HANDS_PER_QUERY", hands_per_query)
    rng = np.random.default_rng(21)
    hands, seats = 300, 3
    ords = np.repeat(np.arange(hands, dtype=np.int64) * 10 + 5, seats)
    points = rng.integers(-40, 41, hands * seats).astype("float64")
    points[rng.random(len(points)) < 0.1] = np.nan  # unknown results are left out
    data = pa.table({
        "ord": ords, "pos": np.tile(np.arange(seats, dtype=np.int32), hands),
        "name": rng.choice(["alice", "bob", "carol", "dave"], len(ords)),
        "currency": rng.choice(["EUR", "USD"], len(ords)),
        "stake": rng.choice([0.1, 0.05, 0.02, 0.25, 0.3], len(ords)),
        "points": pa.array(points, from_pandas=True).cast(pa.int64()),
    })
    con = duckdb.connect(":memory:")
    con.register("data", data)
    con.execute("CREATE TABLE s_seats AS SELECT * FROM data")
    con.execute("CREATE TABLE s_hands AS SELECT DISTINCT ord FROM data")
    con.execute("CREATE TABLE items (ord BIGINT, conflict BOOLEAN)")
    frame = data.to_pandas()
    want = (frame["points"] * frame["stake"]).groupby(
        [frame["name"], frame["currency"]], sort=False).sum()
    keys = pa.table({"name": [k[0] for k in want.index], "currency": [k[1] for k in want.index]})
    got = stored_session.StoredSession(con)._money("s_seats", keys, "points * stake")
    assert got.view(np.int64).tolist() == want.to_numpy().view(np.int64).tolist()
    # In another order the sums differ in their last bits: the order matters.
    shuffled = frame.sample(frac=1, random_state=3)
    other = (shuffled["points"] * shuffled["stake"]).groupby(
        [shuffled["name"], shuffled["currency"]], sort=False).sum().reindex(want.index)
    assert other.to_numpy().view(np.int64).tolist() != got.view(np.int64).tolist()


def test_a_spilled_session_in_tiny_pieces_writes_what_the_whole_tables_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        whole_report: tuple[bool, str, Path]) -> None:
    """Every piece size cut small (the match summary's shares, ranges and pieces, the
    tables' pieces and JSON pieces): the same files, byte for byte."""
    monkeypatch.setattr(stored_session, "MATCH_ROWS_PER_QUERY", 11)
    monkeypatch.setattr(stored_session, "MATCH_HANDS_PER_QUERY", 3)
    monkeypatch.setattr(stored_session, "HANDS_PER_QUERY", 4)
    monkeypatch.setattr(exports, "CHUNK_ROWS", 7)
    monkeypatch.setattr(exports, "HELPER_ROWS", 5)
    *want, whole_out = whole_report
    findings, stdout, _ = _spilled_report(tmp_path / "spilled", 1)
    assert [findings, stdout] == want
    whole, spilled = _files(whole_out), _files(tmp_path / "spilled")
    assert list(spilled) == list(whole)
    for name, data in whole.items():
        assert spilled[name] == data, name
