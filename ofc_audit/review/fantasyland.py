"""The Fantasyland setting (docs/REVIEW.md): valued without opponents, as its royalties plus
``fl_value`` if it stays in (or, for a player not yet in, enters) Fantasyland; the best of
every setting is found exactly by :func:`ofc_audit.review.kernels.fantasyland_search`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game.ruleset import JokerExcludes, Ruleset
from .position import Placement
from .rollout import kernels, tables_for


def _check(cards: Sequence[int], ruleset: Ruleset) -> None:
    if not 13 <= len(cards) <= 17:
        raise ValueError(f"a Fantasyland hand has 13 to 17 cards, not {len(cards)}")
    if len(set(cards)) != len(cards):
        raise ValueError("a card appears twice (R-CARD-3)")
    if any(not 0 <= c < ruleset.variant.deck_size for c in cards):
        raise ValueError(f"a card outside the {ruleset.variant.deck_size}-card deck")


def best_fantasyland_setting(
    cards: Sequence[int],
    ruleset: Ruleset,
    fl_value: float = 15.0,
    in_fantasyland_before: bool = True,
    fl_entries: int = 0,
) -> tuple[Placement, float]:
    """The best setting of 13-17 cards and its value (royalties + ``fl_value`` if it stays;
    with ``in_fantasyland_before`` False, if it enters). ``fl_entries`` (ultimate's chain
    count) changes the next hand's card count, not whether it is earned: the value is the
    same."""
    _check(cards, ruleset)
    del fl_entries
    k = kernels()
    array = np.array(cards, dtype=np.int64)
    value, bottom, middle, top = k.fantasyland_search(
        tables_for(ruleset), array, float(fl_value), bool(in_fantasyland_before),
        ruleset.joker_excludes is not JokerExcludes.ROW,
    )
    if value < 0:  # pragma: no cover - best bottom, next best middle, rest on top is legal
        raise ValueError("no legal setting of these cards")
    pick = [tuple(int(c) for i, c in enumerate(cards) if (mask >> i) & 1)
            for mask in (top, middle, bottom)]
    used = top | middle | bottom
    discard = tuple(int(c) for i, c in enumerate(cards) if not (used >> i) & 1)
    return Placement(pick[0], pick[1], pick[2], discard), float(value)


def setting_value(
    setting: Placement,
    ruleset: Ruleset,
    fl_value: float = 15.0,
    in_fantasyland_before: bool = True,
    fl_entries: int = 0,
) -> float:
    """The value of one setting as :func:`best_fantasyland_setting` counts it (a fouled
    setting is worth 0: no royalties, no Fantasyland)."""
    del fl_entries
    if tuple(len(row) for row in setting.rows) != (3, 5, 5):
        raise ValueError("a setting places 3 / 5 / 5 cards")
    board = np.array(setting.top + setting.middle + setting.bottom, dtype=np.int64)
    value, _, _ = kernels().setting_score(
        tables_for(ruleset), board, float(fl_value), bool(in_fantasyland_before),
        ruleset.joker_excludes is not JokerExcludes.ROW,
    )
    return float(value)
