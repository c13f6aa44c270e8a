"""Pairwise points (R-SCORE-1..5) and settlement with stack caps (R-SETTLE-1..4).

Players are given in settlement order: the seat left of the button first, the button last
(R-SETTLE-2). The check of R-SETTLE-3:

>>> settle_transfers([10, 40, -20], [5, 10, 135], stack_cap=True)
([5, 10, -5], [20, 0, 130])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import BoardResult
from .rules import Ruleset


@dataclass(frozen=True, slots=True)
class PairScore:
    """Points between players ``a`` < ``b`` (0-based settlement positions), seen from ``a``."""

    a: int
    b: int
    rows: tuple[int, int, int]  # +1 a wins the row, -1 b wins it, 0 tie (or both fouled)
    scoop: int  # +bonus a scooped, -bonus b scooped, 0 otherwise
    royalties: int  # roy(a) - roy(b)
    points_a: int
    transfer_to_a: int | None  # after the stack cap; None without stacks

    @property
    def capped(self) -> bool:
        return self.transfer_to_a is not None and self.transfer_to_a != self.points_a


@dataclass(frozen=True, slots=True)
class Settlement:
    points: tuple[int, ...]  # per player, sum of pairwise points before any cap
    pairs: tuple[PairScore, ...]  # in settlement order
    stacks_before: tuple[int, ...] | None
    stacks_after: tuple[int, ...] | None

    @property
    def transfers(self) -> tuple[int, ...] | None:
        if self.stacks_before is None or self.stacks_after is None:
            return None
        return tuple(
            after - before for before, after in zip(self.stacks_before, self.stacks_after, strict=True)
        )


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


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
        rows = (
            _sign(a.rows[0].value - b.rows[0].value),
            _sign(a.rows[1].value - b.rows[1].value),
            _sign(a.rows[2].value - b.rows[2].value),
        )
    total = rows[0] + rows[1] + rows[2]
    scoop = bonus if total == 3 else -bonus if total == -3 else 0
    # Fouled boards carry zero royalties (R-ROY-4), so netting covers R-SCORE-3 and -4.
    royalties = a.royalties.total - b.royalties.total
    return rows, scoop, royalties, total + scoop + royalties


def pair_order(players: int) -> list[tuple[int, int]]:
    """(P1,P2), (P1,P3), ..., (Pn-1,Pn): R-SETTLE-2."""
    return [(i, j) for i in range(players) for j in range(i + 1, players)]


def capped_transfer(due_to_a: int, stack_a: int, stack_b: int) -> int:
    """R-SETTLE-3: min(points due, winner's stack, loser's stack), never negative."""
    amount = max(0, min(abs(due_to_a), stack_a, stack_b))
    return amount if due_to_a > 0 else -amount


def settle_transfers(
    dues: Sequence[int], stacks: Sequence[int], stack_cap: bool
) -> tuple[list[int], list[int]]:
    """Apply pairwise dues (to ``a``, in :func:`pair_order`) to stacks one pair after another."""
    current = list(stacks)
    transfers = []
    for (i, j), due in zip(pair_order(len(stacks)), dues, strict=True):
        moved = capped_transfer(due, current[i], current[j]) if stack_cap else due
        current[i] += moved
        current[j] -= moved
        transfers.append(moved)
    return transfers, current


def settle(
    results: Sequence[BoardResult], ruleset: Ruleset, stacks: Sequence[int] | None = None
) -> Settlement:
    """Score every pair and, with stacks, transfer points pair by pair."""
    n = len(results)
    scored = [(i, j, *score_pair(results[i], results[j], ruleset)) for i, j in pair_order(n)]
    transfers: list[int | None] = [None] * len(scored)
    stacks_after = None
    if stacks is not None:
        moved, after = settle_transfers([s[5] for s in scored], stacks, ruleset.stack_cap)
        transfers, stacks_after = list(moved), tuple(after)
    points = [0] * n
    pairs = []
    for (i, j, rows, scoop, royalties, due), transfer in zip(scored, transfers, strict=True):
        points[i] += due
        points[j] -= due
        pairs.append(PairScore(i, j, rows, scoop, royalties, due, transfer))
    return Settlement(
        points=tuple(points),
        pairs=tuple(pairs),
        stacks_before=tuple(stacks) if stacks is not None else None,
        stacks_after=stacks_after,
    )
