"""Exact last decisions against the game's reference evaluation and settlement, and the
compiled board evaluator against the reference on random boards."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ofc_audit.game.board import evaluate_board
from ofc_audit.game.cards import parse_cards
from ofc_audit.game.fantasyland import next_fantasyland
from ofc_audit.game.row_values import value_of
from ofc_audit.game.ruleset import Ruleset, Variant
from ofc_audit.review import candidates, evaluate, is_exact
from ofc_audit.review.exact import board_of, card_of, reference_value
from ofc_audit.review.rollout import kernels, tables_for
from tests.review.support import last_street_position, reference_points

RULESETS = [
    Ruleset(),
    Ruleset(variant=Variant.CLASSIC),
    Ruleset(variant=Variant.TURBO),
    Ruleset(variant=Variant.JOKER_PINEAPPLE),
    Ruleset().with_options(fantasyland="progressive", scoop_bonus=0),
]


@pytest.mark.parametrize("ruleset", RULESETS, ids=lambda r: f"{r.variant}-{r.fantasyland}")
def test_last_decision_values_are_exact(ruleset: Ruleset) -> None:
    rng = random.Random(7)
    for players in (2, 3):
        for _ in range(15):
            position = last_street_position(ruleset, players, rng)
            assert is_exact(position)
            evaluation = evaluate(position, rollouts=10, seed=1, fl_value=12.0)
            assert evaluation.exact
            for value in evaluation.candidates:
                expected = reference_points(position, value.placement, 12.0)
                assert value.ev == pytest.approx(expected)
                assert value.ci95 == 0.0
            best = max(v.ev for v in evaluation.candidates)
            assert evaluation.candidates[evaluation.best].ev == best


def test_not_exact_before_the_last_street_or_with_fantasyland() -> None:
    rng = random.Random(3)
    position = last_street_position(Ruleset(), 3, rng, street=4)
    assert not is_exact(position)
    position = last_street_position(Ruleset(), 3, rng)
    unseen_fl = type(position)(
        position.ruleset, 3, 2, ((), (), ()) and ((( ), (), ()),) + position.rows[1:],
        position.dealt, position.street, position.known_dead, (True, False, False),
        (False,) * 3,
    )
    assert not is_exact(unseen_fl)


def random_board(rng: random.Random, deck_size: int) -> list[int]:
    return rng.sample(range(deck_size), 13)


def test_compiled_boards_match_the_reference() -> None:
    k = kernels()
    rng = random.Random(11)
    ruleset = Ruleset().with_options(fantasyland="progressive")
    tables = tables_for(ruleset)
    count = np.array([3, 5, 5], dtype=np.int64)
    for _ in range(3000):
        cards = random_board(rng, 52)
        board = np.array(cards, dtype=np.int64)
        fouled, vt, vm, vb = k.finished(tables, board, count, False, 0)
        result = evaluate_board(board_of((cards[:3], cards[3:8], cards[8:])), ruleset)
        assert fouled == result.fouled
        assert k.royalties_of(tables, fouled, vt, vm, vb) == result.royalties.total
        if not fouled:
            assert (vt, vm, vb) == tuple(r.value for r in result.rows)
        for in_fl in (False, True):
            fl = next_fantasyland(result, ruleset.variant, ruleset.fantasyland, in_fl)
            assert k.next_fantasyland(tables, fouled, vt, vm, vb, in_fl) == (fl is not None)


def test_compiled_joker_boards_match_the_reference() -> None:
    """R-JOKER-2 row by row (strongest bottom, then middle, then top) agrees with the
    reference's joint assignment on random boards with one or two jokers."""
    k = kernels()
    rng = random.Random(5)
    ruleset = Ruleset(variant=Variant.JOKER_PINEAPPLE)
    tables = tables_for(ruleset)
    count = np.array([3, 5, 5], dtype=np.int64)
    checked = 0
    while checked < 400:
        cards = random_board(rng, 54)
        if not any(c >= 52 for c in cards):
            continue
        checked += 1
        board = np.array(cards, dtype=np.int64)
        fouled, vt, vm, vb = k.finished(tables, board, count, False, 0)
        result = evaluate_board(board_of((cards[:3], cards[3:8], cards[8:])), ruleset)
        assert fouled == result.fouled, cards
        assert k.royalties_of(tables, fouled, vt, vm, vb) == result.royalties.total, cards


def test_reference_value_agrees_with_scoring_by_hand() -> None:
    rng = random.Random(9)
    for _ in range(20):
        position = last_street_position(Ruleset(), 3, rng)
        for placement in candidates(position):
            value, _, _ = reference_value(position, placement, 15.0)
            assert value == pytest.approx(reference_points(position, placement, 15.0))


def _indices(text: str) -> list[int]:
    return [card.index for card in parse_cards(text)]


@pytest.mark.parametrize(
    ("excludes", "middle_as"),
    [
        # R-JOKER-1: JK2 makes the royal flush with Ah, so JK1 cannot be Ah too; under
        # `row` it may copy Kh from the bottom, under `board` no card of the board either.
        ("row", "Kh 9h 7h 4h 2h"),
        ("board", "9h 8h 7h 4h 2h"),
    ],
)
def test_two_jokers_never_stand_for_the_same_card(excludes: str, middle_as: str) -> None:
    k = kernels()
    ruleset = Ruleset(variant=Variant.JOKER_PINEAPPLE).with_options(joker_excludes=excludes)
    cards = _indices("2c 3d 5s JK1 9h 7h 4h 2h JK2 Kh Qh Jh Th")
    board = np.array(cards, dtype=np.int64)
    count = np.array([3, 5, 5], dtype=np.int64)
    fouled, vt, vm, vb = k.finished(tables_for(ruleset), board, count, excludes != "row", 0)
    assert not fouled
    assert vb == value_of(parse_cards("Ah Kh Qh Jh Th"))
    assert vm == value_of(parse_cards(middle_as))
    assert vt == value_of(parse_cards("2c 3d 5s"))
    result = evaluate_board(board_of((cards[:3], cards[3:8], cards[8:])), ruleset)
    assert (vt, vm, vb) == tuple(r.value for r in result.rows)


@pytest.mark.parametrize("excludes", ["row", "board", "known"])
def test_compiled_boards_with_both_jokers_match_the_reference(excludes: str) -> None:
    """Both jokers on one board, in any rows: the compiled values (not only the royalties)
    are the reference's joint assignment (R-JOKER-1, R-JOKER-2)."""
    k = kernels()
    rng = random.Random(17)
    ruleset = Ruleset(variant=Variant.JOKER_PINEAPPLE).with_options(joker_excludes=excludes)
    tables = tables_for(ruleset)
    count = np.array([3, 5, 5], dtype=np.int64)
    for _ in range(150):
        cards = [52, 53, *rng.sample(range(52), 11)]
        rng.shuffle(cards)
        known = rng.sample([c for c in range(52) if c not in cards], 6)
        known_mask = sum(1 << c for c in known) if excludes == "known" else 0
        board = np.array(cards, dtype=np.int64)
        fouled, vt, vm, vb = k.finished(tables, board, count, excludes != "row", known_mask)
        result = evaluate_board(
            board_of((cards[:3], cards[3:8], cards[8:])), ruleset, [card_of(c) for c in known]
        )
        assert fouled == result.fouled, cards
        if not fouled:
            assert (vt, vm, vb) == tuple(r.value for r in result.rows), cards
