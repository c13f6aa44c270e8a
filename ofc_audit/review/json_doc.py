"""The review's totals (per player: hands, decisions, cost, blunders, luck) and its JSON
document (docs/REVIEW.md), written hand by hand as the reviews come.
"""

from __future__ import annotations

import heapq
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from ..audit.writer import keyed_lists_json
from ..game.cards import JOKERS, NATURAL_CARDS
from .decisions import Ints, Played, Skip, SkipReason
from .run import DecisionReview, HandReview, ReviewOptions

# Engine values are means of many rollouts: more digits than these are noise, and fewer
# digits keep the document short (a street-1 decision lists 232 candidates).
_DIGITS = 4


def card_texts(cards: Ints) -> list[str]:
    return [str(NATURAL_CARDS[i] if i < 52 else JOKERS[i - 52]) for i in cards]


def _number(value: float, digits: int = _DIGITS) -> float:
    return round(value, digits) + 0.0  # + 0.0: never -0.0


def _half_width(value: float) -> float | None:
    """A 95% half-width; null when the candidate got too few rollouts to have one (JSON
    has no infinity)."""
    return _number(value) if math.isfinite(value) else None


def _plain(value: float) -> float | int:
    """An option as typed: 15, not 15.0."""
    return int(value) if float(value).is_integer() else value


@dataclass
class PlayerTotals:
    name: str
    hands: int = 0
    decisions: int = 0
    exact: int = 0
    cost: float = 0.0
    blunders: int = 0
    expected: float = 0.0
    actual: float = 0.0
    luck_hands: int = 0  # hands whose expected and actual are both known

    @property
    def cost_per_hand(self) -> float:
        return self.cost / self.hands if self.hands else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "hands": self.hands, "decisions": self.decisions,
            "exact": self.exact, "cost": _number(self.cost, 2),
            "cost_per_hand": _number(self.cost_per_hand, 2), "blunders": self.blunders,
            "expected": _number(self.expected, 2), "actual": _number(self.actual, 2),
        }


@dataclass
class ReviewTotals:
    """What the run adds up as the hand reviews come, in hand order."""

    options: ReviewOptions
    players: dict[str, PlayerTotals] = field(default_factory=dict)
    skipped: list[Skip] = field(default_factory=list)
    hands: int = 0
    keep: int = 10  # the costliest decisions kept for people
    # (cost, -arrival, decision) of the ``keep`` costliest so far, the cheapest first.
    _costliest: list[tuple[float, int, DecisionReview]] = field(default_factory=list)
    _arrivals: int = 0

    def add(self, review: HandReview) -> None:
        hand = review.hand
        self.skipped.extend(hand.skipped)
        if not review.decisions:
            return
        self.hands += 1
        hidden = {s.player for s in hand.skipped if s.reason is SkipReason.HIDDEN}
        first: dict[str, DecisionReview] = {}
        for decision in review.decisions:
            name = decision.decision.player
            totals = self.players.setdefault(name, PlayerTotals(name))
            if name not in first:
                first[name] = decision
                totals.hands += 1
            totals.decisions += 1
            totals.exact += decision.exact
            totals.cost += decision.cost
            totals.blunders += decision.cost >= self.options.blunder
            self._keep(decision)
        for name, decision in first.items():
            actual = self.actual(review, name)
            if actual is not None and name not in hidden:
                totals = self.players[name]
                totals.expected += decision.played_ev
                totals.actual += actual
                totals.luck_hands += 1

    def actual(self, review: HandReview, name: str) -> float | None:
        """The hand's value to ``name`` as it happened: its points before caps, plus
        ``fl_value`` when its board enters or stays in Fantasyland; None when unknown."""
        points = review.hand.points.get(name)
        fantasyland = review.hand.fantasyland_next.get(name)
        if points is None or fantasyland is None:
            return None
        return points + (self.options.fl_value if fantasyland else 0.0)

    def _keep(self, decision: DecisionReview) -> None:
        self._arrivals += 1
        entry = (decision.cost, -self._arrivals, decision)
        if len(self._costliest) < self.keep:
            heapq.heappush(self._costliest, (entry[0], entry[1], _lean(decision)))
        elif entry[:2] > self._costliest[0][:2]:
            heapq.heapreplace(self._costliest, (entry[0], entry[1], _lean(decision)))

    def costliest(self) -> list[DecisionReview]:
        """The ``keep`` costliest decisions, costliest first; the earlier first among
        equal costs."""
        return [d for _, _, d in sorted(self._costliest, key=lambda e: (-e[0], -e[1]))]

    def sorted_players(self) -> list[PlayerTotals]:
        return [self.players[name] for name in sorted(self.players)]


def _lean(decision: DecisionReview) -> DecisionReview:
    """What the totals keep of a decision for the costliest list: the played and the best
    candidate only (a session's street-1 candidates would fill the memory)."""
    keep = (decision.candidates[decision.played], decision.candidates[decision.best])
    return DecisionReview(decision.decision, keep, 1, 0, decision.cost, decision.ci95,
                          decision.exact, decision.rollouts)


def placement_json(placement: Played) -> dict[str, list[str]]:
    return {"top": card_texts(placement.top), "middle": card_texts(placement.middle),
            "bottom": card_texts(placement.bottom), "discard": card_texts(placement.discard)}


def decision_json(review: DecisionReview) -> dict[str, Any]:
    decision = review.decision
    return {
        "player": decision.player,
        "street": decision.street,
        "line": decision.line,
        "kind": decision.kind.value,
        "dealt": card_texts(decision.dealt),
        "played": placement_json(decision.played),
        "candidates": [
            {"placement": placement_json(c.placement), "ev": _number(c.ev),
             "ci95": _half_width(c.ci95), "foul": _number(c.foul),
             "fantasyland": _number(c.fantasyland)}
            for c in review.candidates
        ],
        "best": review.best,
        "cost": _number(review.cost),
        "ci95": _half_width(review.ci95),
        "exact": review.exact,
        "rollouts": review.rollouts,
    }


def hand_json(review: HandReview) -> dict[str, Any]:
    hand = review.hand
    return {"hand_id": hand.hand_id, "file": hand.file, "line": hand.line,
            "decisions": [decision_json(d) for d in review.decisions]}


def skip_json(skip: Skip) -> dict[str, Any]:
    """A hand left out (``hand_id``, ``reason``, where it is), or one player's decisions in a
    hand (with ``player`` and how many ``decisions``)."""
    document: dict[str, Any] = {"hand_id": skip.hand_id, "reason": skip.reason.value,
                                "file": skip.file, "line": skip.line}
    if skip.player is not None:
        document["player"] = skip.player
        document["decisions"] = skip.decisions
    if skip.message is not None:
        document["message"] = skip.message
    return document


def options_json(options: ReviewOptions) -> dict[str, Any]:
    return {"fl_value": _plain(options.fl_value), "blunder": _plain(options.blunder),
            "rollouts": options.rollouts, "seed": options.seed}


def write_review_json(reviews: Iterable[HandReview], totals: ReviewTotals,
                      out: IO[str],
                      copies: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> None:
    """Stream docs/REVIEW.md's document: each reviewed hand as it comes (in hand order), then the
    players, what was left out, and the options; then ``copies``, the duplicates and
    conflicts of docs/CLI.md, when a hand was read twice."""
    out.write('{"hands": [')
    first = True
    for review in reviews:
        totals.add(review)
        if not review.decisions:
            continue
        out.write(("\n  " if first else ",\n  ") + json.dumps(hand_json(review),
                                                            ensure_ascii=False))
        first = False
    out.write("\n ],\n \"players\": [")
    out.write(",".join("\n  " + json.dumps(p.to_json(), ensure_ascii=False)
                       for p in totals.sorted_players()))
    out.write("\n ],\n \"skipped\": [")
    out.write(",".join("\n  " + json.dumps(skip_json(s), ensure_ascii=False)
                       for s in totals.skipped))
    out.write("\n ],\n \"options\": " + json.dumps(options_json(totals.options))
              + keyed_lists_json(copies or {}) + "\n}\n")


# -- the numbers as people read them --------------------------------------------------------
# The terminal and the pages show the JSON's numbers (rounded as above), cut to what a person
# reads: points with two decimals, chances in whole percent. Both go through these, so the
# same value reads the same everywhere.


def points_text(value: float, sign: bool = False) -> str:
    """``4.25``; with ``sign``, ``+4.25`` / ``-0.50`` / ``0.00``."""
    rounded = round(_number(value), 2) + 0.0
    if sign and rounded:
        return f"{rounded:+.2f}"
    return f"{rounded:.2f}"


def half_width_text(value: float) -> str | None:
    """A 95% half-width as people read it; None when there is none (too few rollouts)."""
    shown = _half_width(value)
    return None if shown is None else points_text(shown)


def chance_text(value: float) -> str:
    """A probability in whole percent: ``42%``; ``<1%`` for a chance that is not nil."""
    percent = _number(value) * 100
    if 0 < percent < 0.5:
        return "<1%"
    if 99.5 <= percent < 100:
        return ">99%"
    return f"{round(percent):d}%"
