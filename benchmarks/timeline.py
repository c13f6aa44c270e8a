"""When each process of a command is busy: a timeline of CPU per process (issue 21, point 5).

    python benchmarks/timeline.py [--step 0.25] [--every 0.01] -- COMMAND...

Runs COMMAND (standard output to ``/dev/null``) and samples ``/proc`` every ``--every``
seconds: the CPU time (user + system) of the command and of every process under it (the
``--jobs`` workers are children of the forkserver, itself a child of the command). Prints,
per ``--step`` seconds of wall time, the share of a core each process used, then per
process its CPU seconds, and when it first and last used the CPU. A process that starts and
ends between two samples is missed: keep ``--every`` small. What the parent does while the
lanes wait (or the other way round) is the serial part of a parallel run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> tuple[int, float, str] | None:
    """(parent pid, CPU seconds, name) of a process, None once it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = raw[raw.index("(") + 1: raw.rindex(")")]
    fields = raw[raw.rindex(")") + 2:].split()
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK, name


def _cmdline(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def _label(pid: int, command: int, parents: dict[int, int]) -> str:
    """``parent`` (the command), ``forkserver``, ``tracker`` (multiprocessing's resource
    tracker), ``lane`` (a child of the forkserver) or ``child``."""
    if pid == command:
        return "parent"
    text = _cmdline(pid)
    if "forkserver" in text and parents.get(pid) == command:
        return "forkserver"
    if "resource_tracker" in text:
        return "tracker"
    return "lane" if parents.get(pid) != command else "child"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--step", type=float, default=0.25)
    parser.add_argument("--every", type=float, default=0.01)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command")
    load = os.getloadavg()[0]
    began = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        child = subprocess.Popen(command, stdout=sink)
    # pid -> [label, [(seconds since start, CPU seconds)]]
    seen: dict[int, list] = {child.pid: ["parent", []]}
    while child.poll() is None:
        now = time.perf_counter() - began
        parents: dict[int, int] = {}
        cpus: dict[int, float] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            stat = _stat(int(entry))
            if stat is not None:
                parents[int(entry)], cpus[int(entry)] = stat[0], stat[1]
        for pid in cpus:
            ancestor, hops = pid, 0
            while ancestor in parents and ancestor != child.pid and hops < 8:
                ancestor, hops = parents[ancestor], hops + 1
            if ancestor == child.pid:
                if pid not in seen:
                    seen[pid] = [_label(pid, child.pid, parents), []]
                seen[pid][1].append((now, cpus[pid]))
        time.sleep(args.every)
    wall = time.perf_counter() - began
    labels: dict[int, str] = {}
    numbered: dict[str, int] = {}
    for pid, (label, _) in seen.items():
        if label in ("lane", "child"):
            numbered[label] = numbered.get(label, -1) + 1
            label = f"{label}{numbered[label]}"
        labels[pid] = label
    steps = int(wall / args.step) + 1
    print(f"{' '.join(command)}\nwall {wall:.2f} s, load before {load:.2f}, "
          f"after {os.getloadavg()[0]:.2f}")
    names = [labels[pid] for pid in seen]
    print("   t(s) " + " ".join(f"{n:>10}" for n in names))
    for k in range(steps):
        lo, hi = k * args.step, (k + 1) * args.step
        row = []
        for pid in seen:
            samples = seen[pid][1]
            inside = [c for t, c in samples if lo <= t < hi]
            before = [c for t, c in samples if t < lo]
            if not inside:
                row.append(" " * 10)
                continue
            used = inside[-1] - (before[-1] if before else inside[0] * 0)
            row.append(f"{100 * used / args.step:9.0f}%")
        print(f"{lo:7.2f} " + " ".join(row))
    print("process      CPU s   first busy   last busy")
    for pid, (_, samples) in seen.items():
        if not samples:
            continue
        total = samples[-1][1]
        busy = [t for (t, c), (_, c0) in zip(samples[1:], samples, strict=False) if c > c0]
        first = busy[0] if busy else samples[0][0]
        last = busy[-1] if busy else samples[-1][0]
        print(f"{labels[pid]:10} {total:7.2f} {first:10.2f} {last:11.2f}")
    return child.returncode if child.returncode in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
