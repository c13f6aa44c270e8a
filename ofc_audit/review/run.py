"""A review run: hands read and replayed by the one driver (:mod:`ofc_audit.audit.driver`),
their decisions taken out (:mod:`.decisions`) in its lanes right after each replay, then
each hand's decisions valued by the engine, each hand a task of the same runner (this
process, ``--jobs`` worker processes, a Dask cluster), the results in hand order whichever
runner does the work. With ``--archive`` the hands come from the archive, replayed here.

Taking the decisions out is cheap and follows each table's chain, so it goes where the
driver puts each table; valuing them is the heavy part and needs nothing but the hand's
decisions, so every hand is a task of its own, whatever its table.

Every decision has its own seed, derived from (``--seed``, hand id, player, street) with a
stable hash, so the output does not depend on which process evaluates which hand.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial

from ..audit.driver import InProcess, Runner, stepped_values
from ..audit.progress import Progress
from ..audit.work import Stepped, replay_hand
from ..game.board import Board, evaluate_board
from ..game.cards import JOKERS, NATURAL_CARDS, Card
from ..game.fantasyland import stays
from ..game.ruleset import FantasylandType, Ruleset
from ..history.reader import HistoryParseError
from ..history.records import Hand
from ..history.sources import Source
from ..history.survey import HandIndex
from ..replay import Replayer
from ..replay.results import HandResult
from ..replay.state import TableState
from .decisions import Decision, HandDecisions, Kind, Played, Skip, SkipReason, hand_decisions


@dataclass(frozen=True)
class ReviewOptions:
    rollouts: int = 1000
    seed: int = 1
    fl_value: float = 15.0
    blunder: float = 3.0


@dataclass(frozen=True)
class CandidateResult:
    """One candidate of a decision: the cards it places (only this decision's), its EV, the
    95% half-width of its EV, the chances that the board ends fouled / in Fantasyland, and
    the rollouts it got."""

    placement: Played
    ev: float
    ci95: float
    foul: float
    fantasyland: float
    rollouts: int


@dataclass(frozen=True)
class DecisionReview:
    """A decision valued: its candidates (every one on a street; the played and the best
    setting in Fantasyland), which is best, which was played, and the cost of the play."""

    decision: Decision
    candidates: tuple[CandidateResult, ...]
    best: int
    played: int
    cost: float
    ci95: float
    exact: bool
    rollouts: int

    @property
    def played_ev(self) -> float:
        return self.candidates[self.played].ev


@dataclass(frozen=True)
class HandReview:
    hand: HandDecisions
    decisions: tuple[DecisionReview, ...]


class ReviewError(RuntimeError):
    """The engine's answer does not hold the play of the history (a defect, named with its
    hand and line)."""


def decision_seed(seed: int, hand_id: str, player: str, label: str) -> int:
    """The seed of one decision: a stable hash (never Python's ``hash()``, which changes from
    process to process) of the run's seed, the hand, the player and the street."""
    key = "\x1f".join((str(seed), hand_id, player, label)).encode("utf-8")
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") >> 1


# -- taking the decisions out ---------------------------------------------------------------


@dataclass(frozen=True)
class Wanted:
    """What a review takes from each hand: the run's rules, the players whose decisions are
    reviewed (None: every player's), one hand id (None: every hand)."""

    ruleset: Ruleset
    players: frozenset[str] | None = None
    hand_id: str | None = None


@dataclass(frozen=True)
class Taken:
    """What the review took from one replayed hand: who was dealt in (to tell an unknown
    ``--player``), and its decisions (None: a hand the review was not asked about)."""

    seats: tuple[str, ...]
    hand: HandDecisions | None


@dataclass
class Reviewable:
    """The hands to review in hand order (a rejected entry as a hand skipped as rejected),
    and every player dealt in anywhere."""

    hands: list[HandDecisions]
    seen: set[str]


def take_decisions(wanted: Wanted, hand: Hand, result: HandResult,
                   previous: TableState | None) -> Taken:
    """The decisions of one hand just replayed (``previous``: its table's state before it);
    the driver's per-hand step (:data:`~ofc_audit.audit.work.HandStep`), so it runs in the
    lanes of any runner."""
    seats = tuple(seat.name for seat in hand.seats)
    if wanted.hand_id is not None and hand.hand_id != wanted.hand_id:
        return Taken(seats, None)
    if wanted.players is not None and not any(name in wanted.players for name in seats):
        return Taken(seats, None)
    offline = previous.disconnected if previous is not None else ()
    return Taken(seats, hand_decisions(hand, result, wanted.ruleset, offline, wanted.players))


def _rejected(error: HistoryParseError) -> HandDecisions:
    skip = Skip(None, SkipReason.REJECTED, error.file, error.entry_line,
                message=f"line {error.line}, column {error.column}: {error.message}")
    return HandDecisions("", error.file, error.entry_line, (), (skip,))


def gather(values: Iterable[Taken | HistoryParseError]) -> Reviewable:
    """The hands to review, from the step's values and the rejections in hand order."""
    found = Reviewable([], set())
    for value in values:
        if isinstance(value, HistoryParseError):
            found.hands.append(_rejected(value))
            continue
        found.seen.update(value.seats)
        if value.hand is not None:
            found.hands.append(value.hand)
    return found


def read_reviewable(sources: Sequence[Source], wanted: Wanted, runner: Runner,
                    progress: Progress | None = None, index: HandIndex | None = None
                    ) -> Reviewable:
    """The hands of ``sources`` replayed by ``runner`` (the one driver) and their decisions
    taken in its lanes; ``progress`` is told the bytes read; the copies ``index`` leaves out
    (a duplicate, a conflict's) are not read."""
    step = partial(take_decisions, wanted)
    return gather(stepped_values(sources, wanted.ruleset, step, runner, progress=progress,
                                 index=index))


def replayed_reviewable(entries: Iterable[tuple[Hand | HistoryParseError, bool]],
                        wanted: Wanted) -> Reviewable:
    """The hands of ``entries`` (each with whether it is reviewed: an archive's first copy
    of a conflict is replayed for its table's chain, never reviewed) replayed in order in
    this process, and their decisions taken (``review --archive``)."""
    step = partial(take_decisions, wanted)

    def values() -> Iterator[Taken | HistoryParseError]:
        replayer = Replayer(wanted.ruleset)
        for item, scored in entries:
            if isinstance(item, HistoryParseError):
                replayer.reject(item)
                yield item
                continue
            stepped = replay_hand(replayer, item, step)
            if scored:
                assert isinstance(stepped, Stepped)
                yield stepped.value

    return gather(values())


def reviewable_hands(
    items: Iterable[Hand | HistoryParseError],
    ruleset: Ruleset,
    players: Collection[str] | None = None,
    hand_id: str | None = None,
    seen: set[str] | None = None,
) -> Iterator[HandDecisions]:
    """Every hand replayed in file order (the replay carries each table's state from hand to
    hand), then its decisions by ``players`` (all when None); with ``hand_id`` only that hand.
    A rejected entry is a hand skipped as rejected. ``seen`` collects the names of every
    player dealt in (for telling an unknown ``--player``)."""
    wanted = Wanted(ruleset, frozenset(players) if players is not None else None, hand_id)
    found = replayed_reviewable(((item, True) for item in items), wanted)
    if seen is not None:
        seen.update(found.seen)
    return iter(found.hands)


# -- valuing them ---------------------------------------------------------------------------


def review_hand(hand: HandDecisions, options: ReviewOptions) -> HandReview:
    """Every decision of one hand valued (what a worker process does)."""
    return HandReview(hand, tuple(review_decision(d, options) for d in hand.decisions))


def review_decision(decision: Decision, options: ReviewOptions) -> DecisionReview:
    if decision.kind is Kind.FANTASYLAND:
        return _review_setting(decision, options)
    seed = decision_seed(options.seed, decision.hand_id, decision.player, decision.label)
    from .position import Position, candidates
    from .rollout import evaluate

    position = Position(
        ruleset=decision.ruleset, players=len(decision.players), hero=decision.hero,
        rows=decision.rows, dealt=decision.dealt, street=decision.street or 1,
        known_dead=decision.known_dead, fantasyland=decision.fantasyland,
        in_fantasyland_before=decision.fantasyland, fl_entries=decision.fl_entries,
        fantasyland_cards=decision.fl_entries)
    listed = candidates(position)
    played = _index_of(decision, [_played(c) for c in listed])
    # The played candidate is never dropped by the adaptive search: its cost is the answer.
    evaluation = evaluate(position, rollouts=options.rollouts, seed=seed,
                          fl_value=options.fl_value, played=listed[played])
    values = tuple(
        CandidateResult(_played(c.placement), c.ev, c.ci95, c.foul, c.fantasyland, c.rollouts)
        for c in evaluation.candidates)
    if values[played].placement != _played(listed[played]):
        raise ReviewError(f"hand #{decision.hand_id}, line {decision.line}: the engine's "
                          "candidates are not in the order of candidates()")
    cost, ci95 = evaluation.cost(played)
    exact = evaluation.exact
    return DecisionReview(decision, values, evaluation.best, played, cost, ci95, exact,
                          0 if exact else values[played].rollouts)


def _review_setting(decision: Decision, options: ReviewOptions) -> DecisionReview:
    """A Fantasyland setting: valued without opponents, the best one found exactly; the
    played and the best are listed (their candidates are too many)."""
    from .fantasyland import best_fantasyland_setting, setting_value
    from .position import Placement

    ruleset = decision.ruleset
    hero = decision.hero
    entries = decision.fl_entries[hero] if decision.fl_entries else 0
    best_setting, best_value = best_fantasyland_setting(
        decision.dealt, ruleset, options.fl_value, in_fantasyland_before=True,
        fl_entries=entries)
    played = decision.played
    played_value = setting_value(
        Placement(played.top, played.middle, played.bottom, played.discard), ruleset,
        options.fl_value, in_fantasyland_before=True, fl_entries=entries)
    first = _setting_candidate(played, played_value, ruleset)
    if played_value >= best_value:
        return DecisionReview(decision, (first,), 0, 0, 0.0, 0.0, True, 0)
    best = _setting_candidate(_played(best_setting), best_value, ruleset)
    return DecisionReview(decision, (first, best), 1, 0, best_value - played_value, 0.0,
                          True, 0)


def _setting_candidate(setting: Played, value: float, ruleset: Ruleset) -> CandidateResult:
    """A Fantasyland setting as a candidate: its value is exact, and whether it fouls and
    stays in Fantasyland are certain (0 or 1), by the rules' own evaluation."""
    result = evaluate_board(Board(*(tuple(_card(i) for i in row) for row in setting.rows)),
                            ruleset)
    stay = (not result.fouled and ruleset.fantasyland is not FantasylandType.NONE
            and stays(result, ruleset.variant, ruleset.fantasyland))
    return CandidateResult(setting, value, 0.0, float(result.fouled), float(stay), 0)


def _card(index: int) -> Card:
    return NATURAL_CARDS[index] if index < 52 else JOKERS[index - 52]


def _played(placement: object) -> Played:
    return Played(*(tuple(getattr(placement, row)) for row in
                    ("top", "middle", "bottom", "discard")))


def _same(a: Played, b: Played) -> bool:
    """The same placement: the same cards in each row and in the discards (order within a
    row is how the history wrote it, which means nothing)."""
    return all(sorted(x) == sorted(y) for x, y in
               zip((*a.rows, a.discard), (*b.rows, b.discard), strict=True))


def _index_of(decision: Decision, placements: list[Played]) -> int:
    for i, placement in enumerate(placements):
        if _same(placement, decision.played):
            return i
    raise ReviewError(f"hand #{decision.hand_id}, line {decision.line}: {decision.player}'s "
                      "placement is not among the engine's candidates")


# -- the run ------------------------------------------------------------------------------


def review_hands(
    hands: Iterable[HandDecisions],
    options: ReviewOptions,
    runner: Runner | None = None,
    done: Callable[[int], None] | None = None,
) -> Iterator[HandReview]:
    """Each hand reviewed, in the order given, each one a task of ``runner`` (its worker
    processes, its cluster; None: this process); ``done`` is told how many hands with
    decisions are finished (a hand without one, skipped or with no decision of the players
    asked for, is answered at once, in its place)."""
    listed = list(hands)
    work = [hand for hand in listed if hand.decisions]
    review = partial(review_hand, options=options)
    values = (runner or InProcess()).each(review, work)
    count = 0
    try:
        for hand in listed:
            if not hand.decisions:
                yield HandReview(hand, ())
                continue
            reviewed = next(values)
            count += 1
            if done is not None:
                done(count)
            yield reviewed
    finally:
        if isinstance(values, Generator):
            values.close()
