"""``--out DIR`` belongs to the tool (issue 21): the next run removes what the last one wrote
and this one did not, and never anything else."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ofc_audit.cli.app import app
from ofc_audit.session.out_folder import MANIFEST, OwnedFolder
from tests.support.histories import cli_runner

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_histories"


def _touch_old(path: Path) -> None:
    """Back-date a file, as a file written by an earlier run is."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("old", "utf-8")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))


def test_release_removes_only_what_the_last_run_wrote_and_this_one_did_not(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    for name in ("report.html", "hands/A.html", "hands/B.html", "charts/x_USD.png", "mine.txt"):
        _touch_old(out / name)
    previous = ["report.html", "hands/A.html", "hands/B.html", "charts/x_USD.png",
                "../outside.txt", "/etc/passwd", MANIFEST]
    (out / MANIFEST).write_text(json.dumps({"format": 1, "files": previous}), "utf-8")
    outside = tmp_path / "outside.txt"
    outside.write_text("keep", "utf-8")

    folder = OwnedFolder.claim(out)
    (out / "report.html").write_text("new", "utf-8")
    (out / "hands" / "A.html").write_text("new", "utf-8")
    (out / "summary.md").write_text("new", "utf-8")
    removed = folder.release()

    assert sorted(removed) == ["charts/x_USD.png", "hands/B.html"]
    assert not (out / "charts").exists()  # emptied by the removal, so removed too
    assert (out / "mine.txt").read_text("utf-8") == "old"  # never ours: kept
    assert outside.read_text("utf-8") == "keep"  # outside the folder: never touched
    manifest = json.loads((out / MANIFEST).read_text("utf-8"))
    assert manifest["files"] == ["hands/A.html", "report.html", "summary.md"]


def test_a_folder_without_a_manifest_loses_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _touch_old(out / "report.html")
    _touch_old(out / "old" / "thing.csv")
    OwnedFolder.claim(out).release()
    assert (out / "report.html").exists() and (out / "old" / "thing.csv").exists()


def test_a_manifest_that_is_not_ours_is_ignored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _touch_old(out / "a.txt")
    (out / MANIFEST).write_text('["a.txt"]', "utf-8")
    OwnedFolder.claim(out).release()
    assert (out / "a.txt").exists()


def test_a_second_session_into_the_same_folder_leaves_no_stale_page_or_chart(
    tmp_path: Path,
) -> None:
    runner = cli_runner()
    out = tmp_path / "reports"
    first = runner.invoke(app, ["session", str(SAMPLES), "--out", str(out), "--json"])
    assert first.exit_code == 1, first.stderr  # the disputes have findings
    pages = sorted(p.name for p in (out / "hands").iterdir())
    assert pages  # the disputes have pages
    assert (out / "charts" / "cumulative_USD_by_hand.png").exists()
    (out / "notes.txt").write_text("my notes", "utf-8")

    # Only one EUR history now: no dispute pages, no USD or points charts.
    one = SAMPLES / "classic_3p_one_fouled.txt"
    second = runner.invoke(app, ["session", str(one), "--out", str(out), "--json"])
    assert second.exit_code == 0, second.stderr
    assert not (out / "hands").exists()
    assert not (out / "charts" / "cumulative_USD_by_hand.png").exists()
    assert (out / "charts" / "cumulative_EUR_by_hand.png").exists()
    assert (out / "notes.txt").read_text("utf-8") == "my notes"
    manifest = json.loads((out / MANIFEST).read_text("utf-8"))["files"]
    on_disk = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert sorted([*manifest, MANIFEST, "notes.txt"]) == on_disk


def test_a_run_that_stops_part_way_lists_what_it_wrote_for_the_next_run(tmp_path: Path) -> None:
    """A session that fails while it writes (a full disk; here a limit on the size of the
    files it may write) lists what it had written besides what the last run had: the next
    run into the folder leaves exactly what it writes into an empty one. Before, the pages
    of the run that failed were listed nowhere and stayed for good (eight dispute pages of
    hands no longer in the input)."""
    import resource
    import subprocess
    import sys

    out = tmp_path / "reports"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (50_000, 50_000))

    failed = subprocess.run([sys.executable, "-m", "ofc_audit", "session", str(SAMPLES),
                             "--out", str(out)], cwd=ROOT, capture_output=True, text=True,
                            preexec_fn=limited)
    assert failed.returncode == 2
    assert failed.stderr.endswith(f"ofc-audit: error: cannot write {out}: File too large\n")
    pages = sorted(p.relative_to(out).as_posix() for p in (out / "hands").iterdir())
    assert pages  # it failed after the first dispute pages
    assert set(pages) <= set(json.loads((out / MANIFEST).read_text("utf-8"))["files"])

    one = SAMPLES / "classic_3p_one_fouled.txt"
    runner = cli_runner()
    again = runner.invoke(app, ["session", str(one), "--out", str(out)])
    fresh = runner.invoke(app, ["session", str(one), "--out", str(tmp_path / "fresh")])
    assert again.exit_code == fresh.exit_code == 0, again.stderr
    assert _files(out) == _files(tmp_path / "fresh")


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_abandon_removes_nothing_and_lists_both_runs(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for name in ("report.html", "hands/A.html"):
        _touch_old(out / name)
    (out / MANIFEST).write_text(json.dumps({"format": 1, "files": ["report.html",
                                                                   "hands/A.html"]}), "utf-8")
    folder = OwnedFolder.claim(out)
    (out / "hands" / "B.html").write_text("new", "utf-8")
    folder.abandon()
    assert (out / "report.html").exists() and (out / "hands" / "A.html").exists()
    manifest = json.loads((out / MANIFEST).read_text("utf-8"))
    assert manifest["files"] == ["hands/A.html", "hands/B.html", "report.html"]
    assert not list(out.glob(".*partial"))


def test_out_naming_a_file_says_it_is_one(tmp_path: Path) -> None:
    existing = tmp_path / "notes.txt"
    existing.write_text("mine", "utf-8")
    run = cli_runner().invoke(app, ["session", str(SAMPLES / "classic_4p_session.txt"),
                                    "--out", str(existing)])
    assert run.exit_code == 2
    assert run.stderr == f"ofc-audit: error: cannot write {existing}: it is a file, not a folder\n"
    assert existing.read_text("utf-8") == "mine"
