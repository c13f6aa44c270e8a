"""An import by lanes (``--jobs N``, ``--engine dask``) stores what the import in one process
stores: every row of every table, the duplicates and conflicts, the tracking rows and the
chain states at each file's end (issue 21 point 3)."""

from __future__ import annotations

import hashlib
import logging
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from ofc_audit.archive.importer import Importer, ImportReport
from ofc_audit.archive.schema import open_archive
from ofc_audit.audit.driver import Runner
from ofc_audit.engines.processes import ProcessPool
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.present.audit_text import audit_hand_text
from tests.archive.conftest import SAMPLES, cli, hand_starts, outputs_of

RULES = Ruleset.load("standard")
TABLES = ("items", "s_hands", "s_seats", "s_pairs", "s_violations", "s_mismatches",
          "s_rejected", "duplicates", "conflicts")


def contents(archive: Path) -> dict[str, Any]:
    """Every table's rows in their order (a digest of each), and the tracking rows but
    their import times."""
    found: dict[str, Any] = {}
    with duckdb.connect(str(archive), read_only=True) as con:
        for table in TABLES:
            columns = [row[0] for row in con.execute(f"DESCRIBE {table}").fetchall()]
            order = ", ".join(c for c in ("ord", "pos", "file_id", "line") if c in columns)
            rows = con.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
            found[table] = (len(rows), hashlib.sha256(repr(rows).encode()).hexdigest())
        found["files"] = con.execute(
            'SELECT file_id, path, name, size, sha256, "offset", next_line, held, chains '
            "FROM files ORDER BY file_id").fetchall()
    return found


def imported(archive: Path, paths: list[Path], runner: Runner | None,
             final: bool = False) -> ImportReport:
    con = open_archive(archive, RULES, create=True)
    try:
        return Importer(con, RULES, audit_hand_text, final=final,
                        runner=runner).import_paths([str(p) for p in paths])
    finally:
        con.close()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory, simulated: Path,
           short_simulated: Path) -> Path:
    """Rejected hands, a copy of a file (duplicates), a copy with one hand changed
    (a conflict), one with other line ends, a file whose last hand is cut mid-way (held
    back), and the samples."""
    root = tmp_path_factory.mktemp("lanes")
    shutil.copy(simulated, root / "a_long.txt")
    text = short_simulated.read_bytes()
    lines = text.split(b"\n")
    heads = [k for k, line in enumerate(lines) if line.startswith(b"OFC Hand")]
    lines[heads[4] + 4] = b"not a line of the format"  # rejected, its table known
    lines[heads[9]] = b"OFC Hand #BAD: Nonsense"  # rejected, its table not known
    (root / "b_faults.txt").write_bytes(b"\n".join(lines))
    shutil.copy(short_simulated, root / "c_copy.txt")
    changed = text.replace(b"points +", b"points  +", 1)
    assert changed != text
    (root / "d_conflict.txt").write_bytes(changed)
    # A copy with Windows line ends and a byte-order mark: duplicates all the same.
    (root / "d_windows.txt").write_bytes(b"\xef\xbb\xbf" + text.replace(b"\n", b"\r\n"))
    renamed = simulated.read_bytes().replace(b"OFC Hand #", b"OFC Hand #E")
    (root / "e_cut.txt").write_bytes(renamed[:hand_starts(renamed)[300] + 200])
    shutil.copytree(SAMPLES, root / "samples")
    return root


def test_jobs_store_what_one_process_stores(folder: Path, tmp_path: Path) -> None:
    serial = imported(tmp_path / "one.duckdb", [folder], None)
    lanes = imported(tmp_path / "two.duckdb", [folder],
                     ProcessPool(2, min_bytes=0, window=40, table_batch=150))
    assert serial.lines() == lanes.lines()
    assert serial.duplicates and serial.conflicts and serial.rejected and serial.held
    assert contents(tmp_path / "one.duckdb") == contents(tmp_path / "two.duckdb")


def test_a_grown_file_goes_on_from_the_lanes_chains(simulated: Path, tmp_path: Path) -> None:
    """Imported by lanes up to a hand cut mid-way, then grown: the second import (in one
    process) goes on from the chain states the lanes' import stored, as from the import in
    one process's."""
    data = simulated.read_bytes()
    cut = hand_starts(data)[900] + 300
    path = tmp_path / "growing.txt"
    for name, runner in (("one", None), ("two", ProcessPool(2, min_bytes=0, window=64))):
        path.write_bytes(data[:cut])
        assert imported(tmp_path / f"{name}.duckdb", [path], runner).held
        with path.open("ab") as out:
            out.write(data[cut:])
        again = imported(tmp_path / f"{name}.duckdb", [path], runner)
        assert again.clean and again.hands == 2000 - 900
    one, two = contents(tmp_path / "one.duckdb"), contents(tmp_path / "two.duckdb")
    assert one == two
    assert outputs_of(["audit", "--archive", tmp_path / "two.duckdb", "--json"]) == \
        outputs_of(["audit", path, "--json"])


def test_a_rejected_first_copy_reads_the_file_again(short_simulated: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand whose first copy the reader rejects is no copy of it (the import in one
    process stores it as a new hand): the look at the headers cannot tell, so the file is
    read again in one process, with the same result."""
    text = short_simulated.read_bytes()
    starts = hand_starts(text)
    first = text[starts[3]:starts[4]]
    broken = first.replace(b"*** STREET 1 ***", b"*** STREET ONE ***", 1)
    assert broken != first
    path = tmp_path / "f.txt"
    path.write_bytes(text[:starts[3]] + broken + text[starts[3]:])
    serial = imported(tmp_path / "one.duckdb", [path], None, final=True)
    in_one_process = []
    read_pieces = Importer._read_pieces

    def spy(self: Importer, *args: Any) -> tuple[int, int, int]:
        in_one_process.append(args[1].name)
        return read_pieces(self, *args)

    monkeypatch.setattr(Importer, "_read_pieces", spy)
    lanes = imported(tmp_path / "two.duckdb", [path], ProcessPool(2, min_bytes=0, window=16),
                     final=True)
    assert serial.lines() == lanes.lines()
    assert in_one_process == [str(path)]  # the lanes' reading was set aside
    assert not serial.duplicates and not serial.conflicts
    assert contents(tmp_path / "one.duckdb") == contents(tmp_path / "two.duckdb")


def test_cli_jobs_and_unchanged_files(folder: Path, tmp_path: Path) -> None:
    archive = tmp_path / "a.duckdb"
    run = cli(["import", folder / "a_long.txt", "--archive", archive, "--jobs", "2"])
    assert run.code == 0, run.stderr
    assert "hands: 2000 new" in run.stdout
    assert cli(["import", folder / "a_long.txt", "--archive", archive, "--jobs", "2"]
               ).stdout.startswith("files: 0 read, 1 skipped")
    assert cli(["import", folder, "--archive", archive, "--jobs", "2",
                "--engine", "dask"]).code == 2  # --jobs is for the local engine


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=None, silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_dask_stores_what_one_process_stores(folder: Path, tmp_path: Path,
                                             client: Any) -> None:
    from ofc_audit.engines.dask_engine import DaskRunner

    paths = [folder / "b_faults.txt", folder / "c_copy.txt", folder / "e_cut.txt"]
    serial = imported(tmp_path / "one.duckdb", paths, None)
    lanes = imported(tmp_path / "two.duckdb", paths, DaskRunner(client, window=50))
    assert serial.lines() == lanes.lines()
    assert contents(tmp_path / "one.duckdb") == contents(tmp_path / "two.duckdb")
