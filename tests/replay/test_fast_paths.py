"""The fast paths give exactly what the full paths give.

* The replay's fast path for clean streets (``HandReplay(fast=True)``) against the full state
  machine (``fast=False``): the same HandResult and the same table state carried to the next
  hand, hand after hand.
* The audit's JSON text (``hand_json_text``: msgspec's encoding of the hand's document)
  against ``json.dumps(hand_json(...))`` of the same document: the same bytes. (That those
  are the bytes of an earlier commit is what ``benchmarks/compare.py --check`` checks.)

On every sample history, and on simulated histories with faults in each variant, Fantasyland
type and view (player views hide the other players' deals).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from ofc_audit.audit.driver import hand_json, hand_json_text
from ofc_audit.game.cards import parse_cards
from ofc_audit.game.record import Row
from ofc_audit.game.ruleset import FantasylandType, Ruleset, Variant
from ofc_audit.history.reader import HistoryParseError, read_path, read_text
from ofc_audit.history.records import Hand
from ofc_audit.replay import (
    HandReplay,
    TableState,
    _OffTheFastPath,
    fits,
    is_the_deal,
    rows_fit,
)
from ofc_audit.replay.results import HandResult
from ofc_audit.simulate.simulator import run as simulate
from tests.support.histories import WORKED_EXAMPLE

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_histories").rglob("*.txt")) + sorted(
    (ROOT / "tests" / "data").glob("*.txt")
)
SIMULATED = [
    # variant, Fantasyland type, players, view
    (Variant.PINEAPPLE, FantasylandType.STANDARD, 3, None),
    (Variant.CLASSIC, FantasylandType.PROGRESSIVE, 4, None),
    (Variant.JOKER_PINEAPPLE, FantasylandType.ULTIMATE, 3, None),
    (Variant.TURBO, FantasylandType.TOURNAMENT, 2, "player:alice"),
]


def replay_both_ways(items: Iterable[Hand | HistoryParseError], ruleset: Ruleset) -> tuple[
    list[HandResult], int, int
]:
    """Every hand replayed on both paths, compared; (results, hands that stayed on the fast
    path, hands that left it)."""
    fast_states: dict[tuple[str, str], TableState] = {}
    full_states: dict[tuple[str, str], TableState] = {}
    results: list[HandResult] = []
    stayed = left = 0
    for item in items:
        if isinstance(item, HistoryParseError):
            fast_states.clear()  # as Replayer.break_chains: nothing is checked across it
            full_states.clear()
            continue
        key = (item.file, item.table.name)
        fast = HandReplay(item, ruleset, fast_states.get(key), fast=True)
        try:
            fast._replay()
            stayed += 1
        except _OffTheFastPath:
            left += 1
        fast_result, fast_state = HandReplay(item, ruleset, fast_states.get(key)).run()
        full_result, full_state = HandReplay(item, ruleset, full_states.get(key), fast=False).run()
        assert fast_result == full_result, item.hand_id
        assert fast_state == full_state, item.hand_id
        fast_states[key], full_states[key] = fast_state, full_state
        results.append(full_result)
    return results, stayed, left


def assert_same_json(results: list[HandResult]) -> None:
    for result in results:
        assert hand_json_text(result) == json.dumps(hand_json(result), ensure_ascii=False)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_sample_histories_same_on_both_paths(path: Path) -> None:
    for ruleset in (Ruleset(), Ruleset.preset("pokerdom")):
        results, _, _ = replay_both_ways(read_path(path), ruleset)
        assert_same_json(results)


@pytest.mark.parametrize(("variant", "fl_type", "players", "view"), SIMULATED)
def test_simulated_histories_with_faults_same_on_both_paths(
    tmp_path: Path, variant: Variant, fl_type: FantasylandType, players: int, view: str | None
) -> None:
    path = tmp_path / "sim.txt"
    ruleset = Ruleset(variant=variant, fantasyland=fl_type)
    simulate(ruleset, str(path), players=players, hands=80, seed=11, view=view, faults=0.3)
    results, stayed, left = replay_both_ways(read_path(path), ruleset)
    assert len(results) == 80
    # Both paths are exercised: faults send hands to the full path, clean hands stay fast
    # (a player's view hides other deals, so none of its hands is clean).
    assert left > 0
    assert stayed > 0 or view is not None
    assert_same_json(results)


def test_cut_off_and_split_deal_hands_same_on_both_paths() -> None:
    """Incomplete hands (cut at a street boundary: the fast path replays the streets present)
    and a Fantasyland deal in packets give the same results on both paths."""
    cut = WORKED_EXAMPLE.split("*** STREET 4 ***")[0]
    mid = WORKED_EXAMPLE.split("bob is dealt [5d 5s Qh]")[0].replace("PD-1001", "PD-3")
    split = WORKED_EXAMPLE.replace(
        "carol is dealt [As Ac Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc]\n",
        "carol is dealt [As Ac Kh 8s]\ncarol is dealt [8c 8d 6h 5h Jh Th 8h 4h 3h Kc]\n",
    ).replace("PD-1001", "PD-4")
    texts = [cut, mid, split]
    results, stayed, left = replay_both_ways(read_text("\n".join(texts), "t.txt"), Ruleset())
    assert [r.incomplete is not None for r in results] == [True, True, False]
    assert stayed >= 1 and left >= 1
    assert_same_json(results)


# -- the rule checks both paths share (replay/state.py) ------------------------------------------


def test_is_the_deal_holds_exactly_the_deal_each_card_once() -> None:
    a, b, c = parse_cards("Ah Kd 2c")
    assert is_the_deal(3, {a, b, c}, (c, a, b))  # any order
    assert not is_the_deal(2, {a, b}, (a, b, c))  # a card of the deal missing
    assert not is_the_deal(3, {a, b}, (a, b, c))  # a card placed twice (3 cards, 2 distinct)
    # A deal that holds a card twice (R-CARD-3) is no deal a placement can be exactly: the
    # placement's third card was not dealt (R-ACT-2 on the full path).
    assert not is_the_deal(3, {a, b, c}, (a, a, b))


def test_rows_fit_at_the_row_sizes() -> None:
    (card,) = parse_cards("Ah")
    full = {Row.TOP: [card] * 3, Row.MIDDLE: [card] * 5, Row.BOTTOM: [card] * 5}
    assert rows_fit(full)
    for row in Row:
        assert not rows_fit({**full, row: full[row] + [card]}), row
    assert fits(Row.TOP, 3) and not fits(Row.TOP, 4) and fits(Row.BOTTOM, 5)
