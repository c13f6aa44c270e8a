"""A summary's exact-money CSV written a piece at a time (issue 21.4): each currency's one
scale is found over the whole table, so the file is the one of the whole table."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.session import exports, settle_up
from ofc_audit.session.exports import TableSource


def _summary(currencies: list[str], money: list[float]) -> pd.DataFrame:
    return pd.DataFrame({
        "name": pd.array([f"p{i}" for i in range(len(money))], dtype="string"),
        "currency": pd.array(currencies, dtype="string"),
        "hands": np.arange(len(money), dtype=np.int64),
        "money": np.array(money, dtype=np.float64),
    })


def _whole(frame: pd.DataFrame, path: Path) -> bytes:
    return exports.write_csv(settle_up.exact_money(frame), path).read_bytes()


def test_a_scale_seen_in_a_later_piece_only_is_every_piece_s(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # EUR: 1.5 and 2 in the first piece, 0.125 in the last: every EUR amount has 3 places.
    # points: whole numbers but one, so all at cents (2 places at least).
    frame = _summary(["EUR", "points", "EUR", "points", "USD", "EUR", "points"],
                     [1.5, 4.0, 2.0, -3.0, 0.30000000000000004, 0.125, 2.5])
    monkeypatch.setattr(exports, "CHUNK_ROWS", 2)
    got = exports.write_exact_csv_pieces(TableSource.of(frame), tmp_path / "b.csv")
    text = got.read_text()
    assert text == _whole(frame, tmp_path / "a.csv").decode()
    assert text.splitlines()[1:] == [
        '"p0","EUR",0,1.500', '"p1","points",1,4.00', '"p2","EUR",2,2.000',
        '"p3","points",3,-3.00', '"p4","USD",4,0.30', '"p5","EUR",5,0.125',
        '"p6","points",6,2.50']
    assert not (tmp_path / "b.csv.part").exists()


def test_money_scales_are_the_whole_table_s() -> None:
    frame = _summary(["EUR", "EUR", "points", "points"], [0.1, 0.005, 3.0, -7.0])
    pieces = [frame.iloc[i:i + 1] for i in range(len(frame))]
    assert settle_up.money_scales(pieces) == {
        "money": {"EUR": Decimal("0.001"), "points": Decimal(1)}}
    assert settle_up.money_scales([frame.drop(columns=["currency"])]) == {}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["EUR", "USD", "points"]),
                          st.integers(-500, 500),
                          st.sampled_from([1.0, 0.1, 0.25, 0.05, 0.005, 0.3, 2.0]),
                          st.booleans()),
                min_size=0, max_size=30),
       st.integers(1, 7))
def test_written_in_pieces_or_whole_the_same_bytes(
        tmp_path_factory: pytest.TempPathFactory,
        rows: list[tuple[str, int, float, bool]], chunk: int) -> None:
    """Money as the summaries make it (whole points times a stake, some unknown): any
    piece size gives the whole table's file."""
    folder = tmp_path_factory.mktemp("exact")
    frame = _summary([c for c, *_ in rows],
                     [np.nan if unknown else points * stake
                      for _, points, stake, unknown in rows])
    whole = _whole(frame, folder / "a.csv")
    source = TableSource.of(frame)
    pieces = TableSource(source.rows, source.empty, lambda _: source.pieces(chunk))
    assert exports.write_exact_csv_pieces(pieces, folder / "b.csv").read_bytes() == whole
