"""Values of a street decision's candidates: rollouts with common random numbers and
successive halving, or the exact value when nothing is left to chance (docs/REVIEW.md "Value of a
candidate").

Every candidate of one decision is played out on the same deals: deal ``i`` depends only on
(seed, i), so the paired differences between candidates are measured far more tightly than
the values, and the answer does not depend on which process computes it.

Successive halving: every candidate first gets ``rollouts / 8`` deals (at least 32; fewer
when there are more than 27 candidates, as on street 1: about ``rollouts * 27 / 8`` in all);
after
each round the candidates whose paired difference to the leader is clearly positive (its
lower 99.7% bound above 0) are dropped, and the survivors' deals are doubled, until the
budget ``rollouts`` is spent or one candidate is left (the best is clear). A dropped
candidate's EV is the leader's EV less its paired difference (measured on the deals it got):
so every EV is on the same footing, and its ``ci95`` is the half-width of that difference.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..game.ruleset import JokerExcludes, Variant
from .position import (
    ROW_SIZES,
    CandidateValue,
    Evaluation,
    Placement,
    Position,
    candidates,
    placed_before,
)
from .tables import card_tables, rule_arrays, value_tables

Z95 = 1.959963984540054
DROP_Z = 3.0  # a candidate is dropped once its paired difference is 3 standard errors > 0
FIRST_SHARE = 8  # the first round gives each candidate rollouts / FIRST_SHARE deals
MIN_FIRST = 32
TYPICAL_CANDIDATES = 27
# How many cards a row slot is worth in looks at the deck, for the policy's chances that a
# draw completes and that a lower row catches up with the row above it. Small on purpose:
# measured against the simulator's bot (benchmarks/policy_match.py, docs/REVIEW-POLICY.md),
# a policy that counts little on improving keeps its rows in order at every street and
# fouls far less (Pineapple 1.4: -3.6 points a hand, 18% fouls; 0.1: +0.8, 2.5%). Turbo and
# Classic keep their old ratios to Pineapple (not measured).
LOOKS = {
    Variant.PINEAPPLE: 0.1,
    Variant.JOKER_PINEAPPLE: 0.1,
    Variant.TURBO: 0.08,
    Variant.CLASSIC: 0.06,
}

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def kernels() -> Any:
    """The compiled kernels (numba is imported here, on first use, never at import)."""
    from . import kernels as compiled

    return compiled


def tables_for(position_or_ruleset: Any) -> tuple[IntArray, ...]:
    ruleset = getattr(position_or_ruleset, "ruleset", position_or_ruleset)
    keys, values, flushes = value_tables()
    rank_key, suit_bit = card_tables(ruleset.variant.deck_size)
    rules = rule_arrays(ruleset)
    return (keys, values, flushes, rank_key, suit_bit, rules.royalty, rules.entry, rules.stay)


def fantasyland_count(position: Position, p: int) -> int:
    if position.fantasyland_cards and position.fantasyland_cards[p]:
        return position.fantasyland_cards[p]
    return 14 if position.variant.is_pineapple_family else 13


def foul_cost(players: int) -> float:
    """What the policy counts a foul as: the rows and scoop lost to each opponent, and a
    little for the royalties it pays."""
    return 6.0 * max(1, players - 1) + 4.0


class Rollouts:
    """One decision's candidates prepared for the kernels."""

    def __init__(self, position: Position, placements: Sequence[Placement], fl_value: float):
        position.check()
        self.position = position
        self.placements = list(placements)
        self.fl_value = float(fl_value)
        self.tables = tables_for(position)
        variant = position.variant
        players = position.players
        self.boards = np.full((players, 13), -1, dtype=np.int64)
        self.counts = np.zeros((players, 3), dtype=np.int64)
        self.next_street = np.zeros(players, dtype=np.int64)
        offsets = (0, 3, 8)
        for p, board in enumerate(position.rows):
            for r, row in enumerate(board):
                for i, c in enumerate(row):
                    self.boards[p, offsets[r] + i] = c
                self.counts[p, r] = len(row)
            if not position.fantasyland[p]:
                self.next_street[p] = _next_street(variant, sum(len(row) for row in board))
        self.next_street[position.hero] = position.street
        self.fantasyland = np.array(position.fantasyland, dtype=np.bool_)
        self.fl_cards = np.array(
            [fantasyland_count(position, p) if position.fantasyland[p] else 0
             for p in range(players)],
            dtype=np.int64,
        )
        self.in_fl_before = np.array(position.in_fantasyland_before, dtype=np.bool_)
        self.streets = np.array(variant.streets, dtype=np.int64)
        self.pool = np.array(position.unseen(), dtype=np.int64)
        self.length = int(self.fl_cards.sum())
        for p in range(players):
            if position.fantasyland[p]:
                continue
            for t in range(int(self.next_street[p]), len(variant.streets) + 1):
                if p == position.hero and t == position.street:
                    continue
                self.length += variant.streets[t - 1][0]
        if self.length > len(self.pool):
            raise ValueError(
                f"the rest of the hand needs {self.length} cards and only {len(self.pool)} "
                "are unseen (R-DEAL-2)"
            )
        dealt = position.dealt
        self.cand_cards = np.tile(np.array(dealt, dtype=np.int64), (len(self.placements), 1))
        self.cand_rows = np.full((len(self.placements), len(dealt)), 3, dtype=np.int64)
        for c, placement in enumerate(self.placements):
            for r, row in enumerate(placement.rows):
                for card in row:
                    self.cand_rows[c, dealt.index(card)] = r
        excludes = position.ruleset.joker_excludes
        self.joker_board = excludes is not JokerExcludes.ROW
        self.joker_known = excludes is JokerExcludes.KNOWN
        # Under `known` a joker takes no card the history shows: the hero's own discards (the
        # boards are added at the showdown, in the kernel).
        self.known = 0
        if self.joker_known:
            for card in position.known_dead:
                if card < 52:
                    self.known |= 1 << card
        self.foul_cost = foul_cost(players)
        self.looks = LOOKS[variant]

    def deals(self, seed: int, first: int, count: int) -> IntArray:
        k = kernels()
        deals: IntArray = k.make_deals(seed, first, count, self.pool, self.length)
        return deals

    def play(
        self, which: Sequence[int], deals: IntArray
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """(values, fouls, Fantasylands) per candidate of ``which`` and deal."""
        k = kernels()
        n = len(deals)
        value = np.zeros((len(which), n))
        foul = np.zeros((len(which), n))
        fl = np.zeros((len(which), n))
        k.rollouts(
            self.tables, self.boards, self.counts, self.next_street, self.fantasyland,
            self.fl_cards, self.in_fl_before, self.position.hero, self.cand_cards,
            self.cand_rows, np.array(which, dtype=np.int64), deals, self.streets,
            self.position.ruleset.scoop_bonus, self.fl_value, self.joker_board,
            self.joker_known, self.known,
            self.foul_cost, self.looks, value, foul, fl,
        )
        return value, foul, fl


def _next_street(variant: Variant, placed: int) -> int:
    for street in range(1, len(variant.streets) + 1):
        if placed_before(variant, street) == placed:
            return street
    return len(variant.streets) + 1


def is_exact(position: Position) -> bool:
    """docs/REVIEW.md "Exact": every other board complete and face up, and the hero's decision
    finishes its board."""
    if any(position.fantasyland):
        return False
    for p, board in enumerate(position.rows):
        if p != position.hero and tuple(len(row) for row in board) != ROW_SIZES:
            return False
    return position.street == len(position.variant.streets)


def evaluate(
    position: Position,
    *,
    rollouts: int,
    seed: int,
    fl_value: float = 15.0,
    adaptive: bool = True,
    played: Placement | None = None,
    target_ci: float = 0.3,
) -> Evaluation:
    """Every candidate's value (docs/REVIEW.md). ``rollouts`` is the most deals one candidate gets;
    with ``adaptive`` the clearly worse candidates stop early and the evaluation stops once
    the best is clear and the ``played`` candidate's cost is known to ``target_ci``. The
    played candidate, when given, is never dropped."""
    placements = candidates(position)
    if is_exact(position):
        from .exact import exact_evaluation

        return exact_evaluation(position, placements, fl_value)
    if rollouts < 1:
        raise ValueError("rollouts must be at least 1")
    runner = Rollouts(position, placements, fl_value)
    keep = -1 if played is None else played_index(placements, played)
    n = len(placements)
    values: list[list[FloatArray]] = [[] for _ in range(n)]
    fouls: list[list[FloatArray]] = [[] for _ in range(n)]
    fls: list[list[FloatArray]] = [[] for _ in range(n)]
    done = 0
    alive = list(range(n))
    # The first round spends about rollouts * 27 / FIRST_SHARE deals in all (a Pineapple
    # street's 27 candidates get rollouts / FIRST_SHARE each; street 1's 232 fewer each).
    first = rollouts * TYPICAL_CANDIDATES // (FIRST_SHARE * max(n, TYPICAL_CANDIDATES))
    step = rollouts if not adaptive else max(min(MIN_FIRST, rollouts), first)
    while done < rollouts and alive:
        count = min(step, rollouts - done)
        deals = runner.deals(seed, done, count)
        v, f, fl = runner.play(alive, deals)
        for k, c in enumerate(alive):
            values[c].append(v[k])
            fouls[c].append(f[k])
            fls[c].append(fl[k])
        done += count
        if not adaptive:
            continue
        alive = _survivors(alive, values, keep)
        played_ci = _played_ci(alive, values, keep)
        if len(alive) == 1 or (len(alive) == 2 and keep in alive and played_ci <= target_ci):
            break
        if len(alive) <= 2 and keep < 0:
            break
        step = done  # double the deals of the survivors
    return _summarise(placements, values, fouls, fls)


def played_index(placements: Sequence[Placement], played: Placement) -> int:
    """The candidate a player made, whatever the order of the cards within each row."""
    want = tuple(frozenset(cards) for cards in (*played.rows, played.discard))
    for i, placement in enumerate(placements):
        if tuple(frozenset(cards) for cards in (*placement.rows, placement.discard)) == want:
            return i
    raise ValueError(f"the played placement {played} is not a candidate of this position")


def _paired(a: FloatArray, b: FloatArray) -> tuple[float, float]:
    """Mean and standard error of a - b over their common deals."""
    n = min(len(a), len(b))
    d = a[:n] - b[:n]
    if n < 2:
        return float(d.mean()) if n else 0.0, math.inf
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(n))


def _leader(alive: Sequence[int], values: Sequence[Sequence[FloatArray]]) -> int:
    return max(alive, key=lambda c: (float(np.concatenate(values[c]).mean()), -c))


def _survivors(
    alive: list[int], values: Sequence[Sequence[FloatArray]], keep: int
) -> list[int]:
    joined = {c: np.concatenate(values[c]) for c in alive}
    ranked = sorted(alive, key=lambda c: (-float(joined[c].mean()), c))
    leader = ranked[0]
    # When the played candidate leads, its cost's half-width is the one to the runner-up:
    # that one stays too.
    challenger = ranked[1] if keep == leader and len(ranked) > 1 else -1
    out = []
    for c in alive:
        if c in (leader, keep, challenger):
            out.append(c)
            continue
        mean, se = _paired(joined[leader], joined[c])
        if mean - DROP_Z * se <= 0.0:
            out.append(c)
    return out


def _played_ci(
    alive: Sequence[int], values: Sequence[Sequence[FloatArray]], keep: int
) -> float:
    if keep < 0:
        return 0.0
    leader = _leader(alive, values)
    if leader == keep:
        others = [c for c in alive if c != keep]
        if not others:
            return 0.0
        leader = _leader(others, values)
    _, se = _paired(np.concatenate(values[leader]), np.concatenate(values[keep]))
    return Z95 * se


def _summarise(
    placements: Sequence[Placement],
    values: Sequence[Sequence[FloatArray]],
    fouls: Sequence[Sequence[FloatArray]],
    fls: Sequence[Sequence[FloatArray]],
) -> Evaluation:
    joined = [np.concatenate(v) for v in values]
    most = max(len(v) for v in joined)
    finalists = [c for c, v in enumerate(joined) if len(v) == most]
    best = max(finalists, key=lambda c: (float(joined[c].mean()), -c))
    best_ev = float(joined[best].mean())
    out = []
    for c, placement in enumerate(placements):
        v = joined[c]
        if c == best:
            ev = best_ev
            se = float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else 0.0
        else:
            diff, se = _paired(joined[best], v)
            ev = best_ev - diff
        out.append(
            CandidateValue(
                placement,
                ev,
                Z95 * se if math.isfinite(se) else math.inf,
                float(np.concatenate(fouls[c]).mean()),
                float(np.concatenate(fls[c]).mean()),
                len(v),
            )
        )
    # The best is the highest EV; a dropped candidate cannot exceed the leader on the deals it
    # shared (it was dropped for being worse there), and ties go to the earlier candidate.
    top = max(range(len(out)), key=lambda c: (out[c].ev, -c))
    if top != best and out[top].ev > best_ev:
        best = top
    return Evaluation(tuple(out), best, False)
