"""Exact values of a last decision when every other board is complete and face up (docs/REVIEW.md
"Exact"): each candidate finishes the hero's board, so its value is the hand's points plus
``fl_value`` if the board enters Fantasyland, with nothing left to chance.

Natural boards are valued by the compiled evaluator; a board with a joker by the game's
reference (:func:`ofc_audit.game.board.evaluate_board` and
:func:`ofc_audit.game.scoring.settle`), whose joker assignment (R-JOKER-2: over all rows at
once, ``joker_excludes`` known included) the exact answer must follow to the letter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game.board import Board, BoardResult, evaluate_board
from ..game.cards import JOKERS, NATURAL_CARDS, Card
from ..game.fantasyland import next_fantasyland
from ..game.scoring import settle
from .position import CandidateValue, Evaluation, Placement, Position


def card_of(index: int) -> Card:
    return JOKERS[index - 52] if index >= 52 else NATURAL_CARDS[index]


def board_of(rows: Sequence[Sequence[int]]) -> Board:
    top, middle, bottom = (tuple(card_of(c) for c in row) for row in rows)
    return Board(top, middle, bottom)


def reference_value(
    position: Position, placement: Placement, fl_value: float
) -> tuple[float, bool, bool]:
    """(value, fouled, Fantasyland next) of a candidate that finishes the hero's board, from
    the game's reference evaluation and settlement (no stack caps: docs/REVIEW.md)."""
    known = [card_of(c) for c in position.seen()]
    results: list[BoardResult] = []
    hero_board = position.rows[position.hero]
    for p, board in enumerate(position.rows):
        rows = board
        if p == position.hero:
            rows = tuple(
                tuple(old) + tuple(new)
                for old, new in zip(hero_board, placement.rows, strict=True)
            )  # type: ignore[assignment]
        results.append(evaluate_board(board_of(rows), position.ruleset, known))
    points = settle(results, position.ruleset).points[position.hero]
    hero = results[position.hero]
    ruleset = position.ruleset
    fl = next_fantasyland(
        hero, ruleset.variant, ruleset.fantasyland, position.in_fantasyland_before[position.hero]
    )
    assert points is not None
    return points + (fl_value if fl is not None else 0.0), hero.fouled, fl is not None


def exact_evaluation(
    position: Position, placements: Sequence[Placement], fl_value: float
) -> Evaluation:
    jokers = any(c >= 52 for c in position.seen())
    values: list[tuple[float, float, float]] = []
    if jokers:
        for placement in placements:
            value, fouled, fl = reference_value(position, placement, fl_value)
            values.append((value, float(fouled), float(fl)))
    else:
        from .rollout import Rollouts

        runner = Rollouts(position, placements, fl_value)
        deals = np.zeros((1, 0), dtype=np.int64)
        v, f, fl_ = runner.play(list(range(len(placements))), deals)
        values = [(float(v[c, 0]), float(f[c, 0]), float(fl_[c, 0])) for c in range(len(v))]
    out = tuple(
        CandidateValue(placement, value, 0.0, foul, fl, 0)
        for placement, (value, foul, fl) in zip(placements, values, strict=True)
    )
    best = max(range(len(out)), key=lambda c: (out[c].ev, -c))
    return Evaluation(out, best, True)
