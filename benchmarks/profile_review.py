"""Where a review's time goes: one player's decisions of a 3-player Pineapple session,
timed per decision kind (street 1..5, exact or by rollouts, Fantasyland settings), in CPU
seconds of this process (the machine is shared; not a test).

    python benchmarks/profile_review.py HISTORY --player alice --hands 40 [--rollouts N]
        [--profile OUT.pstats]

The kernels are compiled (or loaded from numba's cache) before the clock starts; the time
that takes is printed first.
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import sys
import time
from collections import defaultdict
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ofc_audit.game.ruleset import Ruleset  # noqa: E402
from ofc_audit.history.reader import read_hands  # noqa: E402
from ofc_audit.review.decisions import Kind  # noqa: E402
from ofc_audit.review.run import ReviewOptions, review_decision, reviewable_hands  # noqa: E402


def warm_up() -> float:
    """CPU seconds to load (or compile) the kernels."""
    from ofc_audit.review import best_fantasyland_setting, evaluate
    from ofc_audit.review.position import Position

    start = time.process_time()
    empty = ((), (), ())
    opening = Position(Ruleset(), 3, 0, (empty,) * 3, (0, 5, 10, 15, 20), 1, (),
                       (False,) * 3, (False,) * 3)
    evaluate(opening, rollouts=32, seed=0)
    best_fantasyland_setting(list(range(14)), Ruleset())
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("history")
    parser.add_argument("--player", default="alice")
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--rollouts", type=int, default=1000)
    parser.add_argument("--profile")
    args = parser.parse_args()
    print(f"kernels loaded in {warm_up():.1f} CPU s")
    hands = list(islice(reviewable_hands(read_hands([args.history]), Ruleset(), {args.player}),
                        args.hands))
    options = ReviewOptions(rollouts=args.rollouts)
    times: dict[str, list[float]] = defaultdict(list)
    profiler = cProfile.Profile() if args.profile else None
    total = time.process_time()
    for hand in hands:
        for decision in hand.decisions:
            start = time.process_time()
            if profiler:
                profiler.enable()
            review = review_decision(decision, options)
            if profiler:
                profiler.disable()
            elapsed = time.process_time() - start
            if decision.kind is Kind.FANTASYLAND:
                key = "fantasyland"
            else:
                key = f"street {decision.street}" + (" exact" if review.exact else "")
            times[key].append(elapsed)
    total = time.process_time() - total
    reviewed = sum(1 for h in hands if h.decisions)
    print(f"{reviewed} hands, {sum(map(len, times.values()))} decisions, {total:.1f} CPU s: "
          f"{total / max(1, reviewed):.2f} s a hand, rollouts {args.rollouts}")
    for key in sorted(times):
        t = times[key]
        print(f"  {key:18s} {len(t):4d} decisions  median {statistics.median(t):.3f} s  "
              f"mean {statistics.mean(t):.3f} s  max {max(t):.3f} s  sum {sum(t):.1f} s")
    if profiler:
        profiler.dump_stats(args.profile)


if __name__ == "__main__":
    main()
