"""``audit`` and ``session`` with ``--archive`` print and write what they print and write on
the files themselves, byte for byte (CLI.md: "with the same output as on the files")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.archive.conftest import SAMPLES, cli, outputs_of


@pytest.fixture(scope="module")
def samples_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample histories imported once: the archive that every test of them reads (none
    of the commands compared here writes to it)."""
    archive = tmp_path_factory.mktemp("samples") / "a.duckdb"
    imported = cli(["import", SAMPLES, "--archive", archive])
    assert imported.code == 0, imported.stderr
    return archive


def _same(inputs: list[str], archive: Path, tmp_path: Path, import_: bool = True) -> None:
    if import_:
        imported = cli(["import", *inputs, "--archive", archive])
        assert imported.code in (0, 1), imported.stderr
    for extra in ([], ["--json"]):
        plain = outputs_of(["audit", *inputs, *extra])
        stored = outputs_of(["audit", "--archive", archive, *extra])
        assert stored == plain
        assert plain["stdout"]  # something was compared
    plain = outputs_of(["session", *inputs, "--json", "--out", tmp_path / "a"], tmp_path / "a")
    stored = outputs_of(["session", "--archive", archive, "--json", "--out", tmp_path / "b"],
                        tmp_path / "b")
    assert stored == plain
    assert "report.html" in plain and "csv/seats.csv" in plain


def test_sample_histories(samples_archive: Path, tmp_path: Path) -> None:
    _same([str(SAMPLES)], samples_archive, tmp_path, import_=False)


def test_simulated_file(simulated: Path, tmp_path: Path) -> None:
    _same([str(simulated)], tmp_path / "a.duckdb", tmp_path)


@pytest.mark.parametrize("filters", [
    ["--player", "alice"],
    ["--table", "Tashkent 3", "--since", "2026-11-29"],
    ["--until", "2026-11-29 21:00"],
])
def test_filters_as_usual(filters: list[str], samples_archive: Path, tmp_path: Path) -> None:
    archive = samples_archive
    for extra in ([], ["--json"]):
        assert outputs_of(["audit", "--archive", archive, *filters, *extra]) == \
            outputs_of(["audit", SAMPLES, *filters, *extra])
    plain = outputs_of(["session", SAMPLES, *filters, "--out", tmp_path / "a"], tmp_path / "a")
    stored = outputs_of(["session", "--archive", archive, *filters, "--out", tmp_path / "b"],
                        tmp_path / "b")
    plain["stdout"] = plain["stdout"].replace(b"/a/", b"/b/")  # type: ignore[union-attr]
    assert stored == plain


def test_unknown_player_exits_2_as_on_files(samples_archive: Path) -> None:
    archive = samples_archive
    plain = cli(["audit", SAMPLES, "--player", "alicia"])
    stored = cli(["audit", "--archive", archive, "--player", "alicia"])
    # The files' run first counts the files of the folder that hold no history (the
    # README, the sidecars); the archive reads no file.
    skipped, error = plain.stderr.split("\n", 1)
    assert skipped.startswith("ofc-audit: read ") and " not hand histories" in skipped
    assert (stored.code, stored.stdout, stored.stderr) == (2, "", error)
    assert "closest: 'alice'" in stored.stderr


def test_rejected_entries_in_their_place(tmp_path: Path) -> None:
    source = (SAMPLES / "classic_4p_session.txt").read_text(encoding="utf-8")
    heads = [i for i, line in enumerate(source.splitlines()) if line.startswith("OFC Hand")]
    lines = source.splitlines(keepends=True)
    lines[heads[1] + 4] = "this is no line of a hand\n"  # the second hand is rejected
    path = tmp_path / "bad.txt"
    path.write_text("".join(lines), encoding="utf-8")
    archive = tmp_path / "a.duckdb"
    imported = cli(["import", path, "--archive", archive])
    assert imported.code == 1 and "1 rejected" in imported.stdout
    for extra in ([], ["--json"]):
        plain = outputs_of(["audit", path, *extra])
        assert plain["exit"] == 1 and b"REJECTED" in plain["stdout"] or extra
        assert outputs_of(["audit", "--archive", archive, *extra]) == plain


def test_duplicates_and_a_conflict_listed_as_on_files(tmp_path: Path) -> None:
    """A re-downloaded export and an edited copy of a table's last hand: the archive's
    audit and session list the duplicates and the conflict as the files' runs list them
    (the conflict is the last hand of its table, so no chain follows it)."""
    source = SAMPLES / "classic_4p_session.txt"
    text = source.read_text(encoding="utf-8")
    last = text.rindex("OFC Hand #")
    again = tmp_path / "export (1).txt"
    again.write_text(text, encoding="utf-8")
    edited = tmp_path / "edited.txt"
    edited.write_text(text[last:].replace(": ", ":  ", 1), encoding="utf-8")
    inputs = [str(source), str(again), str(edited)]
    _same(inputs, tmp_path / "a.duckdb", tmp_path)
    plain = outputs_of(["audit", *inputs, "--json"])
    # The last hand's re-downloaded copy is one more copy of the conflict, not a duplicate.
    assert b'"duplicates": 2, "conflicts": 1}' in plain["stdout"]  # type: ignore[operator]
    assert plain["stdout"].count(b'{"file": ') == 3  # type: ignore[union-attr]
