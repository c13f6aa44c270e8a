"""Peak memory of a command summed over its process tree, sampled from /proc (issue 21).

    python benchmarks/peak_rss.py [--interval 0.1] [--timeline FILE.tsv] -- COMMAND [ARG...]

Runs COMMAND in a fresh measuring process that makes itself the child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``), so that processes started through a forkserver (the
``--jobs`` lanes, the session's JSON writer) are its descendants while they live and their
RSS is counted. Every ``--interval`` seconds it reads ``VmRSS`` of every process under it
from ``/proc/PID/status`` and sums them. It prints one JSON object:

* ``wall``: seconds from start to the command's exit; ``cpu``: user + system seconds of
  every process of the command (the reaped descendants included);
* ``tree_peak_mb``: the largest summed RSS seen (what issue 21's targets name);
* ``processes``: each process's own peak RSS and its command line (shortened), largest
  first, so the summed peak can be told apart into parent, lanes and writer;
* ``returncode`` and the last 2,000 characters of standard error.

``--timeline FILE`` also writes every sample (seconds since start, summed MB, then
``pid:MB`` per process) as tab-separated lines: where in the run the peak is; a line
``# SECONDS<TAB>TEXT`` marks each line the command wrote to standard error (the session's
steps: summarising, writing the tables, drawing the charts). The sum is
sampled, so a spike shorter than the interval can be missed; ``ru_maxrss`` (the largest
single process, exact) is printed too as ``maxrss_mb`` to check the per-process peaks by.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PR_SET_CHILD_SUBREAPER = 36


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process visible in /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        found[int(entry)] = int(fields[1])
    return found


def descendants(root: int) -> list[int]:
    parents = _parents()
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    out, todo = [], list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def command_of(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            words = cmdline.read().split(b"\0")
    except OSError:
        return "?"
    text = " ".join(w.decode(errors="replace") for w in words if w)
    return text if len(text) <= 160 else text[:157] + "..."


def measure(command: Sequence[str], interval: float, timeline: Path | None) -> dict[str, Any]:
    """Runs ``command`` under this (subreaper) process and measures it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print("warning: not a child subreaper; forkserver children may be missed",
              file=sys.stderr)
    me = os.getpid()
    peak = 0
    own: dict[int, int] = {}
    names: dict[int, str] = {}
    samples: list[str] = []
    done = threading.Event()
    began = time.perf_counter()

    def sample() -> None:
        nonlocal peak
        while not done.wait(interval):
            total, parts = 0, []
            for pid in descendants(me):
                kb = rss_kb(pid)
                if not kb:
                    continue
                total += kb
                if pid not in names:
                    names[pid] = command_of(pid)
                own[pid] = max(own.get(pid, 0), kb)
                parts.append(f"{pid}:{kb // 1024}")
            peak = max(peak, total)
            if timeline is not None:
                samples.append(f"{time.perf_counter() - began:.2f}\t{total // 1024}\t"
                               + " ".join(parts))

    sampler = threading.Thread(target=sample, daemon=True)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler.start()
    # Standard error read line by line, each line timed: the report's steps ("ofc-audit:
    # writing the tables ...") mark the stages on the timeline.
    lines: list[bytes] = []
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line)
        if timeline is not None and line.startswith(b"ofc-audit: "):
            samples.append(f"# {time.perf_counter() - began:.2f}\t"
                           + line.decode(errors="replace").rstrip()[11:][:80])
    process.wait()
    stderr = b"".join(lines)
    wall = time.perf_counter() - began
    # The forkserver and the resource tracker outlive the command: wait for them too.
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    done.set()
    sampler.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if timeline is not None:
        timeline.write_text("\n".join(samples) + "\n", encoding="utf-8")
    processes = sorted(({"pid": pid, "peak_mb": round(kb / 1024, 1), "command": names[pid]}
                        for pid, kb in own.items()), key=lambda p: -float(p["peak_mb"]))
    return {
        "command": " ".join(command), "wall": round(wall, 2),
        "cpu": round(usage.ru_utime + usage.ru_stime, 2),
        "tree_peak_mb": round(peak / 1024, 1), "maxrss_mb": round(usage.ru_maxrss / 1024, 1),
        "processes": processes, "load": os.getloadavg()[0],
        "returncode": process.returncode, "stderr": stderr.decode(errors="replace")[-2000:],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--timeline", type=Path)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command given (after --)")
    print(json.dumps(measure(command, args.interval, args.timeline), indent=1))


if __name__ == "__main__":
    main()
