"""What the review report (``review --out DIR``) needs beyond the run's totals, gathered as
the hand reviews stream past: per player and hand the expected and actual value (the EV
line, docs/REVIEW.md "Luck"), the cost per street, how often the play was the best, and
the hands of the costliest decisions (their pages are written afterwards).

Nothing here holds a decision's candidates: a session's street-1 decisions list 232 each,
so only numbers and the lean costliest decisions (:class:`~.json_doc.ReviewTotals`) stay.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .decisions import Kind, SkipReason
from .json_doc import ReviewTotals, _lean
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


@dataclass(frozen=True)
class Costly:
    """One of the costliest decisions (its played and best candidates only), the (file,
    header line) of its hand, and the hand's review."""

    decision: DecisionReview
    hand: tuple[str, int]
    review: HandReview

    @property
    def player_number(self) -> int:
        """The decision's player among the hand's reviewed players, in the order of their
        first decisions, from 1 (how the hand page numbers its play review's players)."""
        players = list(dict.fromkeys(d.decision.player for d in self.review.decisions))
        return players.index(self.decision.decision.player) + 1


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
    own: their per-player numbers are the run's."""

    options: ReviewOptions
    #: (file, header line) of the hands whose whole reviews are kept in :attr:`kept` (the
    #: hands a session gives a page: they are not reviewed a second time for it).
    keep: frozenset[tuple[str, int]] = frozenset()
    kept: list[HandReview] = field(default_factory=list)
    totals: ReviewTotals = field(init=False)
    luck: list[LuckPoint] = field(default_factory=list)
    streets: dict[tuple[str, str], StreetCost] = field(default_factory=dict)
    play: dict[str, PlayerPlay] = field(default_factory=dict)
    _counts: dict[tuple[str, str], int] = field(default_factory=dict)
    # (cost, -arrival, decision, (file, line) of its hand, the hand's review) of the
    # costliest so far, the cheapest first: the hand's file is kept here, as two files may
    # hold the same hand id, and its review, for its page (a few hands only).
    _costliest: list[tuple[float, int, DecisionReview, tuple[str, int], HandReview]] = field(
        default_factory=list)
    _arrivals: int = 0

    def __post_init__(self) -> None:
        self.totals = ReviewTotals(self.options)

    def watch(self, reviews: Iterable[HandReview]) -> Iterator[HandReview]:
        """Each review passed on unchanged, once it is added here."""
        for review in reviews:
            self.add(review)
            yield review

    def add(self, review: HandReview) -> None:
        self.totals.add(review)
        if (review.hand.file, review.hand.line) in self.keep:
            self.kept.append(review)
        if not review.decisions:
            return
        hand = review.hand
        first: dict[str, DecisionReview] = {}
        for decision in review.decisions:
            name = decision.decision.player
            first.setdefault(name, decision)
            self._street(decision)
            self._keep(decision, review)
        hidden = {s.player for s in hand.skipped if s.reason is SkipReason.HIDDEN}
        for name, decision in first.items():
            actual = self.totals.actual(review, name)
            if actual is None or name in hidden:
                continue  # as in the totals: luck only where both sides are known
            key = (name, hand.currency)
            self._counts[key] = self._counts.get(key, 0) + 1
            self.luck.append(LuckPoint(name, hand.currency, self._counts[key], hand.hand_id,
                                       hand.file, hand.line, decision.played_ev, actual))

    def _keep(self, decision: DecisionReview, review: HandReview) -> None:
        self._arrivals += 1
        entry = (decision.cost, -self._arrivals)
        if len(self._costliest) >= REPORT_COSTLIEST and entry <= self._costliest[0][:2]:
            return
        kept = (*entry, _lean(decision), (review.hand.file, review.hand.line), review)
        if len(self._costliest) < REPORT_COSTLIEST:
            heapq.heappush(self._costliest, kept)
        else:
            heapq.heapreplace(self._costliest, kept)

    def costliest(self) -> list[Costly]:
        """The :data:`REPORT_COSTLIEST` costliest decisions, costliest first; the earlier
        first among equal costs."""
        return [Costly(d, hand, review) for _, _, d, hand, review in
                sorted(self._costliest, key=lambda e: (-e[0], -e[1]))]

    def page_reviews(self) -> list[HandReview]:
        """The reviews of the hands :meth:`page_hands` lists, in its order."""
        reviews: dict[tuple[str, int], HandReview] = {}
        for cost, _, _, hand, review in sorted(self._costliest, key=lambda e: (-e[0], -e[1])):
            if round(cost, 2) > 0:
                reviews.setdefault(hand, review)
        return list(reviews.values())

    def page_hands(self) -> list[tuple[str, int, str]]:
        """The hands of the costliest decisions that cost anything, costliest first, each
        once: (file, header line, hand id)."""
        keys: dict[tuple[str, int], str] = {}
        for costly in self.costliest():
            if round(costly.decision.cost, 2) > 0:
                keys.setdefault(costly.hand, costly.decision.decision.hand_id)
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
