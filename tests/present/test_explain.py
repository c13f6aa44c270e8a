"""The terminal explanation of one hand (``ofc-audit audit FILE --hand ID``) and the audit's
finding lines: rule titles next to ids, a verdict that says whether play was legal and
whether the site paid what the rules say, in points and money, and no internal field names.

The known answers are worked out by hand from RULES.md; the sample disputes state theirs in
their leading comments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ofc_audit.audit.driver import audit_items, audit_paths
from ofc_audit.game.rulebook import cited
from ofc_audit.game.ruleset import Ruleset, Variant
from ofc_audit.history.reader import read_text
from ofc_audit.history.records import Hand, Stake
from ofc_audit.present.dispute import hand_page, shown
from ofc_audit.present.explain import explain_hand, hand_findings, mismatch_text
from ofc_audit.present.settlement import SettlementStep, settlement_steps
from ofc_audit.present.verdict import hand_verdict
from ofc_audit.replay.results import HandResult, Mismatch
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text
from tests.support.histories import WORKED_EXAMPLE

ROOT = Path(__file__).resolve().parents[2]
DISPUTES = ROOT / "sample_histories" / "disputes"
INTERNAL = re.compile(r"stack_after|stack_before|fantasyland_next|points_a|transfer_to_a")


def results_of(text: str) -> list[HandResult]:
    items = list(audit_items(read_text(text, "h.txt"), Ruleset(), explain=True))
    assert all(isinstance(i, HandResult) for i in items)
    return [i for i in items if isinstance(i, HandResult)]


def explained(text: str) -> str:
    (result,) = results_of(text)
    return explain_hand(result)


def dispute(name: str) -> HandResult:
    (result,) = [
        r for r in audit_paths([str(DISPUTES / name)], Ruleset(), explain=True)
        if isinstance(r, HandResult)
    ]
    return result


def verdict_section(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Verdict: "))
    return lines[start:]


def test_worked_example_the_site_paid_what_the_rules_say() -> None:
    out = explained(WORKED_EXAMPLE)
    # FORMAT.md: points -6/-2/+8, stacks 244/178/308, all as the SUMMARY records them. The
    # hand is hand 2 of a match whose first hand is not in the file: that is not verified,
    # and the verdict claims nothing about it.
    section = verdict_section(out)
    assert section[:3] == [
        "Verdict: Part of this hand cannot be checked (hidden cards or hands missing from the "
        "file); nothing that could be checked differs from the rules.",
        "  Play: no rule is broken as far as the history shows.",
        "  Payment: what could be computed agrees with the site's SUMMARY (line 39); the rest "
        "cannot be checked.",
    ]
    assert "every result" not in out
    assert "  Not verified (hidden cards or hands missing from the file):" in out
    assert "previous hand of the match is not in the input" in out
    assert not INTERNAL.search(out)
    assert "stack before" in out and "Fantasyland next" in out


def test_a_wrong_payout_is_priced_at_the_stake_on_one_line_per_player() -> None:
    # The site pays alice -5 instead of -6 (and her stack 245 instead of 244), 0.10 EUR a point.
    text = WORKED_EXAMPLE.replace("points -6, stack 250 -> 244", "points -5, stack 250 -> 245")
    out = explained(text)
    section = verdict_section(out)
    assert section[0] == "Verdict: The site paid alice 1 point (0.10 EUR) too much."
    # Points and stack of one player on one line, what moved priced at the stake.
    assert ("    line 40: alice: the site recorded points -5 and stack after 245, the rules "
            "give -6 and 244: paid 1 point (0.10 EUR) too much") in section
    assert sum("alice:" in line for line in section) == 1  # her one line
    # No rule decides it but the sum of the pairs (R-SCORE-5), and the verdict says so.
    why = section.index("  Why:")
    assert section[why + 1].startswith("    line 40: A player's points are the sum of its "
                                       f"pairs' points ({cited('R-SCORE-5')}")
    assert "legal play" not in out.lower() and not INTERNAL.search(out)


def test_without_a_summary_the_payout_is_not_compared() -> None:
    text = WORKED_EXAMPLE[: WORKED_EXAMPLE.index("*** SUMMARY ***")]
    (result,) = results_of(text)
    assert result.summary_line is None and not result.mismatches
    section = verdict_section(explain_hand(result))
    assert section[0] == ("Verdict: What the site paid cannot be checked: the history has no "
                          "SUMMARY.")
    assert ("  Payment: not compared: the history has no SUMMARY, so what the site paid "
            "could not be compared.") in section
    assert hand_verdict(result).tone == "neutral"
    assert "    not compared: the history has no SUMMARY, so what the site paid could not be " \
        "compared" in hand_findings(result)


def test_fouled_hand_paid_as_legal() -> None:
    # The file's comment: ramune's JJ9 top is over a pair of eights in the middle: fouled;
    # the site paid her as live. Recorded vs computed: Big Al +19/+25, ramune -16/-33,
    # tomas -3/+8, at 0.05 EUR a point.
    result = dispute("fouled_hand_paid_as_legal.txt")
    out = explain_hand(result)
    section = verdict_section(out)
    # The answer: who was paid how much too much or too little, in money.
    assert section[0] == (
        "Verdict: The site paid Big Al 6 points (0.30 EUR) too little, ramune 17 points "
        "(0.85 EUR) too much and tomas 11 points (0.55 EUR) too little.")
    # Not "legal play": play within the rules that scores as a foul, citing R-SCORE-3.
    assert section[1] == (
        "  Play: within the rules, no rule is broken. ramune's board is fouled: play within "
        f"the rules that scores as a foul ({cited('R-SCORE-3')}).")
    # The cause first, one sentence with the rules, then the effects: 3 lines for 3 people.
    assert section[2:8] == [
        "  Why:",
        "    line 85: ramune's board is fouled, top is stronger than middle "
        f"({cited('R-ORDER-2')}); a fouled board is play within the rules that scores as a "
        "foul: it loses all three rows and the scoop to every live hand and earns no royalties "
        f"({cited('R-SCORE-3')}); the site scored it as a live hand and counted 6 royalties "
        "for it.",
        "  So:",
        "    line 84: Big Al: the site recorded points +19 and stack after 319, the rules give "
        "+25 and 325: paid 6 points (0.30 EUR) too little",
        "    line 85: ramune: the site recorded points -16 and stack after 84, the rules give "
        "-33 and 67: paid 17 points (0.85 EUR) too much",
        "    line 86: tomas: the site recorded points -3 and stack after 217, the rules give "
        "+8 and 228: paid 11 points (0.55 EUR) too little",
    ]
    # The foul itself, with its rule's title (top JJ over a middle pair of eights).
    assert (f"  ramune (seat 2): FOULED ({cited('R-ORDER-2')}): top is stronger than middle"
            in out)
    # The audit's one-line findings still list each recorded field.
    assert len(hand_findings(result)) == len(result.mismatches) == 8


def test_wrong_royalty_cause_first_with_the_clause() -> None:
    # The file's comment: nadia's top TT pays 5 and her bottom quads 10: 15 royalties; the
    # site counted 14, and every points and stack line follows from it (a stake in points).
    out = explain_hand(dispute("wrong_royalty_in_summary.txt"))
    section = verdict_section(out)
    assert section[0] == ("Verdict: The site paid Big Al 1 point too much, nadia 2 points too "
                          "little and oleg 1 point too much.")
    why = section.index("  Why:")
    assert section[why + 1] == (
        f"    line 42: nadia's top pair of tens pays 5 ({cited('R-ROY-3')}) and bottom quads "
        f"of eights pays 10 ({cited('R-ROY-1')}); the site counted 14 royalties, the rules "
        "give 15.")
    assert section[why + 2] == "  So:"
    assert [line.split(":")[1].strip() for line in section[why + 3:why + 6]] == [
        "Big Al", "nadia", "oleg"]


def test_wrong_capped_transfer() -> None:
    # The file's comment: settled in the right order (R-SETTLE-2/3) Big Al ends at 23 and
    # carol at 265; the site recorded 21 and 267. 1.00 USD a point.
    out = explain_hand(dispute("wrong_capped_transfer.txt"))
    section = verdict_section(out)
    assert section[0] == ("Verdict: The site paid Big Al 2 points (2.00 USD) too little and "
                          "carol 2 points (2.00 USD) too much.")
    assert section[3] == (
        f"    line 56: The stack cap decides what moves ({cited('R-SETTLE-3')}): each pair in "
        "turn moves the points due, but no more than the winner's or the loser's stack at that "
        "moment; here Big Al v bob: 10 of 22 moved, capped by Big Al's stack of 10; bob v "
        "carol: 18 of 20 moved, capped by bob's stack of 18.")
    assert section[5:7] == [
        "    line 56: Big Al: the site recorded stack after 21, the rules give 23: paid 2 points "
        "(2.00 USD) too little",
        "    line 58: carol: the site recorded stack after 267, the rules give 265: paid 2 "
        "points (2.00 USD) too much",
    ]
    assert "moves min(20 due, carol 247, bob 18) = 18; bob 18 -> 0, carol 247 -> 265" in out
    # The results table shows the money that moved (bob had only 28), not points x stake.
    assert re.search(r"bob .* -42 +28 +0 +-28\.00 USD", out)


def test_one_settlement_walk_for_the_terminal_and_the_page() -> None:
    # edge_capped_transfer (the corpus README): Big Al is due 22 with a stack of 10, and
    # bob owes carol 20 with 18 left. The page takes the terminal's steps, names shown.
    text = (ROOT / "sample_histories" / "edge_capped_transfer.txt").read_text("utf-8")
    hostile = text.replace("Big Al", "Big\u202eAl")
    (result,) = results_of(hostile)
    steps = settlement_steps(result)
    assert [s.cap for s in steps if s.capped] == [
        f"capped by Big\u202eAl's stack of 10, {cited('R-SETTLE-3')}",
        f"capped by bob's stack of 18, {cited('R-SETTLE-3')}",
    ]
    page = hand_page(next(h for h in read_text(hostile, "h.txt") if isinstance(h, Hand)),
                     result, {})
    assert page.settlement == tuple(s.named(shown) for s in steps)
    assert all(isinstance(s, SettlementStep) for s in page.settlement)
    assert page.settlement[0].cap.startswith("capped by Big<U+202E>Al's stack of 10")
    assert [s.cap for s in steps if not s.capped] == [""]


def test_a_violation_is_cited_with_its_title_everywhere() -> None:
    result = dispute("duplicate_card.txt")
    out = explain_hand(result)
    said = ('R-CARD-3 "No card twice in one hand": Qh dealt to Big Al was already seen at '
            "line 12")
    assert f"  line   19: VIOLATION {said}" in out  # the step of the replay
    section = verdict_section(out)
    assert section[0] == 'Verdict: The hand breaks 1 rule: R-CARD-3 "No card twice in one hand".'
    assert section[1] == "  Play: 1 rule broken (R-CARD-3)."
    assert section[3].startswith(f"    line 19: {said}")
    assert hand_findings(result)[0].startswith(f"    line 19: {said}")
    assert "((" not in out and "))" not in out


def test_hidden_cards_say_what_could_not_be_verified() -> None:
    path = ROOT / "sample_histories" / "pineapple_3p_own_view_hidden_cards.txt"
    results = [r for r in audit_paths([str(path)], Ruleset(), explain=True)
               if isinstance(r, HandResult) and r.unverifiable]
    assert results
    for result in results:
        section = verdict_section(explain_hand(result))
        assert "cannot be checked" in section[0] or not result.clean
        start = section.index("  Not verified (hidden cards or hands missing from the file):")
        assert section[start + 1:] == [f"    {u}" for u in result.unverifiable]


@pytest.mark.parametrize(
    ("field", "recorded", "computed", "expected"),
    [
        ("points", -5, -6, "bob: the site recorded points -5, the rules give -6: 1 point "
                           "(0.10 EUR) less for bob than the site recorded"),
        ("stack_before", 180, 178, "bob: the site recorded stack before 180, the rules give "
                                   "178: 2 points (0.20 EUR) less for bob than the site recorded"),
        ("fantasyland_next", None, 14, "bob: the site recorded no Fantasyland next hand, the "
                                       "rules give Fantasyland next hand with 14 cards"),
        ("fouled", True, False, "bob: the site recorded fouled, the rules give not fouled"),
        ("royalties", 12, 13, "bob: the site recorded royalties 12, the rules give 13: 1 "
                              "royalty point more for bob than the site recorded"),
    ],
)
def test_each_kind_of_mismatch_reads_as_a_sentence(
    field: str, recorded: int | bool | None, computed: int | bool | None, expected: str
) -> None:
    from decimal import Decimal

    stake = Stake(Decimal("0.10"), "EUR", "0.10")
    assert mismatch_text(Mismatch("bob", field, recorded, computed, 40), stake) == expected
    points = Stake(Decimal("1"), "points", "1")
    assert "(" not in mismatch_text(Mismatch("bob", "points", 3, 5, 40), points)


def test_on_simulated_faults_the_verdict_matches_the_findings() -> None:
    """Whatever the faults: the answer names the broken rules exactly when a rule is
    broken, says whom the site paid wrongly exactly when a paid amount differs, every
    mismatch's line is told as a cause or an effect, and no internal name shows."""
    for variant in (Variant.PINEAPPLE, Variant.CLASSIC):
        text = simulate_text(SimulationOptions(
            Ruleset(variant=variant), players=3, hands=60, seed=11, faults=0.5))
        results = results_of(text)
        assert any(r.mismatches for r in results) and any(not r.valid for r in results)
        for result in results:
            v = hand_verdict(result)
            pays = any(m.field in ("points", "stack_after") and m.computed is not None
                       and m.recorded is not None for m in result.mismatches)
            assert v.headline.startswith("The hand breaks") == bool(result.violations)
            assert any(w in v.headline for w in ("too much", "too little")) == pays, v.headline
            told = {c.line for c in v.causes} | {e.line for e in v.effects}
            assert {m.line for m in result.mismatches} <= told
            assert (v.tone == "bad") == (not result.clean)
            assert not INTERNAL.search(explain_hand(result))

