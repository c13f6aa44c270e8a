"""The Dask engine (issues 7 and 14): same results as the local engine, the same whole-table
chunks as ``--jobs 2``, chains kept, faults survived.

One small LocalCluster (2 worker processes, 1 thread each) serves the whole module; the
fault tests come last because they kill its workers (the nanny starts new ones).
"""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


from ofc_audit.audit.driver import (  # noqa: E402
    InProcess,
    open_sources,
    session_tables,
    write_audit,
)
from ofc_audit.audit.progress import Progress  # noqa: E402
from ofc_audit.audit.work import RunStats  # noqa: E402
from ofc_audit.cli.app import app  # noqa: E402
from ofc_audit.common.errors import UnreadableInput  # noqa: E402
from ofc_audit.engines import dask_engine as de  # noqa: E402
from ofc_audit.engines import groups  # noqa: E402
from ofc_audit.engines.processes import ProcessPool  # noqa: E402
from ofc_audit.game.ruleset import FantasylandType, Ruleset, Variant  # noqa: E402
from ofc_audit.history.reader import HistoryParseError, read_text  # noqa: E402
from ofc_audit.history.sources import Source, sources_of  # noqa: E402
from ofc_audit.present import report  # noqa: E402
from ofc_audit.review.run import Wanted, read_reviewable  # noqa: E402
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text  # noqa: E402
from tests.support.histories import cli_runner, worked_example_hand  # noqa: E402
from tests.support.runs import audit_document, tables_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_histories"
RULES = Ruleset.load(None)
#: Windows of a few entries: every run crosses many windows, and break points travel between
#: lanes in most of them.
TINY = 7


runner = cli_runner


def dask_document(client: Any, paths: list[str], **options: Any) -> str:
    """The audit JSON document of the paths, replayed on the cluster."""
    return audit_document(paths, RULES, de.DaskRunner(client, **options))


def dask_tables(client: Any, paths: list[str], dataset: Path | None = None,
                **options: Any) -> tuple[Any, list[HistoryParseError]]:
    """The session tables of the paths replayed on the cluster and their rejections; with
    ``dataset``, also written there as Parquet datasets (as ``session --engine dask``)."""
    rejections: list[HistoryParseError] = []
    tables = tables_of(paths, RULES, de.DaskRunner(client, **options), rejections)
    if dataset is not None:
        de.write_dataset(client, tables, dataset)
    return tables, rejections


# -- inputs -----------------------------------------------------------------------------------


_hand = worked_example_hand


def tricky_text(preamble: bool = True) -> str:
    """Every way an entry boundary can hide: a byte-order mark and comments first, text
    before the first header (``preamble``: a file that starts so is no history, so only a
    stream, standard input, brings it to the engines), indented headers, CRLF, tabs and
    double spaces in table names, a header right after a header, a line starting with ``O``
    that is no header, bytes that are not UTF-8, a hand without a table line, and no final
    newline."""
    crlf = _hand("T-4", "Riga\t 2").replace("\n", "\r\n")
    parts = [
        "\ufeff# a comment\n\n",
        _hand("T-1", "Riga 1"),
        "\n   " + _hand("T-2", "Riga  2", button=1),
        _hand("T-3", "Riga 1", button=1),
        _hand("T-3c", "Riga 1", button=2).split("*** STREET 4 ***")[0],  # cut off: incomplete
        crlf,
        "OFC Hand #T-5: Pineapple - 0.10 EUR/point - 2026-11-29 21:04:11 UTC\n",  # no table
        _hand("T-6", "Riga 1", button=2).replace("bob places top", "OFC Handy bob places top"),
        _hand("T-7", "Riga 2", button=2),
        _hand("T-7c", "Riga 2", button=3).split("bob is dealt [5d 5s Qh]")[0],  # mid-street
        "OFC Hand #T-8: Pineapple - 0.10 EUR/point - 2026-11-29 21:04:11 UTC\n"
        "Oleg was here\nTable 'Riga 1' 3-max - Seat #3 is the button\n",
        _hand("T-9", "Riga 1"),
        _hand("T-10", "Riga 2").replace("alice places middle [3c]", "alice places \udcff"),
        _hand("T-11", "Riga 2").rstrip("\n"),
    ]
    return ("garbage before the first hand\n" if preamble else "") + "".join(parts)


def write_tricky(path: Path, preamble: bool = True) -> Path:
    path.write_bytes(tricky_text(preamble).encode("utf-8", "surrogateescape"))
    return path


@pytest.fixture(scope="module")
def histories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated histories: every variant and Fantasyland type, several interleaved tables
    per file, injected faults, one player's view, and rejected hands in mid-file."""
    root = tmp_path_factory.mktemp("histories")
    fl_types = [t for t in FantasylandType]
    for i, variant in enumerate(Variant):
        for j in range(2):
            fl = fl_types[(2 * i + j) % len(fl_types)]
            options = SimulationOptions(
                ruleset=RULES.with_options(variant=variant, fantasyland=fl),
                players=2 + (i + j) % 2, hands=10, tables=3, seed=7 * i + j, faults=0.2,
                view="bob" if (i, j) == (1, 1) else None,
            )
            text = simulate_text(options)
            if (i, j) == (0, 0):
                lines = text.split("\n")
                heads = [k for k, line in enumerate(lines) if line.startswith("OFC Hand")]
                lines[heads[4] + 4] = "not a line of the format"
                lines[heads[9]] = "OFC Hand #BAD: Nonsense"
                text = "\n".join(lines)
            (root / f"{variant.value}_{fl.value}.txt").write_text(text, encoding="utf-8")
    write_tricky(root / "tricky.txt", preamble=False)  # a history: its first line a header
    return root


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=None, silence_logs=logging.ERROR) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


@pytest.fixture(scope="module")
def paths(histories: Path) -> list[str]:
    """The generated folder, the corpus, and one file named twice (read once)."""
    return [str(histories), str(SAMPLES), str(histories / "classic_none.txt")]


@pytest.fixture(scope="module")
def expected(paths: list[str]) -> tuple[Any, str]:
    """The local engine's tables and audit JSON of ``paths``."""
    return tables_of(paths, RULES), audit_document(paths, RULES)


@pytest.fixture(scope="module")
def few(histories: Path) -> list[str]:
    """Two generated files: one with rejected hands, one of another variant."""
    return [str(histories / "classic_none.txt"), str(sorted(histories.glob("joker*"))[0])]


@pytest.fixture(scope="module")
def expected_few(few: list[str]) -> Any:
    return tables_of(few, RULES)


def assert_tables_equal(expected: Any, actual: Any) -> None:
    for name, frame in expected.items():
        pd.testing.assert_frame_equal(getattr(actual, name), frame, check_exact=True,
                                      obj=name)


# -- the scan, in this process ----------------------------------------------------------------


def _reader_lines(text: str) -> list[int]:
    return [item.entry_line if isinstance(item, HistoryParseError) else item.line
            for item in read_text(text, "x.txt")]


@pytest.mark.parametrize("block", [5, 97, 1 << 23])
def test_the_scan_finds_the_entries_the_reader_yields(tmp_path: Path, block: int) -> None:
    path = write_tricky(tmp_path / "tricky.txt")
    # Named alone, the file is no history (prose first): the scan reads it as standard
    # input would come.
    entries = list(groups.scan_entries(Source(0, str(path), str(path)), block))
    assert [e.line for e in entries] == _reader_lines(tricky_text())
    assert not entries[0].hand  # text before the first header
    assert entries[-1].end == path.stat().st_size
    tables = {e.line: e.table for e in entries}
    assert {tables[1], tables[max(tables)]} == {None, "Riga 2"}
    assert set(tables.values()) == {None, "Riga 1", "Riga 2"}  # tabs and double spaces folded


@pytest.mark.parametrize("block", [2, 5, 1 << 23])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_comment_only_preamble_is_no_entry(tmp_path: Path, bom: str, block: int) -> None:
    """A byte-order mark at the file's start is no text before the first header either (the
    reader yields nothing for it: a scan that said otherwise made every run fall back)."""
    path = tmp_path / "c.txt"
    text = bom + "# just comments\n  \n\r\n" + _hand("C-1", "A")
    path.write_text(text, encoding="utf-8")
    entries = list(groups.scan_entries(sources_of([str(path)])[0], block))
    assert [(e.line, e.hand) for e in entries] == [(4, True)] == [
        (item.line, True) for item in read_text(text, "c.txt")]


def test_paths_expand_as_the_reader_reads_them(histories: Path) -> None:
    sources = sources_of([str(histories / "tricky.txt"), str(histories)])
    names = [s.file for s in sources]
    # The file named first is read first, and once: not again under the folder.
    assert names[0] == str(histories / "tricky.txt")
    assert names[1:] == sorted(names[1:])
    assert len(names) == len(set(names)) == len(list(histories.iterdir()))
    assert [s.index for s in sources] == list(range(len(sources)))


# -- same results as the local engine ---------------------------------------------------------


def test_tables_and_audit_json_equal_the_local_engines(
    client: Any, paths: list[str], expected: tuple[Any, str]
) -> None:
    stats = RunStats()
    tables, rejections = dask_tables(client, paths, window=TINY, stats=stats)
    assert_tables_equal(expected[0], tables)
    assert len(rejections) == len(expected[0].rejected) >= 4
    assert stats.lanes == 2 and stats.windows > 10 and stats.fallback is None
    assert set(stats.owners.values()) == {0, 1}
    stats = RunStats()
    assert dask_document(client, paths, window=TINY, stats=stats) == expected[1]
    assert stats.windows > 10 and stats.fallback is None
    # One window for everything: the same results.
    assert dask_document(client, paths, window=10**6) == expected[1]


def test_copies_are_left_out_by_the_deal(client: Any, histories: Path, tmp_path: Path) -> None:
    """A re-saved copy of a file (every hand a duplicate) and a conflicting hand: the deal
    leaves them out, the cluster replays the rest, and the results are the local loop's."""
    source = histories / "classic_none.txt"
    (tmp_path / "copy.txt").write_bytes(source.read_bytes().replace(b"\n", b"\r\n"))
    first = source.read_text(encoding="utf-8").split("OFC Hand #")[1]
    (tmp_path / "edited.txt").write_text("OFC Hand #" + first.rstrip() + "\n# edited\n",
                                         encoding="utf-8")
    paths = [str(source), str(histories / "pineapple_ultimate.txt"), str(tmp_path)]
    want = audit_document(paths, RULES)
    document = json.loads(want)
    # Every entry of the copy is a duplicate but the first, whose edited copy makes it a
    # conflict.
    entries = source.read_text(encoding="utf-8").count("OFC Hand #")
    assert document["totals"]["duplicates"] == entries - 1 and len(document["conflicts"]) == 1
    stats = RunStats()
    assert dask_document(client, paths, window=TINY, stats=stats) == want
    assert stats.fallback is None and stats.windows >= 2
    tables, _ = dask_tables(client, paths, window=TINY)
    assert_tables_equal(tables_of(paths, RULES), tables)


def test_the_same_chunks_as_jobs_2(client: Any, paths: list[str]) -> None:
    """Every (file, table) replayed by the same lane as with ``--jobs 2``, whatever the
    windows: the deal is one function of the scan, shared by both engines."""
    with_jobs = RunStats()
    audit_document(paths, RULES, ProcessPool(2, window=TINY, min_bytes=0, stats=with_jobs))
    for window in (TINY, de.WINDOW):
        with_dask = RunStats()
        dask_document(client, paths, window=window, stats=with_dask)
        assert with_dask.owners == with_jobs.owners
    assert len(with_jobs.owners) > 20 and set(with_jobs.owners.values()) == {0, 1}
    # A table's hands all in one lane: the owners are tables, not entries.
    names = {(file, table) for file, table in with_jobs.owners}
    assert len(names) == len(with_jobs.owners)


def _two_tables(rejected: str | None) -> str:
    """Tables Ankara and Bursa, the worked example twice at each; with ``rejected``, a hand of
    Ankara between them that the reader rejects: at a line after its table line (``"own"``)
    or at its table line (``"unknown"``). Worked out by hand from RULES.md and FORMAT.md:
    without the rejection, the second hand of each table breaks the chain rules (R-MATCH-1,
    R-FL-1, R-FL-3, R-SETTLE-5: the same match hand and stacks again); a rejection whose
    table line can be read breaks its own table's chain only: A-3 is valid, B-2 still breaks
    them; one whose table line cannot be read breaks every chain of the file: both are
    valid."""
    bad = _hand("A-2", "Ankara")
    if rejected == "own":
        bad = bad.replace("alice places middle [3c] bottom [3d], discards [Js]",
                          "not a line of the format")
    elif rejected == "unknown":
        assert "Table 'Ankara'" in bad
        bad = bad.replace("Table 'Ankara'", "Table Ankara")
    return (_hand("A-1", "Ankara") + _hand("B-1", "Bursa") + (bad if rejected else "")
            + _hand("B-2", "Bursa") + _hand("A-3", "Ankara"))


#: The validity of A-1, B-1, B-2, A-3 (see :func:`_two_tables`).
TWO_TABLES_VALID = {None: [True, True, False, False], "own": [True, True, False, True],
                    "unknown": [True, True, True, True]}


@pytest.mark.parametrize("window", [1, 2, 3, 100])
def test_a_rejection_breaks_its_own_tables_chain_in_every_runner(
    client: Any, tmp_path: Path, window: int
) -> None:
    """Ankara (with the rejected hand) goes to lane 0, Bursa to lane 1. A rejection whose
    table is known breaks Ankara's chain only (Bursa's carries on; no lane replays anything
    twice); one whose table is not known must reach lane 1 before its next hand, whether it
    is in the same window or an earlier one."""
    path = tmp_path / "two.txt"
    for rejected in ("own", "unknown", None):
        path.write_text(_two_tables(rejected), encoding="utf-8")
        want = audit_document([str(path)], RULES)
        # Two lanes, one per worker: a worker that the nanny is starting again (once in CI,
        # under load, the run found one worker and dealt both tables to lane 0) is waited for.
        client.wait_for_workers(2, timeout=120)
        stats = RunStats()
        got = dask_document(client, [str(path)], window=window, stats=stats)
        assert got == want
        assert stats.lanes == 2, "the cluster had one worker when the run started"
        assert stats.owners == {(str(path), "Ankara"): 0, (str(path), "Bursa"): 1}
        jobs_stats = RunStats()
        jobs = audit_document([str(path)], RULES, ProcessPool(
            2, window=window, min_bytes=0, stats=jobs_stats))
        assert jobs == want and jobs_stats.fallback is None
        if rejected != "unknown":
            assert jobs_stats.lane_redone == [0, 0]
        hands = {h["hand_id"]: h for h in json.loads(got)["hands"]}
        assert [hands[h]["valid"] for h in ("A-1", "B-1", "B-2", "A-3")] == \
            TWO_TABLES_VALID[rejected]
        assert json.loads(got)["totals"]["rejected"] == (1 if rejected else 0)
        tables, _ = dask_tables(client, [str(path)], window=window)
        assert_tables_equal(tables_of([str(path)], RULES), tables)


@pytest.mark.parametrize("sabotage", ["deal", "lines"])
def test_a_failed_check_hands_the_rest_to_the_client(
    client: Any, few: list[str], expected_few: Any, sabotage: Any
) -> None:
    """Tables dealt to two lanes, or a scan that disagrees with the reader: the windows before
    the failure come from the cluster, the rest from the local engine's loop."""
    stats = RunStats()
    tables, _ = dask_tables(client, few, window=3, stats=stats, sabotage=sabotage)
    assert stats.fallback is not None and stats.windows >= 1
    assert_tables_equal(expected_few, tables)
    stats = RunStats()
    document = dask_document(client, few, window=3, stats=stats, sabotage=sabotage)
    assert document == audit_document(few, RULES)
    assert stats.fallback is not None and stats.windows >= 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_has_the_input_size_as_its_total(
    client: Any, paths: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bytes of the input up to each window's end as the windows are written, rising to the
    whole input: the bar ends at the total, as with ``--jobs``."""
    monkeypatch.setenv("NO_COLOR", "1")
    seen: list[int] = []

    class Seen(Progress):
        def read(self, done: int) -> None:
            seen.append(done)
            super().read(done)

    total = sum(Path(s.path or "").stat().st_size for s in sources_of(paths))
    terminal = _Terminal()
    runner = de.DaskRunner(client, window=TINY)
    with open_sources(paths, runner.stdin) as sources:
        write_audit(sources, RULES, io.StringIO(), "json", runner,
                    progress=Seen(terminal, total))
    assert seen == sorted(seen) and seen[-1] == total and len(seen) > 10
    assert f"{total / 1000:.1f}/{total / 1000:.1f} kB" in terminal.getvalue()


def test_no_input_gives_empty_tables(client: Any, tmp_path: Path) -> None:
    paths = [str(tmp_path)]
    tables, _ = dask_tables(client, paths, tmp_path / "dataset")
    assert_tables_equal(tables_of(paths, RULES), tables)
    assert dask_document(client, paths) == audit_document(paths, RULES)


def test_cli_audit_prints_what_the_local_engine_prints(client: Any, histories: Path) -> None:
    address = client.scheduler.address
    hand = json.loads(audit_document([str(histories)], RULES))["hands"][5]["hand_id"]
    for extra in (["--json"], [], ["--hand", hand], ["--hand", hand, "--json"]):
        args = ["audit", str(histories), str(SAMPLES / "edge_scoop_bonus.txt"), *extra]
        want = runner().invoke(app, args)
        got = runner().invoke(app, [*args, "--engine", "dask", "--scheduler", address])
        assert (got.exit_code, got.stdout) == (want.exit_code, want.stdout), extra
        assert want.exit_code == (0 if "--hand" in extra else 1)
    missing = runner().invoke(app, ["audit", str(SAMPLES), "--hand", "NOPE", "--engine", "dask",
                                    "--scheduler", address])
    assert missing.exit_code == 2 and "no hand #NOPE" in missing.stderr


def test_cli_filters_give_what_the_local_engine_gives(client: Any, tmp_path: Path,
                                                     without_charts: None) -> None:
    address = client.scheduler.address
    for extra in (["--player", "alice", "--until", "2026-11-29"], ["--json", "--table", "T1"],
                  ["--player", "nobody"]):
        args = ["audit", str(SAMPLES), *extra]
        want = runner().invoke(app, args)
        got = runner().invoke(app, [*args, "--engine", "dask", "--scheduler", address])
        assert (got.exit_code, got.stdout) == (want.exit_code, want.stdout), extra
    assert want.exit_code == 2 and "no player named 'nobody'" in got.stderr
    args = ["session", str(SAMPLES), "--player", "bob", "--json"]
    want = runner().invoke(app, [*args, "--out", str(tmp_path / "local")])
    got = runner().invoke(app, [*args, "--out", str(tmp_path / "dask"), "--engine", "dask",
                                "--scheduler", address])
    assert (got.exit_code, got.stdout) == (want.exit_code, want.stdout)
    assert [p["name"] for p in json.loads(got.stdout)["players"]] == ["bob"] * 3


def test_cli_audit_reads_standard_input(client: Any) -> None:
    data = (SAMPLES / "classic_4p_session.txt").read_bytes()
    args = ["audit", "-", "--json"]
    want = runner().invoke(app, args, input=data)
    got = runner().invoke(app, [*args, "--engine", "dask", "--scheduler",
                                client.scheduler.address], input=data)
    assert (got.exit_code, got.stdout) == (want.exit_code, want.stdout) == (0, want.stdout)


def test_cli_session_writes_what_the_local_engine_writes(
    client: Any, histories: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The charts are drawn from the tables by the same code whatever the engine: skip them.
    monkeypatch.setattr(report, "render_charts", lambda *args, **kwargs: [])
    paths = [str(histories / "classic_none.txt"), str(histories / "tricky.txt"),
             str(SAMPLES / "classic_4p_session.txt")]
    want = runner().invoke(app, ["session", *paths, "--json", "--out", str(tmp_path / "l")])
    got = runner().invoke(app, ["session", *paths, "--json", "--out", str(tmp_path / "d"),
                                "--engine", "dask", "--scheduler", client.scheduler.address])
    assert (got.exit_code, got.stdout) == (want.exit_code, want.stdout)
    assert want.exit_code == 1 and json.loads(got.stdout)["players"]
    local_files = sorted(p.relative_to(tmp_path / "l") for p in (tmp_path / "l").rglob("*")
                         if p.is_file())
    for name in local_files:
        if name.suffix in (".csv", ".json", ".md"):
            assert (tmp_path / "d" / name).read_bytes() == (tmp_path / "l" / name).read_bytes()
        else:
            assert (tmp_path / "d" / name).is_file(), name
    # The partitioned Parquet dataset holds every row of every table.
    expected = tables_of(paths, RULES)
    for table, frame in expected.items():
        folder = tmp_path / "d" / "dataset" / table
        assert list(folder.glob("*.parquet")), table
        back = pd.read_parquet(folder)
        if "hand" in back:
            back = back.sort_values("hand", kind="stable")
        back = back.reset_index(drop=True)
        pd.testing.assert_frame_equal(back, frame, check_dtype=False, check_categorical=False,
                                      check_index_type=False, obj=table)


def test_review_decisions_and_output_are_the_local_engines(
    client: Any, paths: list[str]
) -> None:
    # The decisions, taken in the cluster's lanes right after each replay (cheap: every
    # input of the module), are the ones this process takes.
    wanted = Wanted(RULES)
    with open_sources(paths) as sources:
        here = read_reviewable(sources, wanted, InProcess())
    with open_sources(paths, "memory") as sources:
        there = read_reviewable(sources, wanted, de.DaskRunner(client, window=TINY))
    assert there.hands == here.hands and there.seen == here.seen
    assert sum(len(h.decisions) for h in here.hands) > 100
    # The whole command, each hand valued as a task of the cluster (one hand, few rollouts).
    one = next(h for h in here.hands if h.file.endswith("pineapple_progressive.txt")
               and h.decisions)
    args = ["review", "--json", "--rollouts", "8", "--seed", "3", one.file, "--hand",
            one.hand_id]
    want = runner().invoke(app, args)
    got = runner().invoke(app, [*args, "--engine", "dask", "--scheduler",
                                client.scheduler.address])
    assert (got.exit_code, got.stdout) == (want.exit_code, want.stdout)
    assert json.loads(got.stdout)["hands"]


# -- errors -----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(de, "CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{_free_port()}"
    start = time.monotonic()
    result = runner().invoke(app, ["session", str(SAMPLES), "--engine", "dask",
                                   "--scheduler", address])
    assert result.exit_code == 2
    assert f"cannot reach the Dask scheduler at {address}" in result.stderr
    assert result.stdout == ""
    assert time.monotonic() - start < 15


def test_without_dask_the_engine_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    result = runner().invoke(app, ["audit", str(SAMPLES), "--engine", "dask"])
    assert result.exit_code == 2
    assert "pip install 'ofc_audit[dask]'" in result.stderr


def test_scheduler_needs_the_dask_engine() -> None:
    result = runner().invoke(app, ["audit", str(SAMPLES), "--scheduler", "tcp://x:1"])
    assert result.exit_code == 2 and "--scheduler needs --engine dask" in result.stderr


def test_a_file_the_workers_cannot_read_is_a_usage_error(client: Any, tmp_path: Path) -> None:
    # Gone between the command's check and the workers' open (or never shared with them):
    # the error names the file as the user gave it, nothing is written.
    gone = [Source(0, "x.txt", str(tmp_path / "gone.txt"))]
    out = io.StringIO()
    with pytest.raises(UnreadableInput, match="^cannot read x.txt: No such file or directory$"):
        write_audit(gone, RULES, out, "json", de.DaskRunner(client))
    assert out.getvalue() == '{"hands": ['
    with pytest.raises(UnreadableInput, match="^cannot read x.txt: No such file"):
        session_tables(gone, RULES, de.DaskRunner(client))


# -- faults: a worker process killed in mid-run (last: they cost the cluster a worker) --------


class KillOnce(distributed.WorkerPlugin):  # type: ignore[misc]
    """Kills its worker process (SIGKILL, no goodbye) when the first task whose key starts
    with ``prefix`` starts executing anywhere in the cluster; a marker file makes it once."""

    def __init__(self, prefix: str, marker: str) -> None:
        self.prefix = prefix
        self.marker = marker

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        name = key[0] if isinstance(key, tuple) else key
        if finish != "executing" or not str(name).startswith(self.prefix):
            return
        try:
            with open(self.marker, "x"):
                pass
        except FileExistsError:
            return
        os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize("prefix", ["_read", "_replay"])
def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    client: Any, few: list[str], expected_few: Any, tmp_path: Path, prefix: str
) -> None:
    # _read: killed while reading a window; _replay: while replaying one.
    client.wait_for_workers(2, timeout=120)  # both back from an earlier kill
    marker = tmp_path / "killed"
    name = f"kill-{prefix}"
    client.register_plugin(KillOnce(prefix, str(marker)), name=name)
    try:
        with ThreadPoolExecutor(1) as pool:  # a hang fails the test instead of the CI run
            run = pool.submit(dask_tables, client, few, tmp_path / "dataset", window=TINY)
            tables, _ = run.result(timeout=180)
    finally:
        client.unregister_worker_plugin(name)
    assert marker.exists()  # a worker was killed, in the middle of the run
    assert_tables_equal(expected_few, tables)
    back = pd.read_parquet(tmp_path / "dataset" / "seats")
    assert len(back) == len(expected_few.seats)  # no part written twice, none lost
