"""The session tables' label columns (issue 14, point 5): the text that seat and pair rows
repeat (hand_id, match, table, currency, player names) is held as Categoricals, and every
output is what the same tables with plain ``string`` columns give, byte for byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

from ofc_audit.audit.filters import Filters, select_tables
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.present.report import SessionSummaries, write_session
from ofc_audit.session import exports
from ofc_audit.session.tables import SessionTables, join_labels, plain_labels
from tests.present.test_report import hostile_tables
from tests.session.test_summaries import session
from tests.support.runs import tables_of

ROOT = Path(__file__).resolve().parents[2]
RULES = Ruleset.load(None)

LABELS = {
    "hands": ["file", "table", "variant", "fantasyland_type", "stake_text", "currency"],
    "seats": ["hand_id", "match", "table", "currency", "name"],
    "pairs": ["hand_id", "match", "table", "currency", "a", "b"],
}


@pytest.fixture(scope="module")
def samples() -> SessionTables:
    """Every sample history: several files, currencies, tables, matches and players."""
    return tables_of([str(ROOT / "sample_histories")], RULES)


def plain(tables: SessionTables) -> SessionTables:
    """The same tables with every label column as the plain strings it stands for."""
    return SessionTables(**{name: plain_labels(frame) for name, frame in tables.items()})


def files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_label_columns_are_categoricals_with_sorted_categories(
    samples: SessionTables,
) -> None:
    for name, columns in LABELS.items():
        frame = getattr(samples, name)
        assert not frame.empty
        for column in columns:
            dtype = frame[column].dtype
            assert isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered, column
            categories = list(dtype.categories)
            assert categories == sorted(set(frame[column].dropna())), column
        # The strings each row repeated are now held once per distinct value.
        compact = frame[columns].memory_usage(deep=True).sum()
        assert compact < plain_labels(frame[columns]).memory_usage(deep=True).sum()
    # The row categories stay ordered categories: they are no labels.
    assert samples.seats["top"].dtype.ordered
    assert plain_labels(samples.seats)["top"].dtype == samples.seats["top"].dtype
    # The hands table: labels for what repeats over hands, strings for what names one.
    for column in ("file", "table", "variant", "fantasyland_type", "stake_text", "currency"):
        assert isinstance(samples.hands[column].dtype, pd.CategoricalDtype), column
    for column in ("hand_id", "match", "timestamp"):
        assert isinstance(samples.hands[column].dtype, pd.StringDtype), column


def test_plain_labels_gives_the_values_as_strings(samples: SessionTables) -> None:
    seats = plain_labels(samples.seats)
    for column in LABELS["seats"]:
        assert isinstance(seats[column].dtype, pd.StringDtype)
        assert seats[column].tolist() == samples.seats[column].astype(object).tolist()
    assert plain_labels(samples.rejected) is samples.rejected  # no labels: the same frame


def _inputs(which: str, samples: SessionTables) -> SessionTables:
    return {"samples": samples, "session": session(), "hostile": hostile_tables()}[which]


@pytest.fixture(scope="module")
def plain_written(samples: SessionTables, tmp_path_factory: pytest.TempPathFactory
                  ) -> Callable[[str], dict[str, bytes]]:
    """Every file the plain-string tables of an input write (one process): written once,
    the reference of both ``jobs``."""
    written: dict[str, dict[str, bytes]] = {}

    def of(which: str) -> dict[str, bytes]:
        if which not in written:
            tables = plain(_inputs(which, samples))
            folder = tmp_path_factory.mktemp(f"plain-{which}")
            write_session(tables, SessionSummaries.of(tables), folder, jobs=1)
            written[which] = files(folder)
        return written[which]

    return of


@pytest.mark.parametrize("which", ["samples", "session", "hostile"])
@pytest.mark.parametrize("jobs", [1, 2])
def test_every_file_is_that_of_plain_strings(
    which: str, jobs: int, samples: SessionTables, tmp_path: Path,
    plain_written: Callable[[str], dict[str, bytes]],
) -> None:
    """Tables, summaries, session.json, summary.md, report.html and charts: written from the
    labelled tables (``jobs`` 2: the JSON helper reads the Parquet files back) and from the
    same tables with plain strings (one process), byte for byte the same."""
    tables = _inputs(which, samples)
    write_session(tables, SessionSummaries.of(tables), tmp_path / "labels", jobs=jobs)
    written = {"labels": files(tmp_path / "labels"), "plain": plain_written(which)}
    assert written["labels"].keys() == written["plain"].keys()
    assert [f for f in written["labels"] if written["labels"][f] != written["plain"][f]] == []
    assert any(f.startswith("parquet/") for f in written["labels"])


def test_filtered_summaries_are_those_of_plain_strings(samples: SessionTables) -> None:
    """A filter leaves categories without rows: no summary may list them."""
    player = str(samples.seats["name"].iloc[0])
    table = str(samples.hands["table"].iloc[-1])
    for filters in (Filters(players=(player,)), Filters(tables=(table,))):
        got = SessionSummaries.of(select_tables(samples, filters).tables)
        want = SessionSummaries.of(select_tables(plain(samples), filters).tables)
        for (name, a), (_, b) in zip(got.items(), want.items(), strict=True):
            assert_frame_equal(a, b, obj=name)


def test_parquet_row_group_by_row_group_is_the_file_of_one_write(
    samples: SessionTables, tmp_path: Path
) -> None:
    """A table longer than a row group is written a row group at a time: the bytes of
    ``pq.write_table`` of the whole table with that row group size (``to_parquet``'s)."""
    seats = samples.seats
    rows = len(seats) // 3 + 1
    mine = exports.write_parquet(seats, tmp_path / "a.parquet", rows=rows)
    assert pq.ParquetFile(mine).num_row_groups == 3
    whole = pa.Table.from_pandas(plain_labels(seats), preserve_index=False)
    pq.write_table(whole, tmp_path / "b.parquet", row_group_size=rows, compression="snappy")
    assert mine.read_bytes() == (tmp_path / "b.parquet").read_bytes()
    plain_labels(seats).to_parquet(tmp_path / "c.parquet", index=False)
    assert exports.write_parquet(seats, tmp_path / "d.parquet").read_bytes() == (
        tmp_path / "c.parquet").read_bytes()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), st.text(max_size=3)), max_size=6), min_size=1,
                max_size=5))
def test_joined_label_pieces_are_the_values_with_sorted_categories(
    pieces: list[list[str | None]],
) -> None:
    """Pieces with their own categories (a lane's batches) join to one Categorical."""
    joined = join_labels([pd.Categorical(p, categories=pd.Index(
        sorted({v for v in p if v is not None}), dtype="str")) for p in pieces])
    values = [v for p in pieces for v in p]
    assert [None if pd.isna(v) else v for v in joined] == values
    assert list(joined.categories) == sorted({v for v in values if v is not None})
