"""The session tables (ofc_audit.session.tables) against frames written by hand.

``hand_result`` builds a HandResult the way the replay does (boards evaluated, pairs
settled in R-SETTLE-2 order with stack caps, Fantasyland next), without a history file;
the other session tests import it from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

from ofc_audit.game.board import Board, evaluate_board
from ofc_audit.game.fantasyland import next_fantasyland
from ofc_audit.game.ruleset import FantasylandType, Ruleset, Variant
from ofc_audit.game.scoring import settle
from ofc_audit.history.records import Stake
from ofc_audit.replay.results import Finding, HandResult, Mismatch, PairResult, PlayerResult
from ofc_audit.session.tables import (
    HAND_COLUMNS,
    PAIR_COLUMNS,
    SEAT_COLUMNS,
    TableBuilder,
    build_tables,
    plain_labels,
)

# FORMAT.md's worked example: alice 11 royalties, bob 13, carol 15 (in Fantasyland);
# points -6, -2, +8; bob's QQ earns a 14-card progressive Fantasyland.
ALICE = "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"
BOB = "Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd"
CAROL = "As Ac Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h"
FOUL = "Qs Qd 7c / Qh Qc 6d 5s 4h / 2s 2d 2h 9c 9d"  # R-ORDER-2 foul
KK_FH = "Kh Kd 3c / As Ad 7h 7d 3h / 8s 8h 8c 4d 4c"  # KK 8 + full house 6 = 14
TRIPS_TOP = "Ks Kd Kc / 2c 3d 4h 5s 7c / 9s 9h 9c 8d 8h"  # 20 top + 6 bottom; stays in FL


@dataclass(frozen=True)
class P:
    """A player of a synthetic hand: ``board`` None is a board hidden from the writer."""

    name: str
    seat: int
    board: str | None
    stack: int = 100
    in_fantasyland: bool = False


def hand_result(
    hand_id: str,
    players: Sequence[P],
    *,
    button: int | None = None,
    stake: tuple[str, str] = ("0.10", "EUR"),
    match: tuple[str, int] | None = None,
    table: str = "T1",
    fantasyland: FantasylandType = FantasylandType.PROGRESSIVE,
    variant: Variant = Variant.PINEAPPLE,
    file: str = "s.txt",
    line: int = 1,
    timestamp: str = "2026-11-29 21:04:11 UTC",
    violations: Sequence[Finding] = (),
    mismatches: Sequence[Mismatch] = (),
    stack_cap: bool = True,
) -> HandResult:
    ruleset = Ruleset().with_options(variant=variant, fantasyland=fantasyland,
                                     stack_cap=stack_cap)
    button = max(p.seat for p in players) if button is None else button
    order = sorted(players, key=lambda p: (p.seat <= button, p.seat))
    results = [None if p.board is None else evaluate_board(Board.parse(p.board), ruleset)
               for p in order]
    s = settle(results, ruleset, [p.stack for p in order])
    assert s.stacks_after is not None
    out = []
    for i, (p, r) in enumerate(zip(order, results, strict=True)):
        fl_next = None if r is None else next_fantasyland(
            r, variant, fantasyland, p.in_fantasyland, 14 if p.in_fantasyland else None)
        out.append(PlayerResult(
            name=p.name, seat=p.seat, position=i, in_fantasyland=p.in_fantasyland,
            board=Board((), (), ()) if p.board is None else Board.parse(p.board), result=r,
            points=s.points[i], stack_before=p.stack, stack_after=s.stacks_after[i],
            fantasyland_next=fl_next, fantasyland_next_known=r is not None,
        ))
    pairs = tuple(
        PairResult(order[q.a].name, order[q.b].name, q.rows, q.scoop, q.royalties, q.points_a,
                   q.transfer_to_a)
        for q in s.pairs
    )
    return HandResult(
        file=file, line=line, hand_id=hand_id,
        match_id=match[0] if match else None, match_hand=match[1] if match else None,
        table=table, variant=variant, fantasyland_type=fantasyland,
        stake=Stake(Decimal(stake[0]), stake[1], stake[0]), timestamp=timestamp,
        button_seat=button, players=tuple(sorted(out, key=lambda p: p.seat)), pairs=pairs,
        violations=tuple(violations), mismatches=tuple(mismatches),
        unverifiable=("a board is hidden",) if any(p.board is None for p in players) else (),
        log=(),
    )


def worked_example(**kwargs: object) -> HandResult:
    return hand_result(
        "PD-1001",
        [P("alice", 1, ALICE, 250), P("bob", 2, BOB, 180), P("carol", 3, CAROL, 300, True)],
        match=("M-77", 2), table="Tashkent 3", file="x.txt", line=8, **kwargs,  # type: ignore[arg-type]
    )


def hidden_hand() -> HandResult:
    """Heads-up, bob's board hidden: bob's and the pair's results are unknown."""
    return hand_result("PD-2", [P("alice", 1, KK_FH, 90), P("bob", 2, None, 110)],
                       stake=("0.50", "USD"), file="x.txt", line=60,
                       timestamp="2026-11-29 22:00:00 +05:00")


def _typed(columns: dict[str, object], data: dict[str, list[object]]) -> pd.DataFrame:
    """A hand-written frame, given the dtypes of the builder's columns (same makers)."""
    return pd.DataFrame({c: columns[c](data[c]) for c in data})  # type: ignore[operator]


# -- hands ------------------------------------------------------------------------------------


def test_hands_table_one_row_per_hand() -> None:
    t = build_tables([worked_example(), hidden_hand()])
    expected = _typed(HAND_COLUMNS, {
        "hand": [0, 1],
        "file": ["x.txt", "x.txt"],
        "line": [8, 60],
        "hand_id": ["PD-1001", "PD-2"],
        "match_id": ["M-77", None],
        "match_hand": [2, None],
        "match": ["M-77", "PD-2"],  # a hand without a Match line is its own match
        "table": ["Tashkent 3", "T1"],
        "variant": ["pineapple", "pineapple"],
        "fantasyland_type": ["progressive", "progressive"],
        "timestamp": ["2026-11-29 21:04:11 UTC", "2026-11-29 22:00:00 +05:00"],
        "time": ["2026-11-29 21:04:11 UTC", "2026-11-29 22:00:00 +05:00"],
        "stake": [0.10, 0.50],
        "stake_text": ["0.10", "0.50"],
        "currency": ["EUR", "USD"],
        "button_seat": [3, 2],
        "players": [3, 2],
        "valid": [True, True],
        "violations": [0, 0],
        "mismatches": [0, 0],
        "unverifiable": [0, 1],
        "incomplete": [None, None],
    })
    assert_frame_equal(t.hands, expected)
    assert list(t.hands["time"].dt.hour) == [21, 17]  # +05:00 is 17:00 UTC


# -- seats ------------------------------------------------------------------------------------


def test_seats_table_worked_example_and_hidden_board() -> None:
    t = build_tables([worked_example(), hidden_hand()])
    n = None
    expected = _typed(SEAT_COLUMNS, {
        "hand": [0, 0, 0, 1, 1],
        "hand_id": ["PD-1001"] * 3 + ["PD-2"] * 2,
        "match": ["M-77"] * 3 + ["PD-2"] * 2,
        "table": ["Tashkent 3"] * 3 + ["T1"] * 2,
        "stake": [0.1] * 3 + [0.5] * 2,
        "currency": ["EUR"] * 3 + ["USD"] * 2,
        "name": ["alice", "bob", "carol", "alice", "bob"],
        "seat": [1, 2, 3, 1, 2],
        "position": [1, 2, 3, 1, 2],
        "in_fantasyland": [False, False, True, False, False],
        "top": ["pair", "pair", "pair", "pair", n],
        "middle": ["two_pair", "two_pair", "trips", "two_pair", n],
        "bottom": ["quads", "full_house", "flush", "full_house", n],
        "royalties_top": [1, 7, 9, 8, n],
        "royalties_middle": [0, 0, 2, 0, n],
        "royalties_bottom": [10, 6, 4, 6, n],
        "royalties": [11, 13, 15, 14, n],
        "fouled": [False, False, False, False, n],
        "points": [-6, -2, 8, n, n],
        "transfer": [-6, -2, 8, n, n],
        "stack_before": [250, 180, 300, 90, 110],
        "stack_after": [244, 178, 308, n, n],
        "fantasyland_next": [False, True, False, True, n],  # KK earns 15 in progressive
        "fantasyland_cards": [n, 14, n, 15, n],
    })
    assert_frame_equal(t.seats, expected)


# -- pairs ------------------------------------------------------------------------------------


def test_pairs_table_in_settlement_order() -> None:
    t = build_tables([worked_example(), hidden_hand()])
    n = None
    expected = _typed(PAIR_COLUMNS, {
        "hand": [0, 0, 0, 1],
        "hand_id": ["PD-1001"] * 3 + ["PD-2"],
        "match": ["M-77"] * 3 + ["PD-2"],
        "table": ["Tashkent 3"] * 3 + ["T1"],
        "stake": [0.1] * 3 + [0.5],
        "currency": ["EUR"] * 3 + ["USD"],
        "a": ["alice", "alice", "bob", "alice"],
        "b": ["bob", "carol", "carol", "bob"],
        # alice-bob: +1 rows, -2 royalties; alice-carol: -1, -4; bob-carol: -1, -2.
        "top": [-1, -1, -1, n],
        "middle": [1, -1, -1, n],
        "bottom": [1, 1, 1, n],
        "scoop": [0, 0, 0, n],
        "royalties": [-2, -4, -2, n],
        "points_due": [-1, -5, -3, n],
        "transferred": [-1, -5, -3, n],
        "capped": [False, False, False, n],
    })
    assert_frame_equal(t.pairs, expected)


def test_capped_pair_is_flagged() -> None:
    # alice scoops bob's foul: 6 + 14 royalties = 20 due, but bob has 12 (R-SETTLE-3).
    r = hand_result("H", [P("alice", 1, KK_FH, 40), P("bob", 2, FOUL, 12)])
    t = build_tables([r])
    assert t.pairs[["points_due", "transferred", "capped"]].astype(object).values.tolist() == [
        [20, 12, True]
    ]
    assert t.seats["transfer"].tolist() == [12, -12]
    assert t.seats["points"].tolist() == [20, -20]
    assert t.seats["fouled"].tolist() == [False, True]
    assert t.seats["royalties"].tolist() == [14, 0]  # R-ROY-4


# -- violations, mismatches, rejections -------------------------------------------------------


@dataclass(frozen=True)
class Rejected:
    file: str
    line: int
    column: int
    message: str


def test_violations_mismatches_and_rejections() -> None:
    bad = worked_example(
        violations=[Finding("R-ACT-2", 17, "bob", "bob placed 3 cards"),
                    Finding("R-MATCH-2", 3, None, "button")],
        mismatches=[Mismatch("alice", "points", -5, -6, 40),
                    Mismatch("bob", "fouled", True, False, 41)],
    )
    t = build_tables([Rejected("y.txt", 1, 1, "no header"), bad,
                      Rejected("y.txt", 40, 9, "bad \udcff byte")])
    assert_frame_equal(t.violations, pd.DataFrame({
        "hand": pd.array([0, 0], dtype="int64"),
        "hand_id": pd.array(["PD-1001"] * 2, dtype="string"),
        "file": pd.array(["x.txt"] * 2, dtype="string"),
        "rule": pd.array(["R-ACT-2", "R-MATCH-2"], dtype="string"),
        "line": pd.array([17, 3], dtype="int64"),
        "player": pd.array(["bob", None], dtype="string"),
        "message": pd.array(["bob placed 3 cards", "button"], dtype="string"),
    }))
    assert_frame_equal(t.mismatches, pd.DataFrame({
        "hand": pd.array([0, 0], dtype="int64"),
        "hand_id": pd.array(["PD-1001"] * 2, dtype="string"),
        "file": pd.array(["x.txt"] * 2, dtype="string"),
        "line": pd.array([40, 41], dtype="int64"),
        "player": pd.array(["alice", "bob"], dtype="string"),
        "field": pd.array(["points", "fouled"], dtype="string"),
        "recorded": pd.array([-5, 1], dtype="Int64"),
        "computed": pd.array([-6, 0], dtype="Int64"),
    }))
    assert_frame_equal(t.rejected, pd.DataFrame({
        "file": pd.array(["y.txt"] * 2, dtype="string"),
        "line": pd.array([1, 40], dtype="int64"),
        "column": pd.array([1, 9], dtype="int64"),
        # A lone surrogate (an undecodable byte) would not survive a UTF-8 or Arrow writer.
        "message": pd.array(["no header", "bad \\udcff byte"], dtype="string"),
    }))
    assert t.hands[["valid", "violations", "mismatches"]].values.tolist() == [[False, 2, 2]]


def test_empty_session_keeps_columns_and_dtypes() -> None:
    t = TableBuilder().build()
    full = build_tables([worked_example()])
    for (name, empty), (_, one) in zip(t.items(), full.items(), strict=True):
        assert len(empty) == 0, name
        assert list(empty.columns) == list(one.columns), name
        # A label column's dtype names its categories: the same kind, the same plain dtype.
        assert [type(d) for d in empty.dtypes] == [type(d) for d in one.dtypes], name
        assert (plain_labels(empty).dtypes.to_dict()
                == plain_labels(one).dtypes.to_dict()), name


def test_royal_flush_is_a_category() -> None:
    royal = "2c 2d 5h / 7s 7d 8c 8h 9d / Ts Js Qs Ks As"
    t = build_tables([hand_result("H", [P("a", 1, royal), P("b", 2, KK_FH)])])
    assert t.seats["bottom"].tolist() == ["royal_flush", "full_house"]
    assert t.seats["royalties_bottom"].tolist() == [25, 6]


def test_replayed_history_matches_the_synthetic_result() -> None:
    """The builder takes the replay's own HandResult the same way (FORMAT.md example)."""
    reader = pytest.importorskip("ofc_audit.history.reader")
    from ofc_audit.audit.driver import audit_items
    from tests.support.histories import WORKED_EXAMPLE

    items = list(audit_items(reader.read_text(WORKED_EXAMPLE, "x.txt"), Ruleset()))
    replayed = build_tables(items)
    synthetic = build_tables([worked_example()])
    if not isinstance(items[0], HandResult):
        pytest.skip(f"the reader rejects the worked example: {items[0]}")
    columns = [c for c in SEAT_COLUMNS if c != "match"]
    assert_frame_equal(replayed.seats[columns], synthetic.seats[columns])
    assert_frame_equal(replayed.pairs.drop(columns="match"),
                       synthetic.pairs.drop(columns="match"))
