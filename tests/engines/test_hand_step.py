"""A command's own per-hand step (:data:`ofc_audit.audit.work.HandStep`, what ``review`` takes
from each hand) run in the lanes of ``--jobs N``: each hand gets its table's state before it,
as the loop in one process gives it, whichever lane replays it, across rejections (a
rejection breaks its table's chain, or every chain of its file when its Table line cannot be
read) and after a failed check (the rest done here);
and :meth:`~ofc_audit.audit.driver.Runner.each`, the runners' map in order.

Windows are tiny (a few entries) so that every run crosses many windows and break points
travel between lanes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ofc_audit.audit.driver import InProcess, Runner, open_sources, stepped_values
from ofc_audit.engines.processes import ProcessPool
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import HistoryParseError, read_text
from ofc_audit.history.records import Hand
from ofc_audit.replay.results import HandResult
from ofc_audit.replay.state import TableState
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text

RULES = Ruleset.load(None)
Value = tuple[str, str | None]


def table_step(hand: Hand, result: HandResult, previous: TableState | None) -> Value:
    """The hand replayed, and the hand its table's state comes from (None: a chain's first
    hand): what a step sees of the chain."""
    assert result.hand_id == hand.hand_id
    return (result.hand_id, previous.hand_id if previous is not None else None)


def _with_rejections(text: str) -> str:
    """Hands 4 and 11 broken (a line inside one, the header of the other)."""
    lines = text.split("\n")
    heads = [k for k, line in enumerate(lines) if line.startswith("OFC Hand")]
    lines[heads[4] + 4] = "not a line of the format"
    lines[heads[11]] = "OFC Hand #BAD: Nonsense"
    return "\n".join(lines)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two files of three interleaved tables each, one with rejected hands in mid-file."""
    root = tmp_path_factory.mktemp("steps")
    paths = []
    for seed in (1, 2):
        text = simulate_text(SimulationOptions(RULES, players=3, hands=16, tables=3, seed=seed))
        path = root / f"tables_{seed}.txt"
        path.write_text(_with_rejections(text) if seed == 1 else text, encoding="utf-8")
        paths.append(str(path))
    return paths


Entry = Value | tuple[str, int]  # a hand's, or a rejection's (file, line)


def _values(paths: list[str], runner: Runner) -> list[Entry]:
    with open_sources(paths, runner.stdin) as sources:
        return [(v.file, v.entry_line) if isinstance(v, HistoryParseError) else v
                for v in stepped_values(sources, RULES, table_step, runner)]


def _expected(paths: list[str]) -> list[Entry]:
    """Worked out from the files alone: each hand's state comes from its table's previous
    hand in the file, unless a rejection of that table, or one whose table cannot be read,
    stands between them (then from none)."""
    expected: list[Entry] = []
    for path in paths:
        last: dict[str, str] = {}  # table -> its last hand since the chain was last broken
        for item in read_text(Path(path).read_text(encoding="utf-8"), path):
            if isinstance(item, HistoryParseError):
                expected.append((item.file, item.entry_line))
                if item.table is None:
                    last.clear()
                else:
                    last.pop(item.table, None)
                continue
            expected.append((item.hand_id, last.get(item.table.name)))
            last[item.table.name] = item.hand_id
    return expected


def test_the_step_sees_each_tables_chain_in_this_process(files: list[str]) -> None:
    expected = _expected(files)
    assert sum(1 for v in expected if isinstance(v[1], int)) == 2  # the two rejections
    assert sum(1 for v in expected if isinstance(v[1], str)) > 10  # hands on a chain
    assert _values(files, InProcess()) == expected


@pytest.mark.parametrize("window", [1, 3])
def test_the_step_in_worker_processes_sees_what_this_process_sees(
        files: list[str], window: int) -> None:
    pool = ProcessPool(2, window=window, min_bytes=0)
    assert _values(files, pool) == _expected(files)
    assert pool.stats.lanes == 2 and pool.stats.fallback is None


def test_after_a_failed_check_this_process_goes_on_with_the_step(files: list[str]) -> None:
    pool = ProcessPool(2, window=3, min_bytes=0, sabotage="lines")
    assert _values(files, pool) == _expected(files)
    assert pool.stats.fallback is not None and pool.stats.fallback != (0, 0)


def _square(n: int) -> int:
    return n * n


def test_each_maps_in_order_wherever_it_runs() -> None:
    items = list(range(7))
    assert list(InProcess().each(_square, items)) == [n * n for n in items]
    assert list(ProcessPool(2).each(_square, items)) == [n * n for n in items]
    assert list(ProcessPool(2).each(_square, [])) == []
