"""Values of 3- and 5-card rows (R-RANK-1..3, R-ROW-2, R-ORDER-2).

A row's value is one int: ``category << 20`` then up to five 4-bit ranks (2..14), most
significant first, padded with 0. Because padding sorts below every real rank, the same
integer order serves three comparisons at once: 5 vs 5, 3 vs 3, and top (3 cards) against
middle (5 cards) as R-ORDER-2 reads it (category, then the pair/trips rank, then kickers over
as many ranks as the top row has):

>>> from ofc_audit.game.cards import parse_cards
>>> top, middle = value_of(parse_cards("Qs Qd 7c")), value_of(parse_cards("Qh Qc 6d 5s 4h"))
>>> top > middle  # the 7 kicker beats the 6: a foul
True
>>> value_of(parse_cards("As Kd 3c")) > value_of(parse_cards("Ah Kc 2d 4s 5h"))
False

Tables are built once at import: 6,175 rank multisets for five cards (plus 1,287 flushes)
and 455 for three, so evaluation is a sum and one dictionary look-up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import IntEnum
from itertools import combinations

from .cards import NATURAL_CARDS, Card


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        """The docs/CLI.md name (``two_pair``)."""
        return self.name.lower()


CATEGORY_SHIFT = 20
#: Where the leading rank starts: the rank of the pair, trips or quads, a full house's trips,
#: a straight's high card, or a high-card row's first card.
LEADING_RANK_SHIFT = 16
_NIBBLES = 0xFFFFF


def category_of(value: int) -> Category:
    return Category(value >> CATEGORY_SHIFT)


def category_number(value: int) -> int:
    """The category as a plain int, 0 (high card) to 8 (straight flush): the number of
    :class:`Category` without building the enum, so ``category_number(v) >= Category.QUADS``
    reads as "quads or better".

    >>> category_number(value_from_ranks([9, 9, 4])) == Category.PAIR
    True
    """
    return value >> CATEGORY_SHIFT


def leading_rank(value: int) -> int:
    """The rank compared first within the category (2..14; 0 for an empty row): the pair's or
    the trips' rank (the higher pair of two pair, the trips of a full house), a straight's
    high card, else the highest card.

    >>> leading_rank(value_from_ranks([5, 9, 9])), leading_rank(value_from_ranks([14, 2, 3, 4, 5]))
    (9, 5)
    """
    return (value >> LEADING_RANK_SHIFT) & 0xF


def category_and_leading_rank(value: int) -> int:
    """``category_number(value) * 16 + leading_rank(value)``: a value with its kickers cut
    off, all that a royalty and a category label depend on (royal_flush is the straight flush
    led by the ace), so two rows compare by category, then leading rank, alone; a key for
    memos of those.

    >>> category_and_leading_rank(value_from_ranks([9, 9, 4])) == (Category.PAIR << 4) | 9
    True
    >>> from ofc_audit.game.cards import parse_cards
    >>> a, b = value_of(parse_cards("Ts Td 5h")), value_of(parse_cards("Tc Th 9s"))
    >>> category_and_leading_rank(a) == category_and_leading_rank(b)
    True
    """
    return value >> LEADING_RANK_SHIFT


_LABELS: dict[int, str] = {}


def category_label(value: int) -> str:
    """docs/CLI.md's category, including ``royal_flush`` for the ace-high straight flush."""
    label = _LABELS.get(value)
    if label is None:
        category = category_of(value)
        if category is Category.STRAIGHT_FLUSH and ranks_of(value)[0] == 14:
            label = "royal_flush"
        else:
            label = category.label
        _LABELS[value] = label  # at most 7,462 values exist
    return label


def ranks_of(value: int) -> tuple[int, ...]:
    """The tie-break ranks packed in a value, most significant first, without padding."""
    ranks = []
    for shift in (16, 12, 8, 4, 0):
        rank = (value >> shift) & 0xF
        if rank:
            ranks.append(rank)
    return tuple(ranks)


def _pack(category: Category, ranks: Sequence[int]) -> int:
    value = int(category)
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def value_from_ranks(ranks: Sequence[int], flush: bool = False) -> int:
    """The value of any 0..5 ranks (2..14); straights and flushes need exactly five cards.

    >>> category_label(value_from_ranks([14, 2, 3, 4, 5]))
    'straight'
    >>> ranks_of(value_from_ranks([14, 2, 3, 4, 5]))
    (5,)
    """
    if not ranks:
        return _pack(Category.HIGH_CARD, [])  # an empty row of an unfinished board
    counts = Counter(ranks)
    # Groups by size then rank, highest first: the order R-RANK-3 breaks ties in.
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    order = [rank for rank, _ in groups]
    shape = [count for _, count in groups]
    if len(ranks) == 5 and len(counts) == 5:
        high = sorted(ranks, reverse=True)
        straight_high = 0
        if high[0] - high[4] == 4:
            straight_high = high[0]
        elif high == [14, 5, 4, 3, 2]:
            straight_high = 5  # the wheel is the lowest straight (R-RANK-2)
        if straight_high:
            category = Category.STRAIGHT_FLUSH if flush else Category.STRAIGHT
            return _pack(category, [straight_high])
        return _pack(Category.FLUSH if flush else Category.HIGH_CARD, high)
    if shape[0] == 4:
        category = Category.QUADS
    elif shape[0] == 3:
        category = Category.FULL_HOUSE if len(shape) > 1 and shape[1] == 2 else Category.TRIPS
    elif shape[0] == 2:
        category = Category.TWO_PAIR if len(shape) > 1 and shape[1] == 2 else Category.PAIR
    else:
        category = Category.HIGH_CARD
    return _pack(category, order)


# Rank keys: the sum of 5**(rank-2) over a row identifies its rank multiset (counts <= 4).
RANK_KEY: tuple[int, ...] = tuple(5 ** (card.index // 4) for card in NATURAL_CARDS)
SUIT_BIT: tuple[int, ...] = tuple(1 << (card.index % 4) for card in NATURAL_CARDS)
RANK_NUMBER: tuple[int, ...] = tuple(card.index // 4 + 2 for card in NATURAL_CARDS)


def _build_tables() -> tuple[dict[int, int], dict[int, int], dict[int, int]]:
    """The tables, shape by shape: each rank multiset is made in the order R-RANK-3 reads
    it (groups by size, then rank, highest first), so its value is packed straight away
    (:func:`value_from_ranks` of every multiset, 7,917 of them, took 45 ms of every start,
    worker processes included; the tests check each entry against it)."""
    five: dict[int, int] = {}
    flush: dict[int, int] = {}
    three: dict[int, int] = {}
    power = [5 ** (rank - 2) if rank >= 2 else 0 for rank in range(15)]
    high_first = range(14, 1, -1)
    pack = _pack
    for ranks in combinations(high_first, 5):
        key = power[ranks[0]] + power[ranks[1]] + power[ranks[2]] + power[ranks[3]] \
            + power[ranks[4]]
        straight_high = ranks[0] if ranks[0] - ranks[4] == 4 else (
            5 if ranks == (14, 5, 4, 3, 2) else 0)  # the wheel is the lowest (R-RANK-2)
        if straight_high:
            five[key] = pack(Category.STRAIGHT, (straight_high,))
            flush[key] = pack(Category.STRAIGHT_FLUSH, (straight_high,))
        else:
            five[key] = pack(Category.HIGH_CARD, ranks)
            flush[key] = pack(Category.FLUSH, ranks)
    for size, kickers, category in ((4, 1, Category.QUADS), (3, 2, Category.TRIPS),
                                    (2, 3, Category.PAIR)):
        for group in high_first:
            others = [rank for rank in high_first if rank != group]
            for rest in combinations(others, kickers):
                key = size * power[group] + sum(power[rank] for rank in rest)
                five[key] = pack(category, (group, *rest))
    for trips in high_first:
        for pair in high_first:
            if pair != trips:
                five[3 * power[trips] + 2 * power[pair]] = pack(Category.FULL_HOUSE,
                                                                (trips, pair))
    for high, low in combinations(high_first, 2):
        for kicker in high_first:
            if kicker not in (high, low):
                five[2 * power[high] + 2 * power[low] + power[kicker]] = pack(
                    Category.TWO_PAIR, (high, low, kicker))
    for trio in combinations(high_first, 3):
        three[power[trio[0]] + power[trio[1]] + power[trio[2]]] = pack(Category.HIGH_CARD, trio)
    for group in high_first:
        three[3 * power[group]] = pack(Category.TRIPS, (group,))
        for kicker in high_first:
            if kicker != group:
                three[2 * power[group] + power[kicker]] = pack(Category.PAIR, (group, kicker))
    return five, flush, three


FIVE_TABLE, FLUSH_TABLE, THREE_TABLE = _build_tables()


def evaluate5(a: int, b: int, c: int, d: int, e: int) -> int:
    """Value of five natural cards given by index (0..51): the hot path."""
    key = RANK_KEY[a] + RANK_KEY[b] + RANK_KEY[c] + RANK_KEY[d] + RANK_KEY[e]
    if SUIT_BIT[a] & SUIT_BIT[b] & SUIT_BIT[c] & SUIT_BIT[d] & SUIT_BIT[e]:
        return FLUSH_TABLE[key]
    return FIVE_TABLE[key]


def evaluate3(a: int, b: int, c: int) -> int:
    """Value of three natural cards given by index: no straights or flushes (R-ROW-2)."""
    return THREE_TABLE[RANK_KEY[a] + RANK_KEY[b] + RANK_KEY[c]]


def value_of(cards: Sequence[Card]) -> int:
    """Value of a row of natural cards; 3 and 5 cards use the tables, other sizes (an
    unfinished row) are valued by rank counts alone."""
    indices = [card.index for card in cards]
    if any(i < 0 or i > 51 for i in indices):
        raise ValueError(f"only natural cards have a value: {[str(c) for c in cards]}")
    if len(indices) == 5:
        return evaluate5(*indices)
    if len(indices) == 3:
        return evaluate3(*indices)
    return value_from_ranks([RANK_NUMBER[i] for i in indices])
