"""Session summaries (ofc_audit.session.summaries) against frames worked out by hand.

The session, from :mod:`tests.session.test_tables`'s boards:

- H1 ``PD-1001`` (FORMAT.md's example, 0.10 EUR, match M-77): alice -6 (11 royalties),
  bob -2 (13, QQ earns Fantasyland), carol +8 (15, in Fantasyland, no repeat).
- H2 (0.50 USD, match M-9 hand 1): alice KK + full house (14) scoops bob's foul: +20 / -20;
  alice's KK earns Fantasyland.
- H3 (0.50 USD, match M-9 hand 2): alice in Fantasyland, KKK top, straight, full house
  (21 + 4 + 6 = 31) stays; bob's board is hidden, so both players' points are unknown.
- H4 (0.05 EUR, no match line): alice fouls against carol's KK + full house: -20 / +20;
  carol's KK earns Fantasyland.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pandas.testing import assert_frame_equal

from ofc_audit.session import summaries as S
from ofc_audit.session.tables import CATEGORIES, SessionTables, TableBuilder, build_tables
from tests.session.test_tables import ALICE, BOB, CAROL, FOUL, KK_FH, P, hand_result

TRIPS_TOP = "Ks Kd Kc / 2c 3d 4h 5s 6c / 9s 9h 9c 8d 8h"  # 21 + 4 + 6 = 31, stays


def session() -> SessionTables:
    return build_tables([
        hand_result("PD-1001", [P("alice", 1, ALICE, 250), P("bob", 2, BOB, 180),
                                P("carol", 3, CAROL, 300, True)],
                    match=("M-77", 2), table="Tashkent 3",
                    timestamp="2026-11-29 21:04:11 UTC"),
        hand_result("H2", [P("alice", 1, KK_FH), P("bob", 2, FOUL)], stake=("0.50", "USD"),
                    match=("M-9", 1), timestamp="2026-11-29 22:00:00 UTC"),
        hand_result("H3", [P("alice", 1, TRIPS_TOP, 120, True), P("bob", 2, None, 80)],
                    stake=("0.50", "USD"), match=("M-9", 2),
                    timestamp="2026-11-29 22:05:00 UTC"),
        hand_result("H4", [P("alice", 1, FOUL), P("carol", 3, KK_FH)], stake=("0.05", "EUR"),
                    timestamp="2026-11-30 01:00:00 +02:00"),
    ])


def frame(data: dict[str, list[object]], dtypes: dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({c: pd.array(v, dtype=dtypes.get(c, "int64")) for c, v in data.items()})


NAN = float("nan")


def test_player_summary() -> None:
    got = S.player_summary(session().seats)
    # Columns:  carol EUR, bob EUR, alice EUR, alice USD, bob USD (currency, then points).
    expected = frame({
        "name": ["carol", "bob", "alice", "alice", "bob"],
        "currency": ["EUR", "EUR", "EUR", "USD", "USD"],
        "hands": [2, 1, 2, 2, 2],
        "scored": [2, 1, 2, 1, 1],  # H3's points are unknown
        "points": [28, -2, -26, 20, -20],
        # 8*0.10 + 20*0.05; -2*0.10; -6*0.10 - 20*0.05; 20*0.50; -20*0.50
        "money": [1.8, -0.2, -1.6, 10.0, -10.0],
        "net": [28, -2, -26, 20, -20],
        "net_money": [1.8, -0.2, -1.6, 10.0, -10.0],
        "points_per_hand": [14.0, -2.0, -13.0, 20.0, -20.0],
        "royalties": [29, 13, 11, 45, 0],
        "royalties_top": [17, 7, 1, 29, 0],
        "royalties_middle": [2, 0, 0, 4, 0],
        "royalties_bottom": [10, 6, 10, 12, 0],
        "fouls": [0, 0, 1, 0, 1],
        "foul_rate": [0.0, 0.0, 0.5, 0.0, 1.0],  # over known boards (bob's H3 is hidden)
        "fantasylands": [1, 1, 0, 1, 0],
        # entries over known hands outside Fantasyland: carol 1/1 (H4), bob 1/1, alice 0/2,
        # alice USD 1/1 (H2; H3 was in Fantasyland), bob USD 0/1.
        "fantasyland_rate": [1.0, 1.0, 0.0, 1.0, 0.0],
        "fantasyland_repeats": [0, 0, 0, 1, 0],
        "fantasyland_hands": [1, 0, 0, 1, 0],
        "biggest_win": [20, 0, 0, 20, 0],
        "biggest_loss": [0, -2, -20, 0, -20],
        "boards": [2, 1, 2, 2, 1],  # the foul rate's sample
        "fantasyland_chances": [1, 1, 2, 1, 1],  # the Fantasyland rate's sample
    }, {"name": "string", "currency": "string", "money": "float64", "net_money": "float64",
        "points_per_hand": "float64", "foul_rate": "float64", "fantasyland_rate": "float64",
        "biggest_win": "Int64", "biggest_loss": "Int64"})
    assert list(got.columns) == S.PLAYER_COLUMNS
    assert_frame_equal(got, expected)


def test_currencies_are_never_summed_together() -> None:
    got = S.player_summary(session().seats)
    alice = got[got["name"] == "alice"]
    assert sorted(alice["currency"]) == ["EUR", "USD"]


def test_money_has_no_float_noise() -> None:
    # 0.1 * 3 is 0.30000000000000004 in floats: sums are rounded to MONEY_DECIMALS.
    hands = [hand_result(f"H{i}", [P("a", 1, KK_FH), P("b", 2, ALICE)]) for i in range(3)]
    got = S.player_summary(build_tables(hands).seats)
    assert got["money"].tolist() == [1.2, -1.2]  # 3 hands of 4 points at 0.10


def test_unknown_only_player_has_missing_rates() -> None:
    t = build_tables([hand_result("H", [P("a", 1, KK_FH), P("b", 2, None)])])
    b = S.player_summary(t.seats).set_index("name").loc["b"]
    assert (b["hands"], b["scored"], b["points"], b["money"]) == (1, 0, 0, 0.0)
    assert np.isnan(b["foul_rate"]) and np.isnan(b["points_per_hand"])
    assert b["biggest_win"] is pd.NA


def test_player_rates_over_all_currencies() -> None:
    got = S.player_rates(session().seats)
    expected = frame({
        "name": ["alice", "bob", "carol"],
        "hands": [4, 3, 2],
        "scored": [3, 2, 2],
        "fouls": [1, 1, 0],
        "foul_rate": [1 / 4, 1 / 2, 0.0],  # alice 1 of 4 known boards; bob 1 of 2
        "fantasylands": [1, 1, 1],
        "fantasyland_rate": [1 / 3, 1 / 2, 1.0],
        "boards": [4, 2, 2],
        "fantasyland_chances": [3, 2, 1],
    }, {"name": "string", "foul_rate": "float64", "fantasyland_rate": "float64"})
    assert_frame_equal(got, expected)


def test_head_to_head() -> None:
    got = S.head_to_head(session().pairs)
    expected = frame({
        "player": ["alice", "alice", "alice", "bob", "bob", "bob", "carol", "carol"],
        "opponent": ["bob", "bob", "carol", "alice", "alice", "carol", "alice", "bob"],
        "currency": ["EUR", "USD", "EUR", "EUR", "USD", "EUR", "EUR", "EUR"],
        "hands": [1, 2, 2, 1, 2, 1, 2, 1],
        "scored": [1, 1, 2, 1, 1, 1, 2, 1],
        # H1 alice-bob -1, H2 +20 (H3 unknown); alice-carol H1 -5, H4 -20; bob-carol -3.
        "points": [-1, 20, -25, 1, -20, -3, 25, 3],
        "money": [-0.1, 10.0, -1.5, 0.1, -10.0, -0.3, 1.5, 0.3],
        "transferred": [-1, 20, -25, 1, -20, -3, 25, 3],
        "rows_won": [2, 3, 1, 1, 0, 1, 5, 2],
        "rows_lost": [1, 0, 5, 2, 3, 2, 1, 1],
        "rows_tied": [0, 0, 0, 0, 0, 0, 0, 0],
        "scoops_won": [0, 1, 0, 0, 0, 0, 1, 0],
        "scoops_lost": [0, 0, 1, 0, 1, 0, 0, 0],
        "royalties": [-2, 14, -18, 2, -14, -2, 18, 2],
        "capped": [0, 0, 0, 0, 0, 0, 0, 0],
    }, {"player": "string", "opponent": "string", "currency": "string", "money": "float64"})
    assert_frame_equal(got, expected)


def test_head_to_head_adds_up_to_the_player_summary() -> None:
    t = session()
    h2h = S.head_to_head(t.pairs).groupby(["player", "currency"])["points"].sum()
    players = S.player_summary(t.seats).set_index(["name", "currency"])["points"]
    assert h2h.to_dict() == {k: v for k, v in players.to_dict().items()}


def test_match_summary() -> None:
    got = S.match_summary(session().seats)
    expected = frame({
        "match": ["M-77", "M-77", "M-77", "M-9", "M-9", "H4", "H4"],
        "table": ["Tashkent 3"] * 3 + ["T1"] * 4,
        "first_hand_id": ["PD-1001"] * 3 + ["H2", "H2", "H4", "H4"],
        "name": ["alice", "bob", "carol", "alice", "bob", "alice", "carol"],
        "currency": ["EUR", "EUR", "EUR", "USD", "USD", "EUR", "EUR"],
        "hands": [1, 1, 1, 2, 2, 1, 1],
        "fantasyland_hands": [0, 0, 1, 1, 0, 0, 0],
        "points": [-6, -2, 8, 20, -20, -20, 20],
        "money": [-0.6, -0.2, 0.8, 10.0, -10.0, -1.0, 1.0],
        "royalties": [11, 13, 15, 45, 0, 0, 14],
        "fouls": [0, 0, 0, 0, 1, 1, 0],
    }, {"match": "string", "table": "string", "first_hand_id": "string", "name": "string",
        "currency": "string", "money": "float64"})
    assert_frame_equal(got, expected)


def test_royalties_by_category() -> None:
    got = S.royalties_by_category(session().seats)
    expected = pd.DataFrame(0, index=pd.Index(list(CATEGORIES), name="category"),
                            columns=["top", "middle", "bottom"], dtype="int64")
    # top: pairs 66 1, QQ 7, AA 9, KK 8 (H2), KK 8 (H4); KKK 21. middle: trips 2, straight 4.
    # bottom: quads 10; full houses 6 (bob H1, alice H2, alice H3, carol H4); flush 4.
    # alice's foul in H4 and bob's in H2 earn nothing (R-ROY-4).
    expected.loc["pair", "top"] = 33
    expected.loc["trips", "top"] = 21
    expected.loc["trips", "middle"] = 2
    expected.loc["straight", "middle"] = 4
    expected.loc["quads", "bottom"] = 10
    expected.loc["full_house", "bottom"] = 24
    expected.loc["flush", "bottom"] = 4
    assert_frame_equal(got, expected)


def test_settlement_steps_of_the_worked_example() -> None:
    got = S.settlement_steps(session().pairs, 0)
    expected = pd.DataFrame({
        "player": pd.array(["alice"] * 3 + ["bob"] * 3 + ["carol"] * 3, dtype="string"),
        "opponent": pd.array(["bob", "carol", None, "alice", "carol", None, "alice", "bob",
                              None], dtype="string"),
        "amount": pd.array([-1, -5, -6, 1, -3, -2, 5, 3, 8], dtype="int64"),
        "start": pd.array([0, -1, 0, 0, 1, 0, 0, 5, 0], dtype="int64"),
        "end": pd.array([-1, -6, -6, 1, -2, -2, 5, 8, 8], dtype="int64"),
        "total": pd.array([False, False, True] * 3, dtype="bool"),
    })
    assert_frame_equal(got, expected)


def test_busiest_hand_and_totals() -> None:
    t = session()
    assert S.busiest_hand(t.pairs) == 1  # H2 and H4 both move 20; the first wins
    totals = S.session_totals(t.hands, t.seats, t.rejected)
    assert totals.drop(columns=["first_time", "last_time"]).iloc[0].to_dict() == {
        "hands": 4, "valid": 4, "with_violations": 0, "with_mismatches": 0,
        "with_unverifiable": 1, "rejected": 0, "incomplete": 0, "players": 3,
    }
    assert str(totals["first_time"].iloc[0]) == "2026-11-29 21:04:11+00:00"
    assert str(totals["last_time"].iloc[0]) == "2026-11-29 23:00:00+00:00"  # +02:00


def test_every_summary_of_an_empty_session() -> None:
    t = TableBuilder().build()
    assert list(S.player_summary(t.seats).columns) == S.PLAYER_COLUMNS
    assert list(S.player_rates(t.seats).columns) == S.RATE_COLUMNS
    assert list(S.head_to_head(t.pairs).columns) == S.HEAD_TO_HEAD_COLUMNS
    assert list(S.match_summary(t.seats).columns) == S.MATCH_COLUMNS
    assert S.royalties_by_category(t.seats).to_numpy().sum() == 0
    assert S.busiest_hand(t.pairs) is None
    assert S.session_totals(t.hands, t.seats, t.rejected)["hands"].tolist() == [0]
    for f in (S.player_summary(t.seats), S.head_to_head(t.pairs), S.match_summary(t.seats)):
        assert f.empty


def test_summaries_do_not_modify_their_input() -> None:
    t = session()
    seats, pairs = t.seats.copy(), t.pairs.copy()
    S.player_summary(t.seats), S.match_summary(t.seats), S.head_to_head(t.pairs)
    assert_frame_equal(t.seats, seats)
    assert_frame_equal(t.pairs, pairs)


# -- properties over random tables ------------------------------------------------------------

NAMES = ["ann", "bo", "cy", "di"]


@st.composite
def random_pairs(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(1, 30))
    a_idx = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    shift = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    due = draw(st.lists(st.one_of(st.none(), st.integers(-40, 40)), min_size=n, max_size=n))
    cur = draw(st.lists(st.sampled_from(["EUR", "USD"]), min_size=n, max_size=n))
    rows = [None if d is None else (1 if d > 0 else -1 if d < 0 else 0) for d in due]
    return pd.DataFrame({
        "hand": np.arange(n),
        "hand_id": pd.array([f"h{i}" for i in range(n)], dtype="string"),
        "match": pd.array([f"h{i}" for i in range(n)], dtype="string"),
        "table": pd.array(["t"] * n, dtype="string"),
        "stake": [0.25 if c == "USD" else 0.1 for c in cur],
        "currency": pd.array(cur, dtype="string"),
        "a": pd.array([NAMES[i] for i in a_idx], dtype="string"),
        "b": pd.array([NAMES[(i + s) % 4] for i, s in zip(a_idx, shift, strict=True)],
                      dtype="string"),
        **{r: pd.array(rows, dtype="Int64") for r in ("top", "middle", "bottom")},
        "scoop": pd.array([None if r is None else 0 for r in rows], dtype="Int64"),
        "royalties": pd.array(due, dtype="Int64"),
        "points_due": pd.array(due, dtype="Int64"),
        "transferred": pd.array(due, dtype="Int64"),
        "capped": pd.array([None if d is None else False for d in due], dtype="boolean"),
    })


@settings(max_examples=60, deadline=None)
@given(random_pairs())
def test_head_to_head_is_antisymmetric(pairs: pd.DataFrame) -> None:
    h2h = S.head_to_head(pairs).set_index(["player", "opponent", "currency"])
    for (player, opponent, currency), row in h2h.iterrows():
        other = h2h.loc[(opponent, player, currency)]
        assert row["points"] == -other["points"]
        assert row["money"] == pytest.approx(-other["money"])
        assert row["rows_won"] == other["rows_lost"]
        assert row["hands"] == other["hands"]
    # Every pair row shows up once from each side.
    assert h2h["hands"].sum() == 2 * len(pairs)
    assert h2h["points"].sum() == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(NAMES), st.one_of(st.none(), st.integers(-50, 50)),
                          st.sampled_from(["EUR", "USD"])), min_size=1, max_size=40))
def test_player_summary_totals(rows: list[tuple[str, int | None, str]]) -> None:
    categories = build_tables([]).seats["top"].dtype
    n = len(rows)
    seats = pd.DataFrame({
        "hand": np.arange(n), "hand_id": pd.array(["h"] * n, dtype="string"),
        "match": pd.array(["m"] * n, dtype="string"), "table": pd.array(["t"] * n, "string"),
        "stake": [0.25 if c == "USD" else 0.1 for _, _, c in rows],
        "currency": pd.array([c for _, _, c in rows], dtype="string"),
        "name": pd.array([name for name, _, _ in rows], dtype="string"),
        "seat": 1, "position": 1, "in_fantasyland": False,
        **{r: pd.Categorical([None] * n, dtype=categories) for r in ("top", "middle", "bottom")},
        **{c: pd.array([0 if p is not None else None for _, p, _ in rows], dtype="Int64")
           for c in ("royalties_top", "royalties_middle", "royalties_bottom", "royalties")},
        "fouled": pd.array([None if p is None else False for _, p, _ in rows], "boolean"),
        "points": pd.array([p for _, p, _ in rows], dtype="Int64"),
        "transfer": pd.array([p for _, p, _ in rows], dtype="Int64"),
        "stack_before": 100,
        "stack_after": pd.array([None] * n, dtype="Int64"),
        "fantasyland_next": pd.array([None] * n, dtype="boolean"),
        "fantasyland_cards": pd.array([None] * n, dtype="Int64"),
    })
    got = S.player_summary(seats)
    assert got["hands"].sum() == n
    for currency in ("EUR", "USD"):
        mine = [(p or 0) for _, p, c in rows if c == currency]
        part = got[got["currency"] == currency]
        assert part["points"].sum() == sum(mine)
        stake = 0.25 if currency == "USD" else 0.1
        assert part["money"].sum() == pytest.approx(sum(mine) * stake)
    assert (got["biggest_win"].dropna() >= 0).all() and (got["biggest_loss"].dropna() <= 0).all()
