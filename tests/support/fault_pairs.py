"""Faults in pairs (issue 13): a simulated hand that carries faults of two kinds is cited for
exactly the union of the kinds' rules (``simulate.faults.FAULT_RULES``), in the operator's
view and in a player's view, and a hand without a fault is not touched (no finding, no
mismatch: the audit's results are the ones the simulator settled).

Shared by the short run in the suite (tests/test_fault_pairs.py) and the long one
(benchmarks/fault_pairs.py). Each run simulates one game with ``fault_kinds`` the pair,
``faults=1.0`` and ``faults_per_hand=2``: every hand carries both kinds when it can break
both, one of them when it can break only that one.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ofc_audit.audit.driver import audit_items
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import HistoryParseError, read_text
from ofc_audit.simulate.faults import (
    FAULT_KINDS,
    INCOMPATIBLE,
    expected_rules,
    labelled_faults,
)
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text

VIEWER = "alice"  # the first name the simulator seats: it plays at the first table
VIEWS: tuple[str | None, ...] = (None, VIEWER)


@dataclass(frozen=True)
class Game:
    variant: str
    fantasyland: str
    players: int
    stacks: int

    def ruleset(self) -> Ruleset:
        return Ruleset().with_options(variant=self.variant, fantasyland=self.fantasyland)


# The games a pair is tried in, one per seed in turn: two players in progressive Fantasyland
# have many Fantasyland hands with cards to spare (R-FL-5, fl_split_deal); three in Classic
# give Fantasyland hands with two players on the streets and, in standard Fantasyland (13
# cards), the 13 left for a second deal (R-FL-5 with R-ACT-1 or R-CARD-3), and a third seat
# (R-DEAL-2); four short stacks bust (R-SETTLE-4) and sit out (R-TIME-3).
GAMES = (
    Game("pineapple", "progressive", 2, 200),
    Game("classic", "standard", 3, 200),
    Game("classic", "standard", 4, 12),
    Game("pineapple", "standard", 3, 200),
)

PAIRS: tuple[tuple[str, str], ...] = tuple(
    pair for pair in itertools.combinations(FAULT_KINDS, 2)
    if frozenset(pair) not in INCOMPATIBLE
)

# Pairs no hand can carry together, whatever the seed: the first kind opens a match (R-MATCH-2
# moves the button between matches; a busted or sat-out player is dealt in again only when a
# match starts) and the second needs a Fantasyland hand, which continues a match.
_OPENS_A_MATCH = ("R-MATCH-2", "R-SETTLE-4", "R-TIME-3")
_NEEDS_FANTASYLAND = ("R-FL-2", "R-FL-4", "R-FL-5", "fl_split_deal", "R-ACT-4")
NEVER_MEET: frozenset[frozenset[str]] = frozenset(
    frozenset({a, b}) for a in _OPENS_A_MATCH for b in _NEEDS_FANTASYLAND
)

# ... and pairs that never meet in a player's view: R-CARD-2 strikes the viewer's last
# street (in cards only it sees) and R-TIME-2 the viewer too, which then has no street left
# to be placed on while disconnected.
NEVER_MEET_IN_PLAYER_VIEW: frozenset[frozenset[str]] = frozenset({
    frozenset({"R-CARD-2", "R-TIME-2"}),
})

HEADER = re.compile(r"^OFC Hand #(\S+):", re.M)


@dataclass(frozen=True)
class Miss:
    """A hand whose findings are not its faults' (or a clean hand with findings)."""

    hand_id: str
    kinds: tuple[str, ...]
    expected: frozenset[str]
    got: frozenset[str]
    mismatches: tuple[str, ...]
    text: str

    def describe(self) -> str:
        extra = sorted(self.got - self.expected)
        missing = sorted(self.expected - self.got)
        return (
            f"hand {self.hand_id}: kinds {list(self.kinds) or 'none'}; expected "
            f"{sorted(self.expected)}, got {sorted(self.got)} (extra {extra}, missing "
            f"{missing}); mismatches {list(self.mismatches)}\n{self.text}"
        )


@dataclass
class PairRun:
    """One simulation of a pair: how many hands carried both kinds, and the misses."""

    pair: tuple[str, str]
    seed: int
    view: str | None
    game: Game
    both: int = 0  # hands carrying both kinds
    first_both: int | None = None  # the number (among all played) of the first of them
    faulty: int = 0  # hands carrying one fault or more
    clean: int = 0  # hands without a fault
    misses: list[Miss] = field(default_factory=list)


def hand_texts(text: str) -> dict[str, str]:
    """Hand id -> its text (header to the next header)."""
    starts = [(m.start(), m.group(1)) for m in HEADER.finditer(text)]
    ends = [s for s, _ in starts[1:]] + [len(text)]
    return {hand_id: text[s:e] for (s, hand_id), e in zip(starts, ends, strict=True)}


def run_pair(
    pair: tuple[str, str], seed: int, view: str | None, hands: int, game: Game | None = None
) -> PairRun:
    """Simulate ``hands`` hands of the pair's game for ``seed`` (``GAMES`` in turn unless
    given), audit them and compare each hand's cited rules with its faults'."""
    game = game or GAMES[seed % len(GAMES)]
    ruleset = game.ruleset()
    text = simulate_text(SimulationOptions(
        ruleset=ruleset, players=game.players, hands=hands, seed=seed, stacks=game.stacks,
        view=view, faults=1.0, faults_per_hand=2, fault_kinds=pair, jobs=1,
    ))
    labels = labelled_faults(text)
    run = PairRun(pair, seed, view, game)
    bodies: dict[str, str] | None = None
    for result in audit_items(read_text(text), ruleset):
        if isinstance(result, HistoryParseError):  # pragma: no cover - the simulator's bug
            raise AssertionError(f"the simulator wrote a hand the reader rejects: {result}")
        kinds = labels.get(result.hand_id, ())
        if set(pair) <= set(kinds):
            run.both += 1
            if run.first_both is None:  # hand ids are SIM<seed>-<number played>
                run.first_both = int(result.hand_id.rsplit("-", 1)[1])
        run.faulty += bool(kinds)
        run.clean += not kinds
        expected = expected_rules(kinds)
        got = frozenset(v.rule for v in result.violations)
        mismatches = len(result.mismatches) == ("SUMMARY" in kinds)
        if got != expected or not mismatches:
            bodies = bodies or hand_texts(text)
            run.misses.append(Miss(
                result.hand_id, kinds, expected, got,
                tuple(f"{m.player} {m.field} recorded {m.recorded} computed {m.computed}"
                      for m in result.mismatches),
                bodies[result.hand_id],
            ))
    return run


def runs(
    pairs: tuple[tuple[str, str], ...], seeds: range, hands: int, first: int = 0
) -> Iterator[PairRun]:
    """Every pair in every view over ``seeds``; with ``first`` > 0, a view of a pair stops
    after that many seeds that draw the pair together."""
    for pair in pairs:
        for view in VIEWS:
            drawn = 0
            for seed in seeds:
                run = run_pair(pair, seed, view, hands)
                yield run
                drawn += run.both > 0
                if first and drawn >= first:
                    break


# Where the short run finds each pair together: "KIND+KIND" -> view ("operator" or "player")
# -> [[seed, hands], ...], the first SEEDS_PER_VIEW seeds of the long run whose game
# (GAMES[seed % 4]) deals a hand carrying both kinds, and the number of hands played up to
# the first such hand (a simulation is the same hand for hand whatever its length). Written
# by ``benchmarks/fault_pairs.py --write-seeds``; a pair missing here was never drawn together.
SEEDS_FILE = Path(__file__).resolve().parents[1] / "data" / "fault_pair_seeds.json"
SEEDS_PER_VIEW = 2
Seeds = dict[str, dict[str, list[list[int]]]]


def view_key(view: str | None) -> str:
    return "operator" if view is None else "player"


def pair_key(pair: tuple[str, str]) -> str:
    return "+".join(pair)


def load_seeds() -> Seeds:
    if not SEEDS_FILE.exists():
        return {}
    seeds: Seeds = json.loads(SEEDS_FILE.read_text(encoding="utf-8"))
    return seeds


def write_seeds(pair_runs: Iterable[PairRun]) -> Seeds:
    """The first SEEDS_PER_VIEW seeds that draw each pair together, by view (runs in seed
    order), in place of what the file says of the pairs run."""
    pair_runs = list(pair_runs)
    seeds = load_seeds()
    for run in pair_runs:
        seeds.pop(pair_key(run.pair), None)
    for run in pair_runs:
        if run.first_both is not None:
            found = seeds.setdefault(pair_key(run.pair), {}).setdefault(view_key(run.view), [])
            if len(found) < SEEDS_PER_VIEW:
                found.append([run.seed, run.first_both])
    SEEDS_FILE.write_text(json.dumps(seeds, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return seeds
