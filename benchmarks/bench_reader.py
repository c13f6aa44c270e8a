"""Reader throughput: hands per second read into records, on one core.

The input is the docs/FORMAT.md worked example (Pineapple, three players, operator view, a
Fantasyland hand, SHOWDOWN and SUMMARY: 42 lines) repeated with distinct hand ids, written to a
temporary file and read back through
:func:`ofc_audit.history.reader.read_path`, as the auditor reads.

    python benchmarks/bench_reader.py [--hands 20000] [--repeat 5] [--profile]

Throughput is hands per CPU second of this process (``time.process_time``), the best of
``--repeat`` runs: on a shared machine the wall clock also counts the time other processes
take the core. For scale, the same file is also read by a *baseline*: one bare regular
expression per line shape of the example, no validation and no error handling, building the
same records. The ratio reader/baseline says what the validation and the reporting of errors
cost, whatever the machine's speed at the moment.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ofc_audit.game.cards import Card  # noqa: E402
from ofc_audit.game.ruleset import FantasylandType, Variant  # noqa: E402
from ofc_audit.history.reader import read_path  # noqa: E402
from ofc_audit.history.records import (  # noqa: E402
    Deal,
    Hand,
    Header,
    MatchInfo,
    Placement,
    Row,
    Seat,
    Section,
    SectionKind,
    Showdown,
    ShowdownBoard,
    Stake,
    Summary,
    SummaryEntry,
    TableInfo,
)

EXAMPLE = ROOT / "tests" / "data" / "format_example.txt"


def write_history(path: Path, hands: int) -> None:
    template = EXAMPLE.read_text(encoding="utf-8")
    first, rest = template.split("\n", 1)
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for number in range(hands):
            out.write(first.replace("#PD-1001", f"#PD-{number}", 1) + "\n" + rest + "\n")


def read_with_reader(path: Path) -> int:
    count = 0
    for item in read_path(path):
        if not isinstance(item, Hand):
            raise SystemExit(f"benchmark input rejected: {item}")
        count += 1
    return count


# -- the baseline: bare regular expressions, the example's line shapes only -----------------

_CARD = {f"{r}{s}": Card.parse(f"{r}{s}") for r in "23456789TJQKA" for s in "shdc"}
_HEADER = re.compile(
    r"OFC Hand #(\S+): (\w+(?: \w+)?)(?:, (\w+) Fantasyland)? - (\S+) (\S+)/point - (.*)"
)
_MATCH = re.compile(r"Match #(\S+), hand (\d+)")
_TABLE = re.compile(r"Table '([^']*)' (\d+)-max - Seat #(\d+) is the button")
_SEAT = re.compile(r"Seat (\d+): (.+?) \((-?\d+)\)( in Fantasyland(?: \((\d+) cards\))?)?")
_DEAL = re.compile(r"(.+?) is dealt \[([^\]]*)\]")
_PLACES = re.compile(r"(.+?) places (.*?)(?:, discards \[([^\]]*)\])?")
_ROW = re.compile(r"(top|middle|bottom) \[([^\]]*)\]")
_SECTION = re.compile(r"\*\*\* (STREET (\d+)|FANTASYLAND|SHOWDOWN|SUMMARY) \*\*\*")
_BOARD = re.compile(r"(.+?): top \[([^\]]*)\] middle \[([^\]]*)\] bottom \[([^\]]*)\]")
_SUMMARY = re.compile(
    r"(.+?): (fouled, )?royalties ([-+]?\d+), points ([-+]?\d+), stack (-?\d+) -> (-?\d+)"
    r"(?:, Fantasyland next \((\d+) cards\))?"
)


def _cards(text: str) -> tuple[Card, ...]:
    return tuple(map(_CARD.__getitem__, text.split()))


def _baseline_hands(path: Path) -> Iterator[Hand]:
    hand: dict[str, Any] | None = None

    def close() -> None:
        assert hand is not None
        if hand["section"] is not None:
            kind, number, line = hand["section"]
            hand["sections"].append(Section(kind, number, tuple(hand["actions"]), line))
            hand["section"], hand["actions"] = None, []

    def finish() -> Hand:
        assert hand is not None
        close()
        return Hand(
            str(path),
            hand["header"],
            hand["match"],
            hand["table"],
            tuple(hand["seats"]),
            (),
            tuple(hand["sections"]),
            Showdown(tuple(hand["boards"]), hand["showdown"]),
            Summary(tuple(hand["entries"]), hand["summary"]),
        )

    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("OFC"):
                if hand is not None:
                    yield finish()
                m = _HEADER.fullmatch(line)
                assert m is not None
                fantasyland = FantasylandType(m[3]) if m[3] else FantasylandType.NONE
                stake = Stake(Decimal(m[4]), m[5], m[4])
                header = Header(m[1], Variant.from_title(m[2]), fantasyland, stake, m[6], number)
                hand = {"header": header, "match": None, "seats": [], "sections": []}
                hand.update(section=None, actions=[], boards=[], entries=[])
                continue
            assert hand is not None
            if line.startswith("***"):
                m = _SECTION.fullmatch(line)
                assert m is not None
                close()
                if m[2]:
                    hand["section"] = (SectionKind.STREET, int(m[2]), number)
                elif m[1] == "FANTASYLAND":
                    hand["section"] = (SectionKind.FANTASYLAND, None, number)
                else:
                    hand[m[1].lower()] = number
            elif m := _DEAL.fullmatch(line):
                hand["actions"].append(Deal(m[1], _cards(m[2]), number))
            elif m := _PLACES.fullmatch(line):
                rows = tuple((Row(r), _cards(c)) for r, c in _ROW.findall(m[2]))
                discards = None if m[3] is None else _cards(m[3])
                hand["actions"].append(Placement(m[1], rows, discards, number))
            elif m := _BOARD.fullmatch(line):
                board = ShowdownBoard(m[1], _cards(m[2]), _cards(m[3]), _cards(m[4]), number)
                hand["boards"].append(board)
            elif m := _SUMMARY.fullmatch(line):
                next_cards = int(m[7]) if m[7] else None
                entry = SummaryEntry(
                    m[1], bool(m[2]), int(m[3]), int(m[4]), int(m[5]), int(m[6]), next_cards, number
                )
                hand["entries"].append(entry)
            elif m := _SEAT.fullmatch(line):
                fl_cards = int(m[5]) if m[5] else None
                seat = Seat(int(m[1]), m[2], int(m[3]), bool(m[4]), fl_cards, number)
                hand["seats"].append(seat)
            elif m := _TABLE.fullmatch(line):
                hand["table"] = TableInfo(m[1], int(m[2]), int(m[3]), number)
            elif m := _MATCH.fullmatch(line):
                hand["match"] = MatchInfo(m[1], int(m[2]), number)
    if hand is not None:
        yield finish()


def read_with_baseline(path: Path) -> int:
    return sum(1 for _ in _baseline_hands(path))


# -- measuring ------------------------------------------------------------------------------


def best_rate(read: Callable[[Path], int], path: Path, repeat: int) -> tuple[float, float]:
    """(hands per CPU second, hands per wall second) of the fastest of ``repeat`` runs."""
    best_cpu = best_wall = 0.0
    for _ in range(repeat):
        cpu, wall = time.process_time(), time.perf_counter()
        count = read(path)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        best_cpu, best_wall = max(best_cpu, count / cpu), max(best_wall, count / wall)
    return best_cpu, best_wall


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one run")
    parser.add_argument("--no-baseline", action="store_true", help="time the reader only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.txt"
        write_history(path, args.hands)
        size = path.stat().st_size / 1e6
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(read_with_reader, path)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
            return 0
        # The two readers read the same records (checked on the first hands).
        baseline = list(_baseline_hands(path))[:3]
        ours = [hand for hand, _ in zip(read_path(path), range(3), strict=False)]
        assert ours == baseline, "the baseline must read the same records"
        cpu, wall = best_rate(read_with_reader, path, args.repeat)
        print(
            f"reader:   {args.hands} hands ({size:.1f} MB), best of {args.repeat}: "
            f"{cpu:,.0f} hands/s per core ({cpu * size / args.hands:.1f} MB/s), "
            f"{wall:,.0f} hands/s wall"
        )
        if not args.no_baseline:
            base_cpu, base_wall = best_rate(read_with_baseline, path, args.repeat)
            print(
                f"baseline: bare regex, same records, no validation: {base_cpu:,.0f} hands/s "
                f"per core, {base_wall:,.0f} wall; reader/baseline = {cpu / base_cpu:.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
