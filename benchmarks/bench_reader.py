"""Reader throughput: hands per second read into records, on one core.

The input is the FORMAT.md worked example (Pineapple, three players, operator view, a
Fantasyland hand, SHOWDOWN and SUMMARY: 42 lines) repeated with distinct hand ids, written to a
temporary file and read back through :func:`ofc_audit.reader.read_path`, as the auditor reads.

    python benchmarks/bench_reader.py [--hands 20000] [--repeat 5] [--profile]

Prints the best of ``--repeat`` runs (the least disturbed by other work on the machine).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ofc_audit.reader import read_path  # noqa: E402
from ofc_audit.records import Hand  # noqa: E402

EXAMPLE = ROOT / "tests" / "data" / "format_example.txt"


def write_history(path: Path, hands: int) -> None:
    template = EXAMPLE.read_text(encoding="utf-8")
    first, rest = template.split("\n", 1)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for number in range(hands):
            out.write(first.replace("#PD-1001", f"#PD-{number}", 1) + "\n" + rest + "\n")


def run(path: Path) -> tuple[int, float]:
    start = time.perf_counter()
    count = 0
    for item in read_path(path):
        if not isinstance(item, Hand):
            raise SystemExit(f"benchmark input rejected: {item}")
        count += 1
    return count, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.txt"
        write_history(path, args.hands)
        size = path.stat().st_size
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(run, path)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
            return 0
        best = min((run(path) for _ in range(args.repeat)), key=lambda r: r[1])
        count, seconds = best
        print(
            f"{count} hands ({size / 1e6:.1f} MB) in {seconds:.3f} s: "
            f"{count / seconds:,.0f} hands/s, {size / seconds / 1e6:.1f} MB/s "
            f"(best of {args.repeat})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
