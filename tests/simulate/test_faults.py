"""The registry of fault kinds: every kind one class, where each can apply (known answers for
two hands worked out by hand from the kinds' conditions), how the faults of a hand are
picked, and what some kinds change before the deal."""

from __future__ import annotations

import itertools
import random

import pytest

from ofc_audit.game.ruleset import Ruleset
from ofc_audit.simulate.faults import (
    FAULT_KINDS,
    FAULT_RULES,
    INCOMPATIBLE,
    REGISTRY,
    ButtonElsewhere,
    FantasylandButton,
    MatchLineSkips,
    StackNotCarried,
    pick_faults,
)
from ofc_audit.simulate.hand import Game, HandPlan, Table, TablePlayer


def plan_of(
    table: Table, owed: dict[str, int], button: int, ruleset: Ruleset | None = None,
    viewer: str | None = None,
) -> HandPlan:
    """The plan of a Pineapple hand (17 cards a street player) dealing every seat."""
    game = Game(ruleset or Ruleset(), 200, viewer)
    seats = sorted(table.players)
    street_players = len(seats) - len(owed)
    return HandPlan(
        game=game, table=table, seats=seats,
        names={s: p.name for s, p in table.players.items()}, button=button, owed=dict(owed),
        topups=[], continuation=bool(owed), sat_out=[],
        spare=52 - 17 * street_players - sum(owed.values()), new_match=not owed,
    )


def fresh_table() -> Table:
    players = {1: TablePlayer("alice", 200), 2: TablePlayer("bob", 200),
               3: TablePlayer("carol", 200)}
    return Table("Riga 1", 3, players)


def fantasyland_table() -> Table:
    """Alice earned a 14-card Fantasyland in the table's first hand; the button stays on 2."""
    players = {1: TablePlayer("alice", 230), 2: TablePlayer("bob", 170)}
    return Table("Riga 2", 2, players, button=2, match_id="M0-1", match_hand=1,
                 owed={"alice": 14}, hands=1, last_names=frozenset({"alice", "bob"}))


def applicable(plan: HandPlan) -> set[str]:
    return {kind for kind, cls in REGISTRY.items() if cls.can_apply(plan)}


def test_every_kind_is_one_class_of_the_registry() -> None:
    assert sorted(REGISTRY) == sorted(FAULT_KINDS)
    assert all(cls.kind == kind and cls.__doc__ for kind, cls in REGISTRY.items())
    assert {kind: cls.cites for kind, cls in REGISTRY.items()} == FAULT_RULES


def test_first_hand_of_a_table() -> None:
    # No Fantasyland, no previous hand: nothing about matches, stacks carried or sit-outs.
    # One card is spare (52 - 3 x 17): a deal of one card more, or a card not dealt; a
    # 14-card Fantasyland fits in a 17-card seat (R-FL-1); seat 3 can stand beyond 3-max.
    assert applicable(plan_of(fresh_table(), {}, button=1)) == {
        "SUMMARY", "R-ACT-1", "R-ACT-2", "R-ACT-3", "R-CARD-2", "R-CARD-3", "R-DEAL-1",
        "R-DEAL-2", "R-TIME-1", "R-TIME-2", "R-FL-1",
    }


def test_a_fantasyland_hand_with_one_street_player() -> None:
    # One street player: no turn to take out of order, no card of another player's to see
    # twice. 52 - 17 - 14 = 21 cards spare. The button is the highest seat: R-DEAL-2 cannot
    # keep it last in the action order, and two seats are too few for the table line.
    assert applicable(plan_of(fantasyland_table(), {"alice": 14}, button=2)) == {
        "SUMMARY", "R-ACT-2", "R-ACT-3", "R-CARD-2", "R-DEAL-1", "R-TIME-1", "R-TIME-2",
        "R-FL-1", "R-FL-2", "R-FL-4", "R-FL-5", "fl_split_deal", "R-ACT-4", "R-MATCH-1",
        "R-SETTLE-5",
    }


def test_in_a_player_view_private_faults_need_the_viewer_on_the_streets() -> None:
    plan = plan_of(fantasyland_table(), {"alice": 14}, button=2, viewer="alice")
    kinds = applicable(plan)
    assert not kinds & {"R-ACT-2", "R-CARD-2", "R-CARD-3", "R-TIME-1"}
    assert {"R-ACT-3", "R-DEAL-1", "R-TIME-2"} <= kinds


@pytest.mark.parametrize("seed", range(20))
def test_picked_faults_are_compatible_and_in_registry_order(seed: int) -> None:
    plan = plan_of(fantasyland_table(), {"alice": 14}, button=2)
    faults = pick_faults(plan, random.Random(seed), 1.0, None, len(FAULT_KINDS))
    kinds = [fault.kind for fault in faults]
    assert kinds == [kind for kind in REGISTRY if kind in kinds]
    assert set(kinds) <= applicable(plan)
    assert not any(frozenset(p) in INCOMPATIBLE for p in itertools.combinations(kinds, 2))


def test_no_fault_below_the_rate_and_only_the_kinds_wanted() -> None:
    plan = plan_of(fresh_table(), {}, button=1)
    assert pick_faults(plan, random.Random(1), 0.0, None, 3) == []
    faults = pick_faults(plan, random.Random(1), 1.0, ("R-ACT-1", "R-FL-2"), 3)
    assert [fault.kind for fault in faults] == ["R-ACT-1"]  # no Fantasyland hand: no R-FL-2


def test_button_elsewhere_moves_it_off_the_expected_seat() -> None:
    plan = plan_of(fresh_table(), {}, button=2)
    ButtonElsewhere(random.Random(3)).before_deal(plan)
    assert plan.button in (1, 3)
    assert plan.notes == [("R-MATCH-2", f"the button is put on seat {plan.button}; it belongs "
                                        "on seat 2 (one occupied seat clockwise)")]


def test_fantasyland_button_kept_where_the_ruleset_moves_it() -> None:
    ruleset = Ruleset().with_options(button_moves_on_fantasyland=True)
    plan = plan_of(fantasyland_table(), {"alice": 14}, button=1, ruleset=ruleset)
    FantasylandButton(random.Random(0)).before_deal(plan)
    assert plan.button == 2  # the previous hand's button, which should have moved to 1
    assert plan.notes[0][0] == "R-FL-4"


def test_match_line_claims_a_continuation() -> None:
    table = fresh_table()
    table.hands, table.match_id, table.match_hand = 4, "M0-3", 1
    plan = plan_of(table, {}, button=1)  # nobody earned Fantasyland: a new match is due
    MatchLineSkips(random.Random(0)).before_deal(plan)
    assert plan.match_line == ("M0-3", 2)


def test_stack_not_carried_is_written_off_the_carried_one() -> None:
    table = fantasyland_table()
    plan = plan_of(table, {"alice": 14}, button=2)
    StackNotCarried(random.Random(5)).before_deal(plan)
    (victim, written), = plan.stacks_written.items()
    carried = {"alice": 230, "bob": 170}[victim]
    assert written != carried and written >= 1
    assert plan.notes == [("R-SETTLE-5", f"{victim}'s stack is written {written}, not the "
                                         f"{carried} carried from the previous hand")]
