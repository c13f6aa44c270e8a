"""The exact Fantasyland setting against exhaustive search and against itself."""

from __future__ import annotations

import random

import pytest

from ofc_audit.game.ruleset import Ruleset, Variant
from ofc_audit.review import Placement, best_fantasyland_setting, setting_value
from tests.review.support import exhaustive_setting


def _check_setting(cards: list[int], setting: Placement) -> None:
    assert sorted(setting.cards) == sorted(cards)
    assert tuple(len(r) for r in setting.rows) == (3, 5, 5)


@pytest.mark.parametrize("in_fantasyland", [True, False])
def test_thirteen_cards_against_exhaustive_search(in_fantasyland: bool) -> None:
    ruleset = Ruleset()
    rng = random.Random(1)
    for _ in range(4):
        cards = rng.sample(range(52), 13)
        setting, value = best_fantasyland_setting(cards, ruleset, 15.0, in_fantasyland)
        _check_setting(cards, setting)
        assert value == exhaustive_setting(cards, ruleset, 15.0, in_fantasyland)
        assert setting_value(setting, ruleset, 15.0, in_fantasyland) == value


def test_made_hands_known_answer() -> None:
    """Trips on top (AAA: 22) stay in; the rest: quads of 2s (10) and a flush (8)."""
    from ofc_audit.game.cards import parse_cards

    cards = [c.index for c in parse_cards("As Ad Ac 2s 2h 2d 2c 3h 5h 7h 9h Jh Kd 4c")]
    setting, value = best_fantasyland_setting(cards, Ruleset(), 15.0, True)
    assert value == 22 + 10 + 8 + 15
    assert sorted(setting.top) == sorted(cards[:3])


@pytest.mark.slow
def test_fourteen_cards_against_exhaustive_search() -> None:
    ruleset = Ruleset().with_options(variant="classic")
    rng = random.Random(2)
    for _ in range(2):
        cards = rng.sample(range(52), 14)
        _, value = best_fantasyland_setting(cards, ruleset, 15.0, True)
        assert value == exhaustive_setting(cards, ruleset, 15.0, True)


def test_jokers_against_themselves() -> None:
    """A joker is worth at least the best card it could stand for: replacing it by any
    natural card never gives a better setting, and one such card gives the same."""
    ruleset = Ruleset(variant=Variant.JOKER_PINEAPPLE)
    rng = random.Random(4)
    for _ in range(3):
        naturals = rng.sample(range(52), 13)
        with_joker = naturals + [52]
        _, value = best_fantasyland_setting(with_joker, ruleset, 15.0, True)
        substitutes = [
            best_fantasyland_setting(naturals + [c], ruleset, 15.0, True)[1]
            for c in range(52)
            if c not in naturals
        ]
        assert value >= max(substitutes)
        # Each joker's card is chosen row by row, so the joker hand can beat every natural
        # substitute only by standing for a card already dealt in another row.
        assert value <= max(substitutes) + 25


def test_settings_of_every_size_are_fast_enough_to_run() -> None:
    rng = random.Random(6)
    for n in range(13, 18):
        cards = rng.sample(range(52), n)
        setting, value = best_fantasyland_setting(cards, Ruleset(), 15.0, True)
        _check_setting(cards, setting)
        assert value == setting_value(setting, Ruleset(), 15.0, True)


def test_a_wrong_count_is_refused() -> None:
    with pytest.raises(ValueError, match="13 to 17"):
        best_fantasyland_setting(list(range(12)), Ruleset())


def _every_setting_value(cards: list[int], ruleset: Ruleset, in_fantasyland: bool) -> float:
    """The best of every setting of 13 cards, each valued by the compiled whole-board
    evaluator (which tests/review/test_exact.py checks against the game's reference)."""
    from itertools import combinations

    import numpy as np

    from ofc_audit.game.ruleset import JokerExcludes
    from ofc_audit.review.rollout import kernels, tables_for

    k = kernels()
    tables = tables_for(ruleset)
    joker_board = ruleset.joker_excludes is not JokerExcludes.ROW
    board = np.empty(13, dtype=np.int64)
    best = -1.0
    positions = range(13)
    for top in combinations(positions, 3):
        rest = [i for i in positions if i not in top]
        for middle in combinations(rest, 5):
            bottom = [i for i in rest if i not in middle]
            board[:] = [cards[i] for i in (*top, *middle, *bottom)]
            value, _, _ = k.setting_score(tables, board, 15.0, in_fantasyland, joker_board)
            best = max(best, float(value))
    return best


@pytest.mark.parametrize("excludes", ["row", "board"])
def test_both_jokers_against_every_setting(excludes: str) -> None:
    """With both jokers the search values a setting that splits them over two rows as one
    joint assignment (R-JOKER-1: never the same card), so it finds the best setting of all."""
    ruleset = Ruleset(variant=Variant.JOKER_PINEAPPLE).with_options(joker_excludes=excludes)
    from ofc_audit.game.cards import parse_cards

    # Both jokers want Ah (a royal flush with Kh Qh Jh Th, quad aces with As Ad Ac): only
    # one may have it. Row by row, QQ on top, quads in the middle and the royal flush would
    # be 7 + 15 + 20 + 25 = 67; R-JOKER-1 leaves a full house in the middle: 59.
    cards = [c.index for c in parse_cards("JK1 JK2 Kh Qh Jh Th As Ad Ac 2c Qs Qd 4c")]
    setting, value = best_fantasyland_setting(cards, ruleset, 15.0, False)
    _check_setting(cards, setting)
    assert value == _every_setting_value(cards, ruleset, False)
    assert setting_value(setting, ruleset, 15.0, False) == value
    rng = random.Random(12)
    naturals = rng.sample(range(52), 11)
    cards = [52, 53, *naturals]
    setting, value = best_fantasyland_setting(cards, ruleset, 15.0, False)
    assert value == _every_setting_value(cards, ruleset, False)
    assert setting_value(setting, ruleset, 15.0, False) == value
