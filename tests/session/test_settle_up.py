"""Who owes whom and the fewest payments (ofc_audit.session.settle_up), worked out by hand.

The EUR session (0.10 EUR a point): FORMAT.md's worked example PD-1001 (pairs alice-bob -1,
alice-carol -5, bob-carol -3: alice -6, bob -2, carol +8) and a hand where alice scoops
bob's foul for 20 points but bob has only 12 (R-SETTLE-3 caps the transfer at 12).
"""

from __future__ import annotations

import time
from decimal import Decimal
from itertools import combinations
from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.session.exports import write_csv
from ofc_audit.session.settle_up import (
    EXACT_PLAYERS,
    at_one_scale,
    exact_money,
    payments,
    settled_balances,
    stake_decimal,
    who_owes_whom,
)
from ofc_audit.session.tables import build_tables
from tests.session.test_tables import FOUL, KK_FH, P, hand_result, worked_example

D = Decimal


def eur_session() -> pd.DataFrame:
    return build_tables([
        worked_example(),
        hand_result("CAP", [P("alice", 1, KK_FH, 40), P("bob", 2, FOUL, 12)]),
    ]).pairs


def rows(frame: pd.DataFrame) -> list[tuple[object, ...]]:
    return [tuple(r) for r in frame.astype(object).itertuples(index=False)]


def test_who_owes_whom_after_the_cap() -> None:
    # alice-bob: -1 + 12 (capped from 20) = bob paid alice 11 points, 1.10 EUR, in 2 hands.
    assert rows(who_owes_whom(eur_session())) == [
        ("EUR", "alice", "bob", 2, 11, D("1.10")),
        ("EUR", "carol", "alice", 1, 5, D("0.50")),
        ("EUR", "carol", "bob", 1, 3, D("0.30")),
    ]


def test_balances_and_payments_after_the_cap() -> None:
    balances = settled_balances(eur_session())
    # alice -6 + 12 = +6, bob -2 - 12 = -14, carol +8: the money that moved, not 2.00 EUR.
    assert rows(balances) == [
        ("EUR", "alice", 6, D("0.60")),
        ("EUR", "bob", -14, D("-1.40")),
        ("EUR", "carol", 8, D("0.80")),
    ]
    # No two of +0.60, -1.40, +0.80 add up to zero: 3 players, 2 payments.
    assert rows(payments(balances)) == [
        ("EUR", "bob", "carol", D("0.80")),
        ("EUR", "bob", "alice", D("0.60")),
    ]


def test_currencies_are_never_added() -> None:
    pairs = build_tables([
        worked_example(),
        hand_result("USD1", [P("alice", 1, KK_FH), P("bob", 2, FOUL)], stake=("0.50", "USD")),
        hand_result("PTS", [P("bob", 1, KK_FH), P("carol", 2, FOUL)], stake=("1", "points")),
    ]).pairs
    assert rows(who_owes_whom(pairs)) == [
        ("EUR", "carol", "alice", 1, 5, D("0.50")),
        ("EUR", "carol", "bob", 1, 3, D("0.30")),
        ("EUR", "bob", "alice", 1, 1, D("0.10")),
        ("USD", "alice", "bob", 1, 20, D("10.00")),
        ("points", "bob", "carol", 1, 20, D("20")),
    ]
    assert rows(payments(settled_balances(pairs))) == [
        ("EUR", "alice", "carol", D("0.60")),
        ("EUR", "bob", "carol", D("0.20")),
        ("USD", "bob", "alice", D("10.00")),
        ("points", "carol", "bob", D("20")),
    ]


def test_csv_writes_each_amount_at_its_currency_scale(tmp_path: Path) -> None:
    # One table, three scales: points whole (20, not 20.00), USD in cents (10.00), and an
    # EUR stake of 0.125 keeping its third place (0.375) without giving it to the others.
    pairs = build_tables([
        hand_result("USD1", [P("alice", 1, KK_FH), P("bob", 2, FOUL)], stake=("0.50", "USD")),
        hand_result("PTS", [P("bob", 1, KK_FH), P("carol", 2, FOUL)], stake=("1", "points")),
        hand_result("EUR3", [P("=dave", 1, KK_FH), P("erin", 2, FOUL)],
                    stake=("0.125", "EUR")),
    ]).pairs
    owes = write_csv(who_owes_whom(pairs), tmp_path / "owes.csv").read_text("utf-8")
    assert owes.splitlines() == [
        '"currency","player","opponent","hands","points","money"',
        '"EUR","\'=dave","erin",1,20,2.500',
        '"USD","alice","bob",1,20,10.00',
        '"points","bob","carol",1,20,20',
    ]
    paid = write_csv(payments(settled_balances(pairs)), tmp_path / "p.csv").read_text("utf-8")
    assert paid.splitlines()[1:] == ['"EUR","erin","\'=dave",2.500',
                                     '"USD","bob","alice",10.00', '"points","carol","bob",20']
    assert pd.read_csv(tmp_path / "owes.csv")["money"].tolist() == [2.5, 10.0, 20.0]


def test_one_scale_per_currency_in_who_owes_whom(tmp_path: Path) -> None:
    # Two EUR pairs: one at a 0.125 stake (2.500 owed), one at 0.10 (2.00 owed): in one table
    # a currency has one scale, so the second reads 2.000, not 2.00 beside 2.500.
    pairs = synthetic([("a", "b", 20, 0.125), ("c", "d", 20, 0.10)])
    owes = write_csv(who_owes_whom(pairs), tmp_path / "owes.csv").read_text("utf-8")
    assert owes.splitlines()[1:] == ['"EUR","a","b",1,20,2.500', '"EUR","c","d",1,20,2.000']
    balances = settled_balances(pairs)
    assert [str(m) for m in balances["money"]] == ["2.500", "-2.500", "2.000", "-2.000"]


def test_at_one_scale_keeps_each_currency_apart() -> None:
    amounts = [D("0.125"), D("3"), D("7.5"), D("38"), D("-1.5")]
    currencies = ["EUR", "EUR", "USD", "points", "points"]
    assert [str(a) for a in at_one_scale(amounts, currencies)] == [
        "0.125", "3.000", "7.50", "38.00", "-1.50"
    ]
    assert [str(a) for a in at_one_scale([D("38"), D("-2")], ["points"] * 2)] == ["38", "-2"]


def test_summary_money_as_exact_decimals(tmp_path: Path) -> None:
    # Float sums as the summaries hold them: 0.1 * 3 is 0.30000000000000004.
    players = pd.DataFrame({
        "name": ["a", "b", "c"],
        "currency": ["EUR", "EUR", "points"],
        "money": [0.1 + 0.1 + 0.1, 8.8, 58.0],
        "net_money": [float("nan"), 1.25, -3.0],
        "points_per_hand": [29.0, 0.5, 1.0],
    })
    text = write_csv(exact_money(players), tmp_path / "players.csv").read_text("utf-8")
    assert text.splitlines() == [
        '"name","currency","money","net_money","points_per_hand"',
        '"a","EUR",0.30,,29',
        '"b","EUR",8.80,1.25,0.5',
        '"c","points",58,-3,1',
    ]
    frame = pd.DataFrame({"hands": [1]})
    assert exact_money(frame) is frame  # no currency column: nothing to do


def synthetic(moves: list[tuple[str, str, int, float]], currency: str = "EUR") -> pd.DataFrame:
    """Pairs rows: (a, b, points transferred to a, stake)."""
    return pd.DataFrame({
        "currency": [currency] * len(moves),
        "stake": [m[3] for m in moves],
        "a": [m[0] for m in moves],
        "b": [m[1] for m in moves],
        "transferred": pd.array([m[2] for m in moves], dtype="Int64"),
    })


def test_a_chain_needs_one_payment() -> None:
    # a pays b 5 points, b pays c 5 points: b is even, a pays c once.
    pairs = synthetic([("b", "a", 5, 1.0), ("c", "b", 5, 1.0)])
    assert rows(who_owes_whom(pairs)) == [
        ("EUR", "b", "a", 1, 5, D("5.00")),
        ("EUR", "c", "b", 1, 5, D("5.00")),
    ]
    assert rows(payments(settled_balances(pairs))) == [("EUR", "a", "c", D("5.00"))]


def test_even_pairs_and_unknown_transfers_are_left_out() -> None:
    pairs = synthetic([("a", "b", 3, 0.1), ("a", "b", -3, 0.1), ("a", "c", 4, 0.1)])
    pairs.loc[2, "transferred"] = pd.NA
    assert who_owes_whom(pairs).empty
    assert payments(settled_balances(pairs)).empty


def test_same_points_at_two_stakes_owe_money() -> None:
    # a wins 10 points at 0.10 and loses 10 at 0.05: even in points, b owes 0.50.
    pairs = synthetic([("a", "b", 10, 0.1), ("a", "b", -10, 0.05)])
    assert rows(who_owes_whom(pairs)) == [("EUR", "a", "b", 2, 0, D("0.50"))]


def test_decimal_stakes_do_not_drift() -> None:
    # 0.1 + 0.1 + 0.1 is 0.30000000000000004 in floats; what people pay is 0.30.
    pairs = synthetic([("a", "b", 1, 0.1)] * 3)
    assert rows(who_owes_whom(pairs)) == [("EUR", "a", "b", 3, 3, D("0.30"))]
    assert stake_decimal(0.1) == D("0.1")


def test_points_stay_whole() -> None:
    pairs = synthetic([("a", "b", 7, 1.0)], currency="points")
    assert str(who_owes_whom(pairs)["money"][0]) == "7"


def test_fewest_payments_beats_greedy() -> None:
    # Largest debtor to largest creditor takes 4 payments; {+4, -4} and {+3, +2, -5} take 3.
    balances = pd.DataFrame({
        "currency": ["EUR"] * 5,
        "name": ["a", "b", "c", "d", "e"],
        "money": [D("4"), D("3"), D("2"), D("-5"), D("-4")],
    })
    got = payments(balances)
    assert len(got) == 3
    assert ("EUR", "e", "a", D("4.00")) in rows(got)


def test_unbalanced_input_is_refused() -> None:
    balances = pd.DataFrame({"currency": ["EUR"], "name": ["a"], "money": [D("1")]})
    try:
        payments(balances)
    except ValueError as error:
        assert "EUR" in str(error)
    else:
        raise AssertionError("expected ValueError")


def _most_zero_groups(units: list[int]) -> int:
    """Brute force: the most blocks of a partition of ``units`` that each add up to zero."""
    if not units:
        return 0
    first, rest = units[0], list(range(1, len(units)))
    best = 0
    for size in range(len(rest) + 1):
        for chosen in combinations(rest, size):
            if first + sum(units[i] for i in chosen) == 0:
                left = [units[i] for i in rest if i not in chosen]
                if sum(left) == 0:
                    best = max(best, 1 + _most_zero_groups(left))
    return best


def _balances(draws: list[list[int]]) -> pd.DataFrame:
    records = []
    for c, units in zip(["EUR", "USD", "points"], draws, strict=False):
        units = [*units, -sum(units)]
        for i, u in enumerate(units):
            money = D(u) if c == "points" else D(u).scaleb(-2)
            records.append((c, f"p{i}", money))
    return pd.DataFrame(records, columns=["currency", "name", "money"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-500, 500), min_size=0, max_size=7), min_size=1,
                max_size=3))
def test_payments_settle_every_balance(draws: list[list[int]]) -> None:
    balances = _balances(draws)
    paid = payments(balances)
    assert (paid["amount"] > 0).all()
    for currency, group in balances.groupby("currency"):
        mine = paid[paid["currency"] == currency]
        left = dict(zip(group["name"], group["money"], strict=True))
        for payer, payee, amount in zip(mine["payer"], mine["payee"], mine["amount"],
                                        strict=True):
            left[payer] += amount
            left[payee] -= amount
        assert all(v == 0 for v in left.values())
        units = [int(m * 100) for m in group["money"] if m != 0]
        assert len(mine) <= max(len(units) - 1, 0)
        assert len(mine) == len(units) - _most_zero_groups(units)


def test_sixteen_players_are_settled_exactly_and_quickly() -> None:
    units = [(-1) ** i * (i + 1) for i in range(EXACT_PLAYERS - 1)]
    units.append(-sum(units))
    balances = pd.DataFrame({"currency": ["USD"] * EXACT_PLAYERS,
                             "name": [f"p{i:02}" for i in range(EXACT_PLAYERS)],
                             "money": [D(u) for u in units]})
    start = time.perf_counter()
    paid = payments(balances)
    assert time.perf_counter() - start < 10
    assert len(paid) <= EXACT_PLAYERS - 1


def test_an_empty_session_owes_nothing() -> None:
    pairs = build_tables([]).pairs
    assert list(who_owes_whom(pairs).columns) == ["currency", "player", "opponent", "hands",
                                                  "points", "money"]
    assert settled_balances(pairs).empty
    assert list(payments(settled_balances(pairs)).columns) == ["currency", "payer", "payee",
                                                               "amount"]


def test_forty_players_in_five_currencies_settle_greedily() -> None:
    records = []
    for c, currency in enumerate(["EUR", "USD", "GBP", "UZS", "points"]):
        units = [((i * 7919 + c * 104729) % 2001) - 1000 for i in range(39)]
        units.append(-sum(units))
        records += [(currency, f"player {i:02}", D(u).scaleb(-2)) for i, u in enumerate(units)]
    balances = pd.DataFrame(records, columns=["currency", "name", "money"])
    paid = payments(balances)
    for currency, group in balances.groupby("currency"):
        mine = paid[paid["currency"] == currency]
        assert 0 < len(mine) <= 39
        left = dict(zip(group["name"], group["money"], strict=True))
        for payer, payee, amount in zip(mine["payer"], mine["payee"], mine["amount"],
                                        strict=True):
            left[payer] += amount
            left[payee] -= amount
        assert set(left.values()) == {0}
