"""Fantasyland entry, stay and card counts (R-FL-1..3).

>>> from ofc_audit.game.board import Board, evaluate_board
>>> bob = evaluate_board(Board.parse("Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd"))
>>> next_fantasyland(bob, Variant.PINEAPPLE, FantasylandType.PROGRESSIVE)
14
>>> next_fantasyland(bob, Variant.CLASSIC, FantasylandType.TOURNAMENT)
13
"""

from __future__ import annotations

from .board import BoardResult
from .row_values import CATEGORY_SHIFT, LEADING_RANK_SHIFT, Category, ranks_of
from .ruleset import FantasylandType, Variant

QUEEN, KING, ACE = 12, 13, 14
# The lowest top row that earns Fantasyland, a pair of queens without kickers: row values
# order by category then ranks (hands.py), so every weaker top row has a smaller value.
_QUEENS = (Category.PAIR << CATEGORY_SHIFT) | (QUEEN << LEADING_RANK_SHIFT)

# Entry counts by top row (QQ, KK, AA, trips) for the types that grade them (R-FL-2).
_GRADED = {
    FantasylandType.PROGRESSIVE: (14, 15, 16, 17),
    FantasylandType.ULTIMATE: (14, 15, 16, 17),
    FantasylandType.TOURNAMENT: (13, 14, 15, 16),
}


def standard_count(variant: Variant) -> int:
    """Standard Fantasyland, and a repeat outside ultimate: 14 in the Pineapple family, 13 in
    Classic and Turbo."""
    return 14 if variant.is_pineapple_family else 13


def entry_cards(result: BoardResult, variant: Variant, fl_type: FantasylandType) -> int | None:
    """Cards of the Fantasyland hand a player outside Fantasyland earns (R-FL-1, R-FL-2)."""
    top = result.rows[0].value
    if top < _QUEENS or fl_type is FantasylandType.NONE or result.fouled:
        return None  # the first test settles most boards (no Enum property look-ups)
    category = result.top.category_enum
    if category is Category.TRIPS:
        grade = 3
    elif category is Category.PAIR and ranks_of(top)[0] >= QUEEN:
        grade = ranks_of(top)[0] - QUEEN
    else:
        return None
    if fl_type is FantasylandType.STANDARD:
        return standard_count(variant)
    return _GRADED[fl_type][grade]


def stays(result: BoardResult, variant: Variant, fl_type: FantasylandType) -> bool:
    """Whether a player already in Fantasyland repeats (R-FL-3)."""
    if fl_type in (FantasylandType.NONE, FantasylandType.TOURNAMENT) or result.fouled:
        return False
    if result.top.category_enum is Category.TRIPS:
        return True
    if result.bottom.category_enum >= Category.QUADS:
        return True
    return not variant.is_pineapple_family and result.middle.category_enum >= Category.FULL_HOUSE


def repeat_cards(variant: Variant, fl_type: FantasylandType, chain_entry_cards: int | None) -> int:
    """Cards of a repeat: the chain's entry count under ultimate, else the standard count."""
    if fl_type is FantasylandType.ULTIMATE and chain_entry_cards is not None:
        return chain_entry_cards
    return standard_count(variant)


def next_fantasyland(
    result: BoardResult,
    variant: Variant,
    fl_type: FantasylandType,
    in_fantasyland: bool = False,
    chain_entry_cards: int | None = None,
) -> int | None:
    """The card count of the player's next (Fantasyland) hand, or None when it earns none.

    While in Fantasyland only R-FL-3 counts: QQ or better on top alone does not re-enter.
    """
    if in_fantasyland:
        if stays(result, variant, fl_type):
            return repeat_cards(variant, fl_type, chain_entry_cards)
        return None
    return entry_cards(result, variant, fl_type)
