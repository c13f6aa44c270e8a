"""Performance suite (issue 6): read, audit and session over 10,000 to 1,000,000 hands.

    python benchmarks/run_suite.py [--sizes 10000,100000,1000000] [--jobs 2] [--repeat 3]
                                   [--commands read,audit,session] [--data DIR]
    python benchmarks/run_suite.py --render      # RESULTS.md again from results.json

Run on demand, not in CI: the 1,000,000-hand runs take the better part of an hour on two
cores. Each size's results are merged into ``benchmarks/results.json`` (so sizes can be run
one at a time, the large one in the background) and the table is written to
``benchmarks/RESULTS.md``.

Inputs (Pineapple, 3 players, operator view): 10,000 hands are simulated once
(``ofc-audit simulate --tables 8 --stacks 10000``, about 500 hands/s; deep stacks, so that
every hand has its 3 players); larger files are copies of those with the hand ids, match ids
and table names made unique per copy (``.c2``, `` c2``), so each copy's table chains stay
whole and consistent; a 20,000-hand sample (two copies) is
audited once and must be clean. Files are kept in ``--data`` (default: a folder under the
system's temporary folder) and reused.

What is measured, per size and command, with ``--jobs 1`` and ``--jobs N``:

* ``read``: the reader alone (every hand read into records, nothing else);
* ``audit``: ``ofc-audit audit FILE --json --jobs J`` (to ``/dev/null``);
* ``session``: ``ofc-audit session FILE --json --out DIR --jobs J`` (tables, charts, reports).

Each command runs in a fresh *measuring* process that makes itself the child subreaper
(``prctl(PR_SET_CHILD_SUBREAPER)``), so that the worker processes (children of the
``forkserver``, which outlives the command) are reaped by it and their CPU time counts:

* wall seconds, and hands per wall second;
* hands per CPU second (user + system of every process of the command: "per core");
* peak memory: ``ru_maxrss`` (the largest single process), and the peak of the summed RSS of
  the command's process tree (sampled every 0.1 s), which is what ``--jobs N`` costs.

The machine is loaded by other jobs at times, so every figure is the best of ``--repeat``
runs (``--jobs 1`` and ``--jobs N`` alternate, so both see the same load) and the load
average is recorded with each. The speed-up is wall(``--jobs 1``) / wall(``--jobs N``). A
calibration runs two ``--jobs 1`` audits of 10,000 hands at once: how much two processes
get done together on this machine, compared with one alone (the ceiling for any speed-up).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS_JSON = HERE / "results.json"
RESULTS_MD = HERE / "RESULTS.md"
BASE_HANDS = 10_000
BASE_SEED = 1
# Deep stacks, so that nobody busts and every hand has the 3 players the targets name (with
# the default 200, busted players leave and ~45% of the hands are heads-up).
BASE_STACKS = 10_000

# Issue 6.3 targets.
TARGET_AUDIT_RATE = 8_000  # hands per second on one core, end to end
TARGET_SPEEDUP = 1.6  # --jobs 2 over --jobs 1
TARGET_AUDIT_MB = 400  # peak memory of an audit of 1,000,000 hands
TARGET_SESSION_S = 60.0  # session report over 1,000,000 hands


def ofc_audit() -> list[str]:
    return [sys.executable, "-m", "ofc_audit"]


def load() -> float:
    return os.getloadavg()[0]


# -- inputs -----------------------------------------------------------------------------------


def base_file(data: Path) -> Path:
    path = data / f"base_{BASE_HANDS}_stacks_{BASE_STACKS}.txt"
    if not path.exists():
        print(f"simulating {BASE_HANDS:,} hands (about a minute or two) ...", flush=True)
        part = path.with_suffix(f".part{os.getpid()}")  # runs at once do not share it
        subprocess.run([*ofc_audit(), "simulate", "--tables", "8", "--hands", str(BASE_HANDS),
                        "--seed", str(BASE_SEED), "--players", "3", "--variant", "pineapple",
                        "--stacks", str(BASE_STACKS), "--out", str(part)], check=True)
        part.rename(path)
    return path


_HAND_ID = re.compile(rb"^(OFC Hand #[A-Za-z0-9._-]+)", re.MULTILINE)
_MATCH_ID = re.compile(rb"^(Match #[A-Za-z0-9._-]+)", re.MULTILINE)
_TABLE = re.compile(rb"^(Table '[^']*)'", re.MULTILINE)
_HEADER = re.compile(rb"^OFC Hand #", re.MULTILINE)


def _template(base: bytes) -> bytes:
    """The base with a marker after each hand id and match id (\\x00) and table name
    (\\x01), for :func:`_copy`."""
    text = _HAND_ID.sub(rb"\1" + b"\x00", base)
    text = _MATCH_ID.sub(rb"\1" + b"\x00", text)
    return _TABLE.sub(rb"\1" + b"\x01'", text)


def _copy(template: bytes, copy: int) -> bytes:
    if copy == 0:
        return template.replace(b"\x00", b"").replace(b"\x01", b"")
    return template.replace(b"\x00", b".c%d" % copy).replace(b"\x01", b" c%d" % copy)


def _first_hands(text: bytes, hands: int) -> bytes:
    starts = [m.start() for m in _HEADER.finditer(text)]
    return text if hands >= len(starts) else text[:starts[hands]]


def sized_file(data: Path, hands: int) -> Path:
    """``hands`` hands: copies of the base, each with its own ids and table names."""
    path = data / f"hands_{hands}_stacks_{BASE_STACKS}.txt"
    if path.exists():
        return path
    template = _template(base_file(data).read_bytes())
    part = path.with_suffix(f".part{os.getpid()}")  # runs at once do not share it
    with open(part, "wb") as out:
        left, copy = hands, 0
        while left > 0:
            text = _copy(template, copy)
            if left < BASE_HANDS:
                text = _first_hands(text, left)
            if copy and not text.startswith(b"\n"):
                out.write(b"\n")
            out.write(text)
            left -= min(left, BASE_HANDS)
            copy += 1
    part.rename(path)
    return path


def check_sample(data: Path) -> None:
    """Two copies audit clean: the copies' ids, tables and chains do not collide."""
    stamp = data / f"sample_clean_stacks_{BASE_STACKS}.json"
    if stamp.exists():
        return
    sample = sized_file(data, 2 * BASE_HANDS)
    result = subprocess.run([*ofc_audit(), "audit", str(sample), "--json", "--jobs", "2"],
                            capture_output=True, check=False)
    totals = json.loads(result.stdout)["totals"]
    if result.returncode != 0 or not totals["valid"] == totals["hands"] == 2 * BASE_HANDS:
        sys.exit(f"the sample of two copies does not audit clean: {totals}")
    stamp.write_text(json.dumps(totals) + "\n")
    print(f"sample of two copies audits clean: {totals}", flush=True)


# -- measuring a command ----------------------------------------------------------------------


def measure(command: Sequence[str]) -> dict[str, Any]:
    before = load()
    # The measuring process is benchmarks/peak_rss.py (the child subreaper described above).
    result = subprocess.run([sys.executable, str(Path(__file__).with_name("peak_rss.py")),
                             "--", *command], capture_output=True, text=True, check=True)
    record: dict[str, Any] = json.loads(result.stdout)
    record["load_before"], record["load_after"] = before, load()
    return record


def read_child(path: str) -> None:
    sys.path.insert(0, str(ROOT))
    from ofc_audit.history.reader import read_hands

    count = sum(1 for _ in read_hands([path]))
    print(count, file=sys.stderr)


def command_line(command: str, path: Path, jobs: int, out: Path) -> list[str]:
    if command == "read":
        return [sys.executable, __file__, "--read-child", str(path)]
    if command == "audit":
        return [*ofc_audit(), "audit", str(path), "--json", "--jobs", str(jobs)]
    return [*ofc_audit(), "session", str(path), "--json", "--out", str(out), "--jobs", str(jobs)]


# -- the suite --------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=False).stdout.strip()
    return {"nproc": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "platform": platform.platform(), "commit": commit}


def run_size(
    data: Path, hands: int, commands: Sequence[str], jobs: int, repeat: int
) -> list[dict[str, Any]]:
    path = sized_file(data, hands)
    records = []
    for command in commands:
        job_list = [1] if command == "read" else [1, jobs]
        best: dict[int, dict[str, Any]] = {}
        for attempt in range(repeat):
            for j in job_list:
                out = data / f"session_out_{j}"
                record = measure(command_line(command, path, j, out))
                shutil.rmtree(out, ignore_errors=True)
                if record["returncode"] not in (0, 1):
                    sys.exit(f"{command} --jobs {j} failed: {record['stderr']}")
                print(f"  {hands:>9,} {command:<8} --jobs {j}  run {attempt + 1}: "
                      f"{record['wall']:8.1f} s wall, {record['cpu']:8.1f} s CPU, "
                      f"{record['tree_peak_mb']:7.0f} MB, load {record['load_before']:.2f}",
                      flush=True)
                if j not in best or record["wall"] < best[j]["wall"]:
                    best[j] = record
        for j, record in best.items():
            records.append({
                "hands": hands, "command": command, "jobs": j, "runs": repeat,
                "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                "bytes": path.stat().st_size,
                **{k: v for k, v in record.items() if k != "stderr"},
            })
    return records


def calibrate(data: Path) -> dict[str, Any]:
    """One --jobs 1 audit of the base alone, then two at once: their throughput ratio."""
    path = sized_file(data, BASE_HANDS)
    command = [sys.executable, str(Path(__file__).with_name("peak_rss.py")), "--",
               *command_line("audit", path, 1, data)]
    alone = measure(command_line("audit", path, 1, data))
    began = time.perf_counter()
    pair = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [json.loads(p.communicate()[0]) for p in pair]
    both = time.perf_counter() - began
    ratio = 2 * alone["wall"] / both
    print(f"calibration: one audit {alone['wall']:.1f} s, two at once {both:.1f} s: "
          f"{ratio:.2f}x the work per second", flush=True)
    return {"alone_wall": alone["wall"], "pair_wall": both, "ratio": ratio,
            "pair_cpu": [o["cpu"] for o in outputs], "alone_cpu": alone["cpu"],
            "load": alone["load_before"],
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}


# -- the results table ------------------------------------------------------------------------


def load_results() -> dict[str, Any]:
    if RESULTS_JSON.exists():
        results: dict[str, Any] = json.loads(RESULTS_JSON.read_text())
        return results
    return {"records": [], "machine": {}, "calibration": None}


def save_results(results: dict[str, Any]) -> None:
    RESULTS_JSON.write_text(json.dumps(results, indent=1) + "\n")


def _find(records: list[dict[str, Any]], hands: int, command: str, jobs: int
          ) -> dict[str, Any] | None:
    for record in records:
        if (record["hands"], record["command"], record["jobs"]) == (hands, command, jobs):
            return record
    return None


def render(results: dict[str, Any]) -> str:
    m = results.get("machine", {})
    records = results["records"]
    jobs = max((r["jobs"] for r in records), default=2)
    lines = [
        "# Performance suite results",
        "",
        "Produced by `python benchmarks/run_suite.py` (see its docstring for what is measured "
        "and how); do not edit by hand.",
        "",
        f"Machine: {m.get('nproc')} cores ({m.get('cpu')}), Python {m.get('python')}, "
        f"{m.get('platform')}; code at commit {m.get('commit')}.",
        "",
        "Inputs: Pineapple, 3 players, operator view, 8 tables side by side; 10,000 simulated "
        "hands and copies of them (unique ids and table names per copy), ~1.8 KB per hand.",
        "",
        "Each figure is the best of the runs shown (by wall time). *hands/s/core* is hands per "
        "CPU second of all the command's processes; *peak* is the largest summed RSS of the "
        "command's processes (sampled every 0.1 s), *max proc* the largest single process "
        "(`ru_maxrss`). *load* is the 1-minute load average when the run started (2 cores: "
        "above 0 means other jobs were taking CPU).",
        "",
        f"| hands | command | jobs | runs | wall s | hands/s (wall) | hands/s/core (CPU) "
        f"| peak MB | max proc MB | speed-up {jobs} vs 1 | load | date |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    order = {"read": 0, "audit": 1, "session": 2}
    for r in sorted(records, key=lambda r: (r["hands"], order.get(r["command"], 9), r["jobs"])):
        speedup = ""
        if r["jobs"] > 1:
            one = _find(records, r["hands"], r["command"], 1)
            if one:
                speedup = f"{one['wall'] / r['wall']:.2f}x"
        lines.append(
            f"| {r['hands']:,} | {r['command']} | {r['jobs']} | {r['runs']} | {r['wall']:.1f} "
            f"| {r['hands'] / r['wall']:,.0f} | {r['hands'] / r['cpu']:,.0f} "
            f"| {r['tree_peak_mb']:,.0f} | {r['maxrss_mb']:,.0f} | {speedup} "
            f"| {r['load_before']:.2f} | {r['date']} |"
        )
    cal = results.get("calibration")
    if cal:
        lines += [
            "",
            f"Calibration ({cal['date']}, load {cal['load']:.2f}): one `--jobs 1` audit of "
            f"10,000 hands alone took {cal['alone_wall']:.1f} s; two of them at once "
            f"{cal['pair_wall']:.1f} s, i.e. this machine did {cal['ratio']:.2f}x the work per "
            "second with two processes as with one: the ceiling for any `--jobs 2` speed-up "
            "at that moment.",
        ]
    lines += ["", "## Targets (issue 6.3)", ""]
    lines += targets(records, jobs)
    lines += ["", "## Reading the numbers", "", *NOTES]
    return "\n".join(lines) + "\n"


NOTES = [
    "* `--jobs 1` is the local engine in one process; `--jobs N` adds N worker processes "
    "(one lane each) to the parent and the multiprocessing forkserver, which is why its "
    "summed peak memory is a few times the single process's. The parent scans every file "
    "once and deals each lane its tables' entries; a lane reads only those bytes and does "
    "about 4% more work than one process does for the same hands (callgrind, 1,200 hands; "
    "16% before issue 14), so the calibration's ceiling bounds the speed-up on this "
    "machine.",
    "* `session` ends with the same summaries, charts and report files whatever `--jobs`; "
    "that tail runs in the parent alone and takes a large share of the time.",
    "* Wall times on a shared machine vary by 20% or more from run to run; compare rows "
    "measured at similar load, and the CPU-based rates rather than the wall-based ones.",
]


def targets(records: list[dict[str, Any]], jobs: int) -> list[str]:
    def verdict(ok: bool | None) -> str:
        return "not measured" if ok is None else ("met" if ok else "**missed**")

    audits = [r for r in records if r["command"] == "audit" and r["jobs"] == 1]
    best_rate = max((r["hands"] / r["cpu"] for r in audits), default=None)
    speedups = [
        one["wall"] / r["wall"] for r in records
        if r["command"] in ("audit", "session") and r["jobs"] > 1
        and (one := _find(records, r["hands"], r["command"], 1)) is not None
    ]
    big_audit = [r for r in records if r["command"] == "audit" and r["hands"] >= 1_000_000]
    big_session = [r for r in records if r["command"] == "session" and r["hands"] >= 1_000_000]
    audit_sizes = sorted({r["hands"] for r in audits})
    peaks = [f"{h:,}: {_find(records, h, 'audit', 1)['tree_peak_mb']:,.0f} MB"  # type: ignore[index]
             for h in audit_sizes]
    rows = [
        "| target | measured | verdict |",
        "|---|---|---|",
        f"| audit >= {TARGET_AUDIT_RATE:,} hands/s on one core, end to end | "
        + (f"{best_rate:,.0f} hands/s/core (best `--jobs 1`)" if best_rate else "-")
        + f" | {verdict(None if best_rate is None else best_rate >= TARGET_AUDIT_RATE)} |",
        f"| `--jobs {jobs}` >= {TARGET_SPEEDUP}x `--jobs 1` | "
        + (", ".join(f"{s:.2f}x" for s in speedups) or "-")
        + f" | {verdict(None if not speedups else min(speedups) >= TARGET_SPEEDUP)} |",
        f"| audit memory flat in file size; 1,000,000 hands < {TARGET_AUDIT_MB} MB | "
        + ("; ".join(peaks) or "-") + " (`--jobs 1`; "
        + ", ".join(f"`--jobs {r['jobs']}` {r['tree_peak_mb']:,.0f} MB" for r in big_audit
                    if r["jobs"] > 1) + ") | "
        + verdict(None if not big_audit else all(
            r["tree_peak_mb"] < TARGET_AUDIT_MB for r in big_audit)) + " |",
        f"| session report over 1,000,000 hands < {TARGET_SESSION_S:.0f} s | "
        + (", ".join(f"`--jobs {r['jobs']}` {r['wall']:,.0f} s" for r in big_session) or "-")
        + f" | {verdict(None if not big_session else min(r['wall'] for r in big_session) < TARGET_SESSION_S)} |",  # noqa: E501
    ]
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--read-child"]:
        read_child(argv[1])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000",
                        help="hand counts, comma-separated (default 10000,100000,1000000)")
    parser.add_argument("--commands", default="read,audit,session")
    parser.add_argument("--jobs", type=int, default=2, help="the N of --jobs N (default 2)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per figure, best kept (default 3; 1 from 1,000,000 hands)")
    parser.add_argument("--data", type=Path,
                        default=Path(tempfile.gettempdir()) / "ofc_audit_suite")
    parser.add_argument("--no-calibration", action="store_true")
    parser.add_argument("--render", action="store_true",
                        help="only write RESULTS.md from results.json")
    args = parser.parse_args(argv)
    results = load_results()
    if not args.render:
        args.data.mkdir(parents=True, exist_ok=True)
        check_sample(args.data)
        results["machine"] = machine()
        if not args.no_calibration:
            results["calibration"] = calibrate(args.data)
            save_results(results)
        commands = [c.strip() for c in args.commands.split(",") if c.strip()]
        for hands in (int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()):
            repeat = args.repeat if hands < 1_000_000 else 1
            print(f"{hands:,} hands (load {load():.2f})", flush=True)
            new = run_size(args.data, hands, commands, args.jobs, repeat)
            keep = {(r["hands"], r["command"], r["jobs"]) for r in new}
            results["records"] = [r for r in results["records"]
                                  if (r["hands"], r["command"], r["jobs"]) not in keep] + new
            save_results(results)
            RESULTS_MD.write_text(render(results))
    RESULTS_MD.write_text(render(results))
    print(f"wrote {RESULTS_MD}")


if __name__ == "__main__":
    main()
