"""`ofc-audit audit`: the CLI.md contract (JSON keys, exit codes, --hand, rejections)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ofc_audit.cli.app import app
from tests.support.histories import WORKED_EXAMPLE

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "h.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_json_document_has_the_contract_keys(tmp_path: Path) -> None:
    path = write(tmp_path, WORKED_EXAMPLE)
    result = runner.invoke(app, ["audit", str(path), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) >= {"hands", "rejected", "totals"}
    (hand,) = doc["hands"]
    assert {"hand_id", "file", "line", "match_id", "valid", "violations", "players",
            "recorded_mismatches", "unverifiable"} <= set(hand)
    assert hand["hand_id"] == "PD-1001" and hand["line"] == 1 and hand["match_id"] == "M-77"
    assert hand["file"] == str(path)
    assert [p["name"] for p in hand["players"]] == ["alice", "bob", "carol"]  # by seat
    alice = hand["players"][0]
    assert {"name", "seat", "fouled", "royalties", "points", "stack_before", "stack_after",
            "fantasyland_next"} <= set(alice)
    assert alice["royalties"] == {"top": 1, "middle": 0, "bottom": 10, "total": 11}
    assert alice["fantasyland_next"] == {"qualifies": False, "cards": None}
    assert hand["players"][1]["fantasyland_next"] == {"qualifies": True, "cards": 14}
    assert doc["totals"] == {"hands": 1, "valid": 1, "with_violations": 0,
                             "with_mismatches": 0, "rejected": 0, "incomplete": 0,
                             "duplicates": 0, "conflicts": 0}


def test_violation_and_mismatch_exit_1(tmp_path: Path) -> None:
    text = WORKED_EXAMPLE.replace("points -6, stack 250 -> 244", "points -5, stack 250 -> 244")
    result = runner.invoke(app, ["audit", str(write(tmp_path, text)), "--json"])
    assert result.exit_code == 1
    hand = json.loads(result.stdout)["hands"][0]
    assert hand["valid"] is True
    (mismatch,) = hand["recorded_mismatches"]
    assert {k: mismatch[k] for k in ("player", "field", "recorded", "computed")} == {
        "player": "alice", "field": "points", "recorded": -5, "computed": -6}


def test_rejected_text_is_listed_with_line_and_column(tmp_path: Path) -> None:
    bad = WORKED_EXAMPLE.replace("alice is dealt [3c 3d Js]", "alice is dealt [3c 3d Jx]")
    text = bad + "\n" + WORKED_EXAMPLE.replace("#PD-1001", "#PD-1002")
    result = runner.invoke(app, ["audit", str(write(tmp_path, text)), "--json"])
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert [h["hand_id"] for h in doc["hands"]] == ["PD-1002"]
    (rejected,) = doc["rejected"]
    assert rejected["line"] == 16 and rejected["column"] == 23  # the bad card
    assert doc["totals"]["rejected"] == 1


def test_readable_output_names_rule_ids(tmp_path: Path) -> None:
    text = WORKED_EXAMPLE.replace("bob is dealt [4d 4s 2s]", "bob is dealt [4d 4s As]").replace(
        "discards [2s]", "discards [As]")
    result = runner.invoke(app, ["audit", str(write(tmp_path, text))])
    assert result.exit_code == 1
    assert "R-CARD-3" in result.stdout and "PD-1001" in result.stdout


def test_explain_one_hand(tmp_path: Path) -> None:
    path = write(tmp_path, WORKED_EXAMPLE)
    result = runner.invoke(app, ["audit", str(path), "--hand", "PD-1001"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    for expected in ("*** STREET 5 ***", "board now", "quads", "Settlement, pair by pair",
                     "alice v bob", "Verdict"):
        assert expected in out


def test_unknown_hand_and_missing_file_are_usage_errors(tmp_path: Path) -> None:
    path = write(tmp_path, WORKED_EXAMPLE)
    assert runner.invoke(app, ["audit", str(path), "--hand", "NOPE"]).exit_code == 2
    assert runner.invoke(app, ["audit", str(tmp_path / "missing.txt")]).exit_code == 2
    assert runner.invoke(app, ["audit", str(path), "--rules", "nonsense"]).exit_code == 2


def test_folder_means_every_txt_under_it() -> None:
    result = runner.invoke(app, ["audit", str(ROOT / "sample_histories"), "--json"])
    doc = json.loads(result.stdout)
    files = {h["file"] for h in doc["hands"]}
    assert any("disputes" in f for f in files)
    assert len(files) >= 25
    assert result.exit_code == 1  # the disputes


def test_exit_zero_reports_findings_but_exits_0(tmp_path: Path) -> None:
    text = WORKED_EXAMPLE.replace("points -6, stack 250 -> 244", "points -5, stack 250 -> 244")
    path = write(tmp_path, text)
    assert runner.invoke(app, ["audit", str(path)]).exit_code == 1
    result = runner.invoke(app, ["audit", str(path), "--exit-zero"])
    assert result.exit_code == 0
    assert "alice: the site recorded points -5, the rules give -6" in result.stdout
    assert runner.invoke(app, ["audit", str(tmp_path / "nope.txt"), "--exit-zero"]).exit_code == 2
