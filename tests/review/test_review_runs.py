"""``ofc-audit review`` through the one driver: the decisions taken in the lanes of any runner
are the ones this process takes; the output is the same for any ``--jobs`` and on an
archive (``--archive FILE``) as on the files; the errors of docs/CLI.md.

Few hands and few rollouts: the valuing is tested elsewhere, here only where it runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ofc_audit.audit.driver import InProcess, Runner, open_sources
from ofc_audit.cli.app import app
from ofc_audit.engines.processes import ProcessPool
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import read_hands
from ofc_audit.review.run import (
    Reviewable,
    ReviewOptions,
    Wanted,
    read_reviewable,
    review_hands,
    reviewable_hands,
)
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text
from tests.support.histories import cli_runner

RULES = Ruleset.load(None)
FAST = ["--rollouts", "12", "--seed", "5"]


def _invoke(*args: str) -> Any:
    return cli_runner().invoke(app, list(args))


def _broken(text: str, hand: int) -> str:
    """The ``hand``-th hand (0-based) rejected: a line inside it that is no line of the
    format."""
    lines = text.split("\n")
    heads = [k for k, line in enumerate(lines) if line.startswith("OFC Hand")]
    lines[heads[hand] + 4] = "not a line of the format"
    return "\n".join(lines)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Three interleaved tables with rule faults, and a rejected hand in mid-file."""
    root = tmp_path_factory.mktemp("review_runs")
    text = simulate_text(SimulationOptions(RULES, players=3, hands=15, tables=3, seed=4,
                                           faults=0.3))
    path = root / "tables.txt"
    path.write_text(_broken(text, 6), encoding="utf-8")
    return [str(path)]


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Three hands of two tables, one with a rule fault, one rejected: short to review."""
    root = tmp_path_factory.mktemp("review_small")
    text = simulate_text(SimulationOptions(RULES, players=2, hands=4, tables=2, seed=9,
                                           faults=0.5))
    path = root / "small.txt"
    path.write_text(_broken(text, 2), encoding="utf-8")
    return str(path)


def _reviewable(paths: list[str], wanted: Wanted, runner: Runner) -> Reviewable:
    with open_sources(paths, runner.stdin) as sources:
        return read_reviewable(sources, wanted, runner)


@pytest.mark.parametrize("players", [None, frozenset({"bob"})])
def test_decisions_taken_in_worker_lanes_are_this_process_s(
        tables: list[str], players: frozenset[str] | None) -> None:
    wanted = Wanted(RULES, players)
    here = _reviewable(tables, wanted, InProcess())
    # The reference: the hands read and replayed in one loop, nothing of the driver.
    seen: set[str] = set()
    plain = list(reviewable_hands(read_hands(tables), RULES, players, None, seen))
    assert here.hands == plain and here.seen == seen
    reasons = {s.reason.value for h in plain for s in h.skipped}
    assert {"rejected", "violations"} <= reasons
    assert sum(len(h.decisions) for h in plain) > 10
    pool = ProcessPool(2, window=4, min_bytes=0)
    lanes = _reviewable(tables, wanted, pool)
    assert pool.stats.lanes == 2 and pool.stats.fallback is None
    assert lanes.hands == here.hands and lanes.seen == here.seen


def test_review_hands_in_worker_processes_gives_this_process_s(small: str) -> None:
    found = _reviewable([small], Wanted(RULES), InProcess())
    options = ReviewOptions(rollouts=8, seed=2)
    ticks: list[int] = []
    here = list(review_hands(found.hands, options))
    there = list(review_hands(found.hands, options, ProcessPool(2), ticks.append))
    assert there == here
    reviewed = sum(1 for h in found.hands if h.decisions)
    assert reviewed >= 2 and ticks == list(range(1, reviewed + 1))
    assert [r.hand for r in here] == found.hands  # every hand in its place, skipped or not


def test_same_output_for_any_jobs_on_the_archive_as_on_the_file(small: str, tmp_path: Path) -> None:
    one = _invoke("review", "--json", *FAST, small)
    assert one.exit_code == 1, one.output  # a rejection, a rule fault
    document = json.loads(one.stdout)
    assert len(document["hands"]) >= 2
    assert {s["reason"] for s in document["skipped"]} == {"rejected", "violations"}
    archive = str(tmp_path / "a.duckdb")
    assert _invoke("import", small, "--archive", archive).exit_code == 1  # the rejection
    # The hands valued in two worker processes, from the archive: what one process gives
    # from the file.
    stored = _invoke("review", "--json", *FAST, "--jobs", "2", "--archive", archive)
    assert stored.exit_code == 1, stored.output
    assert stored.stdout == one.stdout
    text = _invoke("review", *FAST, "--player", "alice", small)
    stored_text = _invoke("review", *FAST, "--player", "alice", "--archive", archive)
    assert text.exit_code == stored_text.exit_code
    assert stored_text.stdout == text.stdout and "Costliest decisions" in text.stdout


def test_archive_errors(small: str, tmp_path: Path) -> None:
    archive = str(tmp_path / "a.duckdb")
    missing = _invoke("review", "--archive", str(tmp_path / "none.duckdb"))
    assert missing.exit_code == 2 and "no such archive" in missing.stderr
    _invoke("import", small, "--archive", archive)
    both = _invoke("review", small, "--archive", archive)
    assert both.exit_code == 2 and "give no PATH with it" in both.stderr
    nothing = _invoke("review")
    assert nothing.exit_code == 2 and "--archive FILE" in nothing.stderr
    unknown = _invoke("review", *FAST, "--player", "nobody", "--archive", archive)
    assert unknown.exit_code == 2 and "nobody" in unknown.stderr
    no_hand = _invoke("review", *FAST, "--hand", "NOPE", "--archive", archive)
    assert no_hand.exit_code == 2
    assert f"no hand #NOPE in the archive {archive}" in no_hand.stderr


def test_engine_options_as_for_audit(small: str) -> None:
    jobs = _invoke("review", *FAST, "--jobs", "2", "--engine", "dask", small)
    assert jobs.exit_code == 2 and "--jobs is for the local engine" in jobs.stderr
    scheduler = _invoke("review", *FAST, "--scheduler", "tcp://x:1", small)
    assert scheduler.exit_code == 2 and "--scheduler needs --engine dask" in scheduler.stderr
