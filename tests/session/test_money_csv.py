"""The summaries' exact-money CSV made a column at a time (``exports.write_money_csv``)
against the cell-by-cell reference it replaces: ``write_csv(exact_money(frame))``."""

from __future__ import annotations

import decimal
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_audit.session.exports import write_csv, write_money_csv
from ofc_audit.session.settle_up import exact_money


def reference(frame: pd.DataFrame, path: Path) -> bytes:
    return write_csv(exact_money(frame), path).read_bytes()


def test_known_cells(tmp_path: Path) -> None:
    # Written by hand from exact_money's rule: the float's decimal (rounded to 6 places),
    # at its currency's one scale in its column (cents at least; points whole when all
    # are whole).
    players = pd.DataFrame({
        "name": ["a", "=b", 'say "hi"', "d"],
        "currency": ["EUR", "EUR", "points", "USD"],
        "money": [0.1 + 0.1 + 0.1, 8.8, 58.0, 0.0005 * 3],
        "net_money": [float("nan"), 1.25, -0.0, 2.0],
        "points_per_hand": [29.0, 0.5, 1.0, float("nan")],
        "hands": [3, 1, 2, 7],
    })
    text = write_money_csv(players, tmp_path / "p.csv").read_text("utf-8")
    assert text.splitlines() == [
        '"name","currency","money","net_money","points_per_hand","hands"',
        '"a","EUR",0.30,,29,3',
        '"\'=b","EUR",8.80,1.25,0.5,1',
        '"say ""hi""","points",58,-0,1,2',
        '"d","USD",0.0015,2.00,,7',  # each column its own scale
    ]
    assert text.encode() == reference(players, tmp_path / "r.csv")


def test_points_with_a_fraction_and_negative_zero(tmp_path: Path) -> None:
    frame = pd.DataFrame({"currency": ["points"] * 3, "money": [-0.0, 2.5, -1e-9]})
    text = write_money_csv(frame, tmp_path / "p.csv").read_text("utf-8")
    # 2.5 is not whole: every points amount at cents; -1e-9 rounds to -0.0.
    assert text.splitlines() == ['"currency","money"', '"points",-0.00', '"points",2.50',
                                 '"points",-0.00']
    assert text.encode() == reference(frame, tmp_path / "r.csv")


def test_without_amounts_as_before(tmp_path: Path) -> None:
    for frame in (pd.DataFrame({"hands": [1, 2]}),
                  pd.DataFrame({"currency": ["EUR"], "money": [float("nan")]}),
                  pd.DataFrame({"currency": pd.Series([], dtype="str"),
                                "money": pd.Series([], dtype="float64")})):
        assert (write_money_csv(frame, tmp_path / "p.csv").read_bytes()
                == reference(frame, tmp_path / "r.csv"))


STAKES = [0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 0.005, 0.0001, 0.001, 1e-6, 100.0]

amounts = st.one_of(
    # Sums of whole points times a stake, as the summaries hold them.
    st.builds(lambda points, stake, n: sum([points * stake / n] * n),
              st.integers(-10**6, 10**6), st.sampled_from(STAKES), st.integers(1, 5)),
    st.sampled_from([0.0, -0.0, float("nan"), 0.5, -0.5, 2.5e-6, 5e-7, -5e-7, 1.5e-6,
                     0.0000005, 123456.125, 1e9, -1e12, 1e-7, 2**-20, 0.3]),
    st.floats(min_value=-1e12, max_value=1e12, allow_nan=False),
    st.floats(allow_nan=True, allow_infinity=False),
)

texts = st.one_of(st.none(), st.text(max_size=6),
                  st.sampled_from(["=1+1", "-x", "+", "@a", '"q"', "a,b", "\tx", "é"]))


@st.composite
def summaries(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(0, 30))
    currencies: object = draw(st.lists(st.sampled_from(["EUR", "points", "USD", "-x", None]),
                                       min_size=n, max_size=n))
    if draw(st.booleans()):  # a string column (the summaries'), else Python objects
        currencies = pd.array(currencies, dtype=draw(st.sampled_from(["string", "str"])))
    columns: dict[str, object] = {
        "name": pd.array(draw(st.lists(texts, min_size=n, max_size=n)), dtype="string"),
        "currency": currencies,
        "money": draw(st.lists(amounts, min_size=n, max_size=n)),
        "hands": draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)),
        "points_per_hand": draw(st.lists(amounts, min_size=n, max_size=n)),
        "fouled": draw(st.lists(st.booleans(), min_size=n, max_size=n)),
        "scored": pd.array(draw(st.lists(st.one_of(st.none(), st.integers(0, 3)),
                                         min_size=n, max_size=n)), dtype="Int64"),
    }
    if draw(st.booleans()):
        columns["net_money"] = draw(st.lists(amounts, min_size=n, max_size=n))
    frame = pd.DataFrame(columns)
    frame["fouled"] = frame["fouled"].astype(bool)
    return frame


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(summaries())
def test_same_bytes_as_cell_by_cell(frame: pd.DataFrame) -> None:
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        try:
            expected = reference(frame, here / "r.csv")
        except decimal.InvalidOperation:  # an amount too big for its currency's scale
            try:
                write_money_csv(frame, here / "p.csv")
            except decimal.InvalidOperation:
                return
            raise AssertionError("the reference fails, the column writer did not") from None
        assert write_money_csv(frame, here / "p.csv").read_bytes() == expected


def test_many_rows_few_amounts(tmp_path: Path) -> None:
    # The match summary's shape: many rows, amounts repeating, written in several pieces.
    rng = np.random.default_rng(7)
    n = 150_000
    frame = pd.DataFrame({
        "table": pd.array([f"T{i % 97}" for i in range(n)], dtype="string"),
        "currency": rng.choice(["EUR", "points", "USD"], n),
        "points": rng.integers(-300, 300, n),
        "money": rng.integers(-300, 300, n) * rng.choice([0.1, 0.25, 0.005], n),
    })
    assert (write_money_csv(frame, tmp_path / "p.csv").read_bytes()
            == reference(frame, tmp_path / "r.csv"))
