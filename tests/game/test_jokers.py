"""Known answers for jokers (R-JOKER-1..3), written by hand from RULES.md.

Candidate order of R-JOKER-2 for equally strong choices: higher rank first, then suits
s, h, d, c; JK1 is assigned before JK2.
"""

from __future__ import annotations

from collections import Counter

import pytest

from ofc_audit.game.board import Board, BoardResult, evaluate_board
from ofc_audit.game.cards import Card, parse_cards
from ofc_audit.game.fantasyland import entry_cards, next_fantasyland
from ofc_audit.game.ruleset import FantasylandType, Ruleset, Variant
from ofc_audit.game.scoring import score_pair
from ofc_audit.present.scorecard import score_table

ROW = Ruleset(variant=Variant.JOKER_PINEAPPLE)
BOARD = ROW.with_options(joker_excludes="board")
KNOWN = ROW.with_options(joker_excludes="known")


def ev(text: str, ruleset: Ruleset = ROW, known: str = "") -> BoardResult:
    board = Board.parse(text)
    natural = [c for c in board.cards if c.is_natural]
    assert len(set(natural)) == len(natural), f"test data error: duplicate card in {text}"
    return evaluate_board(board, ruleset, parse_cards(known))


def assigned(result: BoardResult) -> dict[str, str]:
    return {str(joker): str(card) for joker, card in result.jokers}


def rows(result: BoardResult) -> list[str]:
    return [" ".join(str(c) for c in r.cards) for r in result.rows]


def roy(result: BoardResult) -> tuple[int, int, int, int]:
    r = result.royalties
    return r.top, r.middle, r.bottom, r.total


# --- R-JOKER-1: what a joker may stand for ---------------------------------------------------

ROYAL_DRAW = "2c 3d 4h / Ts 9d 8c 7h 5d / As Ks Qs Js JK1"  # Ts sits in the middle


def test_r_joker_1_row_mode_may_copy_a_card_of_another_row() -> None:
    """R-JOKER-1 (`row`, default): the joker may copy Ts from its own middle: a royal flush."""
    result = ev(ROYAL_DRAW)
    assert assigned(result) == {"JK1": "Ts"}
    assert rows(result)[2] == "As Ks Qs Js Ts"
    assert result.bottom.category == "royal_flush"
    assert not result.fouled
    assert roy(result) == (0, 0, 25, 25)


def test_r_joker_1_row_mode_may_copy_another_players_card() -> None:
    """R-JOKER-1 (`row`): cards elsewhere in the hand do not restrict the joker."""
    result = ev(ROYAL_DRAW, ROW, known="Ts 9s 8s")
    assert assigned(result) == {"JK1": "Ts"}


def test_r_joker_1_board_mode_excludes_own_board() -> None:
    """R-JOKER-1 (`board`): Ts is on the board, so the best bottom is the A K Q J 9 flush."""
    result = ev(ROYAL_DRAW, BOARD)
    assert assigned(result) == {"JK1": "9s"}
    assert result.bottom.category == "flush"
    assert roy(result) == (0, 0, 4, 4)


def test_r_joker_1_known_mode_excludes_every_known_card() -> None:
    """R-JOKER-1 (`known`): Ts (own board) and 9s (seen elsewhere) are out: 8s."""
    result = ev(ROYAL_DRAW, KNOWN, known="9s 6h")
    assert assigned(result) == {"JK1": "8s"}
    assert result.bottom.category == "flush"


def test_r_joker_1_known_mode_through_score_table() -> None:
    """R-JOKER-1 (`known`): the cards of the other boards are known to the table."""
    other = "Ah Kd 2d / 9s 9h 3c 4c 5c / 6s 6d 6c Tc Td"
    boards = [Board.parse(ROYAL_DRAW), Board.parse(other)]
    assert assigned(score_table(boards, KNOWN).results[0]) == {"JK1": "8s"}
    assert assigned(score_table(boards, BOARD).results[0]) == {"JK1": "9s"}
    assert assigned(score_table(boards, ROW).results[0]) == {"JK1": "Ts"}


def test_r_joker_1_no_five_of_a_kind_with_four_aces() -> None:
    """R-JOKER-1: with four aces in the row the joker is no ace: quads with a king."""
    result = ev("2c 3d 4h / 5c 6d 7h 8s Tc / As Ad Ac Ah JK1")
    assert assigned(result) == {"JK1": "Ks"}
    assert result.bottom.category == "quads"
    assert roy(result) == (0, 0, 10, 10)


def test_r_joker_1_no_five_of_a_kind_with_two_jokers() -> None:
    """R-JOKER-1: AAA + two jokers is quads (JK1 = Ah, the 4th ace) with a king, never AAAAA."""
    result = ev("2c 3d 4h / 5c 6d 7h 8s Tc / As Ad Ac JK1 JK2")
    assert assigned(result) == {"JK1": "Ah", "JK2": "Ks"}
    assert max(Counter(c.rank for c in result.bottom.cards).values()) == 4
    assert result.bottom.category == "quads"


def test_r_joker_1_trips_on_top_with_a_joker() -> None:
    """R-JOKER-1: As Ad + joker on top is AAA with Ah (s and d are in the row)."""
    result = ev("As Ad JK1 / 2c 2d 2h 3c 3d / 4c 4d 4h 4s 5c")
    assert assigned(result) == {"JK1": "Ah"}
    assert result.top.category == "trips"
    assert roy(result) == (22, 12, 10, 44)


def test_r_joker_1_two_jokers_never_the_same_card_across_rows() -> None:
    """R-JOKER-1/2: JK2 needs As for the royal bottom, so JK1 (top AAA) takes Ah, not As."""
    result = ev("Ad Ac JK1 / 2c 3d 4h 5s 6c / Ks Qs Js Ts JK2")
    assert assigned(result) == {"JK1": "Ah", "JK2": "As"}
    assert [r.category for r in result.rows] == ["trips", "straight", "royal_flush"]
    assert roy(result) == (22, 4, 25, 51)


def test_r_joker_1_two_jokers_never_the_same_card_in_one_row() -> None:
    """R-JOKER-1/2: two jokers in one row: the royal needs As and Ts; JK1 takes the higher."""
    result = ev("2h 3c 4d / 2c 3d 4h 5s 7c / Ks Qs Js JK1 JK2")
    assert assigned(result) == {"JK1": "As", "JK2": "Ts"}
    assert rows(result)[2] == "Ks Qs Js As Ts"
    assert result.bottom.category == "royal_flush"
    cards = [c for _, c in result.jokers]
    assert len(set(cards)) == 2


def test_r_joker_1_board_mode_other_jokers_card_counts_as_on_the_board() -> None:
    """R-JOKER-1 (`board`): middle takes Ks (K-high straight flush), the only king off the
    board; so the top gets no third king and pairs its kings with As."""
    text = "Kd Kc JK1 / Qs Js Ts 9s JK2 / Ah Kh Qh Jh Th"
    result = ev(text, BOARD)
    assert assigned(result) == {"JK1": "As", "JK2": "Ks"}
    assert [r.category for r in result.rows] == ["pair", "straight_flush", "royal_flush"]
    assert roy(result) == (8, 30, 25, 63)


# --- R-JOKER-2: assigned together; legal first; bottom, middle, top; tie-breaks ----------------


def test_r_joker_2_middle_before_top_in_row_mode() -> None:
    """R-JOKER-2 (`row`): the middle gets Ks (strongest middle), the top then Kh for KKK."""
    result = ev("Kd Kc JK1 / Qs Js Ts 9s JK2 / Ah Kh Qh Jh Th")
    assert assigned(result) == {"JK1": "Kh", "JK2": "Ks"}
    assert roy(result) == (21, 30, 25, 76)


def test_r_joker_2_bottom_before_middle() -> None:
    """R-JOKER-2: bottom needs Th for the royal; the middle settles for 5h (9-high straight
    flush) even though Th would make it T-high."""
    result = ev("2c 3d 4s / 9h 8h 7h 6h JK1 / Ah Kh Qh Jh JK2")
    assert assigned(result) == {"JK1": "5h", "JK2": "Th"}
    assert [r.category for r in result.rows] == ["high_card", "straight_flush", "royal_flush"]
    assert roy(result) == (0, 30, 25, 55)


def test_r_joker_2_never_fouls_top_when_a_legal_assignment_exists() -> None:
    """R-JOKER-2: 222 on top would foul under KK in the middle; 22 with an ace is chosen."""
    result = ev("2s 2d JK1 / Ks Kd 5c 4h 3d / Qs Qd Qc 7h 7d")
    assert not result.fouled
    assert assigned(result) == {"JK1": "As"}
    assert result.top.category == "pair"
    assert roy(result) == (0, 0, 6, 6)


def test_r_joker_2_never_fouls_middle_when_a_legal_assignment_exists() -> None:
    """R-JOKER-2: KKKK or KKK55 in the middle would beat the QQQ77 bottom; KKK A 5 is legal."""
    result = ev("2c 3d 4h / Ks Kd Kc 5h JK1 / Qs Qd Qc 7h 7d")
    assert not result.fouled
    assert assigned(result) == {"JK1": "As"}
    assert result.middle.category == "trips"
    assert roy(result) == (0, 2, 6, 8)


def test_r_joker_2_fouled_when_no_legal_assignment_exists() -> None:
    """R-JOKER-2 / R-ORDER-2: KK + joker on top is over QQ whatever the joker: fouled, no
    royalties, but the joker is still assigned."""
    result = ev("Ks Kd JK1 / Qs Qd 2c 3h 4d / As Ad 7h 8c 9d")
    assert result.fouled
    assert result.foul_rule == "R-ORDER-2"
    assert roy(result) == (0, 0, 0, 0)
    assert len(result.jokers) == 1


def test_r_joker_2_suit_order_s_before_h() -> None:
    """R-JOKER-2: trips of deuces with 2s or 2h are equal: spades first."""
    result = ev("3c 4d 5h / 9c Tc Jd Qh 6s / 2c 2d 7h 8s JK1")
    assert assigned(result) == {"JK1": "2s"}
    assert result.bottom.category == "trips"


@pytest.mark.parametrize(
    ("ruleset", "known", "card"),
    [(ROW, "", "As"), (BOARD, "", "Ah"), (KNOWN, "Ah", "Ac"), (KNOWN, "", "Ah")],
)
def test_r_joker_2_higher_rank_then_suit_for_a_kicker(
    ruleset: Ruleset, known: str, card: str
) -> None:
    """R-JOKER-2: KKK would foul over AA in the middle, so the joker is the best kicker: an ace,
    As first (`row` may copy the middle's As), else Ah, else Ac."""
    result = ev("Ks Kd JK1 / As Ad 2c 3h 4d / 9s 9h 9c 5s 5d", ruleset, known)
    assert assigned(result) == {"JK1": card}
    assert result.top.category == "pair"
    assert roy(result) == (8, 0, 6, 14)


def test_r_joker_2_two_jokers_on_one_board_are_evaluated() -> None:
    """R-JOKER-2: two jokers in different rows (performance is measured by the benchmark)."""
    result = ev("Qs 5c 2d / 9h 8h JK2 6h 5d / Ah Kh Qh JK1 2h")
    assert not result.fouled
    # The bottom is a flush whatever JK1 is: the best flush is A K Q J 2 (Jh).
    assert assigned(result)["JK1"] == "Jh"
    assert result.bottom.category == "flush"
    # The middle 9 8 x 6 5 is a straight with a 7: 7s first.
    assert assigned(result)["JK2"] == "7s"
    assert result.middle.category == "straight"
    assert roy(result) == (0, 4, 4, 8)


def test_r_joker_2_resolved_cards_keep_input_order() -> None:
    """R-JOKER-2 / CLI.md: each joker is replaced in place by the card it stands for."""
    result = ev("JK1 Kd Qc / 2c 3d 4h 5s 7c / Ks Qs Js Ts 9s")
    assert rows(result)[0].split()[1:] == ["Kd", "Qc"]
    assert result.jokers[0][0] == Card.parse("JK1")


def test_r_joker_2_incomplete_board_with_joker_is_fouled() -> None:
    """R-ROW-3 with a joker: fewer than 13 cards is fouled, no royalties."""
    result = evaluate_board(Board.parse("As JK1 / 2c 3d 4h 5s 7c / Ks Qs Js Ts 9s"), ROW)
    assert result.fouled
    assert result.foul_rule == "R-ROW-3"
    assert roy(result) == (0, 0, 0, 0)


# --- R-JOKER-3: a joker row is worth the same natural row -------------------------------------

JOKER_QQ = "Qs JK1 5c / Ks Kd 9c 8h 2d / As Ad Ac 7h 7d"
NATURAL_QQ = "Qs Qh 5c / Ks Kd 9c 8h 2d / As Ad Ac 7h 7d"


def test_r_joker_3_joker_pair_of_queens_scores_like_the_natural_one() -> None:
    """R-JOKER-3: Qs + joker + 5c is QQ5 (JK1 = Qh): 7 royalties, Fantasyland 14 cards."""
    joker, natural = ev(JOKER_QQ), ev(NATURAL_QQ)
    assert assigned(joker) == {"JK1": "Qh"}
    assert [r.value for r in joker.rows] == [r.value for r in natural.rows]
    assert roy(joker) == roy(natural) == (7, 0, 6, 13)
    for fl_type in FantasylandType:
        for variant in Variant:
            assert entry_cards(joker, variant, fl_type) == entry_cards(natural, variant, fl_type)
    assert entry_cards(joker, Variant.JOKER_PINEAPPLE, FantasylandType.STANDARD) == 14


def test_r_joker_3_joker_row_wins_and_ties_rows_like_the_natural_one() -> None:
    """R-JOKER-3: against the same natural board every row ties and no points move."""
    assert score_pair(ev(JOKER_QQ), ev(NATURAL_QQ), ROW) == ((0, 0, 0), 0, 0, 0)
    weaker = ev("Js Jd 5d / Kh Kc 9d 8s 2c / 3s 3d 3c 7s 7c")
    rows_, scoop, royalties, points = score_pair(ev(JOKER_QQ), weaker, ROW)
    assert rows_ == (1, 0, 1)  # QQ beats JJ; KK98 2 ties; AAA77 beats 33377
    assert scoop == 0
    assert royalties == 13 - (6 + 0 + 6)
    assert points == 2 + 1


def test_r_joker_3_joker_trips_on_top_qualify_and_stay() -> None:
    """R-JOKER-3 / R-FL-2 / R-FL-3: QQ + joker is QQQ (20), progressive entry 17, stays."""
    result = ev("Qs Qd JK1 / Ks Kd Kc 2h 3d / As Ad Ac 7h 7d")
    assert assigned(result) == {"JK1": "Qh"}
    assert roy(result) == (20, 2, 6, 28)
    assert entry_cards(result, Variant.JOKER_PINEAPPLE, FantasylandType.PROGRESSIVE) == 17
    assert next_fantasyland(
        result, Variant.JOKER_PINEAPPLE, FantasylandType.STANDARD, in_fantasyland=True
    ) == 14


def test_r_joker_3_joker_bottom_earns_royal_royalties() -> None:
    """R-JOKER-3: a joker royal flush on the bottom earns 25 like a natural one."""
    natural = ev("2c 3d 4h / Th 9d 8c 7h 5d / As Ks Qs Js Ts")
    assert ev(ROYAL_DRAW).royalties.bottom == natural.royalties.bottom == 25
