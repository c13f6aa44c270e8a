"""The plain-int accessors of a row value (category_number, leading_rank,
category_and_leading_rank): known answers written by hand, and agreement with category_of and
ranks_of on every value."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.game.cards import NATURAL_CARDS, Card, parse_cards
from ofc_audit.game.row_values import (
    Category,
    category_and_leading_rank,
    category_number,
    category_of,
    leading_rank,
    ranks_of,
    value_of,
)


@pytest.mark.parametrize(
    ("row", "category", "rank"),
    [
        ("Qs Qd 7c", Category.PAIR, 12),
        ("7c Qs Qd", Category.PAIR, 12),
        ("As Kd 3c", Category.HIGH_CARD, 14),
        ("5h 5d 5c", Category.TRIPS, 5),
        ("Kh Kd 4c 4s 2h", Category.TWO_PAIR, 13),  # the higher pair first
        ("2h 2d 2c Ks Kh", Category.FULL_HOUSE, 2),  # the trips, not the pair
        ("Ah 2d 3c 4s 5h", Category.STRAIGHT, 5),  # the wheel is five-high (R-RANK-2)
        ("9h 3h 4h Jh 2h", Category.FLUSH, 11),
        ("Ts Js Qs Ks As", Category.STRAIGHT_FLUSH, 14),
        ("", Category.HIGH_CARD, 0),  # an empty row of an unfinished board
    ],
)
def test_known_values(row: str, category: Category, rank: int) -> None:
    value = value_of(parse_cards(row))
    assert category_number(value) == category
    assert leading_rank(value) == rank
    assert category_and_leading_rank(value) == category * 16 + rank


def test_cut_kickers_compare_by_category_then_leading_rank() -> None:
    # Same pair of queens, different kickers: equal once the kickers are cut off.
    a, b = value_of(parse_cards("Qs Qd 7c")), value_of(parse_cards("Qh Qc 6d 5s 4h"))
    assert a > b and category_and_leading_rank(a) == category_and_leading_rank(b)
    # A pair of twos beats any high card.
    low_pair, ace_high = value_of(parse_cards("2s 2d 3c")), value_of(parse_cards("As Kd Qc"))
    assert category_and_leading_rank(low_pair) > category_and_leading_rank(ace_high)


@settings(max_examples=300, deadline=None)
@given(st.permutations(NATURAL_CARDS), st.sampled_from([0, 1, 2, 3, 4, 5]))
def test_agree_with_category_of_and_ranks_of(deck: list[Card], size: int) -> None:
    value = value_of(deck[:size])
    assert category_number(value) == category_of(value)
    first = ranks_of(value)[0] if ranks_of(value) else 0
    assert leading_rank(value) == first
    assert category_and_leading_rank(value) == (category_of(value) << 4) | first
