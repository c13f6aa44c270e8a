"""Every hand once, across everything ever imported (CLI.md, "Which files are read, and
every hand once"): a duplicate is counted once and listed, a conflict is listed and neither
copy is scored."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ofc_audit.archive.importer import normalized
from tests.archive.conftest import SAMPLES, cli, outputs_of

SESSION = SAMPLES / "classic_4p_session.txt"  # 3 hands of one table


def test_normalized_text_known_answers() -> None:
    assert normalized(b"\xef\xbb\xbfOFC Hand #1\r\nSeat 1\r\n\r\n") == b"OFC Hand #1\nSeat 1"
    assert normalized(b"OFC Hand #1\nSeat 1\n") == b"OFC Hand #1\nSeat 1"
    # A comment is text of the hand (as in a plain run's comparison).
    assert normalized(b"OFC Hand #1\nSeat 1\n# next\n") == b"OFC Hand #1\nSeat 1\n# next"


def test_downloaded_twice_counts_once(tmp_path: Path) -> None:
    """The report of issue 21: ``export.txt`` and ``export (1).txt`` hold the same hands;
    the second one's copy has Windows line ends and a byte-order mark."""
    first = tmp_path / "export.txt"
    second = tmp_path / "export (1).txt"
    shutil.copy(SESSION, first)
    second.write_bytes(b"\xef\xbb\xbf" + SESSION.read_bytes().replace(b"\n", b"\r\n"))
    archive = tmp_path / "a.duckdb"
    run = cli(["import", first, second, "--archive", archive])
    assert run.code == 0
    assert "hands: 3 new, 3 duplicate(s), 0 conflict(s)" in run.stdout
    # In the words of audit on the files themselves.
    line = next(n for n, text in enumerate(SESSION.read_text().splitlines(), 1)
                if text.startswith("OFC Hand #"))
    hand_id = SESSION.read_text().splitlines()[line - 1].split("#")[1].split(":")[0]
    assert (f"duplicate #{hand_id} at {second}:{line}, first read at {first}:{line}"
            in run.stdout.splitlines())
    again = cli(["import", tmp_path, "--archive", archive])  # the folder: both files known
    assert again.stdout.startswith("files: 0 read, 2 skipped")
    # Scored once, the duplicates listed: what audit prints on the two files, byte for byte.
    for extra in ([], ["--json"]):
        stored = outputs_of(["audit", "--archive", archive, *extra])
        assert stored == outputs_of(["audit", first, second, *extra])
    document = json.loads(stored["stdout"])  # type: ignore[arg-type]
    assert document["totals"]["duplicates"] == 3 and len(document["hands"]) == 3
    assert [(d["file"], d["first_file"]) for d in document["duplicates"]] == \
        [(str(second), str(first))] * 3
    session = json.loads(cli(["session", "--archive", archive, "--json", "--out",
                              tmp_path / "r"]).stdout)
    assert sum(p["hands"] for p in session["players"]) == 3 * 4  # 4 players, 3 hands


def test_duplicate_in_a_later_import(tmp_path: Path) -> None:
    archive = tmp_path / "a.duckdb"
    assert "hands: 3 new" in cli(["import", SESSION, "--archive", archive]).stdout
    copy = tmp_path / "again.txt"
    shutil.copy(SESSION, copy)
    run = cli(["import", copy, "--archive", archive])
    assert "hands: 0 new, 3 duplicate(s)" in run.stdout


def test_conflict_scores_neither_copy(tmp_path: Path) -> None:
    text = SESSION.read_text(encoding="utf-8")
    heads = [i for i, line in enumerate(text.splitlines()) if line.startswith("OFC Hand")]
    lines = text.splitlines(keepends=True)
    changed = tmp_path / "changed.txt"
    # Another seat 1 stack in the last hand: same id, other text.
    last = "".join(lines[heads[2]:])
    assert "Seat 1: " in last
    changed.write_text(last.replace("Seat 1: alice (", "Seat 1: alice (1", 1) if
                       "Seat 1: alice (" in last else last.replace("Seat 1: ", "Seat 1: x", 1),
                       encoding="utf-8")
    archive = tmp_path / "a.duckdb"
    run = cli(["import", SESSION, changed, "--archive", archive])
    assert run.code == 1
    assert "hands: 3 new, 0 duplicate(s), 1 conflict(s)" in run.stdout
    hand_id = lines[heads[2]].split("#")[1].split(":")[0]
    listed = f"conflict #{hand_id}: {SESSION}:{heads[2] + 1}, {changed}:1: not scored"
    assert listed in run.stdout.splitlines()
    # ... as audit on the files lists it.
    files = cli(["audit", SESSION, changed])
    assert files.code == 1 and listed in files.stdout.splitlines()
    audit = cli(["audit", "--archive", archive, "--json"])
    assert audit.code == 1
    document = json.loads(audit.stdout)
    assert document["totals"]["hands"] == 2
    assert document["conflicts"] == [{"hand_id": hand_id, "copies": [
        {"file": str(SESSION), "line": heads[2] + 1}, {"file": str(changed), "line": 1}]}]
    # The session says it on standard error, as it does on the files.
    told = cli(["session", "--archive", archive, "--out", tmp_path / "s"])
    assert f"ofc-audit: {listed}" in told.stderr.splitlines()
    session = json.loads(cli(["session", "--archive", archive, "--json", "--out",
                              tmp_path / "r"]).stdout)
    assert sum(p["hands"] for p in session["players"]) == 2 * 4
