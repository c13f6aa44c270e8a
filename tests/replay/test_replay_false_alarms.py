"""Issue 11's false alarms: legal play that was reported, and faults that were missed.
Known answers worked out by hand from RULES.md; each test names its rule."""

from __future__ import annotations

import pytest

from ofc_audit.game.ruleset import Ruleset
from tests.replay.test_replay import audit_text, one, rules_of
from tests.support.histories import WORKED_EXAMPLE, Player, pineapple_hand

# -- R-FL-4: the button's seat is empty at a Fantasyland hand ---------------------------------
#
# H1 (3 players, carol on the button, seat 3): alice scoops bob (6 + royalties QQ 7 + full
# house 6 = 19) and beats carol 2 rows to 1 (+1 + 13 = 14); carol beats bob 2 rows to 1 (+1).
# Settled (alice, bob) 19, (alice, carol) 14 capped at carol's 10, (bob, carol) 1 capped at
# carol's 0: alice 100 -> 129, bob 100 -> 81, carol 10 -> 0 (busted). alice's QQ earns a
# 14-card Fantasyland, so H2 is the match's Fantasyland hand, without carol.

ALICE = Player(1, "alice", 100, "Qs Qd 2c / Kh Kd 4s 5s 6c / 7h 7d 7c 9s 9d", "2h 2s 3s Th")
BOB = Player(2, "bob", 100, "Ah 3c 4c / 8h 8d Tc Jc 2d / Ac Ad 5h 5d 6h", "Js Jh Jd Ts")
CAROL = Player(3, "carol", 10, "3h 3d 4h / 9h 9c 8s 8c 5c / Ks Kc Qh Qc 6s", "As 7s 6d 4d")
ALICE_FL = Player(1, "alice", 129, "As Ks 2h / 3c 3d 3h 4d 5c / 6s 7s 8s 9s Js", fantasyland="2c")
BOB_2 = Player(2, "bob", 81, "Jh Jd 4c / Qh Qd Qc 5d 5h / Ah Ad Ac 6h 6d", "Tc Td Th Jc")
FL = ", standard Fantasyland"


def _button_bust(button_in_h2: int) -> str:
    h1 = pineapple_hand("H1", [ALICE, BOB, CAROL], button=3, header_extra=FL,
                        match="Match #M1, hand 1")
    h2 = pineapple_hand("H2", [ALICE_FL, BOB_2], button=button_in_h2, header_extra=FL,
                        match="Match #M1, hand 2")
    return h1 + "\n" + h2


def test_first_hand_busts_the_button_and_earns_fantasyland() -> None:
    h1, _ = audit_text(_button_bust(1))
    assert h1.valid, h1.violations
    assert [(p.name, p.points, p.stack_after) for p in h1.players] == [
        ("alice", 33, 129), ("bob", -20, 81), ("carol", -13, 0)]
    assert h1.player("alice").fantasyland_next == 14  # type: ignore[union-attr]


@pytest.mark.parametrize("preset", ["standard", "pokerdom"])
def test_r_fl_4_button_moves_off_an_empty_seat_without_a_violation(preset: str) -> None:
    """Seat 3 is empty: the first seat clockwise after it is seat 1, under either option."""
    _, h2 = audit_text(_button_bust(1), Ruleset.preset(preset))
    assert h2.valid, h2.violations


@pytest.mark.parametrize("preset", ["standard", "pokerdom"])
def test_r_fl_4_button_left_on_the_empty_seat_is_a_violation(preset: str) -> None:
    _, h2 = audit_text(_button_bust(3), Ruleset.preset(preset))
    assert rules_of(h2) == ["R-FL-4"]
    assert "seat 1" in h2.violations[0].message


def test_r_fl_4_button_on_another_seat_than_the_next_is_a_violation() -> None:
    _, h2 = audit_text(_button_bust(2))
    assert rules_of(h2) == ["R-FL-4"]


# -- R-SETTLE-4: a seat line with a stack of 0 or less -----------------------------------------


@pytest.mark.parametrize("stack", [0, -5])
def test_r_settle_4_busted_seat_in_the_first_hand_of_the_file(stack: int) -> None:
    text = pineapple_hand("H1", [ALICE, Player(2, "bob", stack, BOB.board, BOB.discards)],
                          button=2)
    r = one(text)
    assert rules_of(r) == ["R-SETTLE-4"]
    assert [(v.player, v.line) for v in r.violations] == [("bob", 4)]


def test_r_settle_4_busted_seat_after_a_rejected_hand() -> None:
    rejected = "OFC Hand #H0: Pineapple - 1 points/point - nonsense\n"
    text = rejected + pineapple_hand(
        "H1", [ALICE, Player(2, "bob", 0, BOB.board, BOB.discards)], button=2)
    from ofc_audit.audit.driver import audit_items
    from ofc_audit.history.reader import read_text
    from ofc_audit.replay.results import HandResult

    items = list(audit_items(read_text(text, "t.txt"), Ruleset()))
    (r,) = [i for i in items if isinstance(i, HandResult)]
    assert rules_of(r) == ["R-SETTLE-4"]


def test_r_settle_4_busted_in_the_file_is_reported_once() -> None:
    poor_bob = Player(2, "bob", 5, BOB.board, BOB.discards)
    h1 = pineapple_hand("H1", [ALICE, poor_bob], button=2)
    h2 = pineapple_hand("H2", [Player(1, "alice", 105, ALICE.board, ALICE.discards),
                               Player(2, "bob", 0, BOB.board, BOB.discards)], button=1)
    _, r2 = audit_text(h1 + h2)
    assert [v.rule for v in r2.violations] == ["R-SETTLE-4"]


def test_a_positive_stack_is_not_busted() -> None:
    text = pineapple_hand("H1", [ALICE, Player(2, "bob", 1, BOB.board, BOB.discards)], button=2)
    assert one(text).valid


# -- SUMMARY flags: absent on a present line is "not fouled" / "no Fantasyland next" ------------


def _flags(text: str) -> set[tuple[str, str, object, object]]:
    return {(m.player, m.field, m.recorded, m.computed) for m in one(text).mismatches}


def test_summary_fouled_absent_for_a_live_board_agrees() -> None:
    assert _flags(WORKED_EXAMPLE) == set()


def test_summary_fouled_present_for_a_live_board_is_a_mismatch() -> None:
    text = WORKED_EXAMPLE.replace("alice: royalties 11", "alice: fouled, royalties 11")
    assert _flags(text) == {("alice", "fouled", True, False)}


FOULED_CAROL = WORKED_EXAMPLE.replace(
    "carol places top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h 3h]",
    "carol places top [8s 8c 8d] middle [As Ac Kh 6h 5h] bottom [Jh Th 8h 4h 3h]",
).replace(
    "carol: top [As Ac Kh] middle [8s 8c 8d 6h 5h]", "carol: top [8s 8c 8d] middle [As Ac Kh 6h 5h]"
)


def test_summary_fouled_absent_for_a_fouled_board_is_a_mismatch() -> None:
    # carol's trips on top over a pair of aces in the middle: fouled (R-ORDER-1).
    got = _flags(FOULED_CAROL)
    assert ("carol", "fouled", False, True) in got


def test_summary_fouled_present_for_a_fouled_board_agrees() -> None:
    text = FOULED_CAROL.replace("carol: royalties 15, points +8, stack 300 -> 308",
                                "carol: fouled")
    assert not {m for m in _flags(text) if m[0] == "carol"}


def test_summary_fantasyland_next_present_and_qualifying_agrees() -> None:
    assert not {m for m in _flags(WORKED_EXAMPLE) if m[1] == "fantasyland_next"}


def test_summary_fantasyland_next_absent_for_a_qualifier_is_a_mismatch() -> None:
    text = WORKED_EXAMPLE.replace(", Fantasyland next (14 cards)", "")
    assert _flags(text) == {("bob", "fantasyland_next", None, 14)}


def test_summary_fantasyland_next_present_for_a_non_qualifier_is_a_mismatch() -> None:
    text = WORKED_EXAMPLE.replace("stack 250 -> 244",
                                  "stack 250 -> 244, Fantasyland next (14 cards)")
    assert _flags(text) == {("alice", "fantasyland_next", 14, None)}


def test_summary_fantasyland_next_absent_for_a_non_qualifier_agrees() -> None:
    assert not {m for m in _flags(WORKED_EXAMPLE) if m[0] == "alice"}


def test_no_summary_line_for_a_player_compares_nothing() -> None:
    text = WORKED_EXAMPLE.replace("bob: royalties 13, points -2, stack 180 -> 178, "
                                  "Fantasyland next (14 cards)\n", "")
    assert _flags(text) == set()
