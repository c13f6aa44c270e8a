"""Positions and slow references for the review's tests, written from docs/RULES.md."""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations

from ofc_audit.game.board import Royalties, evaluate_board, royalty_for
from ofc_audit.game.fantasyland import next_fantasyland
from ofc_audit.game.record import ROWS
from ofc_audit.game.row_values import value_of
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.review import Placement, Position
from ofc_audit.review.exact import board_of, card_of
from ofc_audit.review.position import placed_before

EMPTY: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]] = ((), (), ())


def spread(cards: Sequence[int], sizes: tuple[int, int, int] = (3, 5, 5)) -> tuple[
    tuple[int, ...], tuple[int, ...], tuple[int, ...]
]:
    """``cards`` laid out top, middle, bottom in the given row sizes."""
    t, m = sizes[0], sizes[0] + sizes[1]
    return (tuple(cards[:t]), tuple(cards[t:m]), tuple(cards[m : m + sizes[2]]))


def partial_sizes(placed: int, rng: random.Random) -> tuple[int, int, int]:
    """A random split of ``placed`` cards over rows of 3, 5, 5."""
    while True:
        top = rng.randint(0, min(3, placed))
        middle = rng.randint(0, min(5, placed - top))
        bottom = placed - top - middle
        if bottom <= 5:
            return (top, middle, bottom)


def last_street_position(
    ruleset: Ruleset, players: int, rng: random.Random, street: int | None = None
) -> Position:
    """The button (last seat) to act on ``street`` (default: the last), every other board
    complete and face up."""
    variant = ruleset.variant
    deck = list(range(variant.deck_size))
    rng.shuffle(deck)
    street = street or len(variant.streets)
    rows = []
    for _ in range(players - 1):
        rows.append(spread(deck[:13]))
        del deck[:13]
    placed = placed_before(variant, street)
    rows.append(spread(deck[:placed], partial_sizes(placed, rng)))
    del deck[:placed]
    dealt_count = variant.streets[street - 1][0]
    dealt = tuple(deck[:dealt_count])
    del deck[:dealt_count]
    thrown = sum(d - p for d, p in variant.streets[: street - 1])
    dead = tuple(deck[:thrown])
    return Position(
        ruleset, players, players - 1, tuple(rows), dealt, street, dead,
        (False,) * players, (False,) * players,
    )


def reference_points(position: Position, placement: Placement, fl_value: float) -> float:
    """Hero's points + fl_value, scored by hand from docs/RULES.md on top of the game's row
    values (R-SCORE-1..4, R-ROY-1..4, R-FL-1), without the settlement module."""
    ruleset = position.ruleset
    results = []
    for p, board in enumerate(position.rows):
        rows = board
        if p == position.hero:
            rows = tuple(a + b for a, b in zip(board, placement.rows, strict=True))  # type: ignore[assignment]
        results.append(evaluate_board(board_of(rows), ruleset))
    hero = results[position.hero]
    total = 0
    for p, other in enumerate(results):
        if p == position.hero:
            continue
        if hero.fouled and other.fouled:
            continue
        if hero.fouled:
            rows_won = -3
        elif other.fouled:
            rows_won = 3
        else:
            rows_won = sum(
                (a.value > b.value) - (a.value < b.value)
                for a, b in zip(hero.rows, other.rows, strict=True)
            )
        scoop = ruleset.scoop_bonus if abs(rows_won) == 3 else 0
        total += rows_won + (scoop if rows_won > 0 else -scoop)
        total += hero.royalties.total - other.royalties.total
    fl = next_fantasyland(hero, ruleset.variant, ruleset.fantasyland, False)
    return total + (fl_value if fl is not None else 0.0)


def exhaustive_setting(
    cards: Sequence[int], ruleset: Ruleset, fl_value: float, in_fantasyland: bool
) -> float:
    """The best setting's value by trying every one, natural cards only (slow)."""
    value5 = {s: value_of([card_of(c) for c in s]) for s in combinations(cards, 5)}
    # A top is a 3-card combination of ``cards`` in their order, as ``combinations`` of the
    # cards left gives it: each one's value is worked out once.
    value3 = {s: value_of([card_of(c) for c in s]) for s in combinations(cards, 3)}
    best = -1.0
    for bottom in combinations(cards, 5):
        vb = value5[bottom]
        rest = [c for c in cards if c not in bottom]
        for middle in combinations(rest, 5):
            vm = value5[middle]
            if vm > vb:
                continue
            left = [c for c in rest if c not in middle]
            for top in combinations(left, 3):
                vt = value3[top]
                if vt > vm:
                    continue
                royalties = Royalties(
                    *(
                        royalty_for(row, v, ruleset)
                        for row, v in zip(ROWS, (vt, vm, vb), strict=True)
                    )
                )
                board = board_of((top, middle, bottom))
                result = evaluate_board(board, ruleset)
                assert result.royalties == royalties
                fl = next_fantasyland(
                    result, ruleset.variant, ruleset.fantasyland, in_fantasyland
                )
                best = max(best, royalties.total + (fl_value if fl is not None else 0.0))
    return best
