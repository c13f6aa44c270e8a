"""What the review report (``review --out DIR``) needs beyond the run's totals, gathered as
the hand reviews stream past: per player and hand the expected and actual value (the EV
line, docs/REVIEW.md "Luck"), the cost per street, how often the play was the best, and
the hands of the costliest decisions (their pages are written afterwards).

Nothing here holds a decision's candidates: a session's street-1 decisions list 232 each,
so only numbers and the lean costliest decisions (:class:`~.json_doc.ReviewTotals`) stay.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .decisions import Decision, Kind, SkipReason
from .json_doc import ReviewTotals
from .run import DecisionReview, HandReview, ReviewOptions

#: The costliest decisions the report lists (the terminal lists fewer).
REPORT_COSTLIEST = 25


@dataclass(frozen=True)
class LuckPoint:
    """One reviewed hand of one player: ``expected`` is the EV of its first decision as
    played, ``actual`` the hand's value as it happened (both in points, ``fl_value``
    included); ``number`` counts the player's hands in ``currency`` with both known."""

    player: str
    currency: str
    number: int
    hand_id: str
    file: str
    line: int
    expected: float
    actual: float


@dataclass
class StreetCost:
    """One player's decisions of one street (``fantasyland`` for the settings)."""

    decisions: int = 0
    cost: float = 0.0
    blunders: int = 0
    best: int = 0  # decisions whose play was the best candidate


@dataclass
class PlayerPlay:
    """How often one player's play was the best, street decisions and Fantasyland settings
    apart."""

    street_decisions: int = 0
    street_best: int = 0
    settings: int = 0
    settings_best: int = 0


@dataclass
class ReviewLedger:
    """Fed by :meth:`watch` (or :meth:`add`), hand by hand in hand order. ``totals`` are its
    own, keeping :data:`REPORT_COSTLIEST` decisions; their per-player numbers are the run's."""

    options: ReviewOptions
    totals: ReviewTotals = field(init=False)
    luck: list[LuckPoint] = field(default_factory=list)
    streets: dict[tuple[str, str], StreetCost] = field(default_factory=dict)
    play: dict[str, PlayerPlay] = field(default_factory=dict)
    _counts: dict[tuple[str, str], int] = field(default_factory=dict)
    # (hand id, player, line) of each decision -> (file, line) of its hand, for the pages.
    _hands: dict[tuple[str, str, int], tuple[str, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.totals = ReviewTotals(self.options, keep=REPORT_COSTLIEST)

    def watch(self, reviews: Iterable[HandReview]) -> Iterator[HandReview]:
        """Each review passed on unchanged, once it is added here."""
        for review in reviews:
            self.add(review)
            yield review

    def add(self, review: HandReview) -> None:
        self.totals.add(review)
        if not review.decisions:
            return
        hand = review.hand
        first: dict[str, DecisionReview] = {}
        for decision in review.decisions:
            name = decision.decision.player
            first.setdefault(name, decision)
            self._street(decision)
            self._hands[(hand.hand_id, name, decision.decision.line)] = (hand.file, hand.line)
        hidden = {s.player for s in hand.skipped if s.reason is SkipReason.HIDDEN}
        for name, decision in first.items():
            actual = self.totals.actual(review, name)
            if actual is None or name in hidden:
                continue  # as in the totals: luck only where both sides are known
            key = (name, hand.currency)
            self._counts[key] = self._counts.get(key, 0) + 1
            self.luck.append(LuckPoint(name, hand.currency, self._counts[key], hand.hand_id,
                                       hand.file, hand.line, decision.played_ev, actual))

    def hand_of(self, decision: Decision) -> tuple[str, int] | None:
        """The (file, header line) of the hand ``decision`` was made in."""
        return self._hands.get((decision.hand_id, decision.player, decision.line))

    def page_hands(self) -> list[tuple[str, int, str]]:
        """The hands of the costliest decisions that cost anything, costliest first, each
        once: (file, header line, hand id)."""
        keys: dict[tuple[str, int], str] = {}
        for review in self.totals.costliest():
            hand = self.hand_of(review.decision)
            if hand is not None and round(review.cost, 2) > 0:
                keys.setdefault(hand, review.decision.hand_id)
        return [(file, line, hand_id) for (file, line), hand_id in keys.items()]

    def _street(self, review: DecisionReview) -> None:
        decision = review.decision
        best = review.played == review.best or review.cost == 0.0
        cost = self.streets.setdefault((decision.player, decision.label), StreetCost())
        cost.decisions += 1
        cost.cost += review.cost
        cost.blunders += review.cost >= self.options.blunder
        cost.best += best
        play = self.play.setdefault(decision.player, PlayerPlay())
        if decision.kind is Kind.FANTASYLAND:
            play.settings += 1
            play.settings_best += best
        else:
            play.street_decisions += 1
            play.street_best += best
