"""One fault, its own findings (issue 13): a fault is reported where it is, later checks run
on the state the history itself establishes, and a consequence of a finding on the same
action is not reported again. Known answers worked out by hand from RULES.md."""

from __future__ import annotations

from tests.replay.test_replay import BOB_2, audit_text, one, session
from tests.support.histories import WORKED_EXAMPLE, Player, pineapple_hand

FL_DEAL = "carol is dealt [As Ac Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc]\n"
FL_PLACE = ("carol places top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h 3h], "
            "discards [Kc]\n")


def findings(text: str) -> list[tuple[str, int, str | None]]:
    return sorted((v.rule, v.line, v.player) for v in one(text).violations)


# -- a Fantasyland deal in several packets ----------------------------------------------------


def test_split_fantasyland_deal_is_one_r_fl_5_and_nothing_else() -> None:
    """14 cards in two packets (4 then 10), one placement of 13 and a discard: the packets'
    union is the deal, of a count progressive Fantasyland gives."""
    text = WORKED_EXAMPLE.replace(FL_DEAL, "carol is dealt [As Ac Kh 8s]\n"
                                           "carol is dealt [8c 8d 6h 5h Jh Th 8h 4h 3h Kc]\n")
    r = one(text)
    assert [(v.rule, v.line, v.player) for v in r.violations] == [("R-FL-5", 9, "carol")]
    assert "2 packets (lines 8, 9, 14 cards in all)" in r.violations[0].message
    # The union is scored as the deal: the worked example's result, unchanged.
    assert [(p.name, p.points) for p in r.players] == [("alice", -6), ("bob", -2), ("carol", 8)]


def test_split_into_three_packets_is_still_one_r_fl_5() -> None:
    text = WORKED_EXAMPLE.replace(FL_DEAL, "carol is dealt [As Ac Kh 8s]\n"
                                           "carol is dealt [8c 8d 6h 5h Jh]\n"
                                           "carol is dealt [Th 8h 4h 3h Kc]\n")
    assert findings(text) == [("R-FL-5", 9, "carol")]


def test_placement_between_packets_is_checked_against_the_union() -> None:
    text = WORKED_EXAMPLE.replace(FL_DEAL + FL_PLACE,
                                  "carol is dealt [As Ac Kh 8s 8c 8d 6h 5h Jh Th]\n" + FL_PLACE
                                  + "carol is dealt [8h 4h 3h Kc]\n")
    assert findings(text) == [("R-FL-5", 10, "carol")]


# H1 earns alice a standard 14-card Fantasyland; H2 deals it (13 board cards + 2c).
def _h2_fl_deal(packets: list[str]) -> str:
    h2 = session().split("\n\n")[1]
    whole = "alice is dealt [As Ks 2h 3c 3d 3h 4d 5c 6s 7s 8s 9s Js 2c]\n"
    assert whole in h2
    return h2.replace(whole, "".join(f"alice is dealt [{p}]\n" for p in packets))


def test_union_of_the_wrong_count_is_one_r_fl_2_besides_r_fl_5() -> None:
    """4 + 11 = 15 cards where alice earned 14: R-FL-2 once (at the first packet) and R-FL-5;
    her placement of 13 from the union and 1 discard is not also R-ACT-2 for the 15th card."""
    h2 = _h2_fl_deal(["As Ks 2h 3c", "3d 3h 4d 5c 6s 7s 8s 9s Js 2c Tc"])
    _, r2, _ = audit_text(session(hand2=h2.replace("bob is dealt [Jd 4c Tc]",
                                                   "bob is dealt [Jd 4c 2d]")
                                  .replace("discards [Tc]", "discards [2d]", 1)))
    got = [(v.rule, v.player) for v in r2.violations]
    assert sorted(got) == [("R-FL-2", "alice"), ("R-FL-5", "alice")], r2.violations
    assert "dealt 15 Fantasyland cards" in next(
        v.message for v in r2.violations if v.rule == "R-FL-2")


def test_two_whole_deals_are_r_fl_5_only() -> None:
    """alice's 14 cards, then 14 more: two whole deals of the count she earned, so she was
    dealt twice (R-FL-5), which says it all; not also a 28-card deal (R-FL-2). She sets 13 of
    the first 14 and discards 1; the other 14 cards are not also R-ACT-2."""
    h2 = _h2_fl_deal(["As Ks 2h 3c 3d 3h 4d 5c 6s 7s 8s 9s Js 2c",
                      "Kc Kd Kh 9h 9c 8c 8h 7c 7d 7h 4s 4h 3s 2s"])
    _, r2, _ = audit_text(session(hand2=h2))
    assert [v.rule for v in r2.violations] == ["R-FL-5"], r2.violations
    assert "after a whole deal of 14 cards" in r2.violations[0].message


# alice's first deal in the order R-TIME-1 sets it (bottom 5, middle 5, top 3, then the 14th),
# her placement of it, and a second whole deal of 14 cards nobody else holds.
_AUTO_FIRST = "6s 7s 8s 9s Js 3c 3d 3h 4d 5c As Ks 2h 2c"
_SECOND = "Kc Kd Kh 9h 9c 8c 8h 7c 7d 7h 4s 4h 3s 2s"
_H2_PLACE = ("alice places top [As Ks 2h] middle [3c 3d 3h 4d 5c] bottom [6s 7s 8s 9s Js], "
             "discards [2c]\n")


def _dealt_twice_while_disconnected(place: str) -> str:
    h2 = _h2_fl_deal([_AUTO_FIRST, _SECOND])
    assert _H2_PLACE in h2
    return h2.replace(_H2_PLACE, "alice disconnects\n" + place + "alice reconnects\n")


def test_two_whole_deals_placed_automatically_are_r_fl_5_only() -> None:
    """Disconnected, alice is set automatically from her first deal (R-TIME-1: the first 13
    received, bottom, middle, top; the 14th discarded). The second deal is R-FL-5 alone: the
    site did not discard its 14 cards, so the placement is not R-TIME-2 for them."""
    _, r2, _ = audit_text(session(hand2=_dealt_twice_while_disconnected(_H2_PLACE)))
    assert [(v.rule, v.line, v.player) for v in r2.violations] == [("R-FL-5", 39, "alice")]


def test_two_whole_deals_placed_otherwise_while_disconnected_are_r_time_2() -> None:
    """The automatic placement is still checked, against the first deal: 2c set on top and Ks
    discarded is not what R-TIME-1 sets (Ks on top, 2c discarded)."""
    wrong = _H2_PLACE.replace("top [As Ks 2h]", "top [As 2c 2h]").replace("[2c]", "[Ks]")
    _, r2, _ = audit_text(session(hand2=_dealt_twice_while_disconnected(wrong)))
    assert sorted((v.rule, v.line) for v in r2.violations) == [("R-FL-5", 39), ("R-TIME-2", 41)]
    message = next(v.message for v in r2.violations if v.rule == "R-TIME-2")
    assert "should be top [As Ks 2h] middle [3c 3d 3h 4d 5c] bottom [6s 7s 8s 9s Js]" in message
    assert "discards [2c] " in message


def test_a_whole_deal_and_a_few_cards_more_is_a_wrong_count_in_packets() -> None:
    """14 then 3 more: not two whole deals, so the union is the deal, 17 cards where alice
    earned 14: R-FL-2 and R-FL-5."""
    h2 = _h2_fl_deal(["As Ks 2h 3c 3d 3h 4d 5c 6s 7s 8s 9s Js 2c", "Kc Kd Kh"])
    _, r2, _ = audit_text(session(hand2=h2))
    assert sorted(v.rule for v in r2.violations) == ["R-FL-2", "R-FL-5"], r2.violations


def test_union_of_the_right_count_in_a_chain_is_r_fl_5_only() -> None:
    h2 = _h2_fl_deal(["As Ks 2h 3c", "3d 3h 4d 5c 6s 7s 8s 9s Js 2c"])
    _, r2, _ = audit_text(session(hand2=h2))
    assert [v.rule for v in r2.violations] == ["R-FL-5"]


def test_a_card_in_two_packets_is_one_r_card_3_and_its_placement_r_act_2() -> None:
    """The union itself breaks the rules: 8s twice (R-CARD-3) and 8c never dealt, which
    carol places (R-ACT-2)."""
    text = WORKED_EXAMPLE.replace(FL_DEAL, "carol is dealt [As Ac Kh 8s]\n"
                                           "carol is dealt [8s 8d 6h 5h Jh Th 8h 4h 3h Kc]\n")
    assert findings(text) == [("R-ACT-2", 10, "carol"), ("R-CARD-3", 9, "carol"),
                              ("R-FL-5", 9, "carol")]


def test_second_fantasyland_placement_is_r_fl_5_without_r_act_3() -> None:
    text = WORKED_EXAMPLE.replace(FL_PLACE, FL_PLACE + FL_PLACE)
    assert ("R-ACT-3", 10, "carol") not in findings(text)
    assert [f for f in findings(text) if f[1] == 10] == [("R-FL-5", 10, "carol")]


def test_fantasyland_placement_of_12_cards_is_one_r_fl_2() -> None:
    text = WORKED_EXAMPLE.replace(
        FL_PLACE, "carol places top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h], "
                  "discards [3h Kc]\n").replace(
        "bottom [Jh Th 8h 4h 3h]\nalice:", "bottom [Jh Th 8h 4h]\nalice:")
    assert findings(text) == [("R-FL-2", 9, "carol")]


# -- street placements ------------------------------------------------------------------------


def test_placing_too_few_with_the_right_discard_is_one_r_act_2() -> None:
    """alice places 1 and discards 1 of 3 on street 2: the count placed is the fault; that
    one card goes nowhere follows from it."""
    text = WORKED_EXAMPLE.replace("alice places middle [3c] bottom [3d], discards [Js]",
                                  "alice places middle [3c], discards [Js]")
    assert [f for f in findings(text) if f[0] == "R-ACT-2"] == [("R-ACT-2", 17, "alice")]


def test_placing_a_card_seen_elsewhere_is_one_r_act_2_naming_where() -> None:
    """alice places bob's 9h instead of her own 3d: one fault, R-ACT-2 (not also R-CARD-3)."""
    text = WORKED_EXAMPLE.replace("alice places middle [3c] bottom [3d], discards [Js]",
                                  "alice places middle [3c] bottom [9h], discards [Js]")
    r = one(text)
    acts = [v for v in r.violations if v.line == 17]
    assert [(v.rule, v.player) for v in acts] == [("R-ACT-2", "alice")]
    assert "seen at line 13" in acts[0].message


def test_row_overflow_then_showdown_is_one_r_act_3() -> None:
    """bob puts a 6th card in the middle on street 5 (top [5c] middle [2d] -> middle
    [5c 2d]); the SHOWDOWN that shows a legal board is not a second R-ACT-3."""
    text = WORKED_EXAMPLE.replace("bob places top [5c] middle [2d], discards [Ad]",
                                  "bob places middle [5c 2d], discards [Ad]")
    assert [f for f in findings(text) if f[0] == "R-ACT-3"] == [("R-ACT-3", 34, "bob")]


def test_second_street_placement_is_one_r_act_2_without_r_act_3() -> None:
    text = WORKED_EXAMPLE.replace(
        "bob places top [5c] middle [2d], discards [Ad]\n",
        "bob places top [5c] middle [2d], discards [Ad]\nbob places top [Ad]\n")
    got = [f for f in findings(text) if f[1] == 35]
    assert got == [("R-ACT-2", 35, "bob")]


# -- across hands: button and action order, stacks and settlement -----------------------------
#
# H3 and H4 (after session()'s H1 and H2, which leave alice 95 and bob 55) deal boards that
# earn nobody Fantasyland: alice AK2 / 333 trips / 6789J flush (royalties 2 + 4 = 6), bob
# JJ4 (6) / QQQ55 (12) / AAA66 (6) = 24. bob wins every row: 6 + 24 - 6 = 24 points.


def _plain(hand_id: str, alice: int, bob: int, button: int, match: str) -> str:
    return pineapple_hand(
        hand_id,
        [Player(1, "alice", alice, "As Ks 2h / 3c 3d 3h 4d 5c / 6s 7s 8s 9s Js", "2c 2d 2s 7c"),
         Player(2, "bob", bob, BOB_2.board, BOB_2.discards)],
        button=button, header_extra=", standard Fantasyland", match=f"Match #{match}, hand 1")


def test_wrong_button_is_one_finding_and_the_order_follows_the_recorded_button() -> None:
    """H3's button belongs on seat 1; it is on seat 2, and the players act left of seat 2
    (R-ACT-1 is checked against the button the table line records): R-MATCH-2 only. H4
    moves the button on from seat 2, as H3 recorded it (R-MATCH-2): no finding."""
    h3 = _plain("H3", 95, 55, button=2, match="M2")
    h4 = _plain("H4", 71, 79, button=1, match="M3")
    results = audit_text(session(hand3=h3) + "\n" + h4)
    assert [[v.rule for v in r.violations] for r in results] == [[], [], ["R-MATCH-2"], []]


def test_stack_not_carried_is_one_finding_and_the_written_stack_is_settled() -> None:
    """H3 writes alice 90 (she ended H2 at 95): R-SETTLE-5 once; H3 settles from 90 (bob wins
    24: alice 66, bob 79), and H4 carries those stacks without a finding."""
    h3 = _plain("H3", 90, 55, button=1, match="M2")
    h4 = _plain("H4", 66, 79, button=2, match="M3")
    *_, r3, r4 = audit_text(session(hand3=h3) + "\n" + h4)
    assert [v.rule for v in r3.violations] == ["R-SETTLE-5"]
    assert [(p.name, p.stack_after) for p in r3.players] == [("alice", 66), ("bob", 79)]
    assert r4.violations == ()


def test_a_stack_of_0_not_carried_is_r_settle_5_only() -> None:
    """alice ended H2 at 95; H3 writes 0: the stack is not carried (R-SETTLE-5); that the 0
    also reads as a busted player dealt in (R-SETTLE-4) follows from the same seat line."""
    h3 = _plain("H3", 0, 55, button=1, match="M2")
    *_, r3 = audit_text(session(hand3=h3))
    assert [v.rule for v in r3.violations] == ["R-SETTLE-5"]
