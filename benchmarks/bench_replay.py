"""Replay + scoring throughput, and audit JSON rendering throughput, on one core.

    python benchmarks/bench_replay.py [--input FILE] [--hands 3000] [--repeat 5] [--profile]

What it measures (the reader is *not* timed: it is a separate engineer's part):

  * replay: ``Replayer(Ruleset()).replay(hand)`` over every hand of the input, read into a list
    first, i.e. the state machine of every street, the final boards, their evaluation, the
    pairwise scoring and settlement, Fantasyland qualification and the SUMMARY comparison
    (``audit.audit_items`` without the reader);
    The hands (and their results) are read before timing and moved out of the garbage
    collector's sight (``gc.freeze``), as the streaming audit never holds them all;
  * JSON: ``audit.write_audit_json`` of those results into an ``io.StringIO`` (the document
    of ``ofc-audit audit --json``).

The input defaults to a simulated history (Pineapple, three players with deep stacks so that
nobody busts, standard Fantasyland, four tables) generated with ``ofc-audit simulate`` before
timing; ``--input`` reads a history file instead.
Throughput is hands per CPU second of this process (``time.process_time``), the best of
``--repeat`` runs: on a machine shared with other work the wall clock would also count the
time other processes take the core. ``--profile`` prints where each part spends its time.
Goals (the issue): replay + scoring about 30-50 us a hand, JSON about 15-20 us a hand.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ofc_audit.audit.driver import write_audit_json  # noqa: E402
from ofc_audit.game.ruleset import Ruleset  # noqa: E402
from ofc_audit.history.reader import read_path  # noqa: E402
from ofc_audit.history.records import Hand  # noqa: E402
from ofc_audit.replay import Replayer  # noqa: E402
from ofc_audit.replay.results import HandResult  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_engine import best_of  # noqa: E402  (CPU time, best of the runs)


def simulated_history(hands: int, seed: int) -> Path:
    """A Pineapple, 3-player history written by ``ofc-audit simulate`` to a temporary file."""
    handle, name = tempfile.mkstemp(suffix=".txt", prefix="bench_replay_")
    os.close(handle)
    subprocess.run(
        [sys.executable, "-m", "ofc_audit", "simulate", "--variant", "pineapple",
         "--players", "3", "--hands", str(hands), "--seed", str(seed), "--tables", "4",
         # Deep stacks: nobody busts, so every hand is played by three.
         "--stacks", "10000", "--out", name],
        check=True,
        cwd=ROOT,
    )
    return Path(name)


def replay_all(hands: list[Hand]) -> list[HandResult]:
    replayer = Replayer(Ruleset())
    return [replayer.replay(hand) for hand in hands]


def replay_stream(hands: list[Hand]) -> None:
    """As the audit streams: each result is dropped once made (nothing piles up for GC)."""
    replay = Replayer(Ruleset()).replay
    for hand in hands:
        replay(hand)


def render_json(results: list[HandResult]) -> str:
    out = io.StringIO()
    write_audit_json(results, out)
    return out.getvalue()


def profile(title: str, body: Callable[[], object]) -> None:
    print(f"--- profile: {title}")
    profiler = cProfile.Profile()
    profiler.enable()
    body()
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(20)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--input", help="a history file (default: a simulated one)")
    parser.add_argument("--hands", type=int, default=3_000, help="hands to simulate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5, help="runs; the best one counts")
    parser.add_argument("--profile", action="store_true", help="profile replay and JSON")
    args = parser.parse_args()

    path = Path(args.input) if args.input else simulated_history(args.hands, args.seed)
    try:
        hands = [item for item in read_path(str(path)) if isinstance(item, Hand)]
    finally:
        if not args.input:
            path.unlink()
    results = replay_all(hands)
    # The audit streams, so it never holds 10,000 hands and their results; held here, they
    # would make every full garbage collection walk them. Freezing them keeps that cost out.
    gc.collect()
    gc.freeze()

    if args.profile:
        profile("replay", lambda: replay_stream(hands))
        profile("JSON", lambda: render_json(results))

    replay_s = best_of(args.repeat, lambda: replay_stream(hands))
    json_s = best_of(args.repeat, lambda: render_json(results))
    n = len(hands)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{n:,} hands, best of {args.repeat} (CPU time), load average {load:.2f}")
    for label, seconds in (("replay + scoring", replay_s), ("JSON rendering", json_s)):
        print(f"  {label:<17} {n / seconds:>9,.0f} hands/s per core  "
              f"{seconds / n * 1e6:6.1f} us/hand")
    both = replay_s + json_s
    print(f"  {'both':<17} {n / both:>9,.0f} hands/s per core  {both / n * 1e6:6.1f} us/hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
