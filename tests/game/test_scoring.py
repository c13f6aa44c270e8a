"""Known answers for scoring (R-SCORE-1..5) and settlement (R-SETTLE-1..4), written by hand
from RULES.md."""

from __future__ import annotations

import pytest

from ofc_audit.game.board import Board, BoardResult, evaluate_board
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.game.scoring import capped_transfer, pair_order, score_pair, settle, settle_transfers

STANDARD = Ruleset()


def ev(text: str, ruleset: Ruleset = STANDARD) -> BoardResult:
    board = Board.parse(text)
    assert len(set(board.cards)) == 13, f"test data error: {text}"
    return evaluate_board(board, ruleset)


# CLI.md's worked example: royalties 11, 13, 15.
EX1 = "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"
EX2 = "Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd"
EX3 = "As Ac Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h"
# KK top, two pair middle, full house bottom: 8 + 0 + 6 = 14 royalties each.
TIE_A = "Kh Kd 2c / As Ad 7c 7d 3h / 9s 9h 9c 4d 4h"
TIE_B = "Ks Kc 2d / Qs Qd 8c 8d 3s / 6s 6h 6c 5d 5h"
# Beaten by TIE_A on every row; QQ 7 + FH 6 = 13 royalties.
SCOOPED = "Qh Qc 2d / Js Jd 8c 8d 3s / 6s 6h 6c 5d 5h"
# No royalties on either board; A wins every row.
PLAIN_A = "Ah Kd 2c / As Ad 7c 8d 3h / 9s 9h 9c 4d 5h"
PLAIN_B = "Qh Jc 2d / Ks Kd 8c 9d 3s / 6s 6h 6c 5d 4h"
# Fouled boards (would earn QQ 7 + FH 6, and 0) and a live board worth 8 + 0 + 6 = 14.
FOUL = "Qs Qd 7c / Qh Qc 6d 5s 4h / 2s 2d 2h 9c 9d"
FOUL2 = "Ah Ac Kc / Ts Td Th 5h 5d / Js Jh Jc 6s 2c"
LIVE = "Kh Kd 3c / As Ad 7h 7d 3h / 8s 8h 8c 4d 4c"


def test_boards_royalties_and_fouls_as_intended() -> None:
    """Sanity of the data above."""
    totals = {t: ev(t).royalties.total for t in (EX1, EX2, EX3, TIE_A, TIE_B, SCOOPED, PLAIN_A,
                                                  PLAIN_B, LIVE)}
    assert list(totals.values()) == [11, 13, 15, 14, 14, 13, 0, 0, 14]
    assert ev(FOUL).fouled and ev(FOUL2).fouled
    assert not any(ev(t).fouled for t in totals)


# --- R-SCORE-1: rows pairwise -------------------------------------------------------------------


def test_r_score_1_rows_of_the_worked_example() -> None:
    """R-SCORE-1: P1 v P2: top 66 < QQ, middle KK33 > 9955, bottom quads > full house."""
    assert score_pair(ev(EX1), ev(EX2), STANDARD) == ((-1, 1, 1), 0, -2, -1)
    assert score_pair(ev(EX1), ev(EX3), STANDARD) == ((-1, -1, 1), 0, -4, -5)
    assert score_pair(ev(EX2), ev(EX3), STANDARD) == ((-1, -1, 1), 0, -2, -3)


def test_r_score_1_tied_row_scores_zero_and_prevents_the_scoop() -> None:
    """R-SCORE-1/2: KK2 v KK2 ties (suits never count); winning the other two is 2, no scoop."""
    assert score_pair(ev(TIE_A), ev(TIE_B), STANDARD) == ((0, 1, 1), 0, 0, 2)
    assert score_pair(ev(TIE_B), ev(TIE_A), STANDARD) == ((0, -1, -1), 0, 0, -2)


def test_r_score_1_identical_values_score_nothing() -> None:
    """R-SCORE-1: a board against an equal board (suits changed) ties every row."""
    a = ev("Ks Kd 2c / Qs Qd 8c 8d 3s / 6s 6h 6c 5d 5h")
    b = ev("Kh Kc 2d / Qh Qc 8h 8s 3d / 6s 6h 6c 5d 5h")
    assert score_pair(a, b, STANDARD) == ((0, 0, 0), 0, 0, 0)


# --- R-SCORE-2: scoop ------------------------------------------------------------------------


def test_r_score_2_scoop_is_worth_6_by_default() -> None:
    """R-SCORE-2: three rows + 3 bonus = 6 (no royalties on either side)."""
    assert score_pair(ev(PLAIN_A), ev(PLAIN_B), STANDARD) == ((1, 1, 1), 3, 0, 6)
    assert score_pair(ev(PLAIN_B), ev(PLAIN_A), STANDARD) == ((-1, -1, -1), -3, 0, -6)


@pytest.mark.parametrize(("bonus", "points"), [(0, 3), (3, 6), (5, 8)])
def test_r_score_2_scoop_bonus_option(bonus: int, points: int) -> None:
    """R-SCORE-2: option `scoop_bonus`."""
    ruleset = STANDARD.with_options(scoop_bonus=bonus)
    a, b = ev(PLAIN_A, ruleset), ev(PLAIN_B, ruleset)
    assert score_pair(a, b, ruleset) == ((1, 1, 1), bonus, 0, points)


def test_r_score_2_scoop_with_royalties() -> None:
    """R-SCORE-2/4: KK beats QQ, AA77 beats JJ88, 99944 beats 66655: 3 + 3 + (14 - 13) = 7."""
    assert score_pair(ev(TIE_A), ev(SCOOPED), STANDARD) == ((1, 1, 1), 3, 1, 7)
    assert score_pair(ev(SCOOPED), ev(TIE_A), STANDARD) == ((-1, -1, -1), -3, -1, -7)


# --- R-SCORE-3: fouls ----------------------------------------------------------------------------


def test_r_score_3_fouled_against_live_pays_6_plus_royalties() -> None:
    """R-SCORE-3: the fouled hand loses 3 rows + scoop and pays the live hand's 14 royalties."""
    assert score_pair(ev(FOUL), ev(LIVE), STANDARD) == ((-1, -1, -1), -3, -14, -20)
    assert score_pair(ev(LIVE), ev(FOUL), STANDARD) == ((1, 1, 1), 3, 14, 20)


def test_r_score_3_fouled_against_live_without_royalties_is_6() -> None:
    """R-SCORE-3: fouled against a live board without royalties: exactly -6."""
    assert score_pair(ev(FOUL), ev(PLAIN_B), STANDARD)[3] == -6


def test_r_score_3_fouled_loses_the_scoop_bonus_option() -> None:
    """R-SCORE-3 with `scoop_bonus` 5: -3 - 5 - 14 = -22."""
    ruleset = STANDARD.with_options(scoop_bonus=5)
    assert score_pair(ev(FOUL, ruleset), ev(LIVE, ruleset), ruleset) == ((-1, -1, -1), -5, -14, -22)


def test_r_score_3_fouled_earns_no_royalties_even_with_royalty_rows() -> None:
    """R-SCORE-3/R-ROY-4: FOUL has QQ on top and a full house, but earns nothing."""
    assert ev(FOUL).royalties.total == 0


def test_r_score_3_two_fouled_hands_score_zero() -> None:
    """R-SCORE-3: two fouled hands score 0 against each other."""
    assert score_pair(ev(FOUL), ev(FOUL2), STANDARD) == ((0, 0, 0), 0, 0, 0)
    assert score_pair(ev(FOUL2), ev(FOUL), STANDARD) == ((0, 0, 0), 0, 0, 0)


def test_r_score_3_two_fouled_and_one_live() -> None:
    """R-SCORE-3/5: each fouled hand pays 20 to the live one and nothing to the other."""
    s = settle([ev(FOUL), ev(FOUL2), ev(LIVE)], STANDARD)
    assert s.points == (-20, -20, 40)
    assert [p.points_a for p in s.pairs] == [0, -20, -20]


# --- R-SCORE-4: royalties ------------------------------------------------------------------------


def test_r_score_4_royalties_net_whatever_the_rows() -> None:
    """R-SCORE-4: P1 wins two rows against P2 but pays 13 - 11 = 2 royalties."""
    rows, scoop, royalties, points = score_pair(ev(EX1), ev(EX2), STANDARD)
    assert sum(rows) == 1 and scoop == 0
    assert royalties == 11 - 13
    assert points == 1 - 2


def test_r_score_4_royalties_none_option() -> None:
    """R-SCORE-4 `royalties = none`: only rows and scoops count: 0, -2, +2."""
    ruleset = STANDARD.with_options(royalties="none")
    s = settle([ev(t, ruleset) for t in (EX1, EX2, EX3)], ruleset)
    assert [p.royalties for p in s.pairs] == [0, 0, 0]
    assert s.points == (0, -2, 2)
    assert score_pair(ev(FOUL, ruleset), ev(LIVE, ruleset), ruleset)[3] == -6


# --- R-SCORE-5: sum of pairs, zero-sum ------------------------------------------------------


def test_r_score_5_worked_example_points() -> None:
    """R-SCORE-5: P1 -1 - 5 = -6; P2 +1 - 3 = -2; P3 +5 + 3 = +8; zero-sum."""
    s = settle([ev(EX1), ev(EX2), ev(EX3)], STANDARD)
    assert s.points == (-6, -2, 8)
    assert sum(s.points) == 0
    assert s.stacks_before is None and s.stacks_after is None
    assert [p.transfer_to_a for p in s.pairs] == [None, None, None]


def test_r_score_5_four_players_zero_sum() -> None:
    """R-SCORE-5 with four boards (Classic): zero-sum; points are sums of the pairs."""
    boards = [ev(TIE_A), ev(TIE_B), ev(PLAIN_B), ev(FOUL)]
    s = settle(boards, STANDARD)
    assert sum(s.points) == 0
    for i in range(4):
        expected = sum(p.points_a for p in s.pairs if p.a == i) - sum(
            p.points_a for p in s.pairs if p.b == i
        )
        assert s.points[i] == expected


# --- R-SETTLE-2: pair order -----------------------------------------------------------------------


def test_r_settle_2_pair_order() -> None:
    """R-SETTLE-2: (P1,P2), (P1,P3), ..., (Pn-1,Pn)."""
    assert list(pair_order(2)) == [(0, 1)]
    assert list(pair_order(3)) == [(0, 1), (0, 2), (1, 2)]
    assert list(pair_order(4)) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    s = settle([ev(EX1), ev(EX2), ev(EX3)], STANDARD)
    assert [(p.a, p.b) for p in s.pairs] == [(0, 1), (0, 2), (1, 2)]


# --- R-SETTLE-3: stack cap ------------------------------------------------------------------------


def test_r_settle_3_check_of_rules_md() -> None:
    """R-SETTLE-3: P1 5, P2 10, BTN 135; P1 beats P2 by 10 -> 5 moves; P1 beats BTN by 40 -> 10
    moves; BTN beats P2 by 20 -> 5 moves; P2 ends at 0."""
    transfers, stacks = settle_transfers([10, 40, -20], [5, 10, 135], stack_cap=True)
    assert transfers == [5, 10, -5]
    assert [abs(t) for t in transfers] == [5, 10, 5]
    assert stacks == [20, 0, 130]
    assert stacks[1] == 0


def test_r_settle_3_worked_example_stacks() -> None:
    """R-SETTLE-3: 250, 180, 300 with -1, -5, -3 due: nobody is capped: 244, 178, 308."""
    s = settle([ev(EX1), ev(EX2), ev(EX3)], STANDARD, [250, 180, 300])
    assert [p.transfer_to_a for p in s.pairs] == [-1, -5, -3]
    assert s.stacks_before == (250, 180, 300)
    assert s.stacks_after == (244, 178, 308)
    assert not any(p.capped for p in s.pairs)


def test_r_settle_3_capped_by_losers_stack() -> None:
    """R-SETTLE-3: the fouled loser owes 20 but has 5: 5 moves; points still show -20."""
    s = settle([ev(FOUL), ev(LIVE)], STANDARD, [5, 100])
    assert s.points == (-20, 20)
    assert s.pairs[0].points_a == -20
    assert s.pairs[0].transfer_to_a == -5
    assert s.pairs[0].capped
    assert s.stacks_after == (0, 105)


def test_r_settle_3_capped_by_winners_stack() -> None:
    """R-SETTLE-3: the winner wins 20 but has only 3: 3 moves."""
    s = settle([ev(LIVE), ev(FOUL)], STANDARD, [3, 50])
    assert s.pairs[0].transfer_to_a == 3
    assert s.stacks_after == (6, 47)


def test_r_settle_3_next_pair_uses_changed_stacks() -> None:
    """R-SETTLE-3: stacks 10, 10, 5; (P1,P2) 0 moves; (P1,BTN) 20 due, 5 move (BTN's stack);
    (P2,BTN) 20 due, BTN now has 10: 10 move."""
    s = settle([ev(FOUL), ev(FOUL2), ev(LIVE)], STANDARD, [10, 10, 5])
    assert [p.transfer_to_a for p in s.pairs] == [0, -5, -10]
    assert s.stacks_after == (5, 0, 20)
    assert sum(s.stacks_after) == 25


@pytest.mark.parametrize(
    ("due", "stack_a", "stack_b", "moved"),
    [
        (10, 5, 10, 5),
        (40, 10, 135, 10),
        (-20, 5, 125, -5),
        (-20, 125, 5, -5),
        (7, 100, 100, 7),
        (-7, 100, 100, -7),
        (0, 100, 100, 0),
        (12, 0, 100, 0),
        (-12, 100, 0, 0),
    ],
)
def test_r_settle_3_capped_transfer(due: int, stack_a: int, stack_b: int, moved: int) -> None:
    """R-SETTLE-3: min(points due, winner's stack, loser's stack), with the due's sign."""
    assert capped_transfer(due, stack_a, stack_b) == moved


# --- R-SETTLE-4: no cap ------------------------------------------------------------------------


def test_r_settle_4_without_cap_transfers_equal_dues_and_stacks_go_negative() -> None:
    """R-SETTLE-4: `stack_cap = false`: the check of R-SETTLE-3 moves 10, 40, 20: P2 at -20."""
    transfers, stacks = settle_transfers([10, 40, -20], [5, 10, 135], stack_cap=False)
    assert transfers == [10, 40, -20]
    assert stacks == [55, -20, 115]


def test_r_settle_4_without_cap_through_settle() -> None:
    """R-SETTLE-4: the fouled player with 5 pays the whole 20 and ends at -15."""
    ruleset = STANDARD.with_options(stack_cap=False)
    s = settle([ev(FOUL, ruleset), ev(LIVE, ruleset)], ruleset, [5, 100])
    assert s.pairs[0].transfer_to_a == -20
    assert not s.pairs[0].capped
    assert s.stacks_after == (-15, 120)
    s = settle([ev(t, ruleset) for t in (FOUL, FOUL2, LIVE)], ruleset, [10, 10, 5])
    assert s.stacks_after == (-10, -10, 45)


def test_r_settle_3_player_at_zero_moves_nothing() -> None:
    """R-SETTLE-3/4: a busted (0) stack can neither pay nor win."""
    s = settle([ev(LIVE), ev(FOUL)], STANDARD, [0, 50])
    assert s.pairs[0].transfer_to_a == 0
    assert s.stacks_after == (0, 50)
