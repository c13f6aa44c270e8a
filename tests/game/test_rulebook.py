"""The rulebook shipped with the package: the same ids as the specification, a text for
every id the code can cite, and look-ups by id in any case."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ofc_audit.game import rulebook
from ofc_audit.game.rulebook import all_rules, cited, closest_ids, rule_text, rule_title

ROOT = Path(__file__).resolve().parents[2]
RULE_ID = re.compile(r"R-[A-Z]+-[0-9]+")


def _spec() -> Path | None:
    spec = ROOT.parent / "shared" / "spec" / "RULES.md"
    return spec if spec.is_file() else None


def test_the_ids_are_the_ids_of_rules_md_in_its_order() -> None:
    spec = _spec()
    if spec is None:
        pytest.skip("no ../shared/spec/RULES.md next to the repository")
    # A rule is defined by a list item that starts with its id.
    spec_ids = re.findall(r"^- (R-[A-Z]+-[0-9]+) ", spec.read_text("utf-8"), flags=re.M)
    assert len(spec_ids) == len(set(spec_ids)) > 40  # the pattern finds the rules
    assert [r.id for r in all_rules()] == spec_ids


def test_every_rule_the_code_cites_has_a_text() -> None:
    package = ROOT / "ofc_audit"
    sources = [*package.rglob("*.py"), *package.glob("templates/*")]
    cited_ids = {i for path in sources for i in RULE_ID.findall(path.read_text("utf-8"))}
    assert "R-FL-4" in cited_ids and "R-SETTLE-3" in cited_ids  # the grep finds them
    missing = sorted(i for i in cited_ids if not rule_title(i))
    assert missing == []


def test_every_rule_has_a_one_line_title_and_sentences() -> None:
    for rule in all_rules():
        assert rule.title and "\n" not in rule.title and len(rule.title) <= 60, rule.id
        assert rule.text.endswith(".") and len(rule.text) > len(rule.title), rule.id
        assert "\\" not in rule.text and "  " not in rule.text, rule.id


def test_the_numbers_and_options_of_the_spec_are_kept() -> None:
    # Known answers from RULES.md, checked in the project's wording.
    assert "min" not in rule_text("R-SETTLE-3").text  # own words, not the spec's formula
    settle = rule_text("R-SETTLE-3").text
    for number in ("5", "10", "135", "40", "20", "0"):
        assert re.search(rf"\b{number}\b", settle), number
    assert rule_text("R-SETTLE-3").options == ("stack_cap",)
    royalties = rule_text("R-ROY-2").text
    assert all(f" {n}" in royalties for n in (2, 4, 8, 12, 20, 30, 50))
    assert "22" in rule_text("R-ROY-3").text and "9" in rule_text("R-ROY-3").text
    order = rule_text("R-ORDER-2").text
    for example in ("Qs Qd 7c", "Qh Qc 6d 5s 4h", "Qh Qc 9d 8s 2h", "Ah Kc 2d 2s 5h",
                    "As Kd Qc", "Ah Kc Jd 4s 3h", "Ah Kc 2d 4s 5h", "A K 5 4 2"):
        assert example in order, example
    assert "17" in rule_text("R-FL-2").text and "16" in rule_text("R-FL-2").text
    assert rule_text("R-JOKER-1").options == ("joker_excludes",)
    assert rule_text("R-MATCH-3").options == ("round_hand_cap",)


def test_the_presets_are_named_on_the_rules_they_change() -> None:
    assert any(p.startswith("pokerdom:") for p in rule_text("R-FL-4").presets)
    assert any(p.startswith("tonybet:") for p in rule_text("R-DEAL-1").presets)
    assert any(p.startswith("tonybet:") and "20" in p for p in rule_text("R-MATCH-3").presets)
    assert rule_text("R-SCORE-1").presets == ()


def test_look_ups_ignore_case_and_unknown_ids_fail_plainly() -> None:
    assert rule_text("r-fl-4") is rule_text("R-FL-4")
    assert rule_title("R-Settle-3").startswith("Stack cap")
    assert rule_title("R-FL-99") == ""
    assert cited("R-FL-4") == 'R-FL-4 "The button at a Fantasyland hand"'
    assert cited("R-NOPE-1") == "R-NOPE-1"
    with pytest.raises(KeyError):
        rule_text("R-FL-99")


def test_closest_ids_offer_the_same_group_first() -> None:
    assert closest_ids("R-SETLE-3")[0] == "R-SETTLE-3"
    assert closest_ids("fl-4")[0] == "R-FL-4"
    assert all(i.startswith("R-FL-") for i in closest_ids("R-FL-9"))
    assert len(closest_ids("R-FL-9", n=2)) == 2
    assert closest_ids("anything") and all(rule_title(i) for i in closest_ids("anything"))


def test_the_docstring_examples_hold() -> None:
    import doctest

    result = doctest.testmod(rulebook)
    assert result.attempted > 0 and result.failed == 0


def test_with_rule_titles_adds_a_title_column_after_the_rule() -> None:
    import pandas as pd

    from ofc_audit.game.rulebook import with_rule_titles

    frame = pd.DataFrame({"hand_id": ["H1", "H2"], "rule": ["R-FL-4", "R-NOPE-1"],
                          "line": [3, 9]})
    out = with_rule_titles(frame)
    assert list(out.columns) == ["hand_id", "rule", "title", "line"]
    assert out["title"].tolist() == ["The button at a Fantasyland hand", ""]
    assert list(frame.columns) == ["hand_id", "rule", "line"]  # the input is not changed
    assert list(with_rule_titles(frame.head(0)).columns) == ["hand_id", "rule", "title", "line"]
