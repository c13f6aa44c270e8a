"""The review's rollout policy measured (docs/REVIEW-POLICY.md): foul and Fantasyland
rates, and points per hand against the simulator's bot and against random play, in
3-player Pineapple hands (standard Fantasyland, each hand on its own: no Fantasyland hands
are played, entries are counted).

    python benchmarks/policy_match.py [HANDS]
"""

from __future__ import annotations

import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ofc_audit.game.ruleset import Ruleset  # noqa: E402
from ofc_audit.review import kernels as k  # noqa: E402
from ofc_audit.review.rollout import LOOKS, foul_cost, tables_for  # noqa: E402
from ofc_audit.simulate.bot import Policy  # noqa: E402

RULESET = Ruleset()
TABLES = tables_for(RULESET)
OFFSET = (0, 3, 8)
SIZES = (3, 5, 5)
Chooser = Callable[[int, list[int], int, int], list[list[int]]]


class Table:
    """Three seats' boards as the kernels hold them."""

    def __init__(self) -> None:
        self.boards = np.full((3, 13), -1, dtype=np.int64)
        self.counts = np.zeros((3, 3), dtype=np.int64)

    def put(self, p: int, rows: list[list[int]]) -> None:
        for r, cards in enumerate(rows):
            for c in cards:
                self.boards[p, OFFSET[r] + self.counts[p, r]] = c
                self.counts[p, r] += 1


def review_chooser(table: Table) -> Chooser:
    catch = k.catch_table(LOOKS[RULESET.variant])
    codes = {(nd, place): k.placement_codes(nd, place) for nd, place in ((5, 5), (3, 2))}
    values = np.empty((3, 32), dtype=np.int64)
    gains = np.empty((3, 32))
    row = np.empty(5, dtype=np.int64)
    subset = np.empty((32, 5), dtype=np.int64)

    def choose(p: int, dealt: list[int], place: int, street: int) -> list[list[int]]:
        before = [list(table.boards[p, OFFSET[r]:OFFSET[r] + table.counts[p, r]])
                  for r in range(3)]
        boards, counts = table.boards.copy(), table.counts.copy()
        k.choose(TABLES, boards, counts, p, np.array(dealt, dtype=np.int64), len(dealt),
                 codes[(len(dealt), place)], 15.0, foul_cost(3), LOOKS[RULESET.variant], 0,
                 catch, values, gains, row, subset)
        return [list(boards[p, OFFSET[r]:OFFSET[r] + counts[p, r]])[len(before[r]):]
                for r in range(3)]

    return choose


def bot_chooser(table: Table) -> Chooser:
    policy = Policy(RULESET, 3)
    boards = {p: policy.board() for p in range(3)}

    def choose(p: int, dealt: list[int], place: int, street: int) -> list[list[int]]:
        if street == 1:
            boards[p] = policy.board()
        added, _ = policy.choose(boards[p], dealt, place)
        policy.apply(boards[p], added)
        return [list(r) for r in added]

    return choose


def random_chooser(table: Table, rng: random.Random) -> Chooser:
    def choose(p: int, dealt: list[int], place: int, street: int) -> list[list[int]]:
        kept = rng.sample(dealt, place)
        rows: list[list[int]] = [[], [], []]
        for c in kept:
            room = [r for r in range(3)
                    if table.counts[p, r] + len(rows[r]) < SIZES[r]]
            rows[rng.choice(room)].append(c)
        return rows

    return choose


def play(hands: int, seats: Callable[[Table, int], list[Chooser]], seed: int
         ) -> tuple[list[float], list[float], list[float]]:
    """(points, fouled, Fantasyland) of seat 0's player per hand; seat 0 moves round."""
    rng = random.Random(seed)
    points, fouls, fls = [], [], []
    for hand in range(hands):
        table = Table()
        choosers = seats(table, hand)
        shift = hand % 3
        order = [(shift + i) % 3 for i in range(3)]  # seat -> chooser index
        deck = list(range(52))
        rng.shuffle(deck)
        for street, (nd, place) in enumerate(RULESET.variant.streets, start=1):
            for p in range(3):
                dealt = [deck.pop() for _ in range(nd)]
                table.put(p, choosers[order[p]](p, dealt, place, street))
        final = []
        for p in range(3):
            fouled, vt, vm, vb = k.finished(TABLES, table.boards[p], table.counts[p], False, 0)
            final.append((fouled, vt, vm, vb, k.royalties_of(TABLES, fouled, vt, vm, vb)))
        me = order.index(0)
        pts = sum(k.pair_points(*final[me], *final[q], 3) for q in range(3) if q != me)
        points.append(float(pts))
        fouls.append(float(final[me][0]))
        fls.append(float(k.next_fantasyland(TABLES, final[me][0], *final[me][1:4], False)))
    return points, fouls, fls


def report(name: str, result: tuple[list[float], list[float], list[float]]) -> None:
    points, fouls, fls = result
    se = statistics.stdev(points) / len(points) ** 0.5
    print(f"{name}: {statistics.mean(points):+.2f} +/- {1.96 * se:.2f} points per hand, "
          f"foul {statistics.mean(fouls):.1%}, Fantasyland {statistics.mean(fls):.1%}")


def main() -> None:
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    rng = random.Random(5)
    report("review policy, 3 seats of it", play(
        hands, lambda t, h: [review_chooser(t)] * 3, 1))
    report("review policy vs 2 bots", play(
        hands, lambda t, h: [review_chooser(t), bot_chooser(t), bot_chooser(t)], 2))
    report("bot vs 2 review policies", play(
        hands, lambda t, h: [bot_chooser(t), review_chooser(t), review_chooser(t)], 3))
    report("review policy vs 2 random", play(
        hands, lambda t, h: [review_chooser(t), random_chooser(t, rng), random_chooser(t, rng)],
        4))
    report("bot, 3 seats of it", play(
        hands, lambda t, h: [bot_chooser(t)] * 3, 5))


if __name__ == "__main__":
    main()
