"""`ofc-audit simulate`: generated histories audit clean, faults are found exactly, views hide
what a player could not see, and a seed gives the same output every time."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc_audit.audit.driver import audit_items
from ofc_audit.cli.app import app
from ofc_audit.game.ruleset import FantasylandType, Ruleset, Variant
from ofc_audit.history.reader import HistoryParseError, read_text
from ofc_audit.replay.results import HandResult
from ofc_audit.simulate.faults import (
    FAULT_KINDS,
    FAULT_RULES,
    INCOMPATIBLE,
    expected_rules,
    labelled_faults,
)
from ofc_audit.simulate.simulator import (
    SimulationError,
    SimulationOptions,
    Simulator,
    simulate_text,
)

runner = CliRunner()
HEADER = re.compile(r"^OFC Hand #(\S+):", re.M)


def simulate(
    variant: str = "pineapple", fantasyland: str = "standard", rules: Ruleset | None = None,
    **options: object,
) -> str:
    ruleset = (rules or Ruleset()).with_options(variant=variant, fantasyland=fantasyland)
    return simulate_text(SimulationOptions(ruleset=ruleset, **options))  # type: ignore[arg-type]


def audit(text: str, rules: Ruleset | None = None) -> list[HandResult]:
    results: list[HandResult] = []
    for item in audit_items(read_text(text), rules or Ruleset()):
        assert not isinstance(item, HistoryParseError), str(item)
        results.append(item)
    return results


def assert_clean(results: list[HandResult]) -> None:
    for r in results:
        assert not r.violations, (r.hand_id, [(v.rule, v.message) for v in r.violations])
        assert not r.mismatches, (r.hand_id, r.mismatches)


def hand_texts(text: str) -> dict[str, str]:
    """Hand id -> its text (header to the next header)."""
    starts = [(m.start(), m.group(1)) for m in HEADER.finditer(text)]
    ends = [s for s, _ in starts[1:]] + [len(text)]
    return {hand_id: text[s:e] for (s, hand_id), e in zip(starts, ends, strict=True)}


def faults_of(text: str) -> dict[str, tuple[str, ...]]:
    """Hand id -> the kinds of its ``# fault:`` comments (the simulator's ground truth), which
    must stand inside the hand, right after its header, one kind at most once."""
    found = labelled_faults(text)
    for hand_id, body in hand_texts(text).items():
        lines = body.splitlines()
        comments = [i for i, line in enumerate(lines) if line.startswith("# fault: ")]
        assert comments == list(range(1, 1 + len(found.get(hand_id, ())))), hand_id
        assert len(set(found.get(hand_id, ()))) == len(found.get(hand_id, ()))
    return found


def assert_faults_found_exactly(text: str, rules: Ruleset | None = None) -> Counter[str]:
    """Every hand's findings cite exactly the rules of its labelled faults (FAULT_RULES: a
    SUMMARY fault is one recorded mismatch and no violation), and an unlabelled hand has no
    finding at all. Returns the labels' counts by kind."""
    labelled = faults_of(text)
    for r in audit(text, rules):
        kinds = labelled.get(r.hand_id, ())
        found = sorted({v.rule for v in r.violations})
        assert found == sorted(expected_rules(kinds)), (
            r.hand_id, kinds, [v.message for v in r.violations]
        )
        assert len(r.mismatches) == ("SUMMARY" in kinds), (r.hand_id, kinds, r.mismatches)
    return Counter(kind for kinds in labelled.values() for kind in kinds)


# -- clean histories --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [v.value for v in Variant])
@pytest.mark.parametrize("fantasyland", [f.value for f in FantasylandType])
def test_every_variant_and_fantasyland_type_audits_clean(variant: str, fantasyland: str) -> None:
    players = 2 if fantasyland in ("none", "progressive") else Variant(variant).max_players
    text = simulate(variant, fantasyland, players=players, hands=25, seed=11, stacks=60)
    results = audit(text)
    assert len(results) == 25
    assert_clean(results)
    header = f"{Variant(variant).title}" + (
        "" if fantasyland == "none" else f", {fantasyland} Fantasyland"
    )
    assert all(line.startswith("OFC Hand #SIM11-") and f": {header} - " in line
               for line in text.splitlines() if line.startswith("OFC Hand"))


def test_fantasyland_chains_happen_and_audit_clean() -> None:
    text = simulate("pineapple", "progressive", players=3, hands=150, seed=1)
    results = audit(text)
    assert_clean(results)
    match_hands = Counter(r.match_hand for r in results)
    assert match_hands[2] >= 8  # Fantasyland hands
    assert match_hands[3] >= 2  # repeats: chains
    fl = [r for r in results if any(p.in_fantasyland for p in r.players)]
    assert all(r.match_hand and r.match_hand >= 2 for r in fl)
    # QQ or better on top earns it; the FANTASYLAND section deals all cards at once.
    assert "*** FANTASYLAND ***" in text
    assert any(p.fantasyland_next for r in results for p in r.players)


def test_stacks_carry_busted_players_leave_and_new_tables_open() -> None:
    text = simulate("pineapple", "standard", players=3, hands=150, seed=2, stacks=20)
    results = audit(text)
    assert_clean(results)
    assert len({r.table for r in results}) >= 3  # tables closed and new ones opened
    by_table: dict[str, list[HandResult]] = {}
    for r in results:
        by_table.setdefault(r.table, []).append(r)
    saw_bust = False
    for hands in by_table.values():
        for before, after in zip(hands, hands[1:], strict=False):
            busted = {p.name for p in before.players if (p.stack_after or 0) <= 0}
            saw_bust |= bool(busted)
            assert not busted & {p.name for p in after.players}
            carried = {p.name: p.stack_after for p in before.players}
            for p in after.players:  # no top-ups at these stacks unless recorded
                if p.name in carried and f"{p.name} tops up" not in text:
                    assert p.stack_before == carried[p.name]
    assert saw_bust
    assert all(len(r.players) >= 2 for r in results)


def test_button_moves_per_match_and_stays_on_fantasyland_hands() -> None:
    for preset, moves in (("standard", False), ("pokerdom", True)):
        rules = Ruleset.preset(preset)
        text = simulate("pineapple", "standard", rules=rules, players=3, hands=100, seed=1)
        results = audit(text, rules)
        assert_clean(results)  # R-MATCH-2 and R-FL-4 are checked by the audit
        fl_hands = [(a, b) for a, b in zip(results, results[1:], strict=False)
                    if b.match_hand and b.match_hand >= 2 and a.table == b.table]
        assert fl_hands
        assert all((a.button_seat != b.button_seat) == moves for a, b in fl_hands)


def test_timestamps_increase_ids_are_unique_and_names_include_big_al() -> None:
    text = simulate("classic", "standard", players=4, hands=60, seed=3, tables=2)
    results = audit(text)
    assert_clean(results)
    stamps = re.findall(r"- (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC$", text, re.M)
    assert len(stamps) == 60 and stamps == sorted(stamps) and len(set(stamps)) == 60
    assert len({r.hand_id for r in results}) == 60
    assert len({r.table for r in results}) >= 2
    assert "Big Al places" in text


def test_timeouts_are_placed_automatically() -> None:
    text = simulate("pineapple", "standard", players=3, hands=120, seed=5)
    assert "times out" in text
    assert_clean(audit(text))  # R-TIME-1 is checked after every 'times out'


@pytest.mark.parametrize("view", [None, "carol"])
def test_disconnects_sit_outs_and_returns_audit_clean(view: str | None) -> None:
    """Disconnected players are placed automatically until they reconnect (R-TIME-2); a sit-out,
    or a disconnection that lasts to the end of a hand, takes effect when the match ends, and
    the player is dealt in again only after a `returns` line (R-TIME-3). The audit checks all
    of it; here the simulator's own play must pass."""
    text = simulate("pineapple", "standard", players=3, hands=300, seed=3, view=view)
    results = audit(text)
    assert_clean(results)
    for event in ("disconnects", "reconnects", "sits out", "returns"):
        assert re.search(rf"^\S.* {event}$", text, re.M), event
    # Sitting out takes a player out of hands: one who returns missed the table's previous hand.
    bodies = hand_texts(text)
    seated = {r.hand_id: {p.name for p in r.players} for r in results}
    missed = 0
    for before, after in zip(results, results[1:], strict=False):
        if before.table == after.table:
            back = re.findall(r"^(\S.*) returns$", bodies[after.hand_id], re.M)
            missed += sum(name not in seated[before.hand_id] for name in back)
    assert missed
    if view is not None:  # the viewer never sits out, so its history has no gap
        assert not re.search(rf"^{view} (sits out|returns)$", text, re.M)
        assert re.search(rf"^{view} reconnects$", text, re.M)


def test_joker_pineapple_deals_the_54_card_deck() -> None:
    text = simulate("joker-pineapple", "standard", players=3, hands=30, seed=4)
    assert_clean(audit(text))
    assert "JK1" in text and "JK2" in text


def test_same_seed_same_output() -> None:
    a = simulate(players=3, hands=30, seed=42, faults=0.3)
    assert a == simulate(players=3, hands=30, seed=42, faults=0.3)
    assert a != simulate(players=3, hands=30, seed=43, faults=0.3)


def test_a_writer_process_writes_the_same_text() -> None:
    one = simulate(players=3, hands=40, seed=8, faults=0.3, view="bob", jobs=1)
    assert one == simulate(players=3, hands=40, seed=8, faults=0.3, view="bob", jobs=2)


# -- faults -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "fantasyland", "players", "seed"),
    [
        ("pineapple", "progressive", 2, 1),
        ("pineapple", "standard", 3, 3),
        ("classic", "ultimate", 3, 4),
        ("turbo", "tournament", 4, 5),
        ("joker-pineapple", "standard", 3, 6),
    ],
)
def test_every_injected_fault_is_found_and_nothing_else(
    variant: str, fantasyland: str, players: int, seed: int
) -> None:
    text = simulate(variant, fantasyland, players=players, hands=80, seed=seed, faults=0.6)
    assert sum(assert_faults_found_exactly(text).values()) > 30


def test_every_fault_kind_is_injected() -> None:
    """Drawn among all kinds: Fantasyland faults need a Fantasyland hand (two players in
    progressive get many); R-SETTLE-4 a player busted in the previous hand with two or more
    left, R-TIME-3 a sat-out player (four short stacks: many busts, many matches). One fault a
    hand by default; the last game draws three a hand, which gives the Fantasyland kinds more
    chances (a Fantasyland hand can break about fifteen kinds)."""
    kinds = Counter[str]()
    for variant, fantasyland, players, stacks, hands, seed, per_hand in (
        ("pineapple", "progressive", 2, 200, 220, 0, 1),
        ("turbo", "standard", 4, 12, 250, 2, 1),
        ("classic", "standard", 4, 10, 150, 3, 1),
        ("pineapple", "progressive", 2, 200, 200, 0, 3),
    ):
        text = simulate(variant, fantasyland, players=players, hands=hands, seed=seed,
                        faults=1.0, stacks=stacks, faults_per_hand=per_hand)
        labelled = faults_of(text)
        # A fault needing a later street may find no room.
        assert len(labelled) >= hands * 0.95
        assert max(map(len, labelled.values())) == per_hand
        kinds += Counter(k for ks in labelled.values() for k in ks)
    assert set(kinds) == set(FAULT_KINDS)


# The game each kind is tried in (see test_each_fault_kind_is_found_exactly): two players in
# progressive Fantasyland have many Fantasyland hands and spare cards for a second deal;
# R-DEAL-2 needs a third seat, R-SETTLE-4 busted players with the table still dealing.
KIND_GAMES: dict[str, tuple[str, str, int, int]] = {
    "R-DEAL-2": ("pineapple", "standard", 3, 200),
    "R-SETTLE-4": ("classic", "standard", 4, 10),
}
DEFAULT_GAME = ("pineapple", "progressive", 2, 200)


@pytest.mark.parametrize("view", [None, "bob"])
@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_each_fault_kind_is_found_exactly(kind: str, view: str | None) -> None:
    """One kind at a time (``fault_kinds``), in the operator's view and in a player's: every
    hand that can break the rule breaks it, and the audit finds exactly that."""
    variant, fantasyland, players, stacks = KIND_GAMES.get(kind, DEFAULT_GAME)
    text = simulate(variant, fantasyland, players=players, hands=100, seed=5, faults=1.0,
                    stacks=stacks, view=view, fault_kinds=(kind,))
    kinds = assert_faults_found_exactly(text)
    assert set(kinds) == {kind}
    assert kinds[kind] >= 3, kinds


def test_fault_kinds_restrict_the_draw_and_keep_the_seed() -> None:
    kinds = ("R-MATCH-1", "R-TIME-2")
    text = simulate(players=3, hands=40, seed=4, faults=1.0, fault_kinds=kinds)
    assert {k for ks in faults_of(text).values() for k in ks} == set(kinds)
    assert text == simulate(players=3, hands=40, seed=4, faults=1.0, fault_kinds=kinds)


def test_every_kind_cites_its_rule_and_a_split_deal_cites_r_fl_5() -> None:
    """RULES.md, "Which rule a finding cites": a kind named by a rule cites it, a deal written
    in packets is one R-FL-5, a SUMMARY fault is a mismatch and no rule."""
    assert set(FAULT_RULES) == set(FAULT_KINDS)
    assert FAULT_RULES["fl_split_deal"] == {"R-FL-5"}
    assert FAULT_RULES["SUMMARY"] == frozenset()
    for kind in FAULT_KINDS:
        if kind.startswith("R-"):
            assert FAULT_RULES[kind] == {kind}
    assert expected_rules(("R-FL-2", "fl_split_deal", "SUMMARY")) == {"R-FL-2", "R-FL-5"}
    assert expected_rules(()) == frozenset()


FL_DEAL = re.compile(r"^(.+) is dealt \[(.*)\]$")


def merge_packets(text: str) -> str:
    """The history with its ``# fault:`` comments dropped and each player's consecutive
    Fantasyland deal lines written as one deal."""
    out: list[str] = []
    in_fantasyland = False
    for line in text.splitlines():
        if line.startswith("# fault: "):
            continue
        if line.startswith("*** "):
            in_fantasyland = line == "*** FANTASYLAND ***"
        deal = FL_DEAL.match(line) if in_fantasyland else None
        previous = FL_DEAL.match(out[-1]) if deal and out else None
        if deal and previous and previous.group(1) == deal.group(1):
            out[-1] = f"{deal.group(1)} is dealt [{previous.group(2)} {deal.group(2)}]"
        else:
            out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("view", [None, "bob"])
def test_a_split_fantasyland_deal_is_the_deal_written_in_packets(view: str | None) -> None:
    """fl_split_deal changes nothing but how the deal is written: the cards, the placement of
    13 and the discards, and every later hand are the clean simulation's (the same seed
    without faults: the fault's random draws are its own). Its packets joined again give the
    clean history, line for line."""
    options = dict(players=2, hands=120, seed=5, view=view)
    clean = simulate("pineapple", "progressive", **options)
    split = simulate("pineapple", "progressive", faults=1.0, fault_kinds=("fl_split_deal",),
                     **options)
    labelled = faults_of(split)
    assert len(labelled) >= 6 and set(labelled.values()) == {("fl_split_deal",)}
    assert merge_packets(split) == clean.rstrip("\n")
    for hand_id in labelled:  # two or three packets of one player, then its placement
        body = hand_texts(split)[hand_id]
        fantasyland = body.split("*** FANTASYLAND ***\n")[1].split("*** ")[0].splitlines()
        dealt = [FL_DEAL.match(line) for line in fantasyland]
        names = [m.group(1) for m in dealt if m]
        assert any(2 <= names.count(name) <= 3 for name in names), body


def test_several_faults_of_different_kinds_in_one_hand() -> None:
    """faults_per_hand: up to that many faults a hand, never two of a kind nor an
    INCOMPATIBLE pair, each cited with its own rule and nothing else."""
    per_hand = Counter[int]()
    for view, seed in ((None, 1), ("alice", 2)):
        text = simulate("pineapple", "progressive", players=2, hands=80, seed=seed,
                        faults=1.0, faults_per_hand=3, view=view)
        labelled = faults_of(text)
        for kinds in labelled.values():
            assert not any(frozenset({a, b}) in INCOMPATIBLE for a in kinds for b in kinds)
        per_hand += Counter(len(kinds) for kinds in labelled.values())
        assert_faults_found_exactly(text)
    assert set(per_hand) <= {1, 2, 3}
    assert per_hand[3] >= 40 and per_hand[2] >= 5, per_hand


def test_a_fault_comment_names_what_was_done() -> None:
    text = simulate(players=3, hands=40, seed=3, faults=1.0)
    comments = re.findall(r"^# fault: .*$", text, re.M)
    assert comments and all(len(c) > len("# fault: R-ACT-2 ") for c in comments)
    for body in hand_texts(text).values():
        lines = body.splitlines()
        if any(line.startswith("# fault:") for line in lines):
            assert lines[1].startswith("# fault:")  # inside the hand, after its header


# -- a player's view --------------------------------------------------------------------------


def test_player_view_hides_what_the_player_could_not_see() -> None:
    text = simulate("pineapple", "progressive", players=3, hands=120, seed=1,
                    view="Big Al")
    results = audit(text)
    assert results and all("Big Al" in {p.name for p in r.players} for r in results)
    assert_clean(results)
    assert all(r.unverifiable for r in results)  # the others' deals are hidden
    assert re.search(r"^Big Al is dealt \[(?!\?\?)", text, re.M)
    others = re.findall(r"^(alice|bob) is dealt \[(.*)\]$", text, re.M)
    assert others and all(set(cards.split()) == {"??"} for _, cards in others)
    # The others' placements stay face up, their discards are hidden.
    assert re.search(r"^(alice|bob) places [a-z]+ \[(?!\?\?)", text, re.M)
    assert re.search(r"^(alice|bob) places .*, discards \[\?\?\]$", text, re.M)
    # Another player's Fantasyland placement is hidden until SHOWDOWN.
    hidden_fl = re.findall(r"^(alice|bob) places top \[\?\? \?\? \?\?\] middle", text, re.M)
    assert hidden_fl


def test_player_view_faults_are_found() -> None:
    text = simulate("pineapple", "standard", players=3, hands=150, seed=9, faults=0.5,
                    view="carol")
    assert sum(assert_faults_found_exactly(text).values()) > 40


def test_options_are_checked() -> None:
    with pytest.raises(SimulationError, match="2 to 3 players"):
        Simulator(SimulationOptions(Ruleset(), players=4))
    with pytest.raises(SimulationError, match="rate"):
        Simulator(SimulationOptions(Ruleset(), faults=1.5))
    with pytest.raises(SimulationError, match="unknown fault kind.*R-NOPE-1"):
        Simulator(SimulationOptions(Ruleset(), fault_kinds=("R-ACT-1", "R-NOPE-1")))
    with pytest.raises(SimulationError, match="--faults-per-hand 0"):
        Simulator(SimulationOptions(Ruleset(), faults_per_hand=0))


# -- the command ------------------------------------------------------------------------------


def test_cli_simulate_writes_a_history_that_audits_clean(tmp_path: Path) -> None:
    out = tmp_path / "sim.txt"
    result = runner.invoke(app, [
        "simulate", "--variant", "turbo", "--players", "3", "--hands", "20",
        "--fantasyland", "ultimate", "--rules", "standard", "--seed", "7",
        "--stacks", "150", "--out", str(out),
    ])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert text.count("OFC Hand #") == 20
    assert "Turbo, ultimate Fantasyland" in text
    assert re.search(r"^Seat \d: \S.* \(150\)$", text, re.M)
    assert_clean(audit(text))
    audited = runner.invoke(app, ["audit", str(out)])
    assert audited.exit_code == 0, audited.output


def test_cli_simulate_to_stdout_with_a_view_and_faults() -> None:
    result = runner.invoke(app, [
        "simulate", "--hands", "15", "--seed", "3", "--view", "player:Big Al",
        "--faults", "0.5", "--tables", "1",
    ])
    assert result.exit_code == 0, result.output
    assert "Big Al is dealt" in result.stdout and "# fault:" in result.stdout


def test_cli_simulate_several_faults_of_chosen_kinds(tmp_path: Path) -> None:
    out = tmp_path / "sim.txt"
    result = runner.invoke(app, [
        "simulate", "--hands", "30", "--seed", "2", "--faults", "1", "--faults-per-hand", "2",
        "--fault-kinds", "R-ACT-2, R-DEAL-1,SUMMARY", "--out", str(out),
    ])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    labelled = faults_of(text)
    assert {k for ks in labelled.values() for k in ks} == {"R-ACT-2", "R-DEAL-1", "SUMMARY"}
    assert sum(len(ks) == 2 for ks in labelled.values()) >= 20
    assert f"{len(labelled)} with a fault" in result.stderr
    assert_faults_found_exactly(text)


@pytest.mark.parametrize(
    "args",
    [
        ["--faults-per-hand", "0"],
        ["--fault-kinds", "R-ACT-2,R-NOPE-9"],
        ["--players", "4"],  # Pineapple: 2 to 3
        ["--view", "dealer"],
        ["--faults", "2"],
        ["--stacks", "0"],
        ["--stake", "ten"],
        ["--rules", "no-such-preset"],
    ],
)
def test_cli_simulate_usage_errors_exit_2(args: list[str]) -> None:
    result = runner.invoke(app, ["simulate", "--hands", "1", *args])
    assert result.exit_code == 2, result.output
