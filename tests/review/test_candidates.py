"""Candidates (REVIEW.md "Decisions") against brute force for every variant and street."""

from __future__ import annotations

import random
from itertools import product

import pytest

from ofc_audit.game.ruleset import Ruleset, Variant
from ofc_audit.review import Placement, Position, PositionError, candidates
from ofc_audit.review.position import placed_before
from tests.review.support import EMPTY, partial_sizes, spread


def brute_force(position: Position) -> set[Placement]:
    """Every map of the dealt cards to top / middle / bottom / discard that keeps the
    street's count and the rows' sizes."""
    variant = position.variant
    place = variant.streets[position.street - 1][1]
    board = position.rows[position.hero]
    out = set()
    for labels in product(range(4), repeat=len(position.dealt)):
        if sum(1 for x in labels if x < 3) != place:
            continue
        rows: list[list[int]] = [[], [], [], []]
        for card, x in zip(position.dealt, labels, strict=True):
            rows[x].append(card)
        if any(len(board[r]) + len(rows[r]) > (3, 5, 5)[r] for r in range(3)):
            continue
        out.add(Placement(*(tuple(r) for r in rows)))  # type: ignore[arg-type]
    return out


def position_at(variant: Variant, street: int, seed: int) -> Position:
    rng = random.Random(seed)
    deck = list(range(variant.deck_size))
    rng.shuffle(deck)
    placed = placed_before(variant, street)
    rows = spread(deck[:placed], partial_sizes(placed, rng))
    dealt = tuple(deck[placed : placed + variant.streets[street - 1][0]])
    return Position(
        Ruleset(variant=variant), 2, 0, (rows, EMPTY), dealt, street, (), (False, False),
        (False, False),
    )


def test_pineapple_street_one_has_232() -> None:
    position = position_at(Variant.PINEAPPLE, 1, 0)
    assert len(candidates(position)) == 232 == len(brute_force(position))


@pytest.mark.parametrize("variant", list(Variant))
def test_counts_match_brute_force_on_every_street(variant: Variant) -> None:
    for street in range(1, len(variant.streets) + 1):
        for seed in range(6):
            position = position_at(variant, street, seed)
            found = candidates(position)
            assert len(found) == len(set(found)), "a candidate listed twice"
            assert set(found) == brute_force(position), (variant, street, seed)


def test_later_pineapple_street_with_room_everywhere_has_27() -> None:
    position = Position(
        Ruleset(), 2, 0, (((0,), (1, 2), (3, 4)), EMPTY), (5, 6, 7), 2, (), (False,) * 2,
        (False,) * 2,
    )
    found = candidates(position)
    assert len(found) == 27
    assert found[0] == Placement((6, 7), (), (), (5,))


def test_order_is_fixed() -> None:
    position = position_at(Variant.TURBO, 2, 3)
    assert candidates(position) == candidates(position)


def test_a_wrong_deal_is_refused() -> None:
    position = Position(
        Ruleset(), 2, 0, (EMPTY, EMPTY), (1, 2, 3), 1, (), (False,) * 2, (False,) * 2
    )
    with pytest.raises(PositionError, match="deals 5 cards"):
        candidates(position)


def test_a_duplicate_card_is_refused() -> None:
    position = Position(
        Ruleset(), 2, 0, (((1,), (2, 3), (4, 5)), EMPTY), (1, 6, 7), 2, (), (False,) * 2,
        (False,) * 2,
    )
    with pytest.raises(PositionError, match="R-CARD-3"):
        candidates(position)
