"""Benchmarks of the review engine against issue 22's targets, in CPU seconds of this process
(the machine is shared; one core; not a test).

    python benchmarks/bench_review.py [--quick]

Prints the median time to rank every candidate of 3-player Pineapple decisions (street 1,
streets 2-4) with the played candidate's cost ci95, complete rollouts per second from
street 2, the exact Fantasyland setting of 14 and 17 cards, and the policy's foul and
Fantasyland rates.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ofc_audit.game.ruleset import Ruleset  # noqa: E402
from ofc_audit.review import (  # noqa: E402
    Position,
    best_fantasyland_setting,
    candidates,
    evaluate,
)
from ofc_audit.review.position import placed_before  # noqa: E402
from ofc_audit.review.rollout import Rollouts  # noqa: E402


def street_position(street: int, seed: int, hero: int = 0) -> Position:
    """A 3-player Pineapple position at ``street`` for seat ``hero``, boards laid out by
    the rollout policy's own first streets (each row filled in turn)."""
    rng = random.Random(seed)
    deck = list(range(52))
    rng.shuffle(deck)
    rows = []
    for p in range(3):
        placed = placed_before(Ruleset().variant, street + (1 if p < hero else 0))
        cards = deck[:placed]
        del deck[:placed]
        top = min(3, placed // 4)
        middle = min(5, (placed - top) // 2)
        rows.append((tuple(cards[:top]), tuple(cards[top:top + middle]),
                     tuple(cards[top + middle:])))
    dealt = tuple(deck[:5 if street == 1 else 3])
    dead = tuple(deck[3:3 + street - 2]) if street > 2 else ()  # own discards so far
    return Position(Ruleset(), 3, hero, tuple(rows), dealt, street, dead, (False,) * 3,
                    (False,) * 3)


def decision_times(
    street: int, count: int, rollouts: int, good_play: bool
) -> tuple[float, float]:
    """Median CPU seconds per decision and median ci95 of the played candidate's cost. The
    played candidate is the best of a short evaluation with another seed (a good player's
    choice) or, without ``good_play``, any candidate."""
    times, cis = [], []
    for seed in range(count):
        position = street_position(street, seed)
        placements = candidates(position)
        if good_play:
            quick = evaluate(position, rollouts=64, seed=seed + 1000, adaptive=False)
            played = placements[quick.best]
        else:
            played = placements[(seed * 7) % len(placements)]
        start = time.process_time()
        evaluation = evaluate(position, rollouts=rollouts, seed=seed, played=played)
        times.append(time.process_time() - start)
        cis.append(evaluation.cost(placements.index(played))[1])
    return statistics.median(times), statistics.median(cis)


def rollout_rate(count: int) -> tuple[float, float, float]:
    position = street_position(2, 99)
    runner = Rollouts(position, candidates(position), 15.0)
    deals = runner.deals(1, 0, count)
    runner.play([0], deals[:10])
    start = time.process_time()
    _, fouls, fls = runner.play([0], deals)
    elapsed = time.process_time() - start
    return count / elapsed, float(fouls.mean()), float(fls.mean())


def all_candidates_rate(count: int) -> float:
    """Complete 3-player hands a CPU second when every candidate of a street-2 decision is
    played on the same deals (as the review plays them: the other players' hands once per
    deal)."""
    position = street_position(2, 99)
    placements = candidates(position)
    runner = Rollouts(position, placements, 15.0)
    deals = runner.deals(1, 0, count)
    every = list(range(len(placements)))
    runner.play(every, deals[:10])
    start = time.process_time()
    runner.play(every, deals)
    return count * len(every) / (time.process_time() - start)


def fantasyland_times(n: int, count: int) -> tuple[float, float]:
    times = []
    for seed in range(count):
        cards = random.Random(seed).sample(range(52), n)
        start = time.process_time()
        best_fantasyland_setting(cards, Ruleset(), 15.0, True)
        times.append(time.process_time() - start)
    return statistics.median(times), max(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 5 if args.quick else 15
    best_fantasyland_setting(list(range(14)), Ruleset())  # load the compiled code
    evaluate(street_position(2, 0), rollouts=64, seed=0)
    rate, foul, fl = rollout_rate(5000 if args.quick else 20000)
    print(f"rollouts from street 2, 3 players: {rate:,.0f}/s (policy foul {foul:.1%}, "
          f"Fantasyland {fl:.1%} for the seat reviewed)")
    rate = all_candidates_rate(1000 if args.quick else 4000)
    print(f"every candidate of a street-2 decision on the same deals: {rate:,.0f} hands/s")
    for good in (True, False):
        who = "good play" if good else "any play"
        for street in (2, 3, 4):
            median, ci = decision_times(street, n, 8000, good)
            print(f"street {street} ({who}): median {median:.2f} CPU s per decision, "
                  f"played cost ci95 {ci:.2f}")
        median, ci = decision_times(1, max(3, n // 3), 8000, good)
        print(f"street 1 ({who}, 232 candidates): median {median:.2f} CPU s, "
              f"played cost ci95 {ci:.2f}")
    for cards in (14, 17):
        median, worst = fantasyland_times(cards, 20)
        print(f"Fantasyland {cards} cards: median {median * 1000:.1f} ms, "
              f"worst {worst * 1000:.1f} ms")


if __name__ == "__main__":
    main()
