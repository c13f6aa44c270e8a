"""The review report's numbers (ofc_audit.review.ledger) on decisions whose costs are set by
hand: the cost and best play street by street, the EV line hand by hand (docs/REVIEW.md
"Luck"), and the hands of the costliest decisions."""

from __future__ import annotations

import pytest

from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import read_text
from ofc_audit.review.decisions import Decision, HandDecisions
from ofc_audit.review.json_doc import ReviewTotals
from ofc_audit.review.ledger import ReviewLedger
from ofc_audit.review.run import (
    CandidateResult,
    DecisionReview,
    HandReview,
    ReviewOptions,
    reviewable_hands,
)
from tests.review.test_review_command import HEADS_UP, _bob_value

# Street by street (1..5), what each player's decision is set to cost.
COSTS = {"alice": [2.0, 0.0, 3.5, 0.0, 0.25], "bob": [0.0, 1.0, 0.0, 0.0, 4.0]}
BEST_EV = 10.0


def _hand(file: str = "h.txt") -> HandDecisions:
    (hand,) = reviewable_hands(read_text(HEADS_UP, file), Ruleset())
    return hand


def _valued(decision: Decision, cost: float) -> DecisionReview:
    """The played candidate first, the best second (the same one when it costs nothing)."""
    played = CandidateResult(decision.played, BEST_EV - cost, 0.5, 0.0, 0.0, 20)
    best = CandidateResult(decision.played, BEST_EV, 0.5, 0.0, 0.0, 20)
    return DecisionReview(decision, (played, best), 0 if cost == 0 else 1, 0, cost, 0.5,
                          False, 20)


def _review(hand: HandDecisions) -> HandReview:
    streets = {"alice": 0, "bob": 0}
    reviews = []
    for decision in hand.decisions:
        reviews.append(_valued(decision, COSTS[decision.player][streets[decision.player]]))
        streets[decision.player] += 1
    return HandReview(hand, tuple(reviews))


def test_cost_and_best_play_street_by_street() -> None:
    ledger = ReviewLedger(ReviewOptions(blunder=3.0))
    ledger.add(_review(_hand()))
    for name, costs in COSTS.items():
        for street, cost in enumerate(costs, 1):
            entry = ledger.streets[(name, str(street))]
            assert (entry.decisions, entry.cost, entry.blunders, entry.best) == (
                1, cost, int(cost >= 3.0), int(cost == 0))
        play = ledger.play[name]
        assert (play.street_decisions, play.street_best) == (5, costs.count(0.0))
        assert (play.settings, play.settings_best) == (0, 0)


def test_the_ev_line_is_the_first_decision_as_played_against_the_hand_as_it_happened() -> None:
    ledger = ReviewLedger(ReviewOptions(fl_value=15.0))
    ledger.add(_review(_hand("a.txt")))
    ledger.add(_review(_hand("b.txt")))
    # Bob's board enters Fantasyland (QQ on top): his value is his points plus 15; alice's
    # points are what he wins, heads up (R-SCORE).
    bob = _bob_value("5c", "2d")
    alice = -(bob - 15.0)
    got = [(p.player, p.currency, p.number, p.file, p.expected, p.actual) for p in ledger.luck]
    assert got == [
        ("alice", "EUR", 1, "a.txt", BEST_EV - 2.0, alice),
        ("bob", "EUR", 1, "a.txt", BEST_EV, bob),
        ("alice", "EUR", 2, "b.txt", BEST_EV - 2.0, alice),
        ("bob", "EUR", 2, "b.txt", BEST_EV, bob),
    ]
    # The same sums as the run's totals.
    for p in ledger.totals.sorted_players():
        mine = [q for q in ledger.luck if q.player == p.name]
        assert sum(q.expected for q in mine) == pytest.approx(p.expected)
        assert sum(q.actual for q in mine) == pytest.approx(p.actual)


def test_its_totals_are_the_runs() -> None:
    options = ReviewOptions()
    ledger = ReviewLedger(options)
    totals = ReviewTotals(options)
    reviews = [_review(_hand("a.txt")), _review(_hand("b.txt"))]
    assert list(ledger.watch(reviews)) == reviews
    for review in reviews:
        totals.add(review)
    assert [p.to_json() for p in ledger.totals.sorted_players()] == \
        [p.to_json() for p in totals.sorted_players()]


def test_the_pages_wanted_are_the_hands_of_the_costliest_decisions() -> None:
    ledger = ReviewLedger(ReviewOptions())
    ledger.add(_review(_hand("a.txt")))
    ledger.add(_review(_hand("b.txt")))
    costliest = ledger.costliest()
    # Equal costs: the earlier first; the same hand id in two files keeps its own file.
    assert [(c.decision.cost, c.decision.decision.player, c.hand) for c in costliest[:4]] == [
        (4.0, "bob", ("a.txt", 1)), (4.0, "bob", ("b.txt", 1)),
        (3.5, "alice", ("a.txt", 1)), (3.5, "alice", ("b.txt", 1))]
    assert len(costliest) == 20 and [c.decision.cost for c in costliest][-4:] == [0.0] * 4
    # alice decides first in the hand, bob second.
    assert [c.player_number for c in costliest[:4]] == [2, 2, 1, 1]
    assert ledger.page_hands() == [("a.txt", 1, "EX-1"), ("b.txt", 1, "EX-1")]
