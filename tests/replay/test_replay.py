"""Replay engine: known answers written by hand from RULES.md; each test names its rule."""

from __future__ import annotations

from ofc_audit.audit.driver import audit_items
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import HistoryParseError, read_text
from ofc_audit.replay.results import HandResult
from tests.support.histories import WORKED_EXAMPLE, Player, pineapple_hand


def audit_text(text: str, ruleset: Ruleset | None = None) -> list[HandResult]:
    items = list(audit_items(read_text(text, "t.txt"), ruleset or Ruleset()))
    rejected = [i for i in items if isinstance(i, HistoryParseError)]
    assert not rejected, [str(e) for e in rejected]
    return [i for i in items if isinstance(i, HandResult)]


def rules_of(result: HandResult) -> list[str]:
    return sorted({v.rule for v in result.violations})


def one(text: str, ruleset: Ruleset | None = None) -> HandResult:
    (result,) = audit_text(text, ruleset)
    return result


# -- the worked example of FORMAT.md -----------------------------------------------------------


def test_worked_example_is_legal_and_settles_as_format_md_says() -> None:
    r = one(WORKED_EXAMPLE)
    assert r.valid, r.violations
    assert not r.mismatches
    got = {p.name: (p.result.royalties.total if p.result else None, p.points, p.stack_after)
           for p in r.players}
    assert got == {"alice": (11, -6, 244), "bob": (13, -2, 178), "carol": (15, 8, 308)}
    assert {p.name: p.fantasyland_next for p in r.players} == {
        "alice": None, "bob": 14, "carol": None}
    assert [(p.a, p.b) for p in r.pairs] == [("alice", "bob"), ("alice", "carol"), ("bob", "carol")]
    # carol's qualification lies in the match's hand 1, which is not in the input
    assert any("carol" in u for u in r.unverifiable)


def test_summary_mismatch_reports_both_values() -> None:
    text = WORKED_EXAMPLE.replace(
        "alice: royalties 11, points -6", "alice: royalties 12, points -5"
    )
    r = one(text)
    assert r.valid
    got = {(m.player, m.field, m.recorded, m.computed) for m in r.mismatches}
    assert got == {("alice", "royalties", 12, 11), ("alice", "points", -5, -6)}


def test_fantasyland_next_missing_from_summary_is_a_mismatch() -> None:
    text = WORKED_EXAMPLE.replace(", Fantasyland next (14 cards)", "")
    r = one(text)
    assert {(m.player, m.field, m.recorded, m.computed) for m in r.mismatches} == {
        ("bob", "fantasyland_next", None, 14)}


def test_fouled_hand_paid_as_legal_is_a_mismatch_of_fouled() -> None:
    text = WORKED_EXAMPLE.replace("alice: royalties 11", "alice: fouled, royalties 11")
    r = one(text)
    assert ("alice", "fouled", True, False) in {
        (m.player, m.field, m.recorded, m.computed) for m in r.mismatches}


# -- cards, deals, placements ------------------------------------------------------------------


def test_r_card_3_duplicate_card_across_players() -> None:
    text = WORKED_EXAMPLE.replace("bob is dealt [4d 4s 2s]", "bob is dealt [4d 4s As]").replace(
        "discards [2s]", "discards [As]")
    r = one(text)
    assert "R-CARD-3" in rules_of(r)
    (v,) = [v for v in r.violations if v.rule == "R-CARD-3"]
    assert v.player == "bob" and "As" in v.message and v.line == 18


def test_r_deal_1_wrong_deal_size() -> None:
    text = WORKED_EXAMPLE.replace("alice is dealt [3c 3d Js]", "alice is dealt [3c 3d Js 2c]")
    r = one(text)
    # One fault, one finding (issue 13): alice places the variant's 2 and discards 1 of the
    # cards dealt; that the 4th card goes nowhere follows from the deal, not from her.
    assert rules_of(r) == ["R-DEAL-1"]


def test_r_act_1_dealt_out_of_turn() -> None:
    street2 = (
        "alice is dealt [3c 3d Js]\nalice places middle [3c] bottom [3d], discards [Js]\n"
        "bob is dealt [4d 4s 2s]\nbob places bottom [4d 4s], discards [2s]\n"
    )
    swapped = (
        "bob is dealt [4d 4s 2s]\nbob places bottom [4d 4s], discards [2s]\n"
        "alice is dealt [3c 3d Js]\nalice places middle [3c] bottom [3d], discards [Js]\n"
    )
    assert street2 in WORKED_EXAMPLE
    r = one(WORKED_EXAMPLE.replace(street2, swapped))
    assert rules_of(r) == ["R-ACT-1"]
    assert r.violations[0].player == "bob"


def test_r_act_1_dealt_before_previous_player_placed() -> None:
    text = WORKED_EXAMPLE.replace(
        "alice is dealt [3c 3d Js]\nalice places middle [3c] bottom [3d], discards [Js]\n"
        "bob is dealt [4d 4s 2s]\n",
        "alice is dealt [3c 3d Js]\nbob is dealt [4d 4s 2s]\n"
        "alice places middle [3c] bottom [3d], discards [Js]\n",
    )
    r = one(text)
    assert rules_of(r) == ["R-ACT-1"]


def test_r_act_2_placed_card_not_from_this_deal() -> None:
    text = WORKED_EXAMPLE.replace(
        "alice places middle [3c] bottom [3d], discards [Js]",
        "alice places middle [3c] bottom [2c], discards [Js]",
    ).replace("bottom [7c 7s 3d 7h 7d]", "bottom [7c 7s 2c 7h 7d]")
    r = one(text)
    assert "R-ACT-2" in rules_of(r)


def test_r_act_2_street_one_must_place_all_five() -> None:
    text = WORKED_EXAMPLE.replace(
        "alice places top [Ah] middle [Kd 2h] bottom [7c 7s]",
        "alice places top [Ah] middle [Kd] bottom [7c 7s], discards [2h]",
    )
    r = one(text)
    assert "R-ACT-2" in rules_of(r)


def test_r_act_3_row_over_its_size_fouls_the_board() -> None:
    text = WORKED_EXAMPLE.replace(
        "bob places top [5c] middle [2d], discards [Ad]",
        "bob places top [5c 2d], discards [Ad]",
    )
    r = one(text)
    assert "R-ACT-3" in rules_of(r)
    bob = r.player("bob")
    assert bob is not None and bob.fouled is True


def test_r_act_3_showdown_board_differs_and_placements_are_scored() -> None:
    text = WORKED_EXAMPLE.replace(
        "alice: top [Ah 6c 6d] middle", "alice: top [Ah 6c 6s] middle")
    r = one(text)
    assert rules_of(r) == ["R-ACT-3"]
    alice = r.player("alice")
    assert alice is not None and alice.points == -6


def test_r_act_4_fantasyland_player_on_a_street() -> None:
    text = WORKED_EXAMPLE.replace(
        "*** STREET 2 ***\n", "*** STREET 2 ***\ncarol is dealt [2c 9c Qc]\n")
    r = one(text)
    assert "R-ACT-4" in rules_of(r)


def test_r_fl_5_second_fantasyland_deal() -> None:
    text = WORKED_EXAMPLE.replace(
        "carol places top [As Ac Kh]", "carol is dealt [2c]\ncarol places top [As Ac Kh]")
    r = one(text)
    assert "R-FL-5" in rules_of(r)


def test_r_fl_2_fantasyland_deal_of_a_count_the_type_never_gives() -> None:
    text = WORKED_EXAMPLE.replace("Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc]",
                                  "Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc 2c 9c Qc Tc]").replace(
        "discards [Kc]", "discards [Kc 2c 9c Qc Tc]")
    r = one(text)
    assert "R-FL-2" in rules_of(r)  # progressive deals 14 to 17, never 18


def test_r_card_2_joker_outside_joker_pineapple() -> None:
    text = WORKED_EXAMPLE.replace(
        "alice is dealt [3c 3d Js]", "alice is dealt [3c 3d JK1]"
    ).replace("discards [Js]", "discards [JK1]")
    r = one(text)
    assert "R-CARD-2" in rules_of(r)


def test_hidden_cards_are_unverifiable_not_violations() -> None:
    text = (WORKED_EXAMPLE.replace("bob is dealt [4d 4s 2s]", "bob is dealt [?? ?? ??]")
            .replace("discards [2s]", "discards [??]"))
    r = one(text)
    assert r.valid
    assert any("bob" in u and "hidden" in u for u in r.unverifiable)


def test_mucked_board_makes_results_unknown() -> None:
    text = (WORKED_EXAMPLE
            .replace("carol places top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h 3h], "
                     "discards [Kc]",
                     "carol places top [?? ?? ??] middle [?? ?? ?? ?? ??] bottom [?? ?? ?? ?? ??], "
                     "discards [??]")
            .replace("carol is dealt [As Ac Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc]",
                     "carol is dealt [?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ??]")
            .replace("carol: top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h 3h]",
                     "carol: mucked"))
    r = one(text)
    assert r.valid
    carol, alice = r.player("carol"), r.player("alice")
    assert carol is not None and carol.fouled is None and carol.points is None
    assert alice is not None and alice.points is None and alice.stack_after is None
    # alice v bob is still known: +1 rows, -2 royalties
    assert r.pairs[0].points_a == -1


def test_showdown_reveals_a_hidden_fantasyland_hand() -> None:
    text = (WORKED_EXAMPLE
            .replace("carol places top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h 3h], "
                     "discards [Kc]",
                     "carol places top [?? ?? ??] middle [?? ?? ?? ?? ??] bottom [?? ?? ?? ?? ??], "
                     "discards [??]")
            .replace("carol is dealt [As Ac Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc]",
                     "carol is dealt [?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ?? ??]"))
    r = one(text)
    assert r.valid
    assert [p.points for p in r.players] == [-6, -2, 8]


# -- timeouts ---------------------------------------------------------------------------------


def test_r_time_1_automatic_placement_checked() -> None:
    # alice's street-2 cards 3c 3d Js: bottom has room for 3, so 3c and 3d go to the bottom.
    ok = WORKED_EXAMPLE.replace(
        "alice places middle [3c] bottom [3d], discards [Js]",
        "alice times out\nalice places bottom [3c 3d], discards [Js]",
    )
    r = one(ok)
    assert "R-TIME-1" not in rules_of(r)
    bad = WORKED_EXAMPLE.replace(
        "alice places middle [3c] bottom [3d], discards [Js]",
        "alice times out\nalice places middle [3c] bottom [3d], discards [Js]",
    )
    r = one(bad)
    assert rules_of(r) == ["R-TIME-1"]


# -- sessions: button, stacks, busting, Fantasyland chains ------------------------------------

ALICE_1 = Player(1, "alice", 100, "Qs Qd 2c / Kh Kd 4s 5s 6c / 7h 7d 7c 9s 9d", "2h 2s 3s Th")
BOB_1 = Player(2, "bob", 50, "Ah 3c 4c / 8h 8d Tc Jc 2d / Ac Ad 5h 5d 6h", "Js Jh Jd Ts")
ALICE_FL = Player(1, "alice", 119, "As Ks 2h / 3c 3d 3h 4d 5c / 6s 7s 8s 9s Js", fantasyland="2c")
BOB_2 = Player(2, "bob", 31, "Jh Jd 4c / Qh Qd Qc 5d 5h / Ah Ad Ac 6h 6d", "Tc Td Th Jc")


def session(hand2: str | None = None, hand3: str | None = None) -> str:
    h1 = pineapple_hand("H1", [ALICE_1, BOB_1], button=2, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 1")
    h2 = hand2 if hand2 is not None else pineapple_hand(
        "H2", [ALICE_FL, BOB_2], button=2, header_extra=", standard Fantasyland",
        match="Match #M1, hand 2")
    h3 = hand3 if hand3 is not None else pineapple_hand(
        "H3", [Player(1, "alice", 95, ALICE_1.board, ALICE_1.discards),
               Player(2, "bob", 55, BOB_1.board, BOB_1.discards)],
        button=1, header_extra=", standard Fantasyland", match="Match #M2, hand 1")
    return h1 + "\n" + h2 + "\n" + h3


def test_session_scores_carry_stacks_and_chain_fantasyland() -> None:
    h1, h2, h3 = audit_text(session())
    assert [r.valid for r in (h1, h2, h3)] == [True, True, True], [
        r.violations for r in (h1, h2, h3)]
    # H1: alice scoops (6) plus royalties QQ 7 + full house 6 = 19, capped by nobody.
    assert [(p.points, p.stack_after) for p in h1.players] == [(19, 119), (-19, 31)]
    assert h1.player("alice").fantasyland_next == 14  # type: ignore[union-attr]
    # H2: bob scoops; royalties bob 6 + 12 + 6 = 24, alice flush 4 + trips middle 2 = 6.
    assert [(p.points, p.stack_after) for p in h2.players] == [(-24, 95), (24, 55)]
    assert h2.player("alice").fantasyland_next is None  # type: ignore[union-attr]
    assert not h2.unverifiable


def test_r_settle_3_capped_transfer_in_a_session() -> None:
    poor_bob = Player(2, "bob", 5, BOB_1.board, BOB_1.discards)
    text = pineapple_hand("H1", [ALICE_1, poor_bob], button=2)
    r = one(text)
    assert [(p.points, p.stack_after) for p in r.players] == [(19, 105), (-19, 0)]
    assert r.pairs[0].transfer_to_a == 5 and r.pairs[0].capped


def test_r_settle_4_busted_player_is_dealt_no_further_hands() -> None:
    poor_bob = Player(2, "bob", 5, BOB_1.board, BOB_1.discards)
    h1 = pineapple_hand("H1", [ALICE_1, poor_bob], button=2)
    h2 = pineapple_hand("H2", [Player(1, "alice", 105, ALICE_1.board, ALICE_1.discards),
                               Player(2, "bob", 0, BOB_1.board, BOB_1.discards)], button=1)
    _, r2 = audit_text(h1 + h2)
    assert "R-SETTLE-4" in rules_of(r2)


def test_r_settle_5_stack_not_carried() -> None:
    h3 = pineapple_hand(
        "H3", [Player(1, "alice", 90, ALICE_1.board, ALICE_1.discards),
               Player(2, "bob", 55, BOB_1.board, BOB_1.discards)],
        button=1, header_extra=", standard Fantasyland", match="Match #M2, hand 1")
    *_, r3 = audit_text(session(hand3=h3))
    assert rules_of(r3) == ["R-SETTLE-5"]
    assert r3.violations[0].player == "alice"


def test_r_settle_5_top_up_is_added() -> None:
    h3 = pineapple_hand(
        "H3", [Player(1, "alice", 105, ALICE_1.board, ALICE_1.discards),
               Player(2, "bob", 55, BOB_1.board, BOB_1.discards)],
        button=1, header_extra=", standard Fantasyland", match="Match #M2, hand 1")
    h3 = h3.replace("Seat 2: bob (55)\n", "Seat 2: bob (55)\nalice tops up 10\n")
    *_, r3 = audit_text(session(hand3=h3))
    assert r3.valid, r3.violations


def test_r_match_2_button_moves_one_occupied_seat() -> None:
    h3 = pineapple_hand(
        "H3", [Player(1, "alice", 95, ALICE_1.board, ALICE_1.discards),
               Player(2, "bob", 55, BOB_1.board, BOB_1.discards)],
        button=2, header_extra=", standard Fantasyland", match="Match #M2, hand 1")
    *_, r3 = audit_text(session(hand3=h3))
    assert rules_of(r3) == ["R-MATCH-2"]


def test_r_fl_4_button_stays_on_fantasyland_hand_by_default() -> None:
    h2 = pineapple_hand("H2", [ALICE_FL, BOB_2], button=1, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 2")
    _, r2, _ = audit_text(session(hand2=h2))
    assert "R-FL-4" in rules_of(r2)


def test_r_fl_4_pokerdom_moves_the_button_on_fantasyland_hands() -> None:
    h2 = pineapple_hand("H2", [ALICE_FL, BOB_2], button=1, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 2")
    h3 = pineapple_hand(
        "H3", [Player(1, "alice", 95, ALICE_1.board, ALICE_1.discards),
               Player(2, "bob", 55, BOB_1.board, BOB_1.discards)],
        button=2, header_extra=", standard Fantasyland", match="Match #M2, hand 1")
    results = audit_text(session(hand2=h2, hand3=h3), Ruleset.preset("pokerdom"))
    assert [r.valid for r in results] == [True, True, True], [r.violations for r in results]


def test_r_fl_2_wrong_fantasyland_card_count() -> None:
    fifteen = Player(1, "alice", 119, ALICE_FL.board, fantasyland="2c Tc")
    h2 = pineapple_hand("H2", [fifteen, BOB_2], button=2, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 2")
    h2 = h2.replace("bob is dealt [Jd 4c Tc]", "bob is dealt [Jd 4c 2d]").replace(
        "discards [Tc]", "discards [2d]", 1)
    _, r2, _ = audit_text(session(hand2=h2))
    assert "R-FL-2" in rules_of(r2)


def test_r_fl_1_fantasyland_without_qualifying() -> None:
    bob_fl = Player(2, "bob", 31, BOB_2.board, fantasyland="Tc")
    alice_streets = Player(1, "alice", 119, "As Ks 2h / 3c 3d 3h 4d 5c / 6s 7s 8s 9s Js",
                           "2c Td Th Jc")
    h2 = pineapple_hand("H2", [alice_streets, bob_fl], button=2,
                        header_extra=", standard Fantasyland", match="Match #M1, hand 2")
    _, r2, _ = audit_text(session(hand2=h2))
    rules = rules_of(r2)
    assert "R-FL-1" in rules  # bob did not qualify; alice qualified but plays the streets
    assert {v.player for v in r2.violations if v.rule == "R-FL-1"} == {"alice", "bob"}


def test_r_match_1_continuation_nobody_qualified_for() -> None:
    h2 = pineapple_hand("H2", [ALICE_FL, BOB_2], button=2, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 2")
    h3 = pineapple_hand(
        "H3", [Player(1, "alice", 95, ALICE_1.board, ALICE_1.discards),
               Player(2, "bob", 55, BOB_1.board, BOB_1.discards)],
        button=2, header_extra=", standard Fantasyland", match="Match #M1, hand 3")
    *_, r3 = audit_text(session(hand2=h2, hand3=h3))
    assert "R-MATCH-1" in rules_of(r3)


def test_rejected_hand_breaks_the_chain_but_not_the_other_hands() -> None:
    broken = pineapple_hand("H2", [ALICE_FL, BOB_2], button=2,
                            header_extra=", standard Fantasyland", match="Match #M1, hand 2")
    broken = broken.replace("bob is dealt [Jd 4c Tc]", "bob is dealt [Jd 4c Tx]")
    items = list(audit_items(read_text(session(hand2=broken), "s.txt"), Ruleset()))
    kinds = [type(i).__name__ for i in items]
    assert kinds == ["HandResult", "HistoryParseError", "HandResult"]
    # H3 follows a rejected hand: its button and stacks are not checked against H1.
    assert isinstance(items[2], HandResult) and items[2].valid


def test_r_deal_2_too_many_players_for_pineapple() -> None:
    text = pineapple_hand(
        "H1",
        [ALICE_1, BOB_1,
         Player(3, "carol", 10, "2d 3d 4d / 5c 6d 7d 8d 9d / Tc Td Ts Js Jd", "Ad Kc Qc Ah"),
         Player(4, "dave", 10, "2s 3h 4h / 5c 6h 8c 9h 9c / Tc Kh Qh Jd Jd", "As Ks Qs Ad")],
        button=4, max_seats=4,
    )
    r = one(text)
    assert "R-DEAL-2" in rules_of(r)


# -- sit-outs and disconnections (R-TIME-2, R-TIME-3) ------------------------------------------


def _with_line_after(text: str, anchor: str, line: str) -> str:
    assert anchor in text, anchor
    return text.replace(anchor, anchor + line + "\n", 1)


def test_r_time_3_sit_out_takes_effect_when_the_match_ends() -> None:
    h1 = pineapple_hand("H1", [ALICE_1, BOB_1], button=2, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 1")
    h1 = _with_line_after(h1, "*** STREET 5 ***\n", "bob sits out")
    h2 = pineapple_hand("H2", [ALICE_FL, BOB_2], button=2, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 2")
    results = audit_text(h1 + h2 + session().split("\n\n")[-1])
    h1r, h2r, h3r = results
    assert h1r.valid and h2r.valid  # the Fantasyland hand of the match is still played
    assert rules_of(h3r) == ["R-TIME-3"]
    assert h3r.violations[0].player == "bob"


def test_r_time_3_returns_line_lets_the_player_back_in() -> None:
    h1 = pineapple_hand("H1", [ALICE_1, BOB_1], button=2, header_extra=", standard Fantasyland",
                        match="Match #M1, hand 1")
    h1 = _with_line_after(h1, "*** STREET 5 ***\n", "bob sits out")
    h3 = session().split("\n\n")[-1]
    h3 = _with_line_after(h3, "*** STREET 1 ***\n", "bob returns")
    results = audit_text(h1 + session().split("\n\n")[1] + "\n" + h3)
    assert [r.valid for r in results] == [True, True, True], [r.violations for r in results]


def test_r_time_2_disconnected_player_is_placed_automatically() -> None:
    h1 = pineapple_hand("H1", [ALICE_1, BOB_1], button=2)
    h1 = _with_line_after(h1, "*** STREET 4 ***\n", "bob disconnects")
    r = one(h1)
    assert "R-TIME-2" in rules_of(r)
    assert {v.player for v in r.violations if v.rule == "R-TIME-2"} == {"bob"}


def test_r_deal_2_fantasyland_beyond_the_deck() -> None:
    """Classic, 4 players, one owed 14 cards: 13 * 3 + 14 = 53 > 52 (R-DEAL-2)."""
    text = (
        "OFC Hand #C1: Classic, progressive Fantasyland - 1 points/point - "
        "2026-11-29 21:04:11 UTC\n"
        "Table 'T' 4-max - Seat #4 is the button\n"
        "Seat 1: a (100) in Fantasyland (14 cards)\nSeat 2: b (100)\nSeat 3: c (100)\n"
        "Seat 4: d (100)\n"
    )
    r = one(text)
    assert "R-DEAL-2" in rules_of(r)
