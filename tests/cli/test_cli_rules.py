"""`ofc-audit rules`: the rulebook in the terminal and as JSON (CLI.md)."""

from __future__ import annotations

import json

from ofc_audit.cli.app import app
from ofc_audit.game.rulebook import all_rules
from tests.support.histories import cli_runner

runner = cli_runner()


def test_without_ids_every_rule_is_listed_with_its_title() -> None:
    result = runner.invoke(app, ["rules"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["rule", "title"]
    listed = [line.split()[0] for line in lines[2:] if line.startswith("R-")]
    assert listed == [r.id for r in all_rules()]
    assert "R-FL-4      The button at a Fantasyland hand" in result.stdout


def test_ids_print_the_full_text_options_and_presets_in_any_case() -> None:
    result = runner.invoke(app, ["rules", "r-fl-4", "R-Settle-3"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("R-FL-4  The button at a Fantasyland hand\n")
    assert "R-SETTLE-3  Stack cap" in out
    assert "  Options: button_moves_on_fantasyland" in out
    assert "  Options: stack_cap" in out
    assert "    - pokerdom: the button moves on Fantasyland hands" in out
    # The worked check of R-SETTLE-3 is there in full, wrapped but not cut.
    assert "P2 finishes at 0." in " ".join(out.split())
    assert out.index("R-FL-4") < out.index("R-SETTLE-3")  # in the order asked


def test_json_gives_id_title_text_options() -> None:
    result = runner.invoke(app, ["rules", "--json", "R-MATCH-3", "r-score-1"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert [r["id"] for r in doc] == ["R-MATCH-3", "R-SCORE-1"]
    assert set(doc[0]) >= {"id", "title", "text", "options"}
    assert doc[0]["options"] == ["round_hand_cap"] and doc[1]["options"] == []
    assert "20" in doc[0]["text"] and doc[0]["presets"][0].startswith("tonybet:")
    everything = json.loads(runner.invoke(app, ["rules", "--json"]).stdout)
    assert len(everything) == len(all_rules()) == 46


def test_an_unknown_id_exits_2_naming_the_closest_ids() -> None:
    result = runner.invoke(app, ["rules", "R-FL-4", "R-SETLE-3"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("ofc-audit: error: no rule 'R-SETLE-3'")
    assert "R-SETTLE-3" in result.stderr


def test_help_shows_examples() -> None:
    result = runner.invoke(app, ["rules", "--help"])
    assert result.exit_code == 0
    assert "ofc-audit rules R-FL-4 r-settle-3" in result.stdout
