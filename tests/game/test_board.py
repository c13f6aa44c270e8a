"""Known answers for boards: rows (R-ROW-1..3), order and fouls (R-ORDER-1/2) and royalties
(R-ROY-1..4), written by hand from RULES.md."""

from __future__ import annotations

import pytest

from ofc_audit.game.board import Board, BoardResult, evaluate_board, royalty_for
from ofc_audit.game.cards import CardError, parse_cards
from ofc_audit.game.record import Row
from ofc_audit.game.row_values import FIVE_TABLE, FLUSH_TABLE, THREE_TABLE, value_of
from ofc_audit.game.ruleset import ROYALTY_TABLES, Ruleset


def ev(text: str, ruleset: Ruleset | None = None) -> BoardResult:
    board = Board.parse(text)
    natural = [c for c in board.cards if c.is_natural]
    assert len(set(natural)) == len(natural), f"test data error: duplicate card in {text}"
    return evaluate_board(board, ruleset)


def roy(result: BoardResult) -> tuple[int, int, int, int]:
    r = result.royalties
    return r.top, r.middle, r.bottom, r.total


# --- R-ROW-1..3 -----------------------------------------------------------------------------


def test_r_row_1_three_rows_of_3_5_5() -> None:
    """R-ROW-1: top 3 cards, middle 5, bottom 5, 13 cards; input order kept."""
    board = Board.parse("Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d")
    assert [len(r) for r in board.rows] == [3, 5, 5]
    assert len(board.cards) == 13
    result = evaluate_board(board)
    assert [str(c) for c in result.middle.cards] == ["Kd", "2h", "3c", "Ks", "3s"]
    assert [r.row for r in result.rows] == [Row.TOP, Row.MIDDLE, Row.BOTTOM]
    assert all(r.complete for r in result.rows)


def test_r_row_1_board_text_needs_three_rows() -> None:
    """R-ROW-1: a board is TOP / MIDDLE / BOTTOM; two parts is not a board."""
    with pytest.raises(CardError, match="TOP / MIDDLE / BOTTOM"):
        Board.parse("Ah 6c 6d / Kd 2h 3c Ks 3s 7c 7s 3d 7h 7d")


def test_r_row_2_no_straight_or_flush_on_top() -> None:
    """R-ROW-2: 2h 3h 4h on top is high card, earns nothing and loses to a pair of deuces."""
    result = ev("2h 3h 4h / 2s 2d 7c 8s 9d / Ts Td Tc Js Jd")
    assert not result.fouled
    assert result.top.category == "high_card"
    assert result.royalties.top == 0


@pytest.mark.parametrize(
    "text",
    [
        "Ah 6c / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d",  # 12 cards, short top
        "Ah 6c 6d / Kd 2h 3c Ks / 7c 7s 3d 7h 7d",  # 12 cards, short middle
        "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h",  # 12 cards, short bottom
        "Ah 6c 6d 9s / Kd 2h 3c Ks / 7c 7s 3d 7h 7d",  # 13 cards, top over its size
        "Ah 6c 6d / Kd 2h 3c Ks 3s 9s / 7c 7s 3d 7h",  # 13 cards, middle over its size
        "Ah 6c 6d / Kd 2h 3c Ks / 7c 7s 3d 7h 7d 9s",  # 13 cards, bottom over its size
        " / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d",  # 10 cards, empty top
    ],
)
def test_r_row_3_incomplete_or_oversized_board_is_fouled(text: str) -> None:
    """R-ROW-3: fewer than 13 cards, or a row over its size, is fouled (with no royalties)."""
    result = evaluate_board(Board.parse(text))
    assert result.fouled
    assert result.foul_rule == "R-ROW-3"
    assert roy(result) == (0, 0, 0, 0)


# --- R-ORDER-1: top <= middle <= bottom, equal allowed ---------------------------------------


def test_r_order_1_middle_stronger_than_bottom_fouls() -> None:
    """R-ORDER-1: two pair in the middle over one pair on the bottom is a foul."""
    result = ev("2s 3d 4c / Ks Kd Qc Qh 5s / As Ad 7c 8h 9s")
    assert result.fouled
    assert result.foul_rule == "R-ORDER-1"


def test_r_order_1_equal_middle_and_bottom_is_legal() -> None:
    """R-ORDER-1: equal is allowed: the same 9-high straight in middle and bottom."""
    result = ev("2s 3d 4c / 5s 6d 7c 8h 9s / 5h 6c 7d 8s 9h")
    assert not result.fouled
    assert result.middle.value == result.bottom.value
    assert roy(result) == (0, 4, 2, 6)


def test_r_order_1_equal_royal_flushes_are_legal() -> None:
    """R-ORDER-1: a royal flush in the middle equal to the bottom one is legal (50 + 25)."""
    result = ev("2c 3d 5h / Th Jh Qh Kh Ah / Ts Js Qs Ks As")
    assert not result.fouled
    assert roy(result) == (0, 50, 25, 75)


def test_r_order_1_legal_board() -> None:
    """R-ORDER-1: the first board of CLI.md's example is legal (66 < two pair < quads)."""
    result = ev("Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d")
    assert not result.fouled
    assert result.foul_rule is None
    assert [r.category for r in result.rows] == ["pair", "two_pair", "quads"]


# --- R-ORDER-2: top (3 cards) against middle (5 cards) -------------------------------------

# The five examples of R-ORDER-2, verbatim, each completed with a bottom that is stronger
# than the middle so that only the top/middle comparison decides.
R_ORDER_2_EXAMPLES = [
    ("Qs Qd 7c", "Qh Qc 6d 5s 4h", "2s 2d 2h 9c 9d", True),  # FOUL (7 > 6)
    ("Qs Qd 7c", "Qh Qc 9d 8s 2h", "3s 3d 3h Tc Td", False),  # legal
    ("As Kd 3c", "Ah Kc 2d 2s 5h", "7s 7d 7h Jc Jd", False),  # legal (pair beats high card)
    ("As Kd Qc", "Ah Kc Jd 4s 3h", "7s 7d 7h Jc 9d", True),  # foul (Q > J)
    ("As Kd 3c", "Ah Kc 2d 4s 5h", "7s 7d 7h Jc Jd", False),  # legal (A K 5 4 2)
]


@pytest.mark.parametrize(("top", "middle", "bottom", "foul"), R_ORDER_2_EXAMPLES)
def test_r_order_2_examples_of_rules_md(top: str, middle: str, bottom: str, foul: bool) -> None:
    """R-ORDER-2: the five examples of RULES.md, verbatim."""
    result = ev(f"{top} / {middle} / {bottom}")
    assert result.fouled is foul
    assert result.foul_rule == ("R-ORDER-2" if foul else None)
    assert (value_of(parse_cards(top)) > value_of(parse_cards(middle))) is foul


@pytest.mark.parametrize(
    ("top", "middle"),
    [
        ("Qs Qd 7c", "Qh Qc 7d 5s 4h"),  # same pair, same kicker: the middle's 5 4 not compared
        ("Ah Kd 9c", "As Kc 9d 5s 2h"),  # high card A K 9 against A K 9 5 2
        ("Ah Kd 9c", "As Kc 9d 3s 2h"),
    ],
)
def test_r_order_2_equal_top_and_middle_is_legal(top: str, middle: str) -> None:
    """R-ORDER-2: equal over the top's ranks means equal rows: not a foul."""
    result = ev(f"{top} / {middle} / 8s 8d 8h 6c 6d")
    assert not result.fouled


def test_r_order_2_trips_on_top_over_two_pair_fouls() -> None:
    """R-ORDER-2: category first: 555 on top over KKQQ in the middle is a foul."""
    result = ev("5s 5d 5c / Ks Kd Qc Qh 2s / As Ad Ac 7h 7d")
    assert result.fouled
    assert result.foul_rule == "R-ORDER-2"
    assert roy(result) == (0, 0, 0, 0)


def test_r_order_2_pair_of_aces_on_top_under_two_small_pairs_is_legal() -> None:
    """R-ORDER-2: category first: AA on top under 3322 is legal."""
    result = ev("As Ad Kc / 3s 3d 2c 2h 4s / 9s 9d 9c 5h 5d")
    assert not result.fouled
    assert roy(result) == (9, 0, 6, 15)


def test_r_order_2_pair_rank_decides_before_kickers() -> None:
    """R-ORDER-2: the pair's rank first: QQ2 under QQ543 is legal, KK2 over QQA54 fouls."""
    assert not ev("Qs Qd 2c / Qh Qc 3d 4s 5h / 8s 8d 8h 6c 6d").fouled
    result = ev("Ks Kd 2c / Qh Qc Ad 4s 5h / 8s 8d 8h 6c 6d")
    assert result.fouled and result.foul_rule == "R-ORDER-2"


# --- R-ROY-1: bottom ------------------------------------------------------------------------

TOP, MIDDLE = "2c 3d 5h", "7s 8d Tc Jh Ks"  # a legal weak top and middle, no royalties


@pytest.mark.parametrize(
    ("bottom", "category", "royalty"),
    [
        ("As Qd 9c 6h 4s", "high_card", 0),
        ("Ah Ad 9c 6h 4s", "pair", 0),
        ("Ah Ad 9c 9h 4s", "two_pair", 0),
        ("Ah Ad Ac 6h 4s", "trips", 0),
        ("Ah 2d 3s 4c 5c", "straight", 2),  # the wheel counts as a straight
        ("9c Th Jd Qc Kd", "straight", 2),
        ("2h 4h 6h 8h Th", "flush", 4),
        ("6s 6d 6c 9h 9s", "full_house", 6),
        ("6s 6d 6c 6h 9s", "quads", 10),
        ("5c 6c 7c 8c 9c", "straight_flush", 15),
        ("As 2s 3s 4s 5s", "straight_flush", 15),
        ("Td Jd Qd Kd Ad", "royal_flush", 25),
    ],
)
def test_r_roy_1_bottom_table(bottom: str, category: str, royalty: int) -> None:
    """R-ROY-1: bottom straight 2, flush 4, full house 6, quads 10, straight flush 15, royal 25."""
    result = ev(f"{TOP} / {MIDDLE} / {bottom}")
    assert not result.fouled
    assert result.bottom.category == category
    assert roy(result) == (0, 0, royalty, royalty)
    assert royalty_for(Row.BOTTOM, result.bottom.value, Ruleset()) == royalty


# --- R-ROY-2: middle ------------------------------------------------------------------------

BOTTOM_ROYAL = "Ts Js Qs Ks As"


@pytest.mark.parametrize(
    ("middle", "category", "royalty"),
    [
        ("7h 8d 9c Jh Kd", "high_card", 0),
        ("7h 7d 9c Jh Kd", "pair", 0),
        ("7h 7d 9c 9h Kd", "two_pair", 0),
        ("7h 7d 7c Jh Kd", "trips", 2),
        ("7h 8d 9c Th Jd", "straight", 4),
        ("Ah 2d 3h 4c 5d", "straight", 4),
        ("2h 4h 6h 8h Th", "flush", 8),
        ("7h 7d 7c Kh Kd", "full_house", 12),
        ("7h 7d 7c 7s Kd", "quads", 20),
        ("5d 6d 7d 8d 9d", "straight_flush", 30),
        ("Th Jh Qh Kh Ah", "royal_flush", 50),
    ],
)
def test_r_roy_2_middle_table(middle: str, category: str, royalty: int) -> None:
    """R-ROY-2: middle trips 2, straight 4, flush 8, full house 12, quads 20, straight flush 30,
    royal 50 (bottom is a royal flush worth 25 in every case)."""
    result = ev(f"2c 3d 5h / {middle} / {BOTTOM_ROYAL}")
    assert not result.fouled
    assert result.middle.category == category
    assert roy(result) == (0, royalty, 25, royalty + 25)
    assert royalty_for(Row.MIDDLE, result.middle.value, Ruleset()) == royalty


# --- R-ROY-3: top ---------------------------------------------------------------------------

TOP_TABLE = {
    # pairs: 22..55 earn nothing
    "2s 2d Ac": 0, "3s 3d Ac": 0, "4s 4d Ac": 0, "5s 5d Ac": 0,
    "6s 6d 2c": 1, "7s 7d 2c": 2, "8s 8d 2c": 3, "9s 9d 2c": 4, "Ts Td 2c": 5,
    "Js Jd 2c": 6, "Qs Qd 2c": 7, "Ks Kd 2c": 8, "As Ad 2c": 9,
    # trips: 222 10 ... AAA 22
    "2s 2d 2c": 10, "3s 3d 3c": 11, "4s 4d 4c": 12, "5s 5d 5c": 13, "6s 6d 6c": 14,
    "7s 7d 7c": 15, "8s 8d 8c": 16, "9s 9d 9c": 17, "Ts Td Tc": 18, "Js Jd Jc": 19,
    "Qs Qd Qc": 20, "Ks Kd Kc": 21, "As Ad Ac": 22,
    # high card: 0
    "As Kd Qc": 0, "2s 3d 4c": 0,
}


@pytest.mark.parametrize(("top", "royalty"), list(TOP_TABLE.items()))
def test_r_roy_3_top_table(top: str, royalty: int) -> None:
    """R-ROY-3: 66 1 ... AA 9; 222 10 ... AAA 22; lower pairs and high card 0."""
    assert royalty_for(Row.TOP, value_of(parse_cards(top)), Ruleset()) == royalty


@pytest.mark.parametrize(
    ("text", "royalties"),
    [
        ("6s 6d 2c / 7h 7d 9c Jh Kd / Ts Js Qs Ks As", (1, 0, 25)),
        ("5s 5d Ac / 7h 7d 9c Jh Kd / Ts Js Qs Ks As", (0, 0, 25)),
        ("As Ad Kc / 2h 2d 2c 3h 4d / 9h 9d 9c 9s 5s", (9, 2, 10)),
        ("Qs Qd Qc / Ah Ad Ac 2h 2d / 9h 9d 9c 9s 5s", (20, 12, 10)),
        ("2s 2d 2c / 3h 3d 3c 7s 8d / 4c 4d 4s Jc Jd", (10, 2, 6)),
        ("As Ad Ah / 2h 3h 4h 5h 6h / Tc Jc Qc Kc Ac", (22, 30, 25)),
        ("Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d", (1, 0, 10)),  # CLI.md example, board 1
        ("Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd", (7, 0, 6)),  # board 2
        ("As Ac Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h", (9, 2, 4)),  # board 3
    ],
)
def test_r_roy_1_to_3_whole_boards(text: str, royalties: tuple[int, int, int]) -> None:
    """R-ROY-1..3 on whole boards: the royalty of each row and the total."""
    result = ev(text)
    assert not result.fouled
    assert roy(result) == (*royalties, sum(royalties))


# --- R-ROY-4: a fouled hand earns nothing ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Qs Qd Qc / Ah Ad 5c 2h 3d / 9h 9d 9c 4s 5s",  # QQQ over AA: R-ORDER-2
        "As Ad Kc / 2h 2d 2c 2s 4d / 9h 9d 9c 8s 5s",  # quads over trips: R-ORDER-1
        "Qs Qd 7c / Qh Qc 6d 5s 4h / 2s 2d 2h 9c 9d",  # the first R-ORDER-2 example
        "As Ad / Th Jh Qh Kh Ah / Ts Js Qs Ks 9s 2c",  # R-ROW-3
        "As Ad Ac / 2h 3h 4h 5h 6h / Ts Js Qs Ks Kd",  # AAA 22 + SF 30, but bottom is a pair
    ],
)
def test_r_roy_4_fouled_board_has_zero_royalties(text: str) -> None:
    """R-ROY-4: all royalty fields of a fouled hand are 0."""
    result = ev(text)
    assert result.fouled
    assert roy(result) == (0, 0, 0, 0)


def test_r_score_4_royalties_none_option() -> None:
    """R-SCORE-4: with `royalties = none` a legal board earns nothing."""
    ruleset = Ruleset().with_options(royalties="none")
    result = ev("Qs Qd Qc / Ah Ad Ac 2h 2d / 9h 9d 9c 9s 5s", ruleset)
    assert not result.fouled
    assert roy(result) == (0, 0, 0, 0)


def test_royalty_depends_on_category_and_first_rank_only() -> None:
    """The evaluator memoises a board's royalties by each row's ``value >> 16`` (category and
    first rank): every row value with the same key has the same royalty, on every row."""
    five = [*FIVE_TABLE.values(), *FLUSH_TABLE.values()]
    rows = ((Row.TOP, [*THREE_TABLE.values()]), (Row.MIDDLE, five), (Row.BOTTOM, five))
    for table in ROYALTY_TABLES:
        ruleset = Ruleset().with_options(royalty_table=table)
        for row, values in rows:
            by_key: dict[int, set[int]] = {}
            for value in values:
                by_key.setdefault(value >> 16, set()).add(royalty_for(row, value, ruleset))
            assert all(len(royalties) == 1 for royalties in by_key.values())
            assert max(by_key) < 144  # 9 categories, then a rank below 16
