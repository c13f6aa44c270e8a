"""The CPU of ``audit --jobs N``'s parent process, and of its lanes (issue 14, round 4).

    python benchmarks/parent_cpu.py FILE [--jobs 2] [--parts scan,audit] [--render json]

Wall ratios of ``--jobs 2`` over ``--jobs 1`` move with the machine's load; the CPU a process
spends does not (much): what the parent costs is what keeps ``--jobs 2`` from two lanes'
worth of work. Measured inside this process with ``getrusage(RUSAGE_SELF)`` (user + system,
every thread of the parent: the queues' feeder threads included):

* ``scan``: the parent's scan and deal alone (``lanes.deal`` over FILE, nothing sent);
* ``audit``: the driver's ``write_audit`` with ``--jobs`` workers, output to ``/dev/null``:
  the parent's CPU, each lane's CPU (``RunStats.lane_cpu``) and the wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    from ofc_audit.audit.driver import write_audit
    from ofc_audit.audit.work import Plan, RunStats
    from ofc_audit.engines import lanes, processes
    from ofc_audit.game.ruleset import Ruleset
    from ofc_audit.history.sources import sources_of
    from ofc_audit.present.audit_text import audit_hand_text

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parts", default="scan,audit")
    parser.add_argument("--render", choices=("json", "text"), default="json")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    ruleset = Ruleset.load(None)
    sources = sources_of([args.file])
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    for _ in range(args.repeat):
        if "scan" in parts:
            plan = Plan(tuple(sources), ruleset, args.render, args.jobs, processes.WINDOW)
            began = cpu()
            entries = sum(len(rows) for _, _, dealt in lanes.deal(plan) for rows in dealt)
            print(f"scan   {entries:>9,} entries  parent {cpu() - began:6.2f} s CPU", flush=True)
        if "audit" in parts:
            stats = RunStats()
            with open(os.devnull, "w", encoding="utf-8") as out:
                began, wall = cpu(), time.perf_counter()
                writer = write_audit(sources, ruleset, out, args.render,
                                     processes.ProcessPool(args.jobs, stats=stats),
                                     render_hand=audit_hand_text)
                parent, wall = cpu() - began, time.perf_counter() - wall
            lane_cpu = " + ".join(f"{c:.2f}" for c in stats.lane_cpu)
            print(f"audit  {writer.totals.hands:>9,} hands    parent {parent:6.2f} s CPU  "
                  f"lanes {lane_cpu} s CPU  wall {wall:6.2f} s  load {os.getloadavg()[0]:.2f}",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
