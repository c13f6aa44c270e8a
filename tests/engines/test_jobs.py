"""``--jobs N`` (worker processes, :mod:`ofc_audit.engines.processes`): the very results of
``--jobs 1``, however finely the work is split, with rejected hands and rule faults mixed in.

Windows are made tiny here (a few entries) so that every run crosses many windows, break
points travel between lanes, and lanes wait for each other; no test times anything.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import os
import random
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ofc_audit.audit import work
from ofc_audit.audit.driver import open_sources, session_tables, write_audit
from ofc_audit.audit.progress import Progress
from ofc_audit.audit.work import RunStats
from ofc_audit.audit.writer import AuditWriter
from ofc_audit.cli.app import app
from ofc_audit.common.errors import UnreadableInput
from ofc_audit.engines import groups, processes
from ofc_audit.engines.processes import ProcessPool
from ofc_audit.game.ruleset import FantasylandType, Ruleset, Variant
from ofc_audit.history.reader import HistoryParseError, read_text
from ofc_audit.history.sources import Source, sources_of
from ofc_audit.present import report
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text
from tests.support.histories import cli_runner, worked_example_hand
from tests.support.runs import audit_document, tables_of

RULES = Ruleset.load(None)
ROOT = Path(__file__).resolve().parents[2]


runner = cli_runner


# -- inputs -----------------------------------------------------------------------------------


_hand = worked_example_hand


def tricky_text(preamble: bool = True) -> str:
    """Entry boundaries that are easy to get wrong: text before the first header
    (``preamble``: a file that starts so is no history; only standard input brings it), a
    byte-order mark, comments, an indented header, CRLF, a header without a table line, a
    line starting with ``O`` that is no header, bytes that are not UTF-8, no final newline."""
    parts = [
        "garbage before the first hand\n" if preamble else "",
        "\ufeff# a comment\n\n",
        _hand("T-1", "Riga 1"),
        "\n   " + _hand("T-2", "Riga  2", button=1),
        _hand("T-3", "Riga 1", button=1),
        _hand("T-3c", "Riga 1", button=2).split("*** STREET 4 ***")[0],  # cut off: incomplete
        _hand("T-4", "Riga\t 2").replace("\n", "\r\n"),
        "OFC Hand #T-5: Pineapple - 0.10 EUR/point - 2026-11-29 21:04:11 UTC\n",
        _hand("T-6", "Riga 1", button=2).replace("bob places top", "OFC Handy bob places top"),
        _hand("T-7", "Riga 2", button=2),
        _hand("T-7c", "Riga 2", button=3).split("bob is dealt [5d 5s Qh]")[0],  # mid-street
        _hand("T-8", "Riga 2").replace("alice places middle [3c]", "alice places \udcff"),
        _hand("T-9", "Riga 1").rstrip("\n"),
    ]
    return "".join(parts)


def _with_rejections(text: str, every: int, unknown_tables: bool = True) -> str:
    """Every ``every``-th hand broken, in turn: a line inside one, the header of the next
    (both break their own table's chain: the table line can be read), and, with
    ``unknown_tables``, the table line of the third (its table is not known: it breaks
    every chain of its file)."""
    lines = text.split("\n")
    heads = [k for k, line in enumerate(lines) if line.startswith("OFC Hand")]
    kinds = 3 if unknown_tables else 2
    for n, k in enumerate(heads[3::every]):
        if n % kinds == 1:
            lines[k] = f"OFC Hand #BAD-{k}: Nonsense"  # its own id: not a conflict
        elif n % kinds == 0:
            lines[k + 4] = "not a line of the format"
        else:
            table = next(t for t in range(k + 1, k + 4) if lines[t].startswith("Table "))
            lines[table] = "Table with no name 3-max"
    return "\n".join(lines)


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Several interleaved tables per file, labelled faults (10% of hands), rejected hands in
    mid-file, two variants and Fantasyland types, and the tricky text."""
    root = tmp_path_factory.mktemp("histories")
    for i, (variant, fl, tables) in enumerate([
        (Variant.PINEAPPLE, FantasylandType.STANDARD, 4),
        (Variant.CLASSIC, FantasylandType.PROGRESSIVE, 3),
    ]):
        options = SimulationOptions(
            ruleset=RULES.with_options(variant=variant, fantasyland=fl), players=3,
            hands=120 if i == 0 else 60, tables=tables, seed=11 + i, faults=0.1,
        )
        text = _with_rejections(simulate_text(options), every=25 if i == 0 else 40)
        (root / f"{variant.value}.txt").write_text(text, encoding="utf-8")
    # Without the text before its first header: a history, which the folder holds.
    (root / "tricky.txt").write_bytes(tricky_text(preamble=False).encode(
        "utf-8", "surrogateescape"))
    return root


@pytest.fixture(scope="module")
def paths(histories: Path) -> list[str]:
    """The folder, and one file named twice (read once)."""
    return [str(histories), str(histories / "pineapple.txt")]


@pytest.fixture(scope="module")
def expected(paths: list[str]) -> tuple[Any, str]:
    return tables_of(paths, RULES), audit_document(paths, RULES)


def assert_tables_equal(expected: Any, actual: Any) -> None:
    for name, frame in expected.items():
        pd.testing.assert_frame_equal(getattr(actual, name), frame, check_exact=True, obj=name)


# -- the scan ---------------------------------------------------------------------------------


@pytest.mark.parametrize("block", [5, 97, 1 << 23])
def test_the_streaming_scan_finds_the_entries_the_reader_yields(
    tmp_path: Path, block: int
) -> None:
    path = tmp_path / "tricky.txt"
    path.write_bytes(tricky_text().encode("utf-8", "surrogateescape"))
    entries = list(groups.scan_entries(Source(0, str(path), str(path)), block))
    want = [item.entry_line if isinstance(item, HistoryParseError) else item.line
            for item in read_text(tricky_text(), "x.txt")]
    assert [e.line for e in entries] == want
    assert [e.hand for e in entries] == [False] + [True] * (len(want) - 1)
    assert [e.start for e in entries[1:]] == [e.end for e in entries[:-1]]
    assert entries[-1].end == path.stat().st_size
    assert {e.table for e in entries} == {None, "Riga 1", "Riga 2"}


_PIECES = [
    "OFC Hand #X-1: Pineapple - 0.10 EUR/point - 2026-11-29 21:04:11 UTC\n",
    "  OFC Hand #X-2: Pineapple - 0.10 EUR/point - 2026-11-29 21:04:11 UTC\r\n",
    "\tOFC  Hand #X-3\n", "OFC Handy\n", "Oleg was here\n", "O\n", "\n", "\r\n", " \r\n",
    "# OFC Hand #no\n", "Table 'A  b' 3-max - Seat #1 is the button\n", "Match #M, hand 1\n",
    "\ufeffOFC Hand #X-4\n", "alice places top [As]\n", "\udcff\n", "OFC Hand #X-5",
]


def test_the_scan_splits_where_the_reader_does_on_random_text(tmp_path: Path) -> None:
    rng = random.Random(6)
    path = tmp_path / "random.txt"
    for _ in range(300):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 12)))
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        want = [item.entry_line if isinstance(item, HistoryParseError) else item.line
                for item in read_text(text, "x.txt")]
        source = Source(0, str(path), str(path))
        for block in (3, 1 << 23):
            entries = list(groups.scan_entries(source, block))
            got = [e.line for e in entries]
            if entries and not entries[0].hand:  # text before the first header: its first
                assert got[0] == 1 and 1 <= want[0] < (got[1:] or [1 << 30])[0], text
                got[0] = want[0]  # line that counts is where the reader complains
            assert got == want, text


# -- same results as --jobs 1 -----------------------------------------------------------------


@pytest.mark.parametrize(("jobs", "window"), [(2, 7), (3, 50)])
def test_audit_json_and_tables_equal_jobs_1(
    paths: list[str], expected: tuple[Any, str], jobs: int, window: int
) -> None:
    stats = RunStats()
    document = audit_document(paths, RULES, ProcessPool(jobs, window=window, min_bytes=0,
                                                         stats=stats))
    assert document == expected[1]
    assert stats.lanes == jobs and stats.windows > 3 and stats.fallback is None
    # Lanes replay ahead of the break points: some rejection of one lane came after another
    # had replayed hands of its file behind it, and those were replayed again.
    assert sum(stats.lane_redone) > 0
    totals = json.loads(document)["totals"]
    assert totals["rejected"] >= 6 and totals["with_violations"] >= 10
    stats = RunStats()
    tables = tables_of(paths, RULES, ProcessPool(jobs, window=window, min_bytes=0, stats=stats,
                                                 table_batch=window + 3))
    assert_tables_equal(expected[0], tables)
    assert stats.windows > 3 and stats.fallback is None


@pytest.fixture(scope="module")
def copies(histories: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The folder, a re-downloaded copy of one file (every hand a duplicate, its rejected
    ones too) and a file whose second hand is the classic file's second hand edited (a
    conflict: neither copy scored)."""
    extra = tmp_path_factory.mktemp("copies")
    (extra / "pineapple (1).txt").write_bytes((histories / "pineapple.txt").read_bytes())
    text = (histories / "classic.txt").read_text(encoding="utf-8")
    heads = [k for k, line in enumerate(text.split("\n")) if line.startswith("OFC Hand")]
    lines = text.split("\n")
    edited = lines[:heads[2]]
    edited.insert(heads[1] + 1, "# edited")
    (extra / "edited.txt").write_text("\n".join(edited) + "\n", encoding="utf-8")
    return [str(histories), str(extra)]


@pytest.mark.parametrize(("jobs", "window"), [(2, 7), (3, 50)])
def test_copies_left_out_by_the_lanes_as_by_jobs_1(
    copies: list[str], jobs: int, window: int
) -> None:
    """Duplicates and conflicts are left out by the deal itself: the lanes read and replay
    the rest, with no fallback to this process, and give the very results of ``--jobs 1``."""
    want_document, want_tables = audit_document(copies, RULES), tables_of(copies, RULES)
    doc = json.loads(want_document)
    hands = len(_lines_starting(Path(copies[0]) / "pineapple.txt", "OFC Hand"))
    # The copy adds nothing but its duplicates; the edited hand's two copies are not scored.
    assert doc["totals"]["duplicates"] == hands + 1  # the edited file's first hand too
    assert [c["hand_id"] for c in doc["conflicts"]] == [
        _lines_starting(Path(copies[0]) / "classic.txt", "OFC Hand")[1].split("#")[1]
        .split(":")[0]]
    stats = RunStats()
    assert audit_document(copies, RULES, ProcessPool(
        jobs, window=window, min_bytes=0, stats=stats)) == want_document
    assert stats.lanes == jobs and stats.windows > 3 and stats.fallback is None
    stats = RunStats()
    assert_tables_equal(want_tables, tables_of(copies, RULES, ProcessPool(
        jobs, window=window, min_bytes=0, stats=stats, table_batch=window + 3)))
    assert stats.fallback is None


def _lines_starting(path: Path, start: str) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").split("\n")
            if line.startswith(start)]


def test_lanes_that_wait_for_each_other_give_the_same_results(
    paths: list[str], expected: tuple[Any, str]
) -> None:
    # One window in flight: every lane waits for every other at every window.
    document = audit_document(paths, RULES, ProcessPool(2, window=3, ahead=1, min_bytes=0))
    assert document == expected[1]


@pytest.mark.parametrize("sabotage", ["deal", "lines"])
def test_a_failed_check_hands_the_rest_to_this_process(
    paths: list[str], expected: tuple[Any, str], sabotage: Any
) -> None:
    """Tables dealt to two lanes, or a scan that disagrees with the reader: the windows before
    the failure come from the lanes, the rest from the local engine's loop."""
    stats = RunStats()
    document = audit_document(paths, RULES, ProcessPool(2, window=20, min_bytes=0,
                                                        sabotage=sabotage, stats=stats))
    assert document == expected[1]
    assert stats.fallback is not None and stats.windows >= 1
    stats = RunStats()
    tables = tables_of(paths, RULES, ProcessPool(2, window=20, min_bytes=0, sabotage=sabotage,
                                                 stats=stats, table_batch=7))
    assert_tables_equal(expected[0], tables)
    assert stats.fallback is not None and stats.windows >= 1


class SeenProgress(Progress):
    """A progress that keeps every byte count it is told, on a fake terminal."""

    def __init__(self, total: int) -> None:
        self.terminal = FakeTerminal()
        super().__init__(self.terminal, total)
        self.seen: list[int] = []

    def read(self, done: int) -> None:
        self.seen.append(done)
        super().read(done)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("sabotage", [None, "lines"])
def test_the_lanes_progress_has_the_input_size_as_its_total(
    paths: list[str], sabotage: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Bytes of the input up to each window's end, as the windows are written: rising to
    # the whole input (the file read twice counts twice); after a failed check the local
    # loop reads the rest.
    monkeypatch.setenv("NO_COLOR", "1")
    total = sum(Path(s.path or "").stat().st_size for s in sources_of(paths))
    for build in ("audit", "tables"):
        progress = SeenProgress(total)
        pool = ProcessPool(2, window=7, min_bytes=0, sabotage=sabotage)
        with open_sources(paths, pool.stdin) as sources:
            if build == "audit":
                write_audit(sources, RULES, io.StringIO(), "json", pool, progress=progress)
            else:
                session_tables(sources, RULES, pool, progress=progress)
        assert progress.seen == sorted(progress.seen) and progress.seen[-1] == total
        assert len([n for n in progress.seen if 0 < n < total]) >= (2 if sabotage else 4)
        drawn = progress.terminal.getvalue()
        assert "reading and replaying" in drawn and "\x1b[3" not in drawn


@pytest.mark.parametrize("min_bytes", [0, None])
def test_the_progress_is_told_the_total(paths: list[str], min_bytes: int | None) -> None:
    """Workers or (a small input) this process: the progress ends at the whole input."""
    stderr, stdout = FakeTerminal(), FakeTerminal()
    total = sum(Path(s.path or "").stat().st_size for s in sources_of(paths))
    pool = ProcessPool(2, min_bytes=min_bytes)
    with open_sources(paths, pool.stdin) as sources:
        write_audit(sources, RULES, stdout, "json", pool, progress=Progress(stderr, total))
    assert "reading and replaying" not in stdout.getvalue()  # standard error only
    # The bar's last state: the whole input of the whole input (Rich's kB, 1000 bytes).
    assert f"{total / 1000:.1f}/{total / 1000:.1f} kB" in stderr.getvalue()


def test_no_input(tmp_path: Path) -> None:
    paths = [str(tmp_path)]
    assert audit_document(paths, RULES, ProcessPool(2, min_bytes=0)) == audit_document(
        paths, RULES)
    assert_tables_equal(tables_of(paths, RULES),
                        tables_of(paths, RULES, ProcessPool(2, min_bytes=0)))


# -- the command line -------------------------------------------------------------------------


@pytest.fixture()
def small_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "MIN_BYTES", 0)
    monkeypatch.setattr(processes, "WINDOW", 11)


@pytest.fixture
def quiet_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """No progress line off a terminal however long a run takes: on a loaded machine one
    run of two compared may pass the 10 seconds after which progress speaks, the other
    not."""
    defaults = Progress.__init__.__kwdefaults__
    assert defaults is not None
    monkeypatch.setitem(defaults, "after", float("inf"))


@pytest.mark.usefixtures("small_windows", "quiet_progress")
def test_cli_audit_prints_what_jobs_1_prints(paths: list[str]) -> None:
    for extra in (["--json"], []):
        want = runner().invoke(app, ["audit", *paths, *extra])
        got = runner().invoke(app, ["audit", *paths, *extra, "--jobs", "2"])
        assert want.exit_code == got.exit_code == 1
        assert got.stdout == want.stdout
        assert got.stderr == want.stderr


@pytest.mark.usefixtures("small_windows")
def test_cli_audit_reads_standard_input(histories: Path) -> None:
    text = (histories / "pineapple.txt").read_text(encoding="utf-8")
    want = runner().invoke(app, ["audit", "--json", "-"], input=text)
    got = runner().invoke(app, ["audit", "--json", "--jobs", "2", "-"], input=text)
    assert got.exit_code == want.exit_code == 1
    assert got.stdout == want.stdout


@pytest.mark.usefixtures("small_windows", "quiet_progress")
def test_cli_session_writes_what_jobs_1_writes(
    paths: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PNGs: slow
    monkeypatch.setattr(report, "render_charts", lambda *args, **kwargs: [])
    results = []
    for jobs in ("1", "2"):
        out = tmp_path / jobs
        result = runner().invoke(app, ["session", *paths, "--json", "--out", str(out),
                                       "--jobs", jobs])
        results.append(result)
    want, got = results
    assert want.exit_code == got.exit_code == 1
    assert got.stdout == want.stdout
    assert got.stderr.replace(str(tmp_path / "2"), "OUT") == want.stderr.replace(
        str(tmp_path / "1"), "OUT")
    files = sorted(p.relative_to(tmp_path / "1") for p in (tmp_path / "1").rglob("*")
                   if p.is_file() and p.suffix != ".parquet")
    assert len(files) > 20
    for name in files:
        assert (tmp_path / "2" / name).read_bytes() == (tmp_path / "1" / name).read_bytes()


def test_cli_jobs_is_for_the_local_engine(histories: Path) -> None:
    result = runner().invoke(app, ["audit", str(histories), "--jobs", "2", "--engine", "dask"])
    assert result.exit_code == 2
    assert "--jobs" in result.stderr
    result = runner().invoke(app, ["audit", str(histories), "--jobs", "0"])
    assert result.exit_code == 2


def test_an_error_in_a_worker_reaches_the_caller(tmp_path: Path) -> None:
    """A file that is gone by the time the workers open it: the error names it."""
    gone = Source(0, "gone.txt", str(tmp_path / "gone.txt"))
    with pytest.raises(UnreadableInput, match="^cannot read gone.txt: No such file"):
        write_audit([gone], RULES, io.StringIO(), "json", ProcessPool(2, min_bytes=0))
    # The lanes were still starting when the error came: they are waited for, not left to
    # unpickle queues already freed (a FileNotFoundError traceback from the forkserver).
    assert multiprocessing.active_children() == []


# -- the scan's usual head (one match) against the slow way -----------------------------------

_HEAD_PIECES = [
    _hand("U-1", "Riga 1"),  # the usual head: header, match line, table line
    _hand("U-2", "Riga  1").replace("Match #M-77, hand 2\n", ""),  # no match line
    _hand("U-3", "Riga 2").replace("\n", "\r\n"),  # CRLF
    _hand("U-4", "Riga 2").replace("Match #M-77", "# a comment\nMatch #M-77"),  # comment between
    _hand("U-5", "Riga 3").replace("Match #M-77, hand 2\n", "\nMatch #M-77, hand 2\n"),  # blank
    "  " + _hand("U-6", "Riga\t3"),  # indented header
    _hand("U-7", "Riga 1").replace("Table 'Riga 1'", "  Table 'Riga 1'"),  # indented table
    _hand("U-8", "OFC club").replace("alice places top", "OFC Hand #inside alice places top"),
    _hand("U-9", "Riga 4").replace("Table 'Riga 4'", "Table 'Riga 4"),  # no closing quote
    _hand("U-10", "Riga 1").replace("Match #M-77, hand 2\n", "Oleg\n"),  # an O line between
    "OFC Hand #U-11: Pineapple - 0.10 EUR/point - 2026-11-29 21:04:11 UTC\n",  # no table
    "OFC Handy\n", "alice says OFC Hand\n", "\n", "# OFC Hand #no\n",
    "OFC OFC Hand #U-13 OFC\n", "\tOFC  OFC\n",  # the keyword again on its line
    _hand("U-12", "Riga 1").rstrip("\n"),  # no final newline (when last)
]


def test_the_usual_head_finds_what_the_slow_way_finds(tmp_path: Path) -> None:
    """Random files of usual and unusual heads, read in blocks of every size from 1 to 80
    bytes (so that a hand's start, its header line and its table line each fall on a block
    boundary somewhere) and whole: the one-match path and the slow path find the same
    entries and tables, on the lines where the reader starts its items, and each hand's
    table as the reader parses it."""
    rng = random.Random(14)
    path = tmp_path / "heads.txt"
    for attempt in range(60):
        text = "".join(rng.choice(_HEAD_PIECES) for _ in range(rng.randrange(1, 6)))
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        source = Source(0, str(path), str(path))
        items = list(read_text(text, "x.txt"))
        slow = list(groups.scan_entries(source, 1 << 23, usual=False))
        assert [e.line for e in slow if e.hand] == [
            item.entry_line if isinstance(item, HistoryParseError) else item.line
            for item in items][len(slow) - sum(e.hand for e in slow):], text
        parsed = {item.line: item.table.name for item in items
                  if not isinstance(item, HistoryParseError)}
        for entry in slow:
            if entry.line in parsed and entry.table is not None:
                assert entry.table == parsed[entry.line], text
        blocks = [1 << 23, *range(1, 81)] if attempt < 8 else [1 << 23, rng.randrange(1, 300)]
        for block in blocks:
            assert list(groups.scan_entries(source, block)) == slow, (block, text)


def test_the_scan_stays_linear_on_a_long_line_of_keywords(tmp_path: Path) -> None:
    """Untrusted input: 2 MB on one line, half a million ``OFC`` after a header (looking back
    to the line's start from each took 1.45 s for 400 KB, quadratic: hours for 50 MB)."""
    import time

    path = tmp_path / "keywords.txt"
    path.write_bytes(b"OFC Hand #1: x\n" + b"OFC " * 500_000 + b"\n  OFC Hand #2: y\n")
    began = time.process_time()
    entries = list(groups.scan_entries(Source(0, str(path), str(path))))
    assert [(e.line, e.hand) for e in entries] == [(1, True), (3, True)]
    assert time.process_time() - began < 20


def test_the_usual_head_names_the_usual_tables(tmp_path: Path) -> None:
    path = tmp_path / "usual.txt"
    text = _hand("V-1", "Riga  1") + _hand("V-2", "Riga\t2").replace(
        "Match #M-77, hand 2\n", "") + _hand("V-3", " Riga 1 ")
    path.write_text(text, encoding="utf-8")
    heads = [n for n, line in enumerate(text.split("\n"), 1) if line.startswith("OFC Hand")]
    entries = list(groups.scan_entries(Source(0, str(path), str(path))))
    assert [(e.line, e.table, e.hand) for e in entries] == [
        (heads[0], "Riga 1", True), (heads[1], "Riga 2", True), (heads[2], "Riga 1", True)]
    assert entries[1].start == text.encode().index(b"OFC Hand #V-2")


# -- the parent writes the lanes' bytes as they come ------------------------------------------


@pytest.mark.parametrize("render", ["json", "text"])
def test_hands_in_bytes_print_what_their_text_prints(render: str) -> None:
    """A writer on a UTF-8 stream writes hands that come as bytes straight to the byte
    stream under it, and text that is no UTF-8 (a lone surrogate) through the text stream's
    own error handler, in order: the bytes of a writer that goes through the text stream for
    everything (line buffering: the terminal's case)."""
    rejection = HistoryParseError("x\udcff.txt", 7, 1, "expected a line", "bad")
    merged: list[Any] = [
        ((0, 1), work.INVALID, '{"hand": "H-1", "é": 1}'.encode(), None),
        ((0, 5), 0, '{"hand": "H-\udcff"}', None),
        ((0, 7), rejection),
        ((0, 9), work.MISMATCHED | work.INCOMPLETE, b'{"hand": "H-3"}', None),
    ]
    printed = []
    for line_buffering in (True, False):
        stream = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="surrogateescape",
                                  line_buffering=line_buffering)
        stream.write("before\n")
        writer = AuditWriter(stream, render)  # type: ignore[arg-type]
        assert (writer.raw is None) == line_buffering
        writer.merged(merged[:2])
        writer.merged(merged[2:])
        writer.hand(0, '{"hand": "H-4"}')
        totals = writer.close()
        stream.write("after\n")
        stream.flush()
        assert isinstance(stream.buffer, io.BytesIO)
        printed.append(stream.buffer.getvalue())
        assert (totals.hands, totals.rejected, totals.with_violations, totals.incomplete) == (
            4, 1, 1, 1)
    assert printed[0] == printed[1]
    assert b"H-\xff" in printed[1] and "é".encode() in printed[1]
    assert printed[1].startswith(b"before\n") and printed[1].endswith(b"after\n")


def test_the_end_of_a_run_is_not_held_by_half_a_message() -> None:
    """A lane stopped while it sends (Ctrl-C: its queue's thread is not waited for) leaves
    half a message in the pipe to the parent. The parent reads what is left until the
    workers have ended, and must not wait for the rest of that message (``Queue.get`` did,
    forever: ``audit --jobs 2`` interrupted while its standard output was a full pipe hung)."""
    import os
    import struct
    import threading

    context = processes._context()
    outbox = context.Queue()
    worker = context.Process(target=_sleep, args=(0.5,))
    worker.start()
    try:
        # A message's length (1 MB) and the first bytes of it, as the pipe holds them.
        os.write(outbox._writer.fileno(), struct.pack("!i", 1 << 20) + b"\x80" * 100)
        drained = threading.Thread(target=processes._Receiver(outbox).drain, args=([worker],),
                                   daemon=True)
        drained.start()
        drained.join(30)
        assert not drained.is_alive(), "the parent waited for the rest of the message"
        assert not worker.is_alive()
    finally:
        worker.join(5)
        outbox.close()
        outbox.cancel_join_thread()


def _sleep(seconds: float) -> None:
    import time

    time.sleep(seconds)


# -- a lane that dies -------------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 100, 16_372, 16_384, 16_385, 70_000, 3_000_000])
def test_the_receiver_reads_what_the_queue_sends(size: int) -> None:
    """The parent reads the lanes' messages itself (:class:`processes._Receiver`), framed as
    ``multiprocessing`` frames them: messages of every size put on a real queue come out
    whole and in order, also when several wait in the pipe at once and when they come in
    pieces (a pipe holds 64 KiB)."""
    context = processes._context()
    outbox = context.Queue()
    try:
        receiver = processes._Receiver(outbox)
        sent = [("out", lane, window, b"\x01" * size) for lane in range(2) for window in range(3)]
        for message in sent:
            outbox.put(message)
        assert [receiver.get(timeout=30) for _ in sent] == sent
        with pytest.raises(processes.queue.Empty):
            receiver.get(timeout=0.05)
    finally:
        outbox.close()
        outbox.join_thread()


def test_the_receiver_never_waits_for_the_rest_of_a_message() -> None:
    """Half a message in the pipe: ``get`` gives up after its timeout (``Queue.get`` waited
    for the rest forever) and returns the message once the rest has come; a length past
    2 GiB is framed as -1 and 8 bytes, as ``multiprocessing`` sends one."""
    import os
    import pickle
    import struct

    context = processes._context()
    outbox = context.Queue()
    try:
        receiver = processes._Receiver(outbox)
        data = pickle.dumps(("end", 1, 7))
        framed = struct.pack("!i", len(data)) + data
        writer = outbox._writer.fileno()
        os.write(writer, framed[:3])
        with pytest.raises(processes.queue.Empty):
            receiver.get(timeout=0.05)
        os.write(writer, framed[3:10])
        with pytest.raises(processes.queue.Empty):
            receiver.get(timeout=0.05)
        os.write(writer, framed[10:] + struct.pack("!iQ", -1, len(data)) + data)
        assert receiver.get(timeout=5) == ("end", 1, 7)
        assert receiver.get(timeout=5) == ("end", 1, 7)
    finally:
        outbox.close()
        outbox.cancel_join_thread()


def test_a_lane_that_dies_while_it_sends_is_an_error_not_a_hang(paths: list[str]) -> None:
    """Lane 0's process ends in the middle of sending a window (as one killed by ``kill -9``
    or for want of memory: its queue's lock held, half a message in the pipe). The run
    raises an error that says so, and ends its other workers; it hung before, the parent
    waiting for the rest of the message."""
    import threading

    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            audit_document(paths, RULES, ProcessPool(2, window=5, min_bytes=0, sabotage="die"))
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - the test looks at it
            outcome.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "the run hung after a worker died"
    assert len(outcome) == 1 and isinstance(outcome[0], processes.EngineError)
    assert "a worker process failed" in str(outcome[0])
    assert multiprocessing.active_children() == []


def _exit_with_three() -> None:
    import os

    os._exit(3)


def test_a_worker_the_pool_does_not_watch_is_still_seen_to_end() -> None:
    """A pool that starts its workers on demand (forkserver) wakes its manager thread before
    it starts the worker of the last task, so that thread may not watch the worker for good:
    a lane that died then left every future running and the parent waiting without end (the
    dying-lane test hung once in a full run; on a loaded machine 13 runs of its scenario in
    40 are ended by this check). The parent looks at the workers themselves: with futures
    that never end and a worker that has, it says so."""
    context = multiprocessing.get_context("forkserver")
    worker = context.Process(target=_exit_with_three)
    worker.start()
    worker.join()
    import threading

    outbox = context.Queue()
    outcome: list[BaseException] = []

    def receive() -> None:
        never: list[Future[Any]] = [Future(), Future()]
        try:
            processes._receive(processes._Receiver(outbox), never, [worker])
        except BaseException as error:  # noqa: BLE001 - the test looks at it
            outcome.append(error)

    waiting = threading.Thread(target=receive, daemon=True)
    waiting.start()
    waiting.join(30)
    outbox.close()
    assert not waiting.is_alive(), "the parent waited for a worker that had ended"
    assert len(outcome) == 1 and isinstance(outcome[0], processes.EngineError)
    assert str(outcome[0]) == (f"a worker process failed: process {worker.pid} ended with "
                               "exit status 3; it ended before the run did")


def _killed_at_three(item: int) -> int:
    import os
    import signal

    if item == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # as the system does when memory runs out
    return item * 2


def test_a_mapper_worker_killed_is_an_error_that_says_so() -> None:
    """``review --jobs 2`` values hands on a pool of workers (``each``): one of them killed
    is an :class:`EngineError` naming the process and the signal (it was the pool's
    ``BrokenProcessPool`` and its traceback, exit 1)."""
    pool = ProcessPool(2)
    values = pool.each(_killed_at_three, list(range(8)))
    with pytest.raises(processes.EngineError,
                       match=r"^a worker process failed: process \d+ was ended by SIGKILL"):
        list(values)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("order", ["terminated first", "killed first"])
def test_the_worker_the_pool_terminated_is_not_named_for_the_one_killed(order: str) -> None:
    """A pool whose worker was killed terminates the others (SIGTERM): the message names
    the killed one, wherever it is among the pool's processes (the first one ended by a
    signal was named: now and then "was ended by SIGTERM" for a SIGKILL)."""
    import signal
    import time

    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=time.sleep, args=(60,)) for _ in range(2)]
    for worker in workers:
        worker.start()
    terminated, killed = workers if order == "terminated first" else workers[::-1]
    os.kill(killed.pid, signal.SIGKILL)
    killed.join()
    terminated.terminate()
    terminated.join()
    said = processes._how_ended(workers)
    assert said.startswith(f"process {killed.pid} was ended by SIGKILL (sent by the system")
    assert processes._how_ended([terminated]) == f"process {terminated.pid} was ended by SIGTERM; "
    assert processes._how_ended([]) == ""


# -- how the lanes start ----------------------------------------------------------------------

# A fresh interpreter (this one runs pytest-xdist's threads): the audit of the paths with two
# lanes, after starting a thread of its own or not, and how its lanes started.
_LANES_STARTED = """
import io, json, sys, threading
from ofc_audit.audit.driver import open_sources, write_audit
from ofc_audit.audit.work import RunStats
from ofc_audit.engines.processes import ProcessPool
from ofc_audit.game.ruleset import Ruleset

if __name__ == "__main__":
    if sys.argv[1] == "with a thread":
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    stats, out = RunStats(), io.StringIO()
    with open_sources(sys.argv[2:], "file") as sources:
        write_audit(sources, Ruleset.load(None), out, "json",
                    ProcessPool(2, window=7, min_bytes=0, stats=stats))
    print(json.dumps({"start": stats.start_method, "lanes": stats.lanes,
                      "document": out.getvalue()}))
"""


@pytest.mark.parametrize(("threads", "start"), [("alone", "fork"),
                                                 ("with a thread", "forkserver")])
def test_lanes_fork_only_from_a_process_with_one_thread(
    tmp_path: Path, paths: list[str], expected: tuple[Any, str], threads: str, start: str
) -> None:
    """A command with one thread forks its lanes (they start with the engine imported); one
    with another thread (a lock of it held at the fork would stay held in the lane for
    good) has them started by the forkserver. The same document either way."""
    script = tmp_path / "lanes_started.py"
    script.write_text(_LANES_STARTED, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, str(script), threads, *paths], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    run = json.loads(result.stdout)
    assert (run["start"], run["lanes"]) == (start, 2)
    assert run["document"] == expected[1]
    assert "Warning" not in result.stderr, result.stderr
