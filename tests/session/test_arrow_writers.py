"""A per-hand table given as Arrow pieces (an archive's) is written in one pass, CSV and JSON
made from the Arrow columns (``exports.write_arrow_source``): the same bytes as the pandas
writers of the whole frame, on cells chosen to break text encoders."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_audit.session import exports
from ofc_audit.session.exports import TableSource, write_arrow_source
from ofc_audit.session.tables import plain_labels

CATEGORIES = ["high_card", "pair", "two_pair"]


def arrow_source(frame: pd.DataFrame) -> TableSource:
    """``frame`` as a stored table's source: its pieces and its Arrow pieces as
    ``TableSource.arrow`` promises them."""
    base = TableSource.of(frame)

    def arrow(rows: int) -> Iterator[pa.Table]:
        for piece in base.pieces(rows):
            yield pa.Table.from_pandas(plain_labels(piece), preserve_index=False)

    return TableSource(base.rows, base.empty, base.pieces, arrow)


def written(frame: pd.DataFrame, folder: Path) -> tuple[dict[str, bytes], dict[str, bytes]]:
    """(the pandas writers' files of the whole frame, write_arrow_source's)."""
    whole = {"csv": exports.write_csv(frame, folder / "a.csv"),
             "parquet": exports.write_parquet(frame, folder / "a.parquet"),
             "json": exports.write_json(frame, folder / "a.json")}
    paths = {suffix: folder / f"b.{suffix}" for suffix in whole}
    write_arrow_source(arrow_source(frame), paths)
    return ({k: p.read_bytes() for k, p in whole.items()},
            {k: p.read_bytes() for k, p in paths.items()})


def test_known_records(tmp_path: Path) -> None:
    frame = pd.DataFrame({
        "hand": [0, 1],
        "name": pd.Categorical(["a/b", '=x"y']),
        "stake": [0.1, float("nan")],
        "transfer": pd.array([5, None], dtype="Int64"),
        "top": pd.Categorical.from_codes([1, -1], categories=CATEGORIES, ordered=True),
    })
    want, got = written(frame, tmp_path)
    assert got == want
    # Written by hand: pandas' JSON escapes '/', a formula is guarded in the CSV only.
    assert got["json"].decode() == (
        '[{"hand":0,"name":"a\\/b","stake":0.1,"transfer":5,"top":"pair"},'
        '{"hand":1,"name":"=x\\"y","stake":null,"transfer":null,"top":null}]')
    assert got["csv"].decode().splitlines()[2] == '1,"\'=x""y",,,'


texts = st.one_of(
    st.none(),
    st.text(max_size=8),
    st.sampled_from(['"', "\\", "/", "a,b", '","', "\n", "\r\n", "\t", "\x00", "\x1f",
                     "\u2028", "é", "日本", "😀", "=1+1", "-2", "+", "@x", "'", ""]),
)
floats = st.one_of(st.floats(allow_nan=True, allow_infinity=False),
                   st.sampled_from([0.1, 0.25, 0.005, 1e-7, 123456789.123456789, 1e16,
                                    -0.0, 1e300, 5e-324]))
times = st.one_of(st.none(), st.datetimes(
    min_value=pd.Timestamp("1970-01-02").to_pydatetime(),
    max_value=pd.Timestamp("2200-01-01").to_pydatetime()))


@st.composite
def tables(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 25))

    def column(strategy: st.SearchStrategy[object]) -> list[object]:
        return draw(st.lists(strategy, min_size=n, max_size=n))

    return pd.DataFrame({
        "hand": pd.array(column(st.integers(-2**63, 2**63 - 1)), dtype="int64"),
        "file": pd.array(column(texts), dtype="string"),
        "name": pd.Categorical(column(texts)),
        "stake": pd.array(column(floats), dtype="float64"),
        "valid": pd.array(column(st.booleans()), dtype="bool"),
        "transfer": pd.array(column(st.one_of(st.none(), st.integers(-10**6, 10**6))),
                             dtype="Int64"),
        "capped": pd.array(column(st.one_of(st.none(), st.booleans())), dtype="boolean"),
        "top": pd.Categorical.from_codes(column(st.integers(-1, 2)), categories=CATEGORIES,
                                         ordered=True),
        "time": pd.to_datetime(pd.Series(column(times), dtype=object), utc=True)
        .astype("datetime64[us, UTC]"),
    })


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_same_bytes_as_the_pandas_writers(frame: pd.DataFrame) -> None:
    with tempfile.TemporaryDirectory() as folder:
        want, got = written(frame, Path(folder))
        for suffix in want:
            assert got[suffix] == want[suffix], suffix


def test_pieces_and_row_groups(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Several JSON/CSV pieces and Parquet row groups, the last of each shorter.
    monkeypatch.setattr(exports, "CHUNK_ROWS", 7)
    monkeypatch.setattr(exports, "ROW_GROUP_ROWS", 21)
    n = 100
    frame = pd.DataFrame({"hand": range(n), "name": pd.Categorical([f"p{i % 6}" for i in range(n)]),
                          "stake": [0.1 * (i % 3) for i in range(n)]})
    whole = {"csv": exports.write_csv(frame, tmp_path / "a.csv"),
             "parquet": exports.write_parquet(frame, tmp_path / "a.parquet", rows=21),
             "json": exports.write_json(frame, tmp_path / "a.json")}
    paths = {suffix: tmp_path / f"b.{suffix}" for suffix in whole}
    write_arrow_source(arrow_source(frame), paths)
    for suffix, path in whole.items():
        assert paths[suffix].read_bytes() == path.read_bytes(), suffix
    import pyarrow.parquet as pq

    assert pq.ParquetFile(paths["parquet"]).num_row_groups == 5


def test_the_guard_pattern_is_the_formula_prefixes() -> None:
    import re

    from ofc_audit.session.exports import _FORMULA_START, FORMULA_PREFIXES

    for code in range(0x80):
        text = chr(code) + "x"
        assert (re.match(_FORMULA_START, text) is not None) == text.startswith(
            FORMULA_PREFIXES), repr(text)


def test_negative_zero_as_pandas_writes_it(tmp_path: Path) -> None:
    # Arrow keeps -0.0 and 0.0 apart as distinct values; pandas' JSON writes both as 0.0,
    # its CSV (Arrow's) as -0 and 0.
    frame = pd.DataFrame({"stake": [0.0, -0.0, 0.0, -0.0]})
    want, got = written(frame, tmp_path)
    assert got == want
    assert got["json"] == b'[{"stake":0.0},{"stake":0.0},{"stake":0.0},{"stake":0.0}]'
    assert got["csv"].split() == [b'"stake"', b"0", b"-0", b"0", b"-0"]
