"""--player, --table, --since, --until (ofc_audit.audit.filters) on tables worked out by hand.

The session is test_summaries.session(): H1 PD-1001 at Tashkent 3 (alice, bob, carol;
2026-11-29 21:04:11 UTC), H2 and H3 at T1 (alice, bob; 22:00 and 22:05 UTC), H4 at T1
(alice, carol; 2026-11-30 01:00 +02:00, i.e. 2026-11-29 23:00 UTC).
"""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.audit.driver import open_sources, write_audit
from ofc_audit.audit.filters import FilterError, Filters, Selection, When, hand_time, select_tables
from ofc_audit.audit.writer import AuditWriter
from ofc_audit.engines.processes import ProcessPool
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.present.audit_text import audit_hand_text
from tests.session.test_summaries import session


def kept(filters: Filters) -> list[str]:
    return select_tables(session(), filters).tables.hands["hand_id"].tolist()


def test_dates_and_times_in_utc() -> None:
    day = When.parse("2026-11-29", "--since")
    assert day.start == datetime(2026, 11, 29, tzinfo=UTC)
    moment = When.parse("2026-11-30 01:00 +02:00", "--since")
    assert moment.start == datetime(2026, 11, 29, 23, 0, tzinfo=UTC)
    assert When.parse("2026-11-29T21:04:11Z", "--until").start == datetime(
        2026, 11, 29, 21, 4, 11, tzinfo=UTC)
    for bad in ("yesterday", "2026-13-01", "2026-11-29 25:00", "29.11.2026"):
        with pytest.raises(FilterError, match="--since"):
            When.parse(bad, "--since")
    with pytest.raises(FilterError, match="before --since"):
        Filters.of(since="2026-11-30", until="2026-11-29")
    assert hand_time("2026-11-30 01:00:00 +02:00") == datetime(2026, 11, 29, 23, tzinfo=UTC)
    assert hand_time("2026-11-30 01:00:00 CET") is None


def test_time_filters() -> None:
    assert kept(Filters.of(until="2026-11-29")) == ["PD-1001", "H2", "H3", "H4"]
    # --until keeps the whole minute it names: H2 at 22:00:00 yes, H3 at 22:05 no.
    assert kept(Filters.of(until="2026-11-29 22:00")) == ["PD-1001", "H2"]
    assert kept(Filters.of(until="2026-11-29 21:04:10")) == []
    # H4 is 01:00 at +02:00: 23:00 UTC on the 29th.
    assert kept(Filters.of(since="2026-11-29 23:00")) == ["H4"]
    assert kept(Filters.of(since="2026-11-30")) == []
    assert kept(Filters.of(since="2026-11-30 00:30 +02:00")) == ["H4"]


def test_one_players_view() -> None:
    selected = select_tables(session(), Filters.of(players=["carol"])).tables
    assert selected.hands["hand_id"].tolist() == ["PD-1001", "H4"]
    assert selected.seats["name"].unique().tolist() == ["carol"]
    # Her pairs only: alice-carol and bob-carol in PD-1001, alice-carol in H4.
    assert selected.pairs[["hand_id", "a", "b"]].values.tolist() == [
        ["PD-1001", "alice", "carol"], ["PD-1001", "bob", "carol"], ["H4", "alice", "carol"]]


def test_tables_and_players_combine() -> None:
    assert kept(Filters.of(tables=["T1"])) == ["H2", "H3", "H4"]
    assert kept(Filters.of(players=["bob"], tables=["T1"])) == ["H2", "H3"]
    assert kept(Filters.of(players=["bob", "carol"], tables=["T1"])) == ["H2", "H3", "H4"]


def test_unknown_names_name_the_closest() -> None:
    with pytest.raises(FilterError, match="no player named 'alcie'.*closest: 'alice'"):
        select_tables(session(), Filters.of(players=["alcie"]))
    with pytest.raises(FilterError, match="no table named 'tashkent 3'.*'Tashkent 3'"):
        select_tables(session(), Filters.of(tables=["tashkent 3"]))


def test_describe() -> None:
    assert Filters().describe() == ""
    assert Filters.of(players=["alice", "bob"], tables=["T1"], since="2026-11-29",
                      until="2026-11-30 06:00").describe() == (
        "players alice, bob; table T1; from 2026-11-29; through 2026-11-30 06:00:00 UTC "
        "(times in UTC)")
    assert Filters.of(tables=["T1"]).sentence() == "Hands filtered: table T1."


def test_selection_of_a_stream() -> None:
    selection = Selection(Filters.of(players=["bob"], since="2026-11-29 22:00"))
    assert not selection.keeps(("T1", ("alice", "bob"), "2026-11-29 21:59:59 UTC"))
    assert selection.keeps(("T1", ("alice", "bob"), "2026-11-29 22:00:00 UTC"))
    assert not selection.keeps(("T1", ("alice", "carol"), "2026-11-29 23:00:00 UTC"))
    assert not selection.keeps(("T1", ("bob",), "2026-11-29 23:00:00 CET"))
    assert selection.warnings() and "1 hand left out" in selection.warnings()[0]
    assert selection.unknown() is None
    assert "no player named 'bobby'" in (Selection(Filters.of(players=["bobby"])).unknown()
                                          or "")


def test_the_worker_processes_filter_as_this_process() -> None:
    """audit --jobs 2 --player X prints what --jobs 1 prints (lanes forced on)."""
    from pathlib import Path

    samples = sorted(str(p) for p in Path("sample_histories").glob("*.txt"))
    outputs = []
    for jobs in (1, 2):
        out = io.StringIO()
        selection = Selection(Filters.of(players=["alice"], until="2026-11-29 23:00"))
        pool = ProcessPool(jobs, min_bytes=0, window=7)
        with open_sources(samples, pool.stdin) as sources:
            writer = write_audit(sources, Ruleset(), out, "text", pool,
                                 render_hand=audit_hand_text, selection=selection)
        assert isinstance(writer, AuditWriter) and writer.read > writer.totals.hands > 0
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1]


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=6 * 3600 - 1))
def test_since_and_until_split_the_session(seconds: int) -> None:
    """Hands from T on, and hands through the second before T, are every hand, once."""
    cut = datetime(2026, 11, 29, 19, tzinfo=UTC) + timedelta(seconds=seconds)
    before = cut - timedelta(seconds=1)
    since = kept(Filters.of(since=cut.strftime("%Y-%m-%d %H:%M:%S")))
    until = kept(Filters.of(until=before.strftime("%Y-%m-%d %H:%M:%S")))
    assert sorted(since + until) == sorted(["PD-1001", "H2", "H3", "H4"])
