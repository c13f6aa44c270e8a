"""Files tracked across imports: unchanged files skipped, grown files read on from where the
last import stopped (chains going on), a hand cut mid-way left for next time, a rewritten
file read again, the same path read once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb

from tests.archive.conftest import SAMPLES, cli, hand_starts, outputs_of


def _counts(archive: Path) -> tuple[int, int]:
    with duckdb.connect(str(archive), read_only=True) as con:
        row = con.execute("SELECT count(*) FILTER (WHERE is_hand), count(*) FROM items"
                          ).fetchone()
        assert row is not None
        return int(row[0]), int(row[1])


def test_import_again_skips_unchanged_files(tmp_path: Path) -> None:
    archive = tmp_path / "a.duckdb"
    first = cli(["import", SAMPLES, "--archive", archive])
    assert first.code == 0
    assert first.stdout.startswith("files: 39 read, 0 skipped")
    assert "hands: 66 new, 0 duplicate(s), 0 conflict(s), 0 rejected" in first.stdout
    again = cli(["import", SAMPLES, "--archive", archive])
    assert again.code == 0
    assert again.stdout.startswith("files: 0 read, 39 skipped")
    assert "hands: 0 new" in again.stdout
    assert _counts(archive) == (66, 66)


def test_same_path_twice_is_read_once(tmp_path: Path) -> None:
    archive = tmp_path / "a.duckdb"
    one = SAMPLES / "classic_4p_session.txt"
    run = cli(["import", one, SAMPLES, str(one).replace("sample_histories", "sample_histories/."),
               "--archive", archive])
    assert run.stdout.startswith("files: 39 read")
    assert "0 duplicate(s)" in run.stdout


def test_grown_file_is_read_from_where_it_stopped(simulated: Path, tmp_path: Path) -> None:
    """Hands 1-700 first, then the rest: the archive holds what one import of the whole
    file holds, so each table's stacks, button and match went on across the two imports
    (a broken chain would say 'the match's previous hand is not in the input')."""
    data = simulated.read_bytes()
    cut = hand_starts(data)[700]
    path = tmp_path / "growing.txt"
    path.write_bytes(data[:cut])
    archive = tmp_path / "a.duckdb"
    first = cli(["import", path, "--archive", archive])
    assert "hands: 700 new" in first.stdout
    with path.open("ab") as out:
        out.write(data[cut:])
    second = cli(["import", path, "--archive", archive])
    assert second.stdout.startswith("files: 1 read")
    assert "hands: 1300 new, 0 duplicate(s)" in second.stdout
    for extra in ([], ["--json"]):
        plain = outputs_of(["audit", path, *extra])
        assert outputs_of(["audit", "--archive", archive, *extra]) == plain


def test_hand_cut_mid_way_waits_for_the_rest(short_simulated: Path, tmp_path: Path) -> None:
    data = short_simulated.read_bytes()
    starts = hand_starts(data)
    middle = starts[50] + (starts[51] - starts[50]) // 2  # inside hand 51
    middle = data.rindex(b"\n", 0, middle) + 1  # at a line's start: a whole line is missing
    path = tmp_path / "h.txt"
    path.write_bytes(data[:middle])
    archive = tmp_path / "a.duckdb"
    first = cli(["import", path, "--archive", archive])
    assert "hands: 50 new" in first.stdout
    assert f"held back: the hand at {path}:" in first.stdout
    assert _counts(archive) == (50, 50)
    with path.open("ab") as out:
        out.write(data[middle:])
    second = cli(["import", path, "--archive", archive])
    assert f"hands: {len(starts) - 50} new" in second.stdout
    assert "held back" not in second.stdout
    for extra in ([], ["--json"]):
        assert outputs_of(["audit", "--archive", archive, *extra]) == \
            outputs_of(["audit", path, *extra])


def test_final_imports_a_cut_hand_as_it_stands(short_simulated: Path, tmp_path: Path) -> None:
    data = short_simulated.read_bytes()
    starts = hand_starts(data)
    end = data.rindex(b"\n", 0, (starts[10] + starts[11]) // 2) + 1  # half of hand 11
    path = tmp_path / "cut.txt"
    path.write_bytes(data[:end])
    archive = tmp_path / "a.duckdb"
    assert "hands: 10 new" in cli(["import", path, "--archive", archive]).stdout
    assert cli(["import", path, "--archive", archive]).stdout.startswith(
        "files: 0 read, 1 skipped")  # unchanged, and the hand is still cut
    final = cli(["import", path, "--archive", archive, "--final"])
    assert "hands: 1 new" in final.stdout and "held back" not in final.stdout
    other = tmp_path / "b.duckdb"
    assert "hands: 11 new" in cli(["import", path, "--archive", other, "--final"]).stdout
    for stored in (archive, other):
        assert outputs_of(["audit", "--archive", stored, "--json"]) == \
            outputs_of(["audit", path, "--json"])


def test_rewritten_file_is_read_again(short_simulated: Path, tmp_path: Path) -> None:
    data = short_simulated.read_bytes()
    starts = hand_starts(data)
    path = tmp_path / "r.txt"
    path.write_bytes(data[:starts[30]])
    archive = tmp_path / "a.duckdb"
    assert "hands: 30 new" in cli(["import", path, "--archive", archive]).stdout
    path.write_bytes(data[starts[10]:starts[40]])  # other bytes where the first ones were
    again = cli(["import", path, "--archive", archive])
    assert f"read again from its start (changed since the last import): {path}" in again.stdout
    assert "hands: 30 new, 0 duplicate(s)" in again.stdout
    assert _counts(archive) == (30, 30)


def test_touched_file_reads_nothing_new(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    shutil.copy(SAMPLES / "classic_4p_session.txt", path)
    archive = tmp_path / "a.duckdb"
    assert "hands: 3 new" in cli(["import", path, "--archive", archive]).stdout
    os.utime(path, ns=(1, 1))
    again = cli(["import", path, "--archive", archive])
    assert again.stdout.startswith("files: 1 read") and "hands: 0 new" in again.stdout
    assert _counts(archive) == (3, 3)


def test_a_link_to_a_file_is_that_file(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    shutil.copy(SAMPLES / "classic_4p_session.txt", path)
    link = tmp_path / "link.txt"
    link.symlink_to(path)
    archive = tmp_path / "a.duckdb"
    run = cli(["import", path, link, "--archive", archive])
    assert run.stdout.startswith("files: 1 read") and "hands: 3 new, 0 duplicate(s)" in \
        run.stdout


def test_nothing_to_import_is_a_usage_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    run = cli(["import", empty, "--archive", tmp_path / "a.duckdb"])
    assert run.code == 2 and "no hand histories found in" in run.stderr
    assert not (tmp_path / "a.duckdb").exists()
