"""Benchmark: session summaries over a synthetic seats table of 1,000,000 player-hand rows;
with ``--history``, the whole post-replay part of ``ofc-audit session`` over a real file.

    python benchmarks/bench_session.py [--rows 1000000] [--repeat 3]
    python benchmarks/bench_session.py --history FILE [--out DIR] [--profile]

The target (issue 5) is every summary of ``ofc_audit.session.summaries`` over a million seat rows in
under 5 seconds. The table is random but has the dtypes, null rates and shapes of a real one
(:data:`ofc_audit.session.tables.SEAT_COLUMNS`): 4 players a hand, 40 player names, two currencies,
Fantasyland in a few percent of hands, a few percent of boards hidden (NA results). The
pairs table for the head-to-head summary is built the same way (6 pairs a 4-player hand).

``--history FILE`` runs what ``ofc-audit session FILE --jobs 1`` runs, in this process, and
splits its CPU time (``time.process_time``) into the replay (reading and auditing: what
``audit`` costs too) and the post-replay stages: the table builder's per-hand work, building
the tables, and ``finish_session`` (summaries, every table in every format, charts,
reports). The builder's calls are timed one by one with ``time.perf_counter`` (a
``process_time`` call costs over a microsecond here, a tenth of the call being timed), so
that part is wall time: run it on a quiet machine. It prints the post-replay seconds per
100,000 hands and the process's RSS after each stage and at its peak (``ru_maxrss``); an
``audit`` of the same file peaks at about 43 MB, so the rest of the peak is the session's.
``--profile`` also prints the top functions of ``finish_session`` by cumulative time
(cProfile). Make big inputs with ``benchmarks/run_suite.py`` (its ``hands_N.txt`` files).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ofc_audit.session import summaries
from ofc_audit.session.tables import CATEGORY_DTYPE, PAIR_COLUMNS, ROW_NAMES, SEAT_COLUMNS

PLAYERS_PER_HAND = 4


def synthetic_seats(rows: int, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    hands = rows // PLAYERS_PER_HAND
    hand = np.repeat(np.arange(hands), PLAYERS_PER_HAND)
    n = len(hand)
    names = np.array([f"player{i:02d}" for i in range(40)], dtype=object)
    hidden = rng.random(n) < 0.03
    fouled = rng.random(n) < 0.12
    roy = {r: np.where(fouled, 0, rng.integers(0, 12, n)) for r in ROW_NAMES}
    total = roy["top"] + roy["middle"] + roy["bottom"]
    points = rng.integers(-40, 41, n)
    transfer = np.clip(points, -30, 30)
    in_fl = rng.random(n) < 0.05
    qualifies = rng.random(n) < 0.08
    categories = np.array(CATEGORY_DTYPE.categories, dtype=object)

    def nullable(values: np.ndarray, dtype: Any) -> Any:
        array = pd.array(values, dtype=dtype)
        array[hidden] = pd.NA
        return array

    currency = np.where(hand % 3 == 0, "USD", "EUR")
    data = {
        "hand": hand,
        "hand_id": pd.array(np.char.add("H-", hand.astype(str)), dtype="string"),
        "match": pd.array(np.char.add("M-", (hand // 2).astype(str)), dtype="string"),
        "table": pd.array(np.char.add("T", (hand % 50).astype(str)), dtype="string"),
        "stake": np.where(currency == "USD", 0.25, 0.10),
        "currency": pd.array(currency, dtype="string"),
        "name": pd.array(names[(hand * 7 + np.tile(np.arange(4), hands) * 11) % 40],
                         dtype="string"),
        "seat": np.tile(np.arange(1, 5), hands),
        "position": np.tile(np.arange(1, 5), hands),
        "in_fantasyland": in_fl,
        **{r: pd.Categorical(categories[rng.integers(0, 9, n)], dtype=CATEGORY_DTYPE)
           for r in ROW_NAMES},
        **{f"royalties_{r}": nullable(roy[r], "Int64") for r in ROW_NAMES},
        "royalties": nullable(total, "Int64"),
        "fouled": nullable(fouled, "boolean"),
        "points": nullable(points, "Int64"),
        "transfer": nullable(transfer, "Int64"),
        "stack_before": rng.integers(100, 500, n),
        "stack_after": nullable(rng.integers(100, 500, n), "Int64"),
        "fantasyland_next": nullable(qualifies, "boolean"),
        "fantasyland_cards": nullable(np.where(qualifies, 14, 0), "Int64"),
    }
    seats = pd.DataFrame(data)
    for r in ROW_NAMES:
        seats.loc[hidden, r] = np.nan
    seats.loc[~seats["fantasyland_next"].fillna(False), "fantasyland_cards"] = pd.NA
    return seats[list(SEAT_COLUMNS)]


def synthetic_pairs(seats: pd.DataFrame, seed: int = 6) -> pd.DataFrame:
    """Six pairs per 4-player hand, (P1,P2), (P1,P3), ..., (P3,P4)."""
    rng = np.random.default_rng(seed)
    hands = seats["hand"].to_numpy()[::PLAYERS_PER_HAND]
    order = [(i, j) for i in range(PLAYERS_PER_HAND) for j in range(i + 1, PLAYERS_PER_HAND)]
    names = seats["name"].to_numpy().reshape(-1, PLAYERS_PER_HAND)
    a = np.concatenate([names[:, i] for i, _ in order])
    b = np.concatenate([names[:, j] for _, j in order])
    hand = np.tile(hands, len(order))
    n = len(hand)
    first = seats.iloc[::PLAYERS_PER_HAND]
    rows = rng.integers(-1, 2, (n, 3))
    scoop = np.where(rows.sum(axis=1) == 3, 3, np.where(rows.sum(axis=1) == -3, -3, 0))
    due = rows.sum(axis=1) + scoop + rng.integers(-10, 11, n)
    transferred = np.clip(due, -20, 20)
    data = {
        "hand": hand,
        "hand_id": pd.array(np.tile(first["hand_id"].to_numpy(), len(order)), dtype="string"),
        "match": pd.array(np.tile(first["match"].to_numpy(), len(order)), dtype="string"),
        "table": pd.array(np.tile(first["table"].to_numpy(), len(order)), dtype="string"),
        "stake": np.tile(first["stake"].to_numpy(), len(order)),
        "currency": pd.array(np.tile(first["currency"].to_numpy(), len(order)), dtype="string"),
        "a": pd.array(a, dtype="string"),
        "b": pd.array(b, dtype="string"),
        **{r: pd.array(rows[:, k], dtype="Int64") for k, r in enumerate(ROW_NAMES)},
        "scoop": pd.array(scoop, dtype="Int64"),
        "royalties": pd.array(rng.integers(-15, 16, n), dtype="Int64"),
        "points_due": pd.array(due, dtype="Int64"),
        "transferred": pd.array(transferred, dtype="Int64"),
        "capped": pd.array(transferred != due, dtype="boolean"),
    }
    return pd.DataFrame(data)[list(PAIR_COLUMNS)]


def timed(label: str, fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    print(f"  {label:<28} {best:7.3f} s")
    return best


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def session_stages(history: str, out: str | None, profile: bool, jobs: int = 1) -> None:
    """The post-replay cost of ``ofc-audit session`` over ``history`` (see the docstring)."""
    from ofc_audit.audit.driver import audit_paths
    from ofc_audit.game.ruleset import Ruleset
    from ofc_audit.present.report import finish_session
    from ofc_audit.replay.results import HandResult
    from ofc_audit.session.tables import TableBuilder

    clock = time.process_time
    print(f"start: rss {_rss_mb():.0f} MB")
    builder = TableBuilder()
    adding = 0.0
    began = clock()
    tick = time.perf_counter
    for item in audit_paths([history], Ruleset.load(None)):
        t0 = tick()
        if isinstance(item, HandResult):
            builder.add(item)
        else:
            builder.reject(item)
        adding += tick() - t0
    loop = clock() - began
    hands = builder.hand_count
    print(f"replay + rows: {hands:,} hands, rss {_rss_mb():.0f} MB, peak {_peak_mb():.0f} MB")
    t0 = clock()
    tables = builder.build()
    del builder
    building = clock() - t0
    print(f"tables built: rss {_rss_mb():.0f} MB, peak {_peak_mb():.0f} MB")
    with tempfile.TemporaryDirectory() as tmp:
        profiler = cProfile.Profile() if profile else None
        t0, wall = clock(), tick()
        if profiler is not None:
            profiler.enable()
        finish_session(tables, Path(out or tmp), True, io.StringIO(), io.StringIO(), jobs)
        if profiler is not None:
            profiler.disable()
        finishing = clock() - t0
        finish_wall = tick() - wall
    print(f"session written: rss {_rss_mb():.0f} MB, peak {_peak_mb():.0f} MB; finishing "
          f"took {finish_wall:.1f} s wall")
    post = adding + building + finishing
    per = 100_000 / max(hands, 1)
    print(f"CPU s: replay {loop - adding:.1f}, rows {adding:.1f}, tables {building:.1f}, "
          f"finish {finishing:.1f}; post-replay {post:.1f} s = {post * per:.1f} s per 100,000 "
          f"hands; peak RSS {_peak_mb():.0f} MB")
    if profiler is not None:
        stats = pstats.Stats(profiler, stream=sys.stdout)
        stats.sort_stats("cumulative").print_stats(40)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--history", help="measure the post-replay stages over this file")
    parser.add_argument("--out", help="with --history: write the session here (default: a "
                        "temporary folder)")
    parser.add_argument("--profile", action="store_true",
                        help="with --history: cProfile of the finishing stage")
    parser.add_argument("--jobs", type=int, default=1,
                        help="with --history: as session --jobs (a helper process writes "
                        "the JSON tables; its CPU is not in the figures, the wall time is)")
    args = parser.parse_args()
    if args.history:
        session_stages(args.history, args.out, args.profile, args.jobs)
        return

    start = time.perf_counter()
    seats = synthetic_seats(args.rows)
    pairs = synthetic_pairs(seats)
    print(f"synthetic seats {len(seats):,} rows, pairs {len(pairs):,} rows "
          f"(built in {time.perf_counter() - start:.1f} s); best of {args.repeat}:")
    seat_total = sum((
        timed("player_summary(seats)", lambda: summaries.player_summary(seats), args.repeat),
        timed("player_rates(seats)", lambda: summaries.player_rates(seats), args.repeat),
        timed("match_summary(seats)", lambda: summaries.match_summary(seats), args.repeat),
        timed("royalties_by_category(seats)",
              lambda: summaries.royalties_by_category(seats), args.repeat),
    ))
    print(f"  {'seat summaries':<28} {seat_total:7.3f} s  (target: under 5 s)")
    pair_total = sum((
        timed("head_to_head(pairs)", lambda: summaries.head_to_head(pairs), args.repeat),
        timed("busiest_hand(pairs)", lambda: summaries.busiest_hand(pairs), args.repeat),
    ))
    print(f"  {'all summaries':<28} {seat_total + pair_total:7.3f} s")

if __name__ == "__main__":
    main()
