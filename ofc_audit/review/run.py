"""A review run: hands read and replayed in file order, their decisions taken out
(:mod:`.decisions`), each decision valued by the engine, hand by hand, in this process or
in a pool of processes (``--jobs``), the results in hand order either way.

Every decision has its own seed, derived from (``--seed``, hand id, player, street) with a
stable hash, so the output does not depend on which process evaluates which hand.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from ..game.board import Board, evaluate_board
from ..game.cards import JOKERS, NATURAL_CARDS, Card
from ..game.fantasyland import stays
from ..game.ruleset import FantasylandType, Ruleset
from ..history.reader import HistoryParseError
from ..history.records import Hand
from ..replay import Replayer
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
    replayer = Replayer(ruleset)
    for item in items:
        if isinstance(item, HistoryParseError):
            replayer.break_chains(item.file)
            skip = Skip(None, SkipReason.REJECTED, item.file, item.entry_line,
                        message=f"line {item.line}, column {item.column}: {item.message}")
            yield HandDecisions("", item.file, item.entry_line, (), (skip,))
            continue
        previous = replayer.states.get((item.file, item.table.name))
        offline = set(previous.disconnected) if previous is not None else set()
        result = replayer.replay(item)
        if seen is not None:
            seen.update(seat.name for seat in item.seats)
        if hand_id is not None and item.hand_id != hand_id:
            continue
        if players is not None and not any(seat.name in players for seat in item.seats):
            continue
        yield hand_decisions(item, result, ruleset, offline, players)


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


def _context() -> multiprocessing.context.BaseContext:
    # Not fork: the engine's compiled code and its threads do not survive a fork safely.
    if "forkserver" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("forkserver")
    return multiprocessing.get_context("spawn")


def review_hands(
    hands: Iterable[HandDecisions],
    options: ReviewOptions,
    jobs: int = 1,
    done: Callable[[int], None] | None = None,
) -> Iterator[HandReview]:
    """Each hand reviewed, in the order given, with ``jobs`` processes; ``done`` is told how
    many hands with decisions are finished (a hand without one, skipped or with no decision
    of the players asked for, is answered at once, in its place)."""
    count = 0

    def finished(review: HandReview) -> HandReview:
        nonlocal count
        if review.decisions and done is not None:
            count += 1
            done(count)
        return review

    if jobs <= 1:
        for hand in hands:
            yield finished(review_hand(hand, options))
        return
    with ProcessPoolExecutor(jobs, mp_context=_context()) as pool:
        futures = [pool.submit(review_hand, hand, options) if hand.decisions
                   else HandReview(hand, ()) for hand in hands]
        try:
            for future in futures:
                yield finished(future if isinstance(future, HandReview) else future.result())
        finally:
            for future in futures:
                if not isinstance(future, HandReview):
                    future.cancel()
