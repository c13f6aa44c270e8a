"""Benchmark: the archive's targets (issue 21), each a ratio of two commands in one run.

    python benchmarks/bench_archive.py [--hands 100000] [--data DIR] [--out FILE.md]

Inputs are those of ``benchmarks/run_suite.py``: its 10,000 simulated hands (8 tables, 3
players) and copies of them with their own hand ids, match ids and table names, here one
file per copy in a folder (``--hands`` / 10,000 files), plus one more copy for the last
target. Each command runs as ``python -m ofc_audit ...`` in a child process, timed by the
wall clock and by the child's CPU seconds (user + system, ``RUSAGE_CHILDREN``): the CPU
seconds are the fairer figure on a machine other jobs share.

1. ``import FOLDER`` into a new archive, then ``import FOLDER`` again: the second (nothing
   changed) must take < 5% of the first.
2. ``session FOLDER`` against ``session --archive`` (both ``--json --out DIR``): the issue
   asks 20x at 1,000,000 hands.
3. ``import`` of 10,000 new hands into an empty archive against into the archive of step 1:
   within 20% (the cost is the hands' replay, not the archive's size).

Also measured for the record: ``audit --json`` on the files and on the archive. The results
are printed as a Markdown table and written to ``--out`` (default
``benchmarks/ARCHIVE_RESULTS.md``).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run_suite import BASE_HANDS, _copy, _template, base_file  # noqa: E402


def ofc_audit() -> list[str]:
    return [sys.executable, "-m", "ofc_audit"]


def timed(args: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one command; its output is dropped."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run([*ofc_audit(), *args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, cwd=HERE.parent,
                          env=dict(os.environ, PYTHONPATH=str(HERE.parent)))
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"  {' '.join(args)}: {wall:.1f} s wall, {cpu:.1f} s CPU", flush=True)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000,
                        help="hands in the folder (a multiple of 10,000)")
    parser.add_argument("--data", type=Path,
                        default=Path(tempfile.gettempdir()) / "ofc_audit_suite")
    parser.add_argument("--out", type=Path, default=HERE / "ARCHIVE_RESULTS.md")
    options = parser.parse_args()
    options.data.mkdir(parents=True, exist_ok=True)
    copies = max(1, options.hands // BASE_HANDS)
    template = _template(base_file(options.data).read_bytes())
    work = Path(tempfile.mkdtemp(prefix="ofc_archive_bench_"))
    try:
        folder = work / "histories"
        folder.mkdir()
        for copy in range(copies):
            (folder / f"copy_{copy:03}.txt").write_bytes(_copy(template, copy))
        extra = work / "extra" / "more.txt"
        extra.parent.mkdir()
        extra.write_bytes(_copy(template, copies))
        hands = copies * BASE_HANDS
        big, empty = work / "big.duckdb", work / "empty.duckdb"
        load = os.getloadavg()[0]
        print(f"{hands:,} hands in {copies} files; load {load:.2f}", flush=True)
        first = timed(["import", str(folder), "--archive", str(big)])
        again = timed(["import", str(folder), "--archive", str(big)])
        on_files = timed(["session", str(folder), "--json", "--out", str(work / "r1")])
        stored = timed(["session", "--archive", str(big), "--json", "--out", str(work / "r2")])
        audit_files = timed(["audit", str(folder), "--json"])
        audit_stored = timed(["audit", "--archive", str(big), "--json"])
        into_empty = timed(["import", str(extra), "--archive", str(empty)])
        into_big = timed(["import", str(extra), "--archive", str(big)])
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def ratio(a: tuple[float, float], b: tuple[float, float]) -> str:
        return f"{a[0] / b[0]:.3f} (wall), {a[1] / b[1]:.3f} (CPU)"

    rows = [
        ("import the folder (new archive)", first, ""),
        ("import the folder again (nothing new)", again,
         f"{ratio(again, first)} of the first; target < 0.05"),
        ("session FOLDER --json --out", on_files, ""),
        ("session --archive --json --out", stored,
         f"files / archive: {on_files[0] / stored[0]:.2f}x (wall), "
         f"{on_files[1] / stored[1]:.2f}x (CPU); target 20x at 1,000,000"),
        ("audit FOLDER --json", audit_files, ""),
        ("audit --archive --json", audit_stored,
         f"files / archive: {audit_files[0] / audit_stored[0]:.2f}x (wall), "
         f"{audit_files[1] / audit_stored[1]:.2f}x (CPU)"),
        ("import 10,000 hands into an empty archive", into_empty, ""),
        (f"import 10,000 hands into the {hands:,}-hand archive", into_big,
         f"{ratio(into_big, into_empty)} of into an empty one; target <= 1.2"),
    ]
    lines = [
        "# Archive benchmark (issue 21)",
        "",
        "Produced by `python benchmarks/bench_archive.py` (see its docstring); do not edit "
        "by hand.",
        "",
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.platform()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; 1-minute load "
        f"{load:.2f} at the start (other jobs share the machine: CPU seconds are the "
        "fairer figure).",
        "",
        f"Input: {hands:,} hands in {copies} files of {BASE_HANDS:,} (run_suite.py's copies), "
        f"and one more copy of {BASE_HANDS:,} for the last two rows.",
        "",
        "| command | wall s | CPU s | ratio |",
        "|---|---:|---:|---|",
        *(f"| {name} | {t[0]:.1f} | {t[1]:.1f} | {note} |" for name, t, note in rows),
        "",
    ]
    text = "\n".join(lines)
    print(text)
    options.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
