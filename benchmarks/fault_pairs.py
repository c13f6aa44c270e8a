"""Faults in pairs, the long run (issue 13): every pair of fault kinds over many seeds, in the
operator's view and in a player's view.

    python benchmarks/fault_pairs.py [--seeds 40] [--hands 12] [--pairs R-ACT-2,fl_split_deal]
                                     [--show 2] [--write-seeds]

For each pair of kinds the simulator can put in one hand (``simulate.INCOMPATIBLE`` lists
those it cannot), simulate ``--hands`` hands per seed and view with both kinds injected
wherever the hand can break both, audit them, and compare each hand's cited rule ids with the
union of its kinds' (``simulate.faults.FAULT_RULES``); a hand without a fault must have no
finding and no mismatch. Prints, per pair, how many hands carried both kinds and how many hands
differ; then, for each pair that differs, up to ``--show`` hands (text, expected, got).
Exits 1 when any hand differs. The short run in the suite is tests/test_fault_pairs.py; it
replays, for each pair and view, the first two seeds that drew the pair together, which
``--write-seeds`` records in tests/data/fault_pair_seeds.json (run it with every pair, the
default --hands, after a change to the simulator's draws).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.fault_pairs import (  # noqa: E402
    NEVER_MEET,
    PAIRS,
    SEEDS_FILE,
    SEEDS_PER_VIEW,
    PairRun,
    pair_key,
    runs,
    write_seeds,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=40, help="seeds per pair and view")
    parser.add_argument("--hands", type=int, default=12, help="hands per simulation")
    parser.add_argument("--pairs", default="",
                        help="only these pairs (KIND+KIND) and pairs of these kinds (one kind: "
                             "every pair with it), a comma list")
    parser.add_argument("--show", type=int, default=2, help="differing hands shown per pair")
    parser.add_argument("--write-seeds", action="store_true",
                        help=f"record the first seeds drawing each pair in {SEEDS_FILE.name} "
                             "(each pair and view stops there; --seeds is the most tried)")
    args = parser.parse_args(argv)
    items = {k.strip() for k in args.pairs.split(",") if k.strip()}
    keys = {item for item in items if "+" in item}
    kinds = items - keys
    pairs = tuple(
        p for p in PAIRS
        if not items or pair_key(p) in keys or set(p) <= kinds
        or (len(kinds) == 1 and not keys and kinds & set(p))
    )
    if args.write_seeds:  # no seed draws these together
        pairs = tuple(p for p in pairs if frozenset(p) not in NEVER_MEET)
    start = time.perf_counter()
    by_pair: dict[tuple[str, str], list[PairRun]] = {}
    first = SEEDS_PER_VIEW if args.write_seeds else 0
    for run in runs(pairs, range(args.seeds), args.hands, first=first):
        by_pair.setdefault(run.pair, []).append(run)
    elapsed = time.perf_counter() - start
    if args.write_seeds:
        written = write_seeds(r for pair_runs in by_pair.values() for r in pair_runs)
        print(f"wrote {SEEDS_FILE} ({len(written)} pairs)")
    print(f"{'pair':<34} {'both':>6} {'faulty':>7} {'clean':>6} {'differ':>7}")
    failing = []
    for pair, pair_runs in by_pair.items():
        both = sum(r.both for r in pair_runs)
        misses = [(r, m) for r in pair_runs for m in r.misses]
        print(f"{' + '.join(pair):<34} {both:>6} {sum(r.faulty for r in pair_runs):>7} "
              f"{sum(r.clean for r in pair_runs):>6} {len(misses):>7}")
        if misses:
            failing.append((pair, misses))
    never = [pair for pair, pair_runs in by_pair.items() if not any(r.both for r in pair_runs)]
    print(f"\n{len(by_pair)} pairs, {args.seeds} seeds x 2 views x {args.hands} hands each, "
          f"{elapsed:.0f} s; never drawn together: {len(never)}; differing: {len(failing)}")
    for pair in never:
        why = "they never meet" if frozenset(pair) in NEVER_MEET else "not drawn: more seeds?"
        print(f"  never together: {pair_key(pair)} ({why})")
    for pair, misses in failing:
        print(f"\n=== {' + '.join(pair)}: {len(misses)} hand(s) differ")
        for run, miss in misses[: args.show]:
            view = "operator" if run.view is None else f"player:{run.view}"
            print(f"--- seed {run.seed}, {view}, {run.game}")
            print(miss.describe())
    return 1 if failing else 0


if __name__ == "__main__":
    raise SystemExit(main())
