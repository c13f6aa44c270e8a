"""Rollouts: the same seed gives the same answer, and the reported ci95 covers the exact
difference between candidates where that can be computed (the last two placements of a hand
whose other boards are complete: every deal of the last street enumerated)."""

from __future__ import annotations

import random
from itertools import permutations

import numpy as np
import pytest

from ofc_audit.game.ruleset import Ruleset, Variant
from ofc_audit.review import candidates, evaluate
from ofc_audit.review.rollout import Rollouts
from tests.review.support import last_street_position


def test_the_same_seed_gives_the_same_evaluation() -> None:
    position = last_street_position(Ruleset(), 3, random.Random(1), street=3)
    first = evaluate(position, rollouts=256, seed=42)
    again = evaluate(position, rollouts=256, seed=42)
    assert first == again
    other = evaluate(position, rollouts=256, seed=43)
    assert [c.ev for c in other.candidates] != [c.ev for c in first.candidates]


def test_a_deal_depends_on_the_seed_and_its_number_only() -> None:
    position = last_street_position(Ruleset(), 3, random.Random(2), street=2)
    runner = Rollouts(position, candidates(position), 15.0)
    whole = runner.deals(7, 0, 40)
    parts = np.concatenate([runner.deals(7, 0, 15), runner.deals(7, 15, 25)])
    assert (whole == parts).all()
    for deal in whole:  # no card dealt twice, none seen by the hero
        assert len(set(deal.tolist())) == len(deal)
        assert set(deal.tolist()) <= set(position.unseen())


def test_joker_deals_never_repeat_a_card() -> None:
    ruleset = Ruleset(variant=Variant.JOKER_PINEAPPLE)
    position = last_street_position(ruleset, 3, random.Random(4), street=2)
    runner = Rollouts(position, candidates(position), 15.0)
    seen = position.seen()
    for deal in runner.deals(3, 0, 500):
        cards = deal.tolist()
        assert len(set(cards)) == len(cards)
        assert not seen & set(cards)


def test_the_played_candidate_is_never_dropped() -> None:
    position = last_street_position(Ruleset(), 3, random.Random(3), street=2)
    placements = candidates(position)
    played = placements[-1]
    evaluation = evaluate(position, rollouts=512, seed=1, played=played)
    mine = evaluation.candidates[len(placements) - 1]
    assert mine.rollouts == max(c.rollouts for c in evaluation.candidates)


def exact_policy_values(position, placements):  # type: ignore[no-untyped-def]
    """Each candidate's EV under the rollout policy, every ordered last-street deal tried."""
    runner = Rollouts(position, placements, 15.0)
    deals = np.array(list(permutations(runner.pool.tolist(), runner.length)), dtype=np.int64)
    values, _, _ = runner.play(list(range(len(placements))), deals)
    return values.mean(axis=1)


@pytest.mark.slow
def test_ci95_covers_the_exact_difference() -> None:
    rng = random.Random(8)
    covered = total = 0
    for _ in range(12):
        position = last_street_position(Ruleset(), 3, rng, street=4)
        placements = candidates(position)
        exact = exact_policy_values(position, placements)
        evaluation = evaluate(position, rollouts=300, seed=rng.randrange(1000), adaptive=False)
        best = evaluation.best
        for c, value in enumerate(evaluation.candidates):
            if c == best:
                continue
            estimated = evaluation.candidates[best].ev - value.ev
            true = exact[best] - exact[c]
            total += 1
            if abs(estimated - true) <= value.ci95 + 1e-9:
                covered += 1
    # 95% intervals: with ~100 differences, fewer than 85% covered would be far outside
    # chance.
    assert total > 80
    assert covered / total >= 0.85, (covered, total)


@pytest.mark.parametrize(
    ("variant", "players", "street"),
    [("classic", 3, 3), ("turbo", 3, 2), ("joker-pineapple", 3, 2), ("pineapple", 3, 1)],
)
def test_every_variant_with_a_fantasyland_player_evaluates(
    variant: str, players: int, street: int
) -> None:
    """Rollouts of every variant, one opponent in Fantasyland (its board unseen)."""
    ruleset = Ruleset().with_options(variant=variant, fantasyland="progressive")
    rng = random.Random(4)
    deck = list(range(ruleset.variant.deck_size))
    rng.shuffle(deck)
    from ofc_audit.review import Position
    from ofc_audit.review.position import placed_before
    from tests.review.support import EMPTY, spread

    rows = [EMPTY]
    for p in range(1, players):
        placed = placed_before(ruleset.variant, street + (1 if p < players - 1 else 0))
        rows.append(spread(deck[:placed], (min(3, placed // 4), min(5, placed // 2),
                                           placed - min(3, placed // 4) - min(5, placed // 2))))
        del deck[:placed]
    hero = players - 1
    hero_placed = placed_before(ruleset.variant, street)
    rows[hero] = spread(deck[:hero_placed], (min(3, hero_placed // 4), min(5, hero_placed // 2),
                        hero_placed - min(3, hero_placed // 4) - min(5, hero_placed // 2)))
    del deck[:hero_placed]
    dealt = tuple(deck[: ruleset.variant.streets[street - 1][0]])
    position = Position(
        ruleset, players, hero, tuple(rows), dealt, street, (),
        (True,) + (False,) * (players - 1), (False,) * players,
        fantasyland_cards=(15,) + (0,) * (players - 1),
    )
    evaluation = evaluate(position, rollouts=64, seed=3)
    assert not evaluation.exact
    assert len(evaluation.candidates) == len(candidates(position))
    for value in evaluation.candidates:
        assert 0.0 <= value.foul <= 1.0 and 0.0 <= value.fantasyland <= 1.0
        assert value.rollouts >= 32
    best = evaluation.candidates[evaluation.best]
    assert best.ev == max(c.ev for c in evaluation.candidates)


def test_a_hand_needing_more_cards_than_unseen_is_refused() -> None:
    """R-DEAL-2: four Classic players, one in a 15-card Fantasyland, need 54 cards."""
    from ofc_audit.review import Position

    ruleset = Ruleset().with_options(variant="classic", fantasyland="progressive")
    empty = ((), (), ())
    position = Position(ruleset, 4, 3, (empty,) * 4, (0, 1, 2, 3, 4), 1, (),
                        (True, False, False, False), (False,) * 4,
                        fantasyland_cards=(15, 0, 0, 0))
    with pytest.raises(ValueError, match="R-DEAL-2"):
        evaluate(position, rollouts=32, seed=1)


def test_a_played_placement_that_is_no_candidate_is_refused() -> None:
    from ofc_audit.review import Placement

    position = last_street_position(Ruleset(), 3, random.Random(3), street=2)
    with pytest.raises(ValueError, match="not a candidate"):
        evaluate(position, rollouts=32, seed=1, played=Placement((), (), (), ()))


def test_the_played_candidate_is_found_whatever_the_order_in_a_row() -> None:
    from ofc_audit.review import Placement, played_index

    position = last_street_position(Ruleset(), 3, random.Random(3), street=1)
    placements = candidates(position)
    for i, p in enumerate(placements[:40]):
        shuffled = Placement(p.top[::-1], p.middle[::-1], p.bottom[::-1], p.discard)
        assert played_index(placements, shuffled) == i
