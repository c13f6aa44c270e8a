"""Instructions per hand of each stage of an audit, counted by valgrind (callgrind).

    python benchmarks/instructions.py FILE [--hands 300] [--warm 1000]

Seconds on a shared two-core machine vary by 20% or more from run to run; instruction
counts do not (the same binary, input and environment give the same count, whatever else
the machine is doing). This runs the package under ``valgrind --tool=callgrind`` three
times and counts only the measured call (collection is switched on and off around it):

* ``read``: the reader, ``--hands`` hands read into records;
* ``replay``: read + replay + scoring (``audit_items``), minus ``read``;
* ``json``: read + replay + the audit JSON (``write_audit_json``), minus the two above.

The first ``--warm`` hands of FILE are processed first, so that caches and the first-use
costs of the code are out of the figure; then ``--hands`` hands, and in another run half as
many: the difference of the two counts, per hand, is the figure.
FILE should be a simulated history (``ofc-audit simulate``): Pineapple, 3 players, operator
view is what the issues' targets name. Needs valgrind (on every machine of this kind).

To turn instructions into time, divide by the instructions per second the machine runs
Python at: the script prints the wall time of the same work run natively for scale.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STAGES = ("read", "replay", "json")
_HEADER = re.compile(r"^OFC Hand #", re.MULTILINE)


def split_hands(text: str, warm: int, hands: int) -> tuple[str, str]:
    """The first ``warm`` hands and the ``hands`` after them, as two texts."""
    starts = [m.start() for m in _HEADER.finditer(text)] + [len(text)]
    if len(starts) <= warm + hands:
        raise SystemExit(f"the file holds {len(starts) - 1} hands; need {warm + hands}")
    return text[: starts[warm]], text[starts[warm] : starts[warm + hands]]


def run_stage(stage: str, text: str) -> int:
    """Do ``stage``'s work on ``text`` inside one ``sum()`` call (what callgrind counts)."""
    from ofc_audit.audit.driver import audit_items, write_audit_json
    from ofc_audit.game.ruleset import Ruleset
    from ofc_audit.history.reader import read_text

    ruleset = Ruleset()

    def audit_json() -> int:
        return write_audit_json(audit_items(read_text(text, "bench.txt"), ruleset), out).hands

    out = io.StringIO()
    if stage == "read":
        return sum(1 for _ in read_text(text, "bench.txt"))
    if stage == "replay":
        return sum(1 for _ in audit_items(read_text(text, "bench.txt"), ruleset))
    # The work must run inside sum() (a generator's first iterable is evaluated outside it).
    return sum(audit_json() for _ in range(1))


def child(path: str, stage: str, warm: int, hands: int) -> None:
    warm_text, text = split_hands(Path(path).read_text(encoding="utf-8"), warm, hands)
    run_stage(stage, warm_text)
    run_stage(stage, text)


def count(path: str, stage: str, warm: int, hands: int) -> int:
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        "--collect-atstart=no", "--toggle-collect=builtin_sum",
        sys.executable, __file__, path, "--child", stage,
        "--warm", str(warm), "--hands", str(hands),
    ]  # fmt: skip
    # A fixed hash seed: string hashes decide dict and set layouts, which moved the counts
    # by about 1% from run to run.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--warm", type=int, default=1000)
    parser.add_argument("--stages", default=",".join(STAGES),
                        help="stages to count (each needs the ones before it)")
    parser.add_argument("--child", choices=STAGES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.file, args.child, args.warm, args.hands)
        return 0
    stages = [s for s in STAGES if s in args.stages.split(",")]
    totals = {}
    for stage in stages:
        # The warm-up runs inside a sum() too, so it is counted: the difference of two
        # counts with the same warm-up and N and N/2 hands after it is the cost of N/2.
        big = count(args.file, stage, args.warm, args.hands)
        small = count(args.file, stage, args.warm, args.hands // 2)
        totals[stage] = (big - small) / (args.hands - args.hands // 2)
    warm_text, text = split_hands(
        Path(args.file).read_text(encoding="utf-8"), args.warm, args.hands
    )
    print(f"instructions per hand ({args.file}, {args.hands} hands after {args.warm}):")
    previous = 0.0
    for stage in stages:
        run_stage(stage, warm_text)
        started = time.process_time()
        run_stage(stage, text)
        seconds = time.process_time() - started
        print(
            f"  {stage:7} {totals[stage] - previous:>12,.0f}   (cumulative {totals[stage]:,.0f};"
            f" natively {args.hands / seconds:,.0f} hands/s per core)"
        )
        previous = totals[stage]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
