"""The one driver (:mod:`ofc_audit.audit.driver`) in this process: the reference every runner
matches. Its output is the plain loop's (the reader, one replayer, the writer), whatever the
window; a runner that does not take the run, or stops after some windows, leaves the rest to
it without a hand lost, repeated or renumbered."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from ofc_audit.audit.driver import (
    InProcess,
    audit_paths,
    find_hand,
    hand_index,
    open_sources,
    paths_index,
    session_tables,
    write_audit,
    write_audit_json,
)
from ofc_audit.audit.progress import Progress
from ofc_audit.audit.work import Fallback, Payload, Plan, RunStats
from ofc_audit.common.errors import UnreadableInput
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import HistoryParseError
from ofc_audit.session.tables import build_tables

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = [str(ROOT / "sample_histories"), str(ROOT / "tests" / "data")]
RULES = Ruleset()


def plain_document(paths: list[str]) -> str:
    out = io.StringIO()
    write_audit_json(audit_paths(paths, RULES), out, paths_index(paths))
    return out.getvalue()


def driven_document(paths: list[str], runner: object) -> str:
    out = io.StringIO()
    with open_sources(paths) as sources:
        write_audit(sources, RULES, out, "json", runner)  # type: ignore[arg-type]
    return out.getvalue()


class StopsAfter:
    """A runner that gives ``windows`` windows of the loop in this process (one lane, windows
    of ``size`` entries), then fails its check at the next: the driver must go on from its
    first entry."""

    stdin = "stream"

    def __init__(self, windows: int, size: int) -> None:
        self.windows_left = windows
        self.size = size
        self.stats = RunStats()

    def windows(self, plan: Plan, progress: Progress | None) -> Iterator[dict[int, Payload]]:
        for payloads in InProcess().windows(replace(plan, window=self.size), None):
            if self.windows_left == 0:
                payload = payloads[0]
                raise Fallback(min([k for k, *_ in payload.hands]
                                   + [k for k, _ in payload.rejections]))
            self.windows_left -= 1
            yield payloads
        raise AssertionError("the test wants more windows than the input has")


def test_the_driver_prints_what_the_plain_loop_prints() -> None:
    assert driven_document(SAMPLES, InProcess()) == plain_document(SAMPLES)
    text = io.StringIO()
    with open_sources(SAMPLES) as sources:
        writer = write_audit(sources, RULES, text, "text", InProcess(),
                             render_hand=lambda result: result.hand_id)
    hands = json.loads(plain_document(SAMPLES))["hands"]
    lines = text.getvalue().splitlines()
    assert [line for line in lines if not line.startswith("REJECTED")][:len(hands)] == [
        h["hand_id"] for h in hands]
    assert writer.read == writer.totals.hands == len(hands)


@pytest.mark.parametrize("windows", [0, 1, 3])
def test_a_runner_that_stops_leaves_the_rest_to_this_process(windows: int) -> None:
    runner = StopsAfter(windows, size=5)
    assert driven_document(SAMPLES, runner) == plain_document(SAMPLES)
    assert runner.stats.windows == windows
    assert runner.stats.fallback is not None


def test_the_session_tables_are_the_plain_loops() -> None:
    want = build_tables(audit_paths(SAMPLES, RULES))
    rejections: list[HistoryParseError] = []
    with open_sources(SAMPLES) as sources:
        got = session_tables(sources, RULES, InProcess(), rejections=rejections,
                             index=hand_index(sources))
    for name, frame in want.items():
        pd.testing.assert_frame_equal(getattr(got, name), frame, check_exact=True, obj=name)
    assert len(rejections) == len(want.rejected)


@pytest.mark.parametrize("batch", [1, 3, 7])
def test_in_process_session_tables_come_in_batches_as_the_plain_loops(
        monkeypatch: pytest.MonkeyPatch, batch: int) -> None:
    # One process hands the tables on every ``table_batch`` hands (at a window's end), not
    # all at the end: a long session's memory stays flat. The tables are the same.
    from functools import partial

    import ofc_audit.audit.driver as driver
    from ofc_audit.audit.driver import session_pieces

    want = build_tables(audit_paths(SAMPLES, RULES))
    monkeypatch.setattr(driver, "Plan", partial(Plan, table_batch=batch, window=2))
    pieces: list[int] = []
    with open_sources(SAMPLES) as sources:
        index = hand_index(sources)
        got = session_tables(sources, RULES, InProcess(), index=index)
        hands, _ = session_pieces(sources, RULES, InProcess(),
                                  lambda t, frame: pieces.append(t), index=index)
    for name, frame in want.items():
        pd.testing.assert_frame_equal(getattr(got, name), frame, check_exact=True, obj=name)
    assert hands == len(want.hands)
    # Each batch of ``batch`` hands or more (windows of 2) sent its hands' pieces.
    assert pieces.count(0) >= len(want.hands) // (batch + 2) - 1 > 1


def test_a_hand_is_found_by_its_id_with_its_explanation() -> None:
    # --hand explains the hand as the audit reads it: each hand once (a duplicate's first
    # copy; a conflict's copies not at all).
    want = [r for r in audit_paths(SAMPLES, RULES, explain=True)
            if not isinstance(r, HistoryParseError) and r.hand_id == "PD-1001"]
    with open_sources(SAMPLES) as sources:
        found = find_hand(sources, RULES, "PD-1001", InProcess())
        assert find_hand(sources, RULES, "NO-SUCH-HAND", InProcess()) == []
    assert found == want and len(found) >= 1 and found[0].log  # explained step by step


def test_an_unreadable_path_fails_before_any_work(tmp_path: Path) -> None:
    with pytest.raises(UnreadableInput, match=f"^cannot read {tmp_path / 'gone.txt'}: No such"):
        with open_sources([str(tmp_path / "gone.txt")]):
            raise AssertionError("not reached")
