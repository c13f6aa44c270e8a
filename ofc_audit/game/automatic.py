"""R-TIME-1's automatic placement: what a player who timed out (R-TIME-1) or is disconnected
(R-TIME-2) is given. One definition for the replay, which checks it on cards, and the
simulator's bot, which plays it on ints: a card is any value here, only the counts of the
rows' cards matter.
"""

from __future__ import annotations

from collections.abc import Sequence, Sized
from typing import TypeVar

from .record import ROWS

CardT = TypeVar("CardT")

_ROW_SIZES: tuple[int, ...] = tuple(row.size for row in ROWS)  # top, middle, bottom
_BOTTOM_FIRST: tuple[int, ...] = tuple(reversed(range(len(ROWS))))


def automatic_placement(
    rows: Sequence[Sized], dealt: Sequence[CardT], place_count: int
) -> tuple[list[list[CardT]], list[CardT]]:
    """R-TIME-1: the first ``place_count`` cards, in the order received, each to the bottom
    row while it has room, then the middle, then the top; the other cards are discarded.

    ``rows`` holds the cards already placed, top, middle and bottom; returns the cards added
    to each row in that order, and the discards.

    >>> automatic_placement([["Ah"], ["2c"] * 4, ["3d"] * 4], ["Ks", "Qs", "Js"], 2)
    ([[], ['Qs'], ['Ks']], ['Js'])
    >>> automatic_placement([[], [], []], list(range(13)), 13)[0][0]
    [10, 11, 12]
    """
    room = [size - len(row) for size, row in zip(_ROW_SIZES, rows, strict=True)]
    added: list[list[CardT]] = [[] for _ in _ROW_SIZES]
    for card in dealt[:place_count]:
        for r in _BOTTOM_FIRST:
            if room[r] > 0:
                added[r].append(card)
                room[r] -= 1
                break
    return added, list(dealt[place_count:])
