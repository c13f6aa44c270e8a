"""A history cut off in the middle (issue 11): reported once as incomplete, accusing nobody,
breaking its table's chain; in the replay, the audit JSON and text, and the session tables.
The cut points are counted by hand on FORMAT.md's worked example (line 1 is the header)."""

from __future__ import annotations

import json
from pathlib import Path

from ofc_audit.cli.app import app
from ofc_audit.session.tables import build_tables
from tests.replay.test_replay import audit_text, one, rules_of
from tests.support.histories import WORKED_EXAMPLE, cli_runner, worked_example_hand

runner = cli_runner()

# Line 24 is bob's street 3 placement; line 25 "*** STREET 4 ***".
CUT_BEFORE_STREET_4 = WORKED_EXAMPLE.split("*** STREET 4 ***")[0]
# Line 22 is alice's street 3 placement; bob has not been dealt street 3.
CUT_IN_STREET_3 = WORKED_EXAMPLE.split("bob is dealt [5d 5s Qh]")[0]


def test_cut_at_a_street_boundary_is_one_incomplete_record_and_no_violation() -> None:
    r = one(CUT_BEFORE_STREET_4)
    assert r.violations == ()
    assert r.valid  # nothing in the text breaks a rule
    assert r.incomplete is not None
    assert r.incomplete.line == 24
    assert r.incomplete.missing == ("street 4", "street 5", "SHOWDOWN", "SUMMARY")
    assert r.incomplete.message.startswith(
        "the history stops at line 24; missing: street 4, street 5, SHOWDOWN, SUMMARY")
    # Unfinished boards are not scored: nobody fouled, nobody paid.
    assert all(p.result is None and p.points is None and p.stack_after is None
               for p in r.players)
    assert not r.clean


def test_cut_in_the_middle_of_a_street_names_the_turns_missing() -> None:
    r = one(CUT_IN_STREET_3)
    assert r.violations == ()
    assert r.incomplete is not None
    assert r.incomplete.line == 22
    assert r.incomplete.missing == (
        "rest of street 3", "street 4", "street 5", "SHOWDOWN", "SUMMARY")
    assert "bob's deal and placement" in r.incomplete.message


def test_cut_between_a_deal_and_its_placement() -> None:
    text = WORKED_EXAMPLE.split("bob places middle [5d 5s], discards [Qh]")[0]
    r = one(text)
    assert r.violations == ()
    assert r.incomplete is not None and r.incomplete.line == 23
    assert "bob's placement" in r.incomplete.message


def test_cut_after_the_last_street_before_the_fantasyland_section() -> None:
    """The FANTASYLAND section may stand after the streets: a text that stops after street 5
    without it and without SHOWDOWN/SUMMARY is cut off, not a player never dealt."""
    lines = WORKED_EXAMPLE.split("\n")
    fl = lines[6:9]  # the FANTASYLAND section (lines 7 to 9)
    streets = lines[9:34]  # streets 1 to 5 (lines 10 to 34)
    text = "\n".join(lines[:6] + streets) + "\n"
    r = one(text)
    assert r.violations == ()
    assert r.incomplete is not None and r.incomplete.missing == (
        "FANTASYLAND", "SHOWDOWN", "SUMMARY")
    # The same section present after the streets makes the hand complete again.
    whole = "\n".join(lines[:6] + streets + fl + lines[34:])
    assert one(whole).incomplete is None


def test_a_player_missing_inside_a_present_street_is_still_r_act_1() -> None:
    """alice's street 3 is missing but bob's is there: a gap, not a cut."""
    text = WORKED_EXAMPLE.replace(
        "alice is dealt [7h 6c Ts]\nalice places top [6c] bottom [7h], discards [Ts]\n", "")
    r = one(text)
    assert r.incomplete is None
    assert ("R-ACT-1", "alice") in {(v.rule, v.player) for v in r.violations}


def test_gap_before_the_cut_is_reported_and_the_cut_is_not() -> None:
    text = CUT_BEFORE_STREET_4.replace(
        "alice is dealt [7h 6c Ts]\nalice places top [6c] bottom [7h], discards [Ts]\n", "")
    r = one(text)
    assert r.incomplete is not None and r.incomplete.missing[0] == "street 4"
    # bob is dealt before alice (out of turn), and alice is not dealt: both on street 3.
    assert {(v.rule, v.player, v.line) for v in r.violations} == {
        ("R-ACT-1", "bob", 21), ("R-ACT-1", "alice", 20)}


def test_a_hand_with_a_showdown_or_summary_is_never_incomplete() -> None:
    with_summary = CUT_BEFORE_STREET_4 + WORKED_EXAMPLE[WORKED_EXAMPLE.index("*** SUMMARY"):]
    r = one(with_summary)
    assert r.incomplete is None
    assert {v.rule for v in r.violations} == {"R-ACT-1"}  # the streets it lacks, as before
    assert {v.player for v in r.violations} == {"alice", "bob"}


def test_header_and_seats_only_misses_every_street() -> None:
    text = WORKED_EXAMPLE.split("*** FANTASYLAND ***")[0]
    r = one(text)
    assert r.violations == ()
    assert r.incomplete is not None and r.incomplete.line == 6
    assert r.incomplete.missing == (
        "street 1", "street 2", "street 3", "street 4", "street 5", "FANTASYLAND",
        "SHOWDOWN", "SUMMARY")


def test_an_incomplete_hand_breaks_its_tables_chain_only() -> None:
    """Nothing is checked across it: the next hand of its table has a stack that was never
    carried and the button anywhere, and no violation; another table's chain goes on."""
    cut = worked_example_hand("A-1", "Riga").split("*** STREET 4 ***")[0]
    other_1 = worked_example_hand("B-1", "Kaunas")
    after = worked_example_hand("A-2", "Riga", button=2).replace("alice (250)", "alice (7)")
    other_2 = worked_example_hand("B-2", "Kaunas")  # the same stacks again: R-SETTLE-5 etc.
    results = audit_text(cut + other_1 + after + other_2)
    by_id = {r.hand_id: r for r in results}
    assert by_id["A-1"].incomplete is not None
    assert "R-SETTLE-5" not in rules_of(by_id["A-2"])
    assert "R-FL-4" not in rules_of(by_id["A-2"]) and "R-MATCH-1" not in rules_of(by_id["A-2"])
    assert "R-SETTLE-5" in rules_of(by_id["B-2"])


# -- the audit's JSON and text, the session tables ----------------------------------------------


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "cut.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_audit_json_adds_incomplete_keys_and_exits_1(tmp_path: Path) -> None:
    cut_hand = CUT_BEFORE_STREET_4.replace("PD-1001", "X2").replace("Tashkent 3", "Riga")
    path = _write(tmp_path, WORKED_EXAMPLE + "\n" + cut_hand)
    result = runner.invoke(app, ["audit", str(path), "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    complete, cut = doc["hands"]
    assert complete["incomplete"] is None
    assert cut["valid"] is True and cut["violations"] == []
    assert cut["incomplete"]["line"] == 43 + 24  # its header is on line 44
    assert cut["incomplete"]["missing"] == ["street 4", "street 5", "SHOWDOWN", "SUMMARY"]
    assert cut["incomplete"]["message"].startswith("the history stops at line 67;")
    assert doc["totals"] == {"hands": 2, "valid": 2, "with_violations": 0,
                             "with_mismatches": 0, "rejected": 0, "incomplete": 1,
                             "duplicates": 0, "conflicts": 0}
    assert runner.invoke(app, ["audit", str(path), "--json", "--exit-zero"]).exit_code == 0


def test_audit_text_says_where_the_history_stops(tmp_path: Path) -> None:
    path = _write(tmp_path, CUT_IN_STREET_3)
    result = runner.invoke(app, ["audit", str(path)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].endswith("legal play, incomplete, 2 results that cannot be checked")
    assert lines[1] == (
        "    incomplete: the history stops at line 22; missing: rest of street 3, street 4, "
        "street 5, SHOWDOWN, SUMMARY (the rest of street 3: bob's deal and placement). "
        "Nobody is at fault for what the text does not hold: no result is computed for this "
        "hand, and nothing is checked across it"
    )
    # Valid and with violations split the hands; the incomplete one is among them.
    assert lines[-1] == ("1 hand: 1 valid, 0 with violations; 0 with recorded mismatches "
                         "and 1 incomplete, valid or not; 0 rejected")
    explained = runner.invoke(app, ["audit", str(path), "--hand", "PD-1001"])
    assert explained.exit_code == 1
    assert "Incomplete: the history stops at line 22" in explained.stdout
    assert ("Verdict: The hand cannot be scored: its history is incomplete.\n"
            "  Play: what the history holds breaks no rule.") in explained.stdout
    assert "not compared" not in result.stdout  # the missing SUMMARY is said once
    assert "line   22: INCOMPLETE:" in explained.stdout


def test_hands_table_has_an_incomplete_column() -> None:
    results = audit_text(WORKED_EXAMPLE + "\n" + CUT_BEFORE_STREET_4.replace("PD-1001", "X2"))
    hands = build_tables(results).hands
    assert hands["incomplete"].isna().tolist() == [True, False]
    assert hands["incomplete"].iloc[1].startswith("the history stops at line 67;")
