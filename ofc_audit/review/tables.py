"""The rule tables of :mod:`ofc_audit.game` as numpy arrays for the compiled review code.

Nothing here is a second definition: row values come from
:func:`ofc_audit.game.row_values.value_from_ranks` (the same function that builds the
game's tables), royalties from :func:`ofc_audit.game.board.royalty_for` and Fantasyland entry
and stay from :mod:`ofc_audit.game.fantasyland`, each asked once per distinct input.

A row's rank multiset is keyed as in :mod:`ofc_audit.game.row_values` (the sum of
``5 ** (rank - 2)`` over its cards); the compiled code finds a key in an open-addressing
hash table (``HASH_BITS`` slots, linear probing) whose slot holds the row's value, and for
five distinct ranks the flush value beside it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from ..game.board import (
    NO_ROYALTIES,
    Board,
    BoardResult,
    RowResult,
    Royalties,
    royalty_for,
)
from ..game.fantasyland import entry_cards, stays
from ..game.record import ROWS
from ..game.row_values import CATEGORY_SHIFT, Category, value_from_ranks
from ..game.ruleset import FantasylandType, RoyaltiesMode, Ruleset

HASH_BITS = 16
HASH_MULTIPLIER = 2654435761  # key * this stays below 2**63 for every key (< 1.1e9)
HASH_SHIFT = 11
EMPTY_KEY = -1

IntArray = npt.NDArray[np.int64]

# A row's royalty, Fantasyland entry and stay depend on its value's bits above the last four
# ranks: the category and the first rank (``value >> 16``); 9 categories x 16 ranks.
COARSE = 9 << 4


def _rank_key(ranks: tuple[int, ...]) -> int:
    return sum(5 ** (r - 2) for r in ranks)


def _slot(key: int) -> int:
    return (key * HASH_MULTIPLIER >> HASH_SHIFT) & ((1 << HASH_BITS) - 1)


@lru_cache(maxsize=1)
def value_tables() -> tuple[IntArray, IntArray, IntArray]:
    """(keys, values, flush values) of every rank multiset of 0..5 cards (counts <= 4)."""
    size = 1 << HASH_BITS
    keys = np.full(size, EMPTY_KEY, dtype=np.int64)
    values = np.zeros(size, dtype=np.int64)
    flushes = np.zeros(size, dtype=np.int64)
    for n in range(6):
        for ranks in combinations_with_replacement(range(2, 15), n):
            if n and max(Counter(ranks).values()) > 4:
                continue
            key = _rank_key(ranks)
            slot = _slot(key)
            while keys[slot] != EMPTY_KEY:
                slot = (slot + 1) & (size - 1)
            keys[slot] = key
            values[slot] = value_from_ranks(ranks)
            if n == 5 and len(set(ranks)) == 5:
                flushes[slot] = value_from_ranks(ranks, flush=True)
    return keys, values, flushes


def card_tables(deck_size: int) -> tuple[IntArray, IntArray]:
    """(rank key, suit bit) per card; a joker has neither (0, 0)."""
    rank_key = np.zeros(deck_size, dtype=np.int64)
    suit_bit = np.zeros(deck_size, dtype=np.int64)
    for c in range(52):
        rank_key[c] = 5 ** (c // 4)
        suit_bit[c] = 1 << (c % 4)
    return rank_key, suit_bit


def _coarse_value(coarse: int) -> int:
    """The smallest row value with these category and first-rank bits."""
    return coarse << 16


def _result(top: int, middle: int, bottom: int, royalties: Royalties) -> BoardResult:
    """A legal board's result with the given row values (cards are not read by the
    Fantasyland rules, which look at values and categories only)."""
    empty: tuple[()] = ()
    return BoardResult(
        Board(empty, empty, empty),
        tuple(
            RowResult(row, empty, value, True)
            for row, value in zip(ROWS, (top, middle, bottom), strict=True)
        ),  # type: ignore[arg-type]
        False,
        None,
        None,
        royalties,
        (),
    )


@dataclass(frozen=True)
class RuleArrays:
    """One ruleset's royalties and Fantasyland rules by a row's coarse value (``value >>
    16``): ``royalty[row, coarse]`` (rows top, middle, bottom), ``entry[coarse of top]`` the
    cards of the Fantasyland hand it earns (0: none), ``stay[row, coarse]`` whether that row
    alone keeps a Fantasyland player in (R-FL-3 is an "or" of per-row conditions)."""

    royalty: IntArray
    entry: IntArray
    stay: IntArray
    scoop_bonus: int
    standard_repeat: int


@lru_cache(maxsize=32)
def rule_arrays(ruleset: Ruleset) -> RuleArrays:
    royalty = np.zeros((3, COARSE), dtype=np.int64)
    entry = np.zeros(COARSE, dtype=np.int64)
    stay = np.zeros((3, COARSE), dtype=np.int64)
    variant, fl_type = ruleset.variant, ruleset.fantasyland
    weakest = 0  # an empty high-card value: below every row
    for coarse in range(COARSE):
        category, first = coarse >> 4, coarse & 15
        if first < 2 and coarse:
            continue
        value = _coarse_value(coarse)
        for r, row in enumerate(ROWS):
            if r == 0 and category not in (Category.HIGH_CARD, Category.PAIR, Category.TRIPS):
                continue
            if ruleset.royalties is RoyaltiesMode.ALL:
                royalty[r, coarse] = royalty_for(row, value, ruleset)
            values = [weakest, weakest, weakest]
            values[r] = value
            # The stay of one row: the other rows at their weakest (the order is not read).
            if stays(_result(values[0], values[1], values[2], NO_ROYALTIES), variant, fl_type):
                stay[r, coarse] = 1
        if category in (Category.PAIR, Category.TRIPS, Category.HIGH_CARD):
            top_high = (Category.STRAIGHT_FLUSH << CATEGORY_SHIFT) | (14 << 16)
            count = entry_cards(_result(value, top_high, top_high, NO_ROYALTIES), variant, fl_type)
            entry[coarse] = count or 0
    repeat = 14 if variant.is_pineapple_family else 13
    if fl_type is FantasylandType.NONE:
        repeat = 0
    return RuleArrays(royalty, entry, stay, ruleset.scoop_bonus, repeat)
