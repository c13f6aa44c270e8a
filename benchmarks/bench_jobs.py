"""``audit --jobs 2`` against ``--jobs 1`` on the inputs of issue 21, point 5 (target: >= 1.7x).

    python benchmarks/bench_jobs.py [--hands 30000] [--repeat 5] [--inputs short,long]
                                    [--data DIR] [--against REV]

Two simulated inputs of ``--hands`` hands each (Pineapple, 3 players, deep stacks), built once
in ``--data`` (default ``$TMPDIR/ofc_audit_jobs``) and reused:

* ``short``: many short tables (a table per 60 hands, played side by side, so their hands
  interleave) with rejected hands spread through the file: one hand in 57 (525 of 30,000,
  as the held-out file of the issue), in turn a line inside the hand that the grammar does
  not accept and a header that is not one. Both kinds leave the hand's table line readable:
  each breaks only its own table's chain (the usual case);
* ``long``: 4 long tables side by side, no rejection.

Each round runs ``python -m ofc_audit audit --json FILE --jobs 1`` and then ``--jobs 2`` (in
turn, as fresh processes from the repository's root, standard output to ``/dev/null``), so
both see the same load; the ratio is taken round by round (jobs 1 wall / jobs 2 wall) and its
median printed, with each command's median wall seconds. (CPU is not: ``--jobs`` workers
are children of the forkserver, which no ``getrusage`` of this process sees; for the CPU of
the parent and of each lane, ``benchmarks/parent_cpu.py``.) The load average before and
after is printed too: on a machine shared with other work, say what the load was next to
the figures.

``--wait-idle SECONDS`` waits before each round (up to SECONDS) for the cores to be idle:
other sessions' work takes their share of the cores whatever ``--jobs`` asks (the kernel's
autogroup scheduling shares the cores between sessions, not processes), so a ratio means
something only in the rounds that started on idle cores (each round's idle share is printed).

``--against REV`` also times that commit's ``--jobs 2`` (exported with ``git archive``) in the
same rounds, for the ratio of the two ``--jobs 2`` runs.

Each tree is byte-compiled first (``compileall``), as an installed package is: with
``PYTHONDONTWRITEBYTECODE`` set (it is, on these machines) a source tree is compiled again by
every process, the parent, the forkserver and each run alike, about 0.1 s each, which the
warm-up run does not save.

**The machine's own ceiling** is measured in the same rounds (``--ceiling``, on by default): a
fixed pure-Python loop of about 2 s run twice one after the other, then twice side by side
(two processes, nothing shared). Their ratio is the most any split of equal, independent work
in two gets on this machine at that moment; on these shared virtual machines it was 1.29x to
2.04x round by round (median 1.77x, 2026-12-04), which bounds what ``--jobs 2`` can show
whatever it does. Each input's summary prints the ceiling's median and the share of it that
``--jobs 2`` reached.
"""

from __future__ import annotations

import argparse
import compileall
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HANDS_PER_SHORT_TABLE = 60
REJECT_EVERY = 57  # 30,000 / 57 = 526 rejected hands, as the held-out file (525)


def _simulate(out: Path, hands: int, tables: int, seed: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "ofc_audit", "simulate", "--hands", str(hands), "--tables",
         str(tables), "--players", "3", "--stacks", "100000", "--seed", str(seed),
         "--out", str(out)],
        cwd=ROOT, check=True)


def with_rejections(text: str, every: int) -> tuple[str, int]:
    """Every ``every``-th hand rejected, in turn at a line inside it and at its header; the
    text and the number of hands rejected."""
    lines = text.split("\n")
    heads = [k for k, line in enumerate(lines) if line.startswith("OFC Hand #")]
    broken = 0
    for n, k in enumerate(heads[every // 2::every]):
        if n % 2:
            lines[k] = re.sub(r"^(OFC Hand #[^:]*):.*$", r"\1: not a header", lines[k])
        else:
            lines[k + 4] = "not a line of the format"
        broken += 1
    return "\n".join(lines), broken


def build(data: Path, kind: str, hands: int) -> Path:
    """The input ``kind`` of ``hands`` hands, built once (in a file of its own first, so runs
    at once do not read each other's half-built input)."""
    path = data / f"{kind}_{hands}.txt"
    if path.exists():
        return path
    data.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(f".part{os.getpid()}")
    if kind == "short":
        _simulate(part, hands, max(1, hands // HANDS_PER_SHORT_TABLE), seed=21)
        text, broken = with_rejections(part.read_text(encoding="utf-8"), REJECT_EVERY)
        part.write_text(text, encoding="utf-8")
        print(f"built {path.name}: {hands} hands, {broken} rejected", file=sys.stderr)
    else:
        _simulate(part, hands, 4, seed=22)
        print(f"built {path.name}: {hands} hands on 4 tables", file=sys.stderr)
    part.rename(path)
    return path


def _cpu_ticks() -> tuple[int, int]:
    """(busy, all) jiffies of every core since boot, from ``/proc/stat``."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def idle_share(seconds: float) -> float:
    """The share of the machine's cores that was idle over the next ``seconds``."""
    busy0, all0 = _cpu_ticks()
    time.sleep(seconds)
    busy1, all1 = _cpu_ticks()
    return 1 - (busy1 - busy0) / max(1, all1 - all0)


def wait_idle(limit: float, wanted: float = 0.9) -> float:
    """Wait (at most ``limit`` seconds) until the cores were ``wanted`` idle over a second;
    the idle share last seen. The machine's other users are processes of other sessions:
    with the kernel's autogroup scheduling each session gets an equal share of the cores
    however many processes it runs, so ``--jobs 2`` gains nothing while others are busy."""
    began = time.perf_counter()
    share = idle_share(1.0)
    while share < wanted and time.perf_counter() - began < limit:
        share = idle_share(1.0)
    return share


def timed(root: Path, file: Path, jobs: int) -> float:
    """Wall seconds of one ``audit --json FILE --jobs N`` run from ``root``."""
    command = [sys.executable, "-m", "ofc_audit", "audit", "--json", str(file),
               "--jobs", str(jobs)]
    began = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        done = subprocess.run(command, cwd=root, stdout=sink, stderr=subprocess.PIPE,
                              check=False)
    wall = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): "
                         f"{done.stderr.decode(errors='replace')[-2000:]}")
    return wall


#: The ceiling's work: a pure-Python loop (dictionary stores and integer arithmetic, as the
#: replay's), about 2 s on these machines.
_SPIN = "d = {}\nfor i in range(12_000_000):\n    d[i & 1023] = i * 3 + (i >> 3)\n"


def ceiling() -> float:
    """Two runs of :data:`_SPIN` one after the other over the same two side by side (wall):
    what a perfect split in two gets on this machine now."""
    command = [sys.executable, "-c", _SPIN]
    began = time.perf_counter()
    subprocess.run(command, check=True)
    subprocess.run(command, check=True)
    serial = time.perf_counter() - began
    began = time.perf_counter()
    pair = [subprocess.Popen(command) for _ in range(2)]
    for process in pair:
        if process.wait() != 0:
            raise SystemExit("the ceiling's loop failed")
    return serial / (time.perf_counter() - began)


def compiled(root: Path) -> Path:
    """``root`` with its package byte-compiled (as pip installs it)."""
    compileall.compile_dir(str(root / "ofc_audit"), quiet=1)
    return root


def export(rev: str, into: Path) -> Path:
    """The package of commit ``rev`` in a folder of its own."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], capture_output=True,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--hands", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--inputs", default="short,long")
    parser.add_argument("--data", type=Path,
                        default=Path(tempfile.gettempdir()) / "ofc_audit_jobs")
    parser.add_argument("--against", default=None, help="a commit whose --jobs 2 is timed too")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                        help="before each round, wait up to SECONDS for the cores to be 90%% "
                        "idle over a second; each round's idle share is printed")
    parser.add_argument("--ceiling", action=argparse.BooleanOptionalAction, default=True,
                        help="time the machine's own ceiling for two processes in each round")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    kinds = [k.strip() for k in args.inputs.split(",") if k.strip()]
    files = {kind: build(args.data, kind, args.hands) for kind in kinds}
    base_root: Path | None = None
    scratch = Path(tempfile.mkdtemp(prefix="bench-jobs-"))
    try:
        compiled(ROOT)
        if args.against:
            base_root = compiled(export(args.against, scratch / "base"))
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
              f"{os.cpu_count()} cores")
        for kind, file in files.items():
            runs: dict[str, list[float]] = {"jobs 1": [], "jobs 2": []}
            ceilings: list[float] = []
            if base_root is not None:
                runs["base jobs 2"] = []
            timed(ROOT, file, 2)  # warm-up: the file in the page cache, the imports compiled
            for round_number in range(args.repeat):
                if args.wait_idle > 0:
                    share = wait_idle(args.wait_idle)
                    print(f"  round {round_number + 1}: cores {100 * share:.0f}% idle before, "
                          f"load {os.getloadavg()[0]:.2f}", flush=True)
                runs["jobs 1"].append(timed(ROOT, file, 1))
                runs["jobs 2"].append(timed(ROOT, file, 2))
                if base_root is not None:
                    runs["base jobs 2"].append(timed(base_root, file, 2))
                line = ", ".join(f"{name} {walls[-1]:.2f} s" for name, walls in runs.items())
                if args.ceiling:
                    ceilings.append(ceiling())
                    line += f", ceiling {ceilings[-1]:.2f}x"
                print("    " + line, flush=True)
            ratios = [one / two for one, two in zip(runs["jobs 1"], runs["jobs 2"], strict=True)]
            print(f"\n{kind} ({file.name}, {args.repeat} rounds):")
            for name, walls in runs.items():
                print(f"  {name:12} wall median {statistics.median(walls):6.2f} s "
                      f"(min {min(walls):.2f}, max {max(walls):.2f})")
            each = " ".join(f"{r:.2f}" for r in ratios)
            print(f"  jobs 1 / jobs 2, round by round: {each}; "
                  f"median {statistics.median(ratios):.2f}x")
            if ceilings:
                each = " ".join(f"{c:.2f}" for c in ceilings)
                reached = [r / c for r, c in zip(ratios, ceilings, strict=True)]
                print(f"  the machine's ceiling (two loops side by side), round by round: {each};"
                      f" median {statistics.median(ceilings):.2f}x; jobs 2 reached a median "
                      f"{100 * statistics.median(reached):.0f}% of it")
            if base_root is not None:
                base = [b / t for b, t in zip(runs["base jobs 2"], runs["jobs 2"], strict=True)]
                print(f"  base jobs 2 / jobs 2: median {statistics.median(base):.2f}x")
        print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
