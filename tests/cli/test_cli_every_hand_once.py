"""Every hand once: duplicates read and counted once, conflicts listed and never scored
(docs/CLI.md, "Which files are read, and every hand once"), whatever the runner."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ofc_audit.cli.app import app
from ofc_audit.cli.errors import EXIT_FINDINGS
from tests.support.histories import cli_runner, worked_example_hand

ROOT = Path(__file__).resolve().parents[2]
CHAIN = ROOT / "sample_histories" / "classic_4p_session.txt"  # 3 valid hands, one table


def audit_json(*args: str) -> tuple[int, dict[str, Any], str]:
    result = cli_runner().invoke(app, ["audit", "--json", *args])
    return result.exit_code, json.loads(result.stdout), result.stderr


@pytest.fixture
def two_exports(tmp_path: Path) -> tuple[Path, Path]:
    first, second = tmp_path / "export.txt", tmp_path / "export (1).txt"
    shutil.copy(CHAIN, first)
    shutil.copy(CHAIN, second)
    return first, second


@pytest.mark.parametrize("runner", [[], ["--jobs", "2"]])
def test_the_same_export_saved_twice_is_three_hands_once(
    two_exports: tuple[Path, Path], runner: list[str]
) -> None:
    first, second = two_exports
    status, alone, _ = audit_json(str(first))
    status, both, _ = audit_json(*runner, str(first), str(second))
    assert status == 0
    # The hands (their money, chains and findings) are those of one copy.
    assert both["hands"] == alone["hands"]
    assert [h["valid"] for h in both["hands"]] == [True, True, True]
    assert both["totals"] == {**alone["totals"], "duplicates": 3}
    ids = [h["hand_id"] for h in alone["hands"]]
    lines = [h["line"] for h in alone["hands"]]
    assert both["duplicates"] == [
        {"hand_id": i, "file": str(second), "line": n, "first_file": str(first),
         "first_line": n} for i, n in zip(ids, lines, strict=True)]
    assert both["conflicts"] == []


def test_a_document_without_duplicates_only_gains_empty_keys() -> None:
    _, document, _ = audit_json(str(CHAIN))
    assert list(document) == ["hands", "rejected", "totals", "duplicates", "conflicts"]
    assert document["duplicates"] == [] and document["conflicts"] == []
    assert list(document["totals"])[-2:] == ["duplicates", "conflicts"]
    assert document["totals"]["duplicates"] == document["totals"]["conflicts"] == 0


def test_a_file_named_twice_is_read_once() -> None:
    status, document, _ = audit_json(str(CHAIN), str(CHAIN))
    assert status == 0
    assert document["totals"]["hands"] == 3 and document["duplicates"] == []
    assert all(h["valid"] for h in document["hands"])


def test_the_text_lists_duplicates_after_the_hands(two_exports: tuple[Path, Path]) -> None:
    first, second = two_exports
    result = cli_runner().invoke(app, ["audit", str(first), str(second)])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    listed = [line for line in lines if line.startswith("duplicate #")]
    assert len(listed) == 3
    line = next(n for n, text in enumerate(CHAIN.read_text().splitlines(), 1)
                if text.startswith("OFC Hand #"))
    assert listed[0].endswith(f"at {second}:{line}, first read at {first}:{line}")
    assert lines.index(listed[-1]) == len(lines) - 3  # then a blank line and the summary
    assert lines[-1].startswith("3 hands: 3 valid")


def test_a_conflict_is_listed_not_scored_and_exits_1(tmp_path: Path) -> None:
    hand = worked_example_hand("C-1", "Table C")
    (tmp_path / "a.txt").write_text(hand, encoding="utf-8")
    (tmp_path / "b.txt").write_text(hand.rstrip() + "\n# edited by hand\n", encoding="utf-8")
    (tmp_path / "c.txt").write_text(worked_example_hand("X-1", "Table X"), encoding="utf-8")
    status, document, _ = audit_json(str(tmp_path))
    assert status == EXIT_FINDINGS
    assert [h["hand_id"] for h in document["hands"]] == ["X-1"]
    assert document["totals"]["hands"] == 1 and document["totals"]["conflicts"] == 1
    assert document["conflicts"] == [{"hand_id": "C-1", "copies": [
        {"file": str(tmp_path / "a.txt"), "line": 1},
        {"file": str(tmp_path / "b.txt"), "line": 1}]}]
    text = cli_runner().invoke(app, ["audit", str(tmp_path)])
    assert text.exit_code == EXIT_FINDINGS
    assert (f"conflict #C-1: {tmp_path / 'a.txt'}:1, {tmp_path / 'b.txt'}:1: not scored"
            in text.stdout.splitlines())


def test_session_counts_each_hand_once(two_exports: tuple[Path, Path], tmp_path: Path,
                                       without_charts: None) -> None:
    first, second = two_exports
    alone = cli_runner().invoke(app, ["session", "--json", str(first),
                                      "--out", str(tmp_path / "one")])
    both = cli_runner().invoke(app, ["session", "--json", str(first), str(second),
                                     "--out", str(tmp_path / "two")])
    assert alone.exit_code == both.exit_code == 0, both.stderr
    once = json.loads(alone.stdout)
    assert "duplicates" not in once and "conflicts" not in once  # read once: as it was
    ids, lines = _ids_and_lines()
    listed = [{"hand_id": i, "file": str(second), "line": n, "first_file": str(first),
               "first_line": n} for i, n in zip(ids, lines, strict=True)]
    # The money, owes and payments of one copy; the second copy's hands listed.
    assert json.loads(both.stdout) == once | {"duplicates": listed, "conflicts": []}
    assert both.stderr.count("ofc-audit: duplicate #") == 3
    # session.json: the same lists after the keys it always had, counted in its totals.
    one = json.loads((tmp_path / "one" / "session.json").read_text(encoding="utf-8"))
    two = json.loads((tmp_path / "two" / "session.json").read_text(encoding="utf-8"))
    assert list(two) == [*one, "duplicates", "conflicts"]
    assert two["duplicates"] == listed and two["conflicts"] == []
    assert two["totals"] == one["totals"] | {"duplicates": 3, "conflicts": 0}
    assert {k: v for k, v in two.items() if k not in ("duplicates", "conflicts", "totals")} \
        == {k: v for k, v in one.items() if k != "totals"}


def _ids_and_lines() -> tuple[list[str], list[int]]:
    """The ids and header lines of :data:`CHAIN`'s hands, read from its text."""
    found = [(text.split("#")[1].split(":")[0], n)
             for n, text in enumerate(CHAIN.read_text().splitlines(), 1)
             if text.startswith("OFC Hand #")]
    return [i for i, _ in found], [n for _, n in found]


@pytest.mark.parametrize("runner", [[], ["--jobs", "2"], ["--archive"]])
def test_session_lists_a_conflict_and_scores_neither_copy(
    tmp_path: Path, runner: list[str], without_charts: None
) -> None:
    hand = worked_example_hand("C-1", "Table C")
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.txt").write_text(hand, encoding="utf-8")
    (folder / "b.txt").write_text(hand.rstrip() + "\n# edited by hand\n", encoding="utf-8")
    (folder / "c.txt").write_text(worked_example_hand("X-1", "Table X"), encoding="utf-8")
    if runner == ["--archive"]:
        archive = str(tmp_path / "a.duckdb")
        imported = cli_runner().invoke(app, ["import", str(folder), "--archive", archive])
        assert imported.exit_code == EXIT_FINDINGS, imported.output
        inputs = ["--archive", archive]
    else:
        inputs = [*runner, str(folder)]
    result = cli_runner().invoke(app, ["session", "--json", *inputs,
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == EXIT_FINDINGS, result.output
    document = json.loads(result.stdout)
    copies = [{"file": str(folder / "a.txt"), "line": 1},
              {"file": str(folder / "b.txt"), "line": 1}]
    assert document["duplicates"] == []
    assert document["conflicts"] == [{"hand_id": "C-1", "copies": copies}]
    stored = json.loads((tmp_path / "out" / "session.json").read_text(encoding="utf-8"))
    assert stored["totals"]["hands"] == 1  # X-1 alone is scored
    assert stored["totals"]["conflicts"] == 1 and stored["totals"]["duplicates"] == 0
    assert stored["conflicts"] == document["conflicts"]


# -- audit --hand: the hand once ----------------------------------------------------------------


def test_hand_of_a_duplicate_is_explained_once(two_exports: tuple[Path, Path],
                                              tmp_path: Path) -> None:
    first, second = two_exports
    hand_id = next(line for line in CHAIN.read_text().splitlines()
                   if line.startswith("OFC Hand #")).split("#")[1].split(":")[0]
    alone = cli_runner().invoke(app, ["audit", str(first), "--hand", hand_id, "--json"])
    both = cli_runner().invoke(app, ["audit", str(first), str(second), "--hand", hand_id,
                                     "--json"])
    assert alone.exit_code == both.exit_code == 0, both.output
    document = json.loads(both.stdout)
    assert document["hands"] == json.loads(alone.stdout)["hands"]  # one hand, the first copy
    assert [(d["file"], d["first_file"]) for d in document["duplicates"]] == [
        (str(second), str(first))]
    assert "duplicates" not in json.loads(alone.stdout)  # read once: as it always was
    text = cli_runner().invoke(app, ["audit", str(first), str(second), "--hand", hand_id])
    assert text.stdout.rstrip().splitlines()[-1].startswith(f"duplicate #{hand_id} at {second}")
    page = tmp_path / "page.html"
    result = cli_runner().invoke(app, ["audit", str(first), str(second), "--hand", hand_id,
                                       "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    assert "export.txt, line" in html and "export (1).txt" not in html


def test_hand_of_a_conflict_is_listed_with_no_page(tmp_path: Path) -> None:
    hand = worked_example_hand("C-1", "Table C")
    (tmp_path / "a.txt").write_text(hand, encoding="utf-8")
    (tmp_path / "b.txt").write_text(hand.rstrip() + "\n# edited by hand\n", encoding="utf-8")
    listed = f"conflict #C-1: {tmp_path / 'a.txt'}:1, {tmp_path / 'b.txt'}:1: not scored"
    text = cli_runner().invoke(app, ["audit", str(tmp_path), "--hand", "C-1"])
    assert text.exit_code == EXIT_FINDINGS
    assert text.stdout.strip() == listed
    document = cli_runner().invoke(app, ["audit", str(tmp_path), "--hand", "C-1", "--json"])
    assert document.exit_code == EXIT_FINDINGS
    assert json.loads(document.stdout) == {"hands": [], "conflicts": [
        {"hand_id": "C-1", "copies": [{"file": str(tmp_path / "a.txt"), "line": 1},
                                      {"file": str(tmp_path / "b.txt"), "line": 1}]}]}
    page = tmp_path / "page.html"
    result = cli_runner().invoke(app, ["audit", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"),
                                       "--hand", "C-1", "--html", str(page)])
    assert result.exit_code == EXIT_FINDINGS
    assert not page.exists()
    assert f"ofc-audit: {listed}" in result.stderr
    assert "no dispute page of #C-1: its copies differ" in result.stderr


# -- review: the same reading -------------------------------------------------------------------


def test_review_reads_each_hand_once(tmp_path: Path) -> None:
    from tests.review.test_review_command import FAST, HEADS_UP

    first, second = tmp_path / "export.txt", tmp_path / "export (1).txt"
    first.write_text(HEADS_UP, encoding="utf-8")
    second.write_text(HEADS_UP.replace("\n", "\r\n"), encoding="utf-8")  # the same hand
    alone = cli_runner().invoke(app, ["review", "--json", *FAST, str(first)])
    both = cli_runner().invoke(app, ["review", "--json", *FAST, str(first), str(second)])
    assert alone.exit_code == both.exit_code == 0, both.output
    # One hand reviewed, not two; the copy read once listed after the review.
    assert json.loads(both.stdout) == json.loads(alone.stdout) | {
        "duplicates": [{"hand_id": "EX-1", "file": str(second), "line": 1,
                        "first_file": str(first), "first_line": 1}], "conflicts": []}
    assert f"ofc-audit: duplicate #EX-1 at {second}:1, first read at {first}:1" in both.stderr
    second.write_text(HEADS_UP.replace("Seat 1: alice (250)", "Seat 1: alice (251)"),
                      encoding="utf-8")
    clash = cli_runner().invoke(app, ["review", "--json", *FAST, str(first), str(second)])
    assert clash.exit_code == EXIT_FINDINGS, clash.output
    assert json.loads(clash.stdout)["hands"] == []
    assert json.loads(clash.stdout)["conflicts"] == [
        {"hand_id": "EX-1", "copies": [{"file": str(first), "line": 1},
                                       {"file": str(second), "line": 1}]}]
    assert f"ofc-audit: conflict #EX-1: {first}:1, {second}:1: not scored" in clash.stderr


def test_review_of_a_conflicting_hand_is_a_finding_not_a_usage_error(tmp_path: Path) -> None:
    """``review --hand`` on an id whose copies differ: listed, not reviewed, exit 1 (as
    ``audit --hand``), where an id no file holds is a usage error (2)."""
    from tests.review.test_review_command import FAST, HEADS_UP

    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text(HEADS_UP, encoding="utf-8")
    second.write_text(HEADS_UP.replace("Seat 1: alice (250)", "Seat 1: alice (251)"),
                      encoding="utf-8")
    clash = cli_runner().invoke(app, ["review", *FAST, str(first), str(second),
                                      "--hand", "EX-1"])
    assert clash.exit_code == EXIT_FINDINGS, clash.output
    assert f"ofc-audit: conflict #EX-1: {first}:1, {second}:1: not scored" in clash.stderr
    assert "no review of #EX-1: its copies differ" in clash.stderr
    missing = cli_runner().invoke(app, ["review", *FAST, str(first), "--hand", "NOPE-1"])
    assert missing.exit_code == 2 and "no hand #NOPE-1" in missing.stderr


@pytest.mark.parametrize("source", ["files", "archive"])
def test_review_json_lists_the_duplicates_once_read_twice(
    two_exports: tuple[Path, Path], tmp_path: Path, source: str
) -> None:
    first, second = two_exports
    options = ["review", "--json", "--rollouts", "8", "--seed", "3"]
    alone = cli_runner().invoke(app, [*options, str(first)])
    assert alone.exit_code == 0, alone.output
    once = json.loads(alone.stdout)
    assert "duplicates" not in once and "conflicts" not in once  # as it always was
    if source == "archive":
        archive = str(tmp_path / "a.duckdb")
        imported = cli_runner().invoke(app, ["import", str(first), str(second),
                                             "--archive", archive])
        assert imported.exit_code == 0, imported.output
        both = cli_runner().invoke(app, [*options, "--archive", archive])
    else:
        both = cli_runner().invoke(app, [*options, str(first), str(second)])
    assert both.exit_code == 0, both.output
    ids, lines = _ids_and_lines()
    listed = [{"hand_id": i, "file": str(second), "line": n, "first_file": str(first),
               "first_line": n} for i, n in zip(ids, lines, strict=True)]
    # The review of one copy, then the copies read once.
    assert json.loads(both.stdout) == once | {"duplicates": listed, "conflicts": []}
