"""Property tests (hypothesis) of scoring, settlement and board evaluation.

Boards are dealt from one shuffled deck, so the cards of a table are always distinct.
"""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ofc_audit.game.board import Board, BoardResult, evaluate_board
from ofc_audit.game.cards import JOKERS, NATURAL_CARDS, Card
from ofc_audit.game.row_values import value_of
from ofc_audit.game.ruleset import Ruleset, Variant
from ofc_audit.game.scoring import pair_order, score_pair, settle, settle_transfers

SETTINGS = settings(max_examples=150, deadline=None)

NO_CAP = Ruleset(stack_cap=False)
CAP = Ruleset(stack_cap=True)


def deal(cards: list[Card], n: int) -> list[Board]:
    """n boards of 3/5/5 cards from the top of a shuffled deck."""
    return [
        Board(tuple(cards[13 * i : 13 * i + 3]), tuple(cards[13 * i + 3 : 13 * i + 8]),
              tuple(cards[13 * i + 8 : 13 * i + 13]))
        for i in range(n)
    ]


@st.composite
def tables(draw: st.DrawFn, min_players: int = 2, max_players: int = 4) -> list[Board]:
    n = draw(st.integers(min_players, max_players))
    return deal(draw(st.permutations(NATURAL_CARDS)), n)


rulesets = st.builds(
    lambda bonus, royalties, cap: Ruleset().with_options(
        scoop_bonus=bonus, royalties=royalties, stack_cap=cap
    ),
    st.integers(0, 6),
    st.sampled_from(["all", "none"]),
    st.booleans(),
)


def results_of(boards: list[Board], ruleset: Ruleset) -> list[BoardResult]:
    return [evaluate_board(b, ruleset) for b in boards]


# --- zero-sum and caps ---------------------------------------------------------------------


@SETTINGS
@given(tables(), st.data())
def test_zero_sum_without_caps(boards: list[Board], data: st.DataObject) -> None:
    """R-SCORE-5 / R-SETTLE-4: without caps the points and the stacks are zero-sum, and each
    stack moves by exactly the player's points."""
    ruleset = data.draw(rulesets).with_options(stack_cap=False)
    stacks = data.draw(st.lists(st.integers(-500, 500), min_size=len(boards),
                                max_size=len(boards)))
    s = settle(results_of(boards, ruleset), ruleset, stacks)
    assert sum(s.points) == 0
    assert s.stacks_after is not None
    assert sum(s.stacks_after) == sum(stacks)
    for before, after, points in zip(stacks, s.stacks_after, s.points, strict=True):
        assert after - before == points
    for pair in s.pairs:
        assert pair.transfer_to_a == pair.points_a


@SETTINGS
@given(tables(), st.data())
def test_caps_keep_stacks_non_negative(boards: list[Board], data: st.DataObject) -> None:
    """R-SETTLE-3: with the cap, non-negative stacks stay non-negative; money is conserved;
    points (before the cap) stay zero-sum."""
    ruleset = data.draw(rulesets).with_options(stack_cap=True)
    stacks = data.draw(st.lists(st.integers(0, 60), min_size=len(boards), max_size=len(boards)))
    s = settle(results_of(boards, ruleset), ruleset, stacks)
    assert s.stacks_after is not None
    assert all(after >= 0 for after in s.stacks_after)
    assert sum(s.stacks_after) == sum(stacks)
    assert sum(s.points) == 0


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_transfer_never_exceeds_due_nor_either_stack(data: st.DataObject) -> None:
    """R-SETTLE-3: each transfer has the due's sign, is at most |due|, and at most each of the
    two stacks as they stand when the pair is settled."""
    n = data.draw(st.integers(2, 4))
    stacks = data.draw(st.lists(st.integers(0, 200), min_size=n, max_size=n))
    dues = data.draw(st.lists(st.integers(-80, 80), min_size=n * (n - 1) // 2,
                              max_size=n * (n - 1) // 2))
    transfers, final = settle_transfers(dues, stacks, stack_cap=True)
    current = list(stacks)
    for (i, j), due, moved in zip(pair_order(n), dues, transfers, strict=True):
        assert moved is not None
        assert abs(moved) <= abs(due)
        assert abs(moved) <= current[i] and abs(moved) <= current[j]
        assert moved == 0 or (moved > 0) == (due > 0)
        # ... and it is exactly the cap of R-SETTLE-3.
        assert abs(moved) == min(abs(due), current[i], current[j])
        current[i] += moved
        current[j] -= moved
    assert final == current
    assert all(stack >= 0 for stack in current)


# --- invariance under permutations -------------------------------------------------------------


def permuted(board: Board, data: st.DataObject) -> Board:
    return Board(*(tuple(data.draw(st.permutations(row))) for row in board.rows))


def assert_same_result(a: BoardResult, b: BoardResult) -> None:
    assert [r.value for r in a.rows] == [r.value for r in b.rows]
    assert [r.category for r in a.rows] == [r.category for r in b.rows]
    assert a.fouled == b.fouled
    assert a.foul_rule == b.foul_rule
    assert a.royalties == b.royalties


@SETTINGS
@given(tables(), st.data())
def test_permuting_cards_inside_a_row_changes_nothing(
    boards: list[Board], data: st.DataObject
) -> None:
    """R-RANK-3 / R-ORDER-1 / R-ROY: the order of cards in a row never matters: values, fouls,
    royalties and every player's points are the same."""
    shuffled = [permuted(b, data) for b in boards]
    before, after = results_of(boards, CAP), results_of(shuffled, CAP)
    for a, b in zip(before, after, strict=True):
        assert_same_result(a, b)
    assert settle(before, CAP).points == settle(after, CAP).points


@settings(max_examples=40, deadline=None)
@given(st.permutations(NATURAL_CARDS), st.integers(0, 2), st.data())
def test_permuting_cards_inside_a_joker_row_changes_nothing(
    cards: list[Card], jokers: int, data: st.DataObject
) -> None:
    """R-JOKER-2: the jokers' assignment does not depend on where they sit in their row."""
    ruleset = Ruleset(variant=Variant.JOKER_PINEAPPLE)
    thirteen = data.draw(st.permutations(cards[: 13 - jokers] + list(JOKERS[:jokers])))
    board = deal(thirteen, 1)[0]
    a = evaluate_board(board, ruleset)
    b = evaluate_board(permuted(board, data), ruleset)
    assert_same_result(a, b)
    assert a.jokers == b.jokers
    assert len(a.jokers) == jokers


@SETTINGS
@given(tables(), st.data())
def test_relabeling_players_permutes_points(boards: list[Board], data: st.DataObject) -> None:
    """R-SCORE-5: without caps a player's points do not depend on its seat: relabeling the
    players permutes the points (and the uncapped stacks) accordingly."""
    n = len(boards)
    order = data.draw(st.permutations(range(n)))
    stacks = data.draw(st.lists(st.integers(-100, 300), min_size=n, max_size=n))
    results = results_of(boards, NO_CAP)
    s = settle(results, NO_CAP, stacks)
    t = settle([results[k] for k in order], NO_CAP, [stacks[k] for k in order])
    assert s.stacks_after is not None and t.stacks_after is not None
    assert list(t.points) == [s.points[k] for k in order]
    assert list(t.stacks_after) == [s.stacks_after[k] for k in order]


@SETTINGS
@given(tables(2, 2), rulesets)
def test_pair_score_is_antisymmetric(boards: list[Board], ruleset: Ruleset) -> None:
    """R-SCORE-1..4: b against a is exactly the negation of a against b."""
    a, b = results_of(boards, ruleset)
    rows, scoop, royalties, points = score_pair(a, b, ruleset)
    assert score_pair(b, a, ruleset) == (tuple(-r for r in rows), -scoop, -royalties, -points)
    assert points == sum(rows) + scoop + royalties


# --- monotonicity of the bottom ------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.permutations(NATURAL_CARDS))
def test_legal_board_stays_legal_with_a_stronger_bottom(cards: list[Card]) -> None:
    """R-ORDER-1: replacing the bottom of a legal board by a stronger 5-card row (from unused
    cards) keeps it legal; top and middle royalties do not change, the bottom's never drop."""
    top = tuple(cards[0:3])
    five_a, five_b = tuple(cards[3:8]), tuple(cards[8:13])
    middle, bottom = sorted((five_a, five_b), key=value_of)
    assume(value_of(top) <= value_of(middle))
    board = Board(top, middle, bottom)
    result = evaluate_board(board)
    assert not result.fouled
    # Seven 5-card rows from the unused cards; the first that beats the bottom replaces it.
    candidates = [tuple(cards[13 + 5 * k : 18 + 5 * k]) for k in range(7)]
    stronger = [c for c in candidates if value_of(c) > value_of(bottom)]
    assume(stronger)
    better = evaluate_board(Board(top, middle, stronger[0]))
    assert not better.fouled
    assert better.bottom.value > result.bottom.value
    assert better.royalties.top == result.royalties.top
    assert better.royalties.middle == result.royalties.middle
    assert better.royalties.bottom >= result.royalties.bottom
