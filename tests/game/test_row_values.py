"""Known answers for hand values (R-RANK-1..3, R-ROW-2), written by hand from RULES.md."""

from __future__ import annotations

import pytest

from ofc_audit.game.cards import parse_cards
from ofc_audit.game.row_values import (
    FIVE_TABLE,
    FLUSH_TABLE,
    THREE_TABLE,
    Category,
    category_label,
    category_of,
    evaluate3,
    evaluate5,
    ranks_of,
    value_from_ranks,
    value_of,
)


def v(text: str) -> int:
    """The value of a row written as text."""
    return value_of(parse_cards(text))


def label(text: str) -> str:
    return category_label(v(text))


# --- R-RANK-1: category order -------------------------------------------------------------

# The weakest and the strongest hand of every category, in R-RANK-1 order.
CATEGORY_LADDER = [
    ("high_card", "7s 5d 4c 3h 2s", "As Kd Qc Jh 9s"),
    ("pair", "2s 2d 3c 4h 5s", "As Ad Kc Qh Js"),
    ("two_pair", "3s 3d 2c 2h 4s", "As Ad Kc Kh Qs"),
    ("trips", "2s 2d 2c 3h 4s", "As Ad Ac Kh Qs"),
    ("straight", "As 2d 3c 4h 5s", "Ts Jd Qc Kh As"),
    ("flush", "2h 3h 4h 5h 7h", "Ah Kh Qh Jh 9h"),
    ("full_house", "2s 2d 2c 3h 3s", "As Ad Ac Kh Ks"),
    ("quads", "2s 2d 2c 2h 3s", "As Ad Ac Ah Ks"),
    ("straight_flush", "As 2s 3s 4s 5s", "9h Th Jh Qh Kh"),
    ("royal_flush", "Ts Js Qs Ks As", "Th Jh Qh Kh Ah"),
]


@pytest.mark.parametrize(("name", "weakest", "strongest"), CATEGORY_LADDER)
def test_r_rank_1_category_labels(name: str, weakest: str, strongest: str) -> None:
    """R-RANK-1: each example hand has the category of CLI.md's names."""
    assert label(weakest) == name
    assert label(strongest) == name


def test_r_rank_1_category_order_is_strict() -> None:
    """R-RANK-1: the best hand of a category is below the worst hand of the next one."""
    ladder = []
    for _, weakest, strongest in CATEGORY_LADDER:
        assert v(weakest) <= v(strongest)
        ladder += [v(weakest), v(strongest)]
    assert ladder == sorted(ladder)
    assert len(set(ladder)) == len(ladder) - 1  # only the two royal flushes are equal


def test_r_rank_1_category_enum_order() -> None:
    """R-RANK-1: high card < pair < two pair < trips < straight < flush < full house < quads <
    straight flush."""
    assert [c.name for c in sorted(Category)] == [
        "HIGH_CARD", "PAIR", "TWO_PAIR", "TRIPS", "STRAIGHT", "FLUSH", "FULL_HOUSE", "QUADS",
        "STRAIGHT_FLUSH",
    ]
    assert category_of(v("Ts Js Qs Ks As")) is Category.STRAIGHT_FLUSH


def test_r_rank_1_royal_flush_is_the_ace_high_straight_flush() -> None:
    """R-RANK-1: a royal flush beats a king-high straight flush, and is a straight flush."""
    assert v("Ts Js Qs Ks As") > v("9d Td Jd Qd Kd")
    assert label("9d Td Jd Qd Kd") == "straight_flush"
    assert label("Ac Kc Qc Jc Tc") == "royal_flush"


# --- R-RANK-2: the wheel and no wrap-around ------------------------------------------------


def test_r_rank_2_wheel_is_the_lowest_straight() -> None:
    """R-RANK-2: A2345 is a straight, 5-high, below 23456 and above any trips."""
    wheel = v("Ad 2s 3h 4c 5d")
    assert label("Ad 2s 3h 4c 5d") == "straight"
    assert ranks_of(wheel) == (5,)
    assert wheel < v("2s 3d 4c 5h 6s")
    assert wheel > v("As Ad Ac Kh Qs")  # best trips


def test_r_rank_2_broadway_is_the_highest_straight() -> None:
    """R-RANK-2: TJQKA is the highest straight."""
    assert v("Ts Jd Qc Kh As") > v("9s Td Jc Qh Ks")
    assert ranks_of(v("Ts Jd Qc Kh As")) == (14,)


@pytest.mark.parametrize("text", ["Qs Kd Ac 2h 3s", "Js Qd Kc Ah 2s", "Ks Ad 2c 3h 4s"])
def test_r_rank_2_no_wrap_around(text: str) -> None:
    """R-RANK-2: QKA23 (and JQKA2, KA234) are not straights but ace-high high cards."""
    assert label(text) == "high_card"
    assert ranks_of(v(text))[0] == 14


def test_r_rank_2_no_wrap_around_flush_is_a_flush() -> None:
    """R-RANK-2: QKA23 suited is a flush, not a straight flush."""
    assert label("Qs Ks As 2s 3s") == "flush"


def test_r_rank_2_wheel_straight_flush_is_the_lowest_straight_flush() -> None:
    """R-RANK-2: A2345 suited is the lowest straight flush, below 23456 suited, above quads."""
    assert label("As 2s 3s 4s 5s") == "straight_flush"
    assert v("As 2s 3s 4s 5s") < v("2h 3h 4h 5h 6h")
    assert v("As 2s 3s 4s 5s") > v("As Ad Ac Ah Ks")


# --- R-RANK-3: ties by ranks only, never suits --------------------------------------------

EQUAL_PAIRS = [
    ("As Kd 9c 7h 3s", "Ah Kc 9d 7s 3h"),  # high card
    ("2h 3h 4h 5h 7h", "2s 3s 4s 5s 7s"),  # flush
    ("5s 6d 7c 8h 9s", "5h 6c 7d 8s 9h"),  # straight
    ("As 2d 3c 4h 5s", "Ah 2c 3d 4s 5h"),  # wheel
    ("8s 8d Ac 4h 3s", "8h 8c Ad 4s 3h"),  # pair
    ("Ks Kd 3c 3h 5s", "Kh Kc 3d 3s 5h"),  # two pair
    ("9s 9d 9c 4h 2s", "9h 9s 9c 4d 2c"),  # trips
    ("Ts Js Qs Ks As", "Th Jh Qh Kh Ah"),  # royal flushes split
    ("As Kd 3c", "Ah Kc 3d"),  # three-card rows
    ("Qs Qd 7c", "Qh Qc 7d"),
]


@pytest.mark.parametrize(("a", "b"), EQUAL_PAIRS)
def test_r_rank_3_suits_never_break_ties(a: str, b: str) -> None:
    """R-RANK-3: fully equal ranks are a tie (a split), whatever the suits."""
    assert v(a) == v(b)


# (stronger, weaker): each pair differs in the tie-break named in the comment.
ORDERED_PAIRS = [
    ("4s 4d 4c 4h 2s", "3s 3d 3c 3h As"),  # quads: rank first
    ("9s 9d 9c 9h Ks", "9s 9d 9c 9h Qs"),  # quads: then kicker
    ("4s 4d 4c 2h 2s", "3s 3d 3c Ah Ad"),  # full house: trips first
    ("4s 4d 4c 3h 3s", "4s 4d 4c 2h 2s"),  # full house: then pair
    ("Ah Kh 9h 7h 3h", "As Ks 9s 7s 2s"),  # flush card by card: last card
    ("As Ks 5s 4s 2s", "Ah Qh Jh 9h 7h"),  # flush: second card
    ("6s 7d 8c 9h Ts", "5s 6d 7c 8h 9s"),  # straight: high card
    ("5s 5d 5c 3h 2s", "4s 4d 4c Ah Ks"),  # trips: rank first
    ("5s 5d 5c Ah 2s", "5s 5d 5c Kh Qs"),  # trips: then kickers
    ("Ks Kd 2c 2h 3s", "Qs Qd Jc Jh As"),  # two pair: high pair first
    ("Ks Kd 3c 3h 2s", "Kh Kc 2d 2s As"),  # two pair: then low pair
    ("Ks Kd 3c 3h 5s", "Kh Kc 3d 3s 4s"),  # two pair: then kicker
    ("9s 9d 2c 3h 4s", "8s 8d Ac Kh Qs"),  # pair: rank first
    ("8s 8d Ac 4h 3s", "8h 8c Kd Qs Js"),  # pair: first kicker
    ("8s 8d Ac 4h 3s", "8h 8c Ad 4s 2s"),  # pair: last kicker
    ("As Kd 9c 7h 3s", "Ah Kc 9d 7s 2h"),  # high card: last card
    ("As 2d 3c 4h 6s", "Kh Qc Jd 9s 8h"),  # high card: first card
]


@pytest.mark.parametrize(("stronger", "weaker"), ORDERED_PAIRS)
def test_r_rank_3_tie_breaks(stronger: str, weaker: str) -> None:
    """R-RANK-3: quads then kicker; full house by trips then pair; flush and high card card by
    card; two pair by high pair, low pair, kicker; pair then kickers."""
    assert v(stronger) > v(weaker)
    assert category_of(v(stronger)) == category_of(v(weaker))


def test_r_rank_3_full_house_packs_trips_then_pair() -> None:
    """R-RANK-3: 33322 and 22233 are both full houses, ranked by the trips."""
    assert ranks_of(v("3s 3d 3c 2h 2s")) == (3, 2)
    assert ranks_of(v("2s 2d 2c 3h 3s")) == (2, 3)
    assert v("3s 3d 3c 2h 2s") > v("2s 2d 2c 3h 3s")


def test_r_rank_3_two_pair_ranks() -> None:
    """R-RANK-3: two pair keeps high pair, low pair, kicker in that order."""
    assert ranks_of(v("5s Kd 5c Kh 9s")) == (13, 5, 9)


# --- R-ROW-2: three-card rows are trips, a pair or high card -------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("2h 3h 4h", "high_card"),  # neither a straight nor a flush on top
        ("Qs Ks As", "high_card"),
        ("Ah 2h 3h", "high_card"),
        ("Qs Qd 5c", "pair"),
        ("7c 7s 7d", "trips"),
    ],
)
def test_r_row_2_top_categories(text: str, name: str) -> None:
    """R-ROW-2: top can only be trips, one pair or high card."""
    assert label(text) == name


def test_r_row_2_top_order() -> None:
    """R-ROW-2 / R-RANK-1: 222 > AAK pair > AKQ high card, and 345 suited is only high card."""
    assert v("2s 2d 2c") > v("As Ad Kc") > v("As Kd Qc") > v("5h 4h 3h")
    assert v("As Ad 3c") > v("As Ad 2c")
    assert v("Ks Qd 3c") > v("Ks Jd Tc")


# --- the evaluators agree with each other ---------------------------------------------------


def test_evaluate5_and_evaluate3_agree_with_value_of() -> None:
    """The index-based hot paths give the same values as value_of."""
    cards = parse_cards("Ts Jd Qc Kh As")
    assert evaluate5(*(c.index for c in cards)) == value_of(cards)
    cards = parse_cards("Qs Qd 5c")
    assert evaluate3(*(c.index for c in cards)) == value_of(cards)
    assert value_from_ranks([14, 13, 12, 11, 10], flush=True) == v("Ts Js Qs Ks As")


def test_the_tables_hold_value_from_ranks_of_every_rank_multiset() -> None:
    """The tables, built shape by shape at import, are :func:`value_from_ranks` of every
    multiset of ranks a row can hold (no five of a kind), keyed by the sum of 5**(rank-2),
    and of nothing else."""
    from collections import Counter
    from itertools import combinations, combinations_with_replacement

    def key(ranks: tuple[int, ...]) -> int:
        return sum(5 ** (rank - 2) for rank in ranks)

    five = {key(ranks): value_from_ranks(ranks)
            for ranks in combinations_with_replacement(range(2, 15), 5)
            if max(Counter(ranks).values()) <= 4}
    flush = {key(ranks): value_from_ranks(ranks, flush=True)
             for ranks in combinations(range(2, 15), 5)}
    three = {key(ranks): value_from_ranks(ranks)
             for ranks in combinations_with_replacement(range(2, 15), 3)}
    assert (len(five), len(flush), len(three)) == (6175, 1287, 455)
    assert FIVE_TABLE == five and FLUSH_TABLE == flush and THREE_TABLE == three


def test_value_of_rejects_jokers_and_hidden_cards() -> None:
    """Only natural cards have a value; jokers are resolved by the board first."""
    with pytest.raises(ValueError):
        value_of(parse_cards("As Kd JK1"))
    with pytest.raises(ValueError):
        value_of(parse_cards("As Kd ??"))
