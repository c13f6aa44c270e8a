"""R-TIME-1's automatic placement, written by hand from RULES.md: in the order received, each
placed card to the bottom row while it has room, then the middle, then the top; from street 2
on the first cards received are placed (2 in Pineapple, 1 in Classic) and the rest discarded.
One definition serves the replay (cards) and the simulator's bot (ints)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit import replay
from ofc_audit.game import automatic
from ofc_audit.game.automatic import automatic_placement
from ofc_audit.game.cards import Card, parse_cards
from ofc_audit.replay import timing


def cards(text: str) -> list[Card]:
    return list(parse_cards(text))


def test_first_street_of_classic_fills_the_bottom() -> None:
    dealt = parse_cards("As Kd 7c 7h 2s")
    added, discards = automatic_placement([[], [], []], dealt, 5)
    assert added == [[], [], list(dealt)]
    assert discards == []


def test_pineapple_street_places_the_first_two_and_discards_the_third() -> None:
    # Bottom has room for one card, the middle for three: Qh to the bottom, 9c to the middle.
    top, middle, bottom = parse_cards("2c"), parse_cards("3c 4c"), parse_cards("5c 6c 7c 8c")
    dealt = parse_cards("Qh 9c Jd")
    added, discards = automatic_placement([top, middle, bottom], dealt, 2)
    assert added == [[], cards("9c"), cards("Qh")]
    assert discards == cards("Jd")


def test_only_the_top_has_room() -> None:
    full = parse_cards("2c 3c 4c 5c 6c")
    added, discards = automatic_placement([parse_cards("Ah"), full, full], parse_cards("Ks"), 1)
    assert added == [cards("Ks"), [], []]
    assert discards == []


def test_fantasyland_sets_thirteen_bottom_middle_top_in_order() -> None:
    dealt = list(range(14))  # the simulator's bot ints: any card type is placed as is
    added, discards = automatic_placement([[], [], []], dealt, 13)
    assert added == [[10, 11, 12], [5, 6, 7, 8, 9], [0, 1, 2, 3, 4]]
    assert discards == [13]


def test_the_replay_uses_the_one_definition() -> None:
    assert replay.automatic_placement is automatic.automatic_placement
    assert timing.automatic_placement is automatic.automatic_placement


@settings(max_examples=200, deadline=None)
@given(
    st.tuples(st.integers(0, 3), st.integers(0, 5), st.integers(0, 5)),
    st.integers(0, 17),
    st.integers(0, 17),
)
def test_fills_bottom_first_and_keeps_the_order(
    placed: tuple[int, int, int], dealt_count: int, place: int
) -> None:
    rows = [["x"] * n for n in placed]
    dealt = list(range(dealt_count))
    added, discards = automatic_placement(rows, dealt, place)
    room = [3 - placed[0], 5 - placed[1], 5 - placed[2]]
    # Each row gets at most its room; a row above gets a card only when those below are full.
    for r in range(3):
        assert len(added[r]) <= room[r]
    if added[1]:
        assert len(added[2]) == room[2]
    if added[0]:
        assert len(added[1]) == room[1] and len(added[2]) == room[2]
    # Bottom, middle, top take the placed cards in the order received; the rest is discarded.
    placed_cards = added[2] + added[1] + added[0]
    assert placed_cards == dealt[: len(placed_cards)]
    assert len(placed_cards) == min(place, dealt_count, sum(room))
    assert discards == dealt[place:]
