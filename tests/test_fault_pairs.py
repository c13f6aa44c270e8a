"""Issue 13: one fault, its own findings. For every pair of fault kinds the simulator can put
in one hand, hands carrying both are cited for exactly the union of the two kinds' rules, in
the operator's view and in a player's view, and hands without a fault are not touched.

The short run: for each pair and view, the seed of the long run that first drew the pair
together (tests/data/fault_pair_seeds.json), played up to that hand; a pair the long run
never drew together is played for a few hands in each game in turn. The long run, over many
seeds, is ``python benchmarks/fault_pairs.py --seeds N``.
"""

from __future__ import annotations

import pytest

from tests.fault_pairs import GAMES, PAIRS, VIEWS, PairRun, load_seeds, pair_key, run_pair, view_key

SEEDS = load_seeds()
HANDS = 8  # per game, for a pair the long run never drew together

# Pairs whose hands the audit still cites for more (or less) than their kinds' rules; the
# replay branch is fixing them (issue 13 points 1 and 2). strict: a fix makes the test fail
# until the pair is taken off this list.
SPLIT_DEAL = "replay: a Fantasyland deal in packets is cited R-FL-2, R-ACT-2 and R-CARD-3 too"
KNOWN_CASCADES: dict[frozenset[str], str] = {
    frozenset(pair): SPLIT_DEAL for pair in PAIRS if "fl_split_deal" in pair
}


def _param(index: int, pair: tuple[str, str]) -> object:
    reason = KNOWN_CASCADES.get(frozenset(pair))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(index, pair, marks=marks, id=pair_key(pair))


def _runs(index: int, pair: tuple[str, str], view: str | None) -> list[PairRun]:
    found = SEEDS.get(pair_key(pair), {}).get(view_key(view))
    if found is not None:
        seed, hands = found
        run = run_pair(pair, seed, view, hands)
        assert run.both, f"{pair_key(pair)} {view_key(view)}: seed {seed} no longer draws " \
                         "the pair together; rerun benchmarks/fault_pairs.py --write-seeds"
        return [run]
    return [run_pair(pair, index, view, HANDS, game) for game in GAMES]


@pytest.mark.parametrize(("index", "pair"), [_param(i, pair) for i, pair in enumerate(PAIRS)])
def test_a_pair_of_faults_is_cited_for_exactly_their_rules(
    index: int, pair: tuple[str, str]
) -> None:
    misses = [
        f"seed {run.seed}, view {view_key(run.view)}, {run.game}\n{miss.describe()}"
        for view in VIEWS for run in _runs(index, pair, view) for miss in run.misses
    ]
    assert not misses, "\n\n".join(misses[:2])


def test_most_pairs_meet_in_a_hand_in_both_views() -> None:
    """The seeds file covers the pairs the simulator can put together (the long run lists
    those it never drew)."""
    both_views = [key for key, views in SEEDS.items() if len(views) == 2]
    assert len(both_views) >= 0.8 * len(PAIRS), len(both_views)
    assert set(SEEDS) <= {pair_key(pair) for pair in PAIRS}
