"""This code against another commit, in the same run on the same input (issue 14).

    python benchmarks/compare.py --against REV [--hands 100000] [--mix-hands 10000]
                                 [--repeat 3] [--measures reader,audit,jobs,session]
                                 [--session-hands N] [--callgrind-hands 200] [--check]

REV (a commit, a branch) is exported with ``git archive`` into a temporary folder; "this"
is the working tree this script lives in (uncommitted edits included). Both sides run the
same commands on the same files, as fresh processes started in their own folder (``python -m
ofc_audit`` imports the side's package), alternating A/B within each round so that both see
the same load, and the best of ``--repeat`` rounds counts. The machine's seconds vary by
20-30% with its load, so what this prints are ratios of the same run, and, when valgrind
is there, the instructions per hand of each side (``benchmarks/instructions.py`` of each
side, which do not vary).

Inputs (kept in ``--data`` and reused; each built in a folder of its own first, so runs at
once share them; what a run writes goes in a temporary folder under ``--data`` of its own,
removed at the end):

* ``main``: Pineapple, 3 players, deep stacks, operator view, ``--hands`` hands (copies of
  10,000 simulated hands with their ids and tables made unique: ``run_suite.sized_file``);
* ``mix``: ``--mix-hands`` hands over five simulated files: each variant and Fantasyland
  type, player views (hidden cards, mucked boards), default stacks (busts, top-ups, sit-outs),
  disconnects and time-outs, and one labelled fault in 5% of the hands (every fault kind).

Measures (CPU = user + system of every process of the command, workers included):

* ``reader``: the reader alone over ``main`` and ``mix``: base CPU / this CPU;
* ``audit``: ``audit --json`` in one process over ``main`` and ``mix``: base CPU / this CPU;
* ``jobs``: ``audit --json --jobs 2`` over ``--jobs 1``, wall, each side on ``main``;
* ``session``: ``session --json --jobs 2`` over ``--session-hands`` of main (default
  ``--hands``): base wall / this wall, and each side's peak summed RSS.

``--check`` compares the outputs of both sides byte for byte instead (the baseline's are the
reference): ``audit --json``, ``audit`` (text), ``audit --json --jobs 2``, ``audit --rules
pokerdom`` and ``session --json --jobs 2`` (its output and every file it writes but the
charts: tables in CSV, Parquet and JSON, session.json, summary.md, report.html, dispute
pages) on the sample histories (disputes included), the tests' histories, simulated files
with one fault in half the hands (every kind), and ``mix``. Run nothing else in this tree
while a comparison runs: "this" is the working tree as it is at each command.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import run_suite  # noqa: E402

# (name, simulate options): every variant and Fantasyland type, both views, busts.
MIX = [
    ("pineapple_player", ["--variant", "pineapple", "--players", "3", "--view", "player:bob",
                          "--tables", "3"]),
    ("classic_progressive", ["--variant", "classic", "--players", "4",
                             "--fantasyland", "progressive", "--tables", "2"]),
    ("joker_ultimate", ["--variant", "joker-pineapple", "--players", "3",
                        "--fantasyland", "ultimate", "--tables", "2", "--stacks", "1000"]),
    ("turbo_tournament", ["--variant", "turbo", "--players", "2", "--fantasyland",
                          "tournament", "--view", "player:alice"]),
    ("pineapple_busts", ["--variant", "pineapple", "--players", "3", "--tables", "4"]),
]
MIX_FAULTS = "0.05"
READ_CHILD = (
    "import sys; sys.path.insert(0, '.'); from ofc_audit.history.reader import read_hands; "
    "print(sum(1 for _ in read_hands(sys.argv[1:])), file=sys.stderr)"
)


# -- the two sides ------------------------------------------------------------------------------


def export(rev: str, into: Path) -> Path:
    """The tree of ``rev`` under ``into`` (no git metadata: nothing to clean up in the repo)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev],
                             capture_output=True, check=True).stdout
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def commit_of(rev: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev],
                          capture_output=True, text=True, check=True).stdout.strip()


# -- inputs -------------------------------------------------------------------------------------


def _part(folder: Path) -> Path:
    """A folder of this run's own in which to build ``folder`` (runs at once share inputs,
    never half-built ones)."""
    return Path(tempfile.mkdtemp(prefix=f"{folder.name}.part", dir=folder.parent))


def _publish(part: Path, folder: Path) -> Path:
    """``part`` becomes ``folder``, unless another run built it first (the same files)."""
    try:
        part.rename(folder)
    except OSError:
        if not folder.exists():
            raise
        shutil.rmtree(part, ignore_errors=True)
    return folder


def mix_folder(data: Path, hands: int) -> Path:
    folder = data / f"mix_{hands}"
    if folder.exists():
        return folder
    part = _part(folder)
    for seed, (name, options) in enumerate(MIX, start=11):
        print(f"simulating {name} ({hands // len(MIX):,} hands) ...", flush=True)
        subprocess.run([*run_suite.ofc_audit(), "simulate", "--hands", str(hands // len(MIX)),
                        "--seed", str(seed), "--faults", MIX_FAULTS, *options,
                        "--out", str(part / f"{name}.txt")], check=True, cwd=ROOT)
    return _publish(part, folder)


def count_hands(path: Path) -> int:
    files = sorted(path.rglob("*.txt")) if path.is_dir() else [path]
    return sum(len(re.findall(rb"(?m)^OFC Hand #", f.read_bytes())) for f in files)


# -- running ------------------------------------------------------------------------------------


def command(measure: str, path: Path, jobs: int, out: Path) -> list[str]:
    if measure == "reader":
        return [sys.executable, "-c", READ_CHILD, str(path)]
    if measure == "session":
        return [*run_suite.ofc_audit(), "session", str(path), "--json", "--out", str(out),
                "--jobs", str(jobs)]
    return [*run_suite.ofc_audit(), "audit", str(path), "--json", "--jobs", str(jobs)]


def measure(side: Path, argv: Sequence[str]) -> dict[str, Any]:
    """One command in ``side``'s folder, measured by benchmarks/peak_rss.py (CPU of every
    process of the command, wall, peak summed RSS), as run_suite measures (its own
    ``--measure-child`` went in 0ed178d; this still called it and failed)."""
    load = run_suite.load()
    done = subprocess.run([sys.executable, str(HERE / "peak_rss.py"), "--", *argv],
                          capture_output=True, text=True, check=True, cwd=side)
    record: dict[str, Any] = json.loads(done.stdout)
    record["load_before"] = load
    if record["returncode"] not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed in {side}: {record['stderr']}")
    return record


def instructions(side: Path, path: Path, hands: int, warm: int) -> dict[str, float]:
    """Instructions per hand of each stage, by the side's own benchmarks/instructions.py."""
    done = subprocess.run([sys.executable, "benchmarks/instructions.py", str(path), "--hands",
                           str(hands), "--warm", str(warm)], capture_output=True, text=True,
                          check=True, cwd=side)
    found = {m[1]: float(m[2].replace(",", ""))
             for m in re.finditer(r"^\s+(\w+)\s+([\d,]+)\s+\(cumulative", done.stdout, re.M)}
    found["total"] = sum(found.values())
    return found


# -- the comparison -----------------------------------------------------------------------------


def compare(args: argparse.Namespace, sides: dict[str, Path]) -> None:
    data: Path = args.data
    main_file = run_suite.sized_file(data, args.hands)
    mix = mix_folder(data, args.mix_hands)
    session_file = run_suite.sized_file(data, args.session_hands or args.hands)
    measures = [m.strip() for m in args.measures.split(",") if m.strip()]
    runs: list[tuple[str, str, Path, int]] = []  # (label, measure, input, jobs)
    for m in measures:
        if m in ("reader", "audit"):
            runs += [(f"{m} main", m, main_file, 1), (f"{m} mix", m, mix, 1)]
        elif m == "jobs":
            runs += [("audit --jobs 1", "audit", main_file, 1),
                     ("audit --jobs 2", "audit", main_file, 2)]
        elif m == "session":
            runs += [("session --jobs 2", "session", session_file, 2)]
    best: dict[tuple[str, str], dict[str, Any]] = {}
    names = list(sides)
    for attempt in range(args.repeat):
        for label, m, path, jobs in runs:
            # Alternate which side goes first, so neither always runs after the other.
            order = names if attempt % 2 == 0 else names[::-1]
            for name in order:
                out = args.out / f"compare_out_{name}"
                record = measure(sides[name], command(m, path, jobs, out))
                shutil.rmtree(out, ignore_errors=True)
                print(f"  round {attempt + 1} {label:<18} {name:<5} {record['wall']:7.1f} s "
                      f"wall {record['cpu']:7.1f} s CPU {record['tree_peak_mb']:6.0f} MB "
                      f"load {record['load_before']:.2f}",
                      flush=True)
                key = (label, name)
                if key not in best or record["wall"] < best[key]["wall"]:
                    best[key] = record
    hands = {"main": count_hands(main_file), "mix": count_hands(mix),
             "session": count_hands(session_file)}
    print(f"\n{args.against} ({commit_of(args.against)}) = base, working tree = this; "
          f"main {hands['main']:,} hands, mix {hands['mix']:,}, best of {args.repeat}, "
          f"load now {run_suite.load():.2f}")
    print(f"{'measure':<30} {'base':>12} {'this':>12} {'ratio':>8}")

    def row(text: str, base: float, this: float, unit: str, ratio: float) -> None:
        print(f"{text:<30} {base:>10.2f}{unit:>2} {this:>10.2f}{unit:>2} {ratio:>7.2f}x")

    for label, m, _path, jobs in runs:
        if m == "session" or jobs == 2:
            continue
        b, t = best[(label, "base")], best[(label, "this")]
        row(f"{label} (CPU)", b["cpu"], t["cpu"], "s", b["cpu"] / t["cpu"])
    if "jobs" in measures:
        for name in names:
            one, two = best[("audit --jobs 1", name)], best[("audit --jobs 2", name)]
            print(f"{'audit --jobs 2 / --jobs 1 ' + name:<30} {one['wall']:>10.2f} s "
                  f"{two['wall']:>10.2f} s {one['wall'] / two['wall']:>7.2f}x  "
                  f"(peak {two['tree_peak_mb']:.0f} MB)")
        b, t = best[("audit --jobs 2", "base")], best[("audit --jobs 2", "this")]
        row("audit --jobs 2 (wall)", b["wall"], t["wall"], "s", b["wall"] / t["wall"])
    if "session" in measures:
        b, t = best[("session --jobs 2", "base")], best[("session --jobs 2", "this")]
        row("session --jobs 2 (wall)", b["wall"], t["wall"], "s", b["wall"] / t["wall"])
        row("session --jobs 2 peak MB", b["tree_peak_mb"], t["tree_peak_mb"], "",
            b["tree_peak_mb"] / t["tree_peak_mb"])
    if args.callgrind_hands and shutil.which("valgrind"):
        print(f"\ninstructions per hand (callgrind, {args.callgrind_hands} hands of main after "
              f"{args.callgrind_warm}):")
        counts = {name: instructions(sides[name], main_file, args.callgrind_hands,
                                     args.callgrind_warm) for name in names}
        for stage in ("read", "replay", "json", "total"):
            b, t = counts["base"].get(stage, 0.0), counts["this"].get(stage, 0.0)
            print(f"  {stage:<8} base {b / 1e6:6.3f} M   this {t / 1e6:6.3f} M   "
                  f"{b / t if t else 0:5.2f}x")
    elif args.callgrind_hands:
        print("\n(no valgrind: no instruction counts; apt-get install valgrind)")


# -- the output check ---------------------------------------------------------------------------


def check_inputs(data: Path, mix_hands: int) -> list[Path]:
    faults = data / "faults"
    if not faults.exists():
        part = _part(faults)
        for seed, (name, options) in enumerate(MIX, start=31):
            subprocess.run([*run_suite.ofc_audit(), "simulate", "--hands", "400", "--seed",
                            str(seed), "--faults", "0.5", *options,
                            "--out", str(part / f"{name}.txt")], check=True, cwd=ROOT)
        _publish(part, faults)
    return [ROOT / "sample_histories", ROOT / "tests" / "data", faults,
            mix_folder(data, mix_hands)]


def run_output(side: Path, argv: Sequence[str]) -> tuple[int, str, str]:
    """Exit status, SHA-256 of standard output, and standard error of a command."""
    digest = hashlib.sha256()
    with subprocess.Popen(argv, cwd=side, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        while block := process.stdout.read(1 << 20):
            digest.update(block)
        stderr = process.stderr.read().decode(errors="replace")
    return process.returncode, digest.hexdigest(), stderr


def session_files(out: Path) -> set[str]:
    """Every file a session wrote (relative paths: tables in every format, session.json,
    summary.md, report.html, dispute pages) but the charts, whose pixels may change."""
    return {str(p.relative_to(out)) for p in out.rglob("*")
            if p.is_file() and p.relative_to(out).parts[0] != "charts"}


def check(args: argparse.Namespace, sides: dict[str, Path]) -> int:
    failures = 0
    for path in check_inputs(args.data, args.mix_hands):
        for argv in (["audit", "--json"], ["audit"], ["audit", "--json", "--jobs", "2"],
                     ["audit", "--rules", "pokerdom"]):
            got = {name: run_output(side, [*run_suite.ofc_audit(), argv[0], str(path),
                                           *argv[1:]]) for name, side in sides.items()}
            same = got["base"][:2] == got["this"][:2]
            failures += not same
            print(f"{'same' if same else 'DIFFERENT':<9} {' '.join(argv):<26} {path}",
                  flush=True)
            if not same:
                print(f"  base: {got['base'][0]} {got['base'][1][:12]} {got['base'][2][-300:]}")
                print(f"  this: {got['this'][0]} {got['this'][1][:12]} {got['this'][2][-300:]}")
        outs = {name: args.out / f"check_session_{name}" for name in sides}
        got = {}
        for name, side in sides.items():
            shutil.rmtree(outs[name], ignore_errors=True)
            got[name] = run_output(side, [*run_suite.ofc_audit(), "session", str(path),
                                          "--json", "--jobs", "2", "--out", str(outs[name])])
        files = {name: session_files(out) for name, out in outs.items()}
        match, mismatch, errors = filecmp.cmpfiles(outs["base"], outs["this"],
                                                   sorted(files["base"] | files["this"]),
                                                   shallow=False)
        same = got["base"][:2] == got["this"][:2] and not mismatch and not errors
        failures += not same
        print(f"{'same' if same else 'DIFFERENT':<9} {'session --json --jobs 2 (+ files)':<26} "
              f"{path}" + (f"  differing: {mismatch + errors}" if mismatch or errors else ""),
              flush=True)
    print("outputs identical" if not failures else f"{failures} output(s) differ")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--against", default="71d0bf8", help="the commit to compare with")
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--mix-hands", type=int, default=10_000)
    parser.add_argument("--session-hands", type=int, default=0,
                        help="hands of the session measure (default: --hands)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--measures", default="reader,audit,jobs,session")
    parser.add_argument("--callgrind-hands", type=int, default=200,
                        help="hands counted by callgrind per side (0: none)")
    parser.add_argument("--callgrind-warm", type=int, default=500)
    parser.add_argument("--check", action="store_true",
                        help="compare the outputs byte for byte instead of timing")
    parser.add_argument("--data", type=Path,
                        default=Path(tempfile.gettempdir()) / "ofc_audit_suite")
    args = parser.parse_args()
    args.data.mkdir(parents=True, exist_ok=True)
    os.chdir(ROOT)  # run_suite simulates the inputs with this side's package
    # Inputs are shared in --data; what a run writes is its own (runs at once do not collide),
    # in a folder under --data removed at the end.
    with tempfile.TemporaryDirectory(prefix="ofc-compare-") as tmp, \
            tempfile.TemporaryDirectory(prefix="run-", dir=args.data) as outputs:
        args.out = Path(outputs)
        sides = {"base": export(args.against, Path(tmp) / "base"), "this": ROOT}
        if args.check:
            return check(args, sides)
        compare(args, sides)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
