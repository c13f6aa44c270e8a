"""Decisions taken out of hand histories, and what each player knew at each (REVIEW.md)."""

from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.game.cards import Card, parse_cards
from ofc_audit.game.ruleset import Ruleset, Variant
from ofc_audit.history.reader import HistoryParseError, read_text
from ofc_audit.history.records import Deal, Hand, Placement, SectionKind
from ofc_audit.review.decisions import Decision, HandDecisions, Kind, SkipReason
from ofc_audit.review.run import decision_seed, reviewable_hands
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text
from tests.support.histories import WORKED_EXAMPLE


def _ints(text: str) -> tuple[int, ...]:
    return tuple(card.index for card in parse_cards(text))


def _hands(text: str, players: set[str] | None = None) -> list[HandDecisions]:
    return list(reviewable_hands(read_text(text, "x.txt"), Ruleset(), players))


def _decision(hand: HandDecisions, player: str, street: int | None) -> Decision:
    (found,) = [d for d in hand.decisions if d.player == player and d.street == street]
    return found


def test_worked_example_decisions_in_file_order() -> None:
    (hand,) = _hands(WORKED_EXAMPLE)
    assert hand.skipped == ()
    assert [(d.player, d.label) for d in hand.decisions] == [
        ("carol", "fantasyland"),
        *[(name, str(street)) for street in range(1, 6) for name in ("alice", "bob")],
    ]
    assert [d.line for d in hand.decisions] == sorted(d.line for d in hand.decisions)


def test_what_alice_knew_on_street_2() -> None:
    (hand,) = _hands(WORKED_EXAMPLE)
    alice = _decision(hand, "alice", 2)
    # Settlement order: alice (left of the button), bob, carol (the button, in Fantasyland).
    assert alice.players == ("alice", "bob", "carol") and alice.hero == 0
    assert alice.fantasyland == (False, False, True)
    assert alice.dealt == _ints("3c 3d Js")
    assert alice.rows[0] == (_ints("Ah"), _ints("Kd 2h"), _ints("7c 7s"))
    # Bob's street-1 placement is above; his street-2 placement (4d 4s) is below.
    assert alice.rows[1] == (_ints("Qs Qd"), _ints("9h 9d"), _ints("4c"))
    # Carol's setting is written above, but face down until showdown (R-FL-5).
    assert alice.rows[2] == ((), (), ())
    assert alice.known_dead == ()
    assert alice.played.middle == _ints("3c") and alice.played.bottom == _ints("3d")
    assert alice.played.discard == _ints("Js")


def test_own_discards_known_never_another_players() -> None:
    (hand,) = _hands(WORKED_EXAMPLE)
    bob = _decision(hand, "bob", 5)
    assert bob.known_dead == _ints("2s Qh Tc")  # his own, streets 2-4
    alice_discards = set(_ints("Js Ts 9s 6s"))
    assert not alice_discards & {c for board in bob.rows for row in board for c in row}
    assert not alice_discards & set(bob.known_dead)
    # Alice placed 6d 3s on street 5 above bob's line: he saw them.
    assert set(_ints("6d 3s")) <= {c for row in bob.rows[0] for c in row}


def test_fantasyland_setting_is_a_decision_without_opponents() -> None:
    (hand,) = _hands(WORKED_EXAMPLE)
    carol = _decision(hand, "carol", None)
    assert carol.kind is Kind.FANTASYLAND and carol.street is None
    assert carol.dealt == _ints("As Ac Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc")
    assert carol.played.discard == _ints("Kc")
    assert carol.rows == (((), (), ()),) * 3 and carol.known_dead == ()


def test_player_filter_keeps_only_their_decisions() -> None:
    (hand,) = _hands(WORKED_EXAMPLE, {"bob"})
    assert {d.player for d in hand.decisions} == {"bob"} and len(hand.decisions) == 5


def test_automatic_placements_are_not_decisions() -> None:
    text = WORKED_EXAMPLE.replace(
        "alice is dealt [3c 3d Js]\nalice places middle [3c] bottom [3d], discards [Js]",
        "alice times out\nalice is dealt [3c 3d Js]\n"
        "alice places bottom [3c 3d], discards [Js]").replace(
        "alice places top [Ah 6c 6d] middle [Kd 2h 3c Ks 3s] bottom [7c 7s 3d 7h 7d]", "")
    text = text.split("*** SHOWDOWN ***")[0]
    # The board changes with the automatic placement: drop the rows that no longer fit.
    text = text.replace("alice places top [6c] bottom [7h]", "alice places top [6c] middle [7h]")
    text = text.replace("alice places middle [Ks] bottom [7d]", "alice places middle [Ks 7d]")
    text = text.replace("alice places top [6d] middle [3s]", "alice places top [6d] bottom [3s]")
    (hand,) = _hands(text)
    assert hand.skipped == (), hand.skipped
    assert [d.street for d in hand.decisions if d.player == "alice"] == [1, 3, 4, 5]


def test_hand_with_violation_is_skipped() -> None:
    text = WORKED_EXAMPLE.replace("bob places bottom [4d 4s], discards [2s]",
                                  "bob places bottom [4d 4s 2s]")
    (hand,) = _hands(text)
    assert hand.decisions == ()
    assert [(s.hand_id, s.reason) for s in hand.skipped] == [("PD-1001", SkipReason.VIOLATIONS)]


def test_incomplete_hand_is_skipped() -> None:
    text = WORKED_EXAMPLE.split("*** STREET 4 ***")[0]
    (hand,) = _hands(text)
    assert hand.decisions == ()
    assert [s.reason for s in hand.skipped] == [SkipReason.INCOMPLETE]


def test_rejected_entry_is_skipped() -> None:
    text = WORKED_EXAMPLE.replace("*** STREET 2 ***", "*** STREET 2 **")
    (hand,) = _hands(text)
    (skip,) = hand.skipped
    assert skip.reason is SkipReason.REJECTED and skip.hand_id is None and skip.line == 1


def test_hidden_own_cards_skip_those_decisions_only() -> None:
    text = simulate_text(SimulationOptions(Ruleset(), players=3, hands=2, seed=5,
                                           view="alice"))
    hands = _hands(text)
    for hand in hands:
        assert {d.player for d in hand.decisions} == {"alice"}
        hidden = {s.player: s.decisions for s in hand.skipped}
        assert all(s.reason is SkipReason.HIDDEN for s in hand.skipped)
        assert hidden == {"bob": 5, "carol": 5}


def test_seed_is_the_same_in_every_process() -> None:
    # Not Python's hash(), which changes with PYTHONHASHSEED from process to process.
    code = ("from ofc_audit.review.run import decision_seed; "
            "print(decision_seed(1, 'PD-1001', 'alice', '2'))")
    answers = {
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(hash_seed)}).stdout.strip()
        for hash_seed in (1, 2)
    }
    assert answers == {str(decision_seed(1, "PD-1001", "alice", "2"))}


def test_seeds_differ_by_every_part() -> None:
    seeds = {decision_seed(s, h, p, k) for s in (1, 2) for h in ("A", "B") for p in ("x", "y")
             for k in ("1", "2", "fantasyland")}
    assert len(seeds) == 24
    assert all(0 <= s < 2**63 for s in seeds)


# -- the knowledge rule, on simulated histories ------------------------------------------------


def _line_facts(hand: Hand) -> tuple[dict[int, tuple[str, int, bool]], dict[int, tuple[str, int]]]:
    """Where every card was placed (player, line, face up?) and discarded (player, line)."""
    placed: dict[int, tuple[str, int, bool]] = {}
    discarded: dict[int, tuple[str, int]] = {}
    for section in hand.sections:
        face_up = section.kind is SectionKind.STREET
        for action in section.actions:
            if isinstance(action, Placement):
                for card in action.placed:
                    placed[card.index] = (action.player, action.line, face_up)
                for card in action.discards or ():
                    discarded[card.index] = (action.player, action.line)
    return placed, discarded


def _dealt_line(hand: Hand, player: str, line: int) -> int:
    deals = [a.line for s in hand.sections for a in s.actions
             if isinstance(a, Deal) and a.player == player and a.line < line]
    return max(deals)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000),
       variant=st.sampled_from([Variant.PINEAPPLE, Variant.CLASSIC, Variant.TURBO]))
def test_a_position_holds_only_what_its_player_saw(seed: int, variant: Variant) -> None:
    ruleset = Ruleset().with_options(variant=variant)
    players = 3 if variant is Variant.PINEAPPLE else 4
    text = simulate_text(SimulationOptions(ruleset, players=players, hands=6, seed=seed))
    items = list(read_text(text, "sim.txt"))
    assert not any(isinstance(i, HistoryParseError) for i in items)
    reviewed = list(reviewable_hands(items, ruleset))
    for hand, decisions in zip(items, reviewed, strict=True):
        assert isinstance(hand, Hand)
        placed, discarded = _line_facts(hand)
        for d in decisions.decisions:
            for i, board in enumerate(d.rows):
                for card in (c for row in board for c in row):
                    who, line, face_up = placed[card]
                    assert line < d.line, "a card placed later is in the position"
                    assert face_up, "a Fantasyland card is in the position"
                    assert who == d.players[i]
            for card in d.known_dead:
                who, line = discarded[card]
                assert who == d.player and line < d.line
            if d.kind is Kind.STREET:
                assert set(d.dealt) == {c.index for c in _deal_of(hand, d)}
                assert _dealt_line(hand, d.player, d.line) < d.line


def _deal_of(hand: Hand, d: Decision) -> tuple[Card, ...]:
    for section in hand.sections:
        if section.kind is SectionKind.STREET and section.number == d.street:
            for action in section.actions:
                if isinstance(action, Deal) and action.player == d.player:
                    return action.cards
    raise AssertionError("no deal")


def test_a_recorded_mismatch_does_not_keep_a_hand_from_review() -> None:
    # What the site paid is the audit's business; the play is still the play.
    text = WORKED_EXAMPLE.replace("alice: royalties 11, points -6",
                                  "alice: royalties 11, points -5")
    (hand,) = _hands(text)
    assert hand.skipped == () and len(hand.decisions) == 11
    assert hand.points == {"alice": -6, "bob": -2, "carol": 8}
    assert hand.fantasyland_next == {"alice": False, "bob": True, "carol": False}
