"""Pairwise points (R-SCORE-1..5) and settlement with stack caps (R-SETTLE-1..4).

Players are given in settlement order: the seat left of the button first, the button last
(R-SETTLE-2). The check of R-SETTLE-3:

>>> settle_transfers([10, 40, -20], [5, 10, 135], stack_cap=True)
([5, 10, -5], [20, 0, 130])
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .board import BoardResult
from .record import Record
from .ruleset import Ruleset


class PairScore(Record, frozen=True):
    """Points between players ``a`` < ``b`` (0-based settlement positions), seen from ``a``.

    The fields are None when a board of the pair is unknown (hidden cards in a history)."""

    a: int
    b: int
    rows: tuple[int, int, int] | None  # +1 a wins the row, -1 b wins it, 0 tie or both fouled
    scoop: int | None  # +bonus a scooped, -bonus b scooped, 0 otherwise
    royalties: int | None  # roy(a) - roy(b)
    points_a: int | None
    transfer_to_a: int | None  # after the stack cap; None without stacks

    @property
    def capped(self) -> bool:
        return (
            self.transfer_to_a is not None
            and self.points_a is not None
            and self.transfer_to_a != self.points_a
        )


class Settlement(Record, frozen=True):
    points: tuple[int | None, ...]  # per player, sum of pairwise points before any cap
    pairs: tuple[PairScore, ...]  # in settlement order
    stacks_before: tuple[int | None, ...] | None
    stacks_after: tuple[int | None, ...] | None



def score_pair(
    a: BoardResult, b: BoardResult, ruleset: Ruleset
) -> tuple[tuple[int, int, int], int, int, int]:
    """(rows, scoop, royalties, points) of ``a`` against ``b``."""
    bonus = ruleset.scoop_bonus
    if a.fouled and b.fouled:
        return (0, 0, 0), 0, 0, 0  # R-SCORE-3: two fouled hands score 0
    if a.fouled:
        rows: tuple[int, int, int] = (-1, -1, -1)
    elif b.fouled:
        rows = (1, 1, 1)
    else:
        # The sign of a - b for each row's value, written out: this runs for every pair.
        (a_top, a_middle, a_bottom), (b_top, b_middle, b_bottom) = a.rows, b.rows
        rows = (
            (a_top.value > b_top.value) - (a_top.value < b_top.value),
            (a_middle.value > b_middle.value) - (a_middle.value < b_middle.value),
            (a_bottom.value > b_bottom.value) - (a_bottom.value < b_bottom.value),
        )
    total = rows[0] + rows[1] + rows[2]
    scoop = bonus if total == 3 else -bonus if total == -3 else 0
    # Fouled boards carry zero royalties (R-ROY-4), so netting covers R-SCORE-3 and -4.
    ra, rb = a.royalties, b.royalties
    royalties = (ra.top + ra.middle + ra.bottom) - (rb.top + rb.middle + rb.bottom)
    return rows, scoop, royalties, total + scoop + royalties


@lru_cache(maxsize=16)
def pair_order(players: int) -> tuple[tuple[int, int], ...]:
    """(P1,P2), (P1,P3), ..., (Pn-1,Pn): R-SETTLE-2."""
    return tuple((i, j) for i in range(players) for j in range(i + 1, players))


def capped_transfer(due_to_a: int, stack_a: int, stack_b: int) -> int:
    """R-SETTLE-3: min(points due, winner's stack, loser's stack), never negative."""
    amount = max(0, min(abs(due_to_a), stack_a, stack_b))
    return amount if due_to_a > 0 else -amount


def settle_transfers(
    dues: Sequence[int | None], stacks: Sequence[int | None], stack_cap: bool
) -> tuple[list[int | None], list[int | None]]:
    """Apply pairwise dues (to ``a``, in :func:`pair_order`) to stacks one pair after another.

    An unknown due (None) makes both stacks unknown from then on; with the cap, a later pair
    that meets an unknown stack has an unknown transfer too.
    """
    current = list(stacks)
    transfers: list[int | None] = []
    for (i, j), due in zip(pair_order(len(stacks)), dues, strict=True):
        transfers.append(_transfer(current, i, j, due, stack_cap))
    return transfers, current


def _transfer(
    current: list[int | None], i: int, j: int, due: int | None, stack_cap: bool
) -> int | None:
    """Move one pair's due between the ``current`` stacks of ``i`` and ``j``; the amount."""
    a, b = current[i], current[j]
    moved: int | None
    if due is None or (stack_cap and (a is None or b is None)):
        moved = None
    else:
        moved = capped_transfer(due, a, b) if stack_cap and a is not None and b is not None else due
    current[i] = None if moved is None or a is None else a + moved
    current[j] = None if moved is None or b is None else b - moved
    return moved


PairRow = tuple[
    int, int, tuple[int, int, int] | None, int | None, int | None, int | None, int | None
]  # a PairScore's fields, in order


def settle_rows(
    results: Sequence[BoardResult | None],
    ruleset: Ruleset,
    stacks: Sequence[int | None] | None = None,
) -> tuple[list[int | None], list[PairRow], list[int | None] | None]:
    """:func:`settle` as plain values: (points, the pairs' fields, stacks after). The replay
    builds its own pair records from these, with the players' names.

    One pass in pair order: the transfers of :func:`settle_transfers` are applied pair after
    pair in that same order, so each pair is scored and settled at once."""
    n = len(results)
    current = list(stacks) if stacks is not None else None
    stack_cap = ruleset.stack_cap
    points: list[int | None] = [0] * n
    pairs: list[PairRow] = []
    for i, j in pair_order(n):
        a, b = results[i], results[j]
        if a is None or b is None:
            transfer = None if current is None else _transfer(current, i, j, None, stack_cap)
            points[i] = points[j] = None
            pairs.append((i, j, None, None, None, None, transfer))
            continue
        rows, scoop, royalties, due = score_pair(a, b, ruleset)
        transfer = None if current is None else _transfer(current, i, j, due, stack_cap)
        pi, pj = points[i], points[j]
        points[i] = None if pi is None else pi + due
        points[j] = None if pj is None else pj - due
        pairs.append((i, j, rows, scoop, royalties, due, transfer))
    return points, pairs, current


def settle(
    results: Sequence[BoardResult | None],
    ruleset: Ruleset,
    stacks: Sequence[int | None] | None = None,
) -> Settlement:
    """Score every pair and, with stacks, transfer points pair by pair (None: unknown board)."""
    points, pairs, after = settle_rows(results, ruleset, stacks)
    return Settlement(
        tuple(points),
        tuple(PairScore(*pair) for pair in pairs),
        tuple(stacks) if stacks is not None else None,
        tuple(after) if after is not None else None,
    )
