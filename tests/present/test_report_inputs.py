"""Bad input is normal input: the session report of awkward sessions is a correct report.

Each session is simulated (ofc_audit.simulate.simulator), read and replayed as ``ofc-audit session``
would, and the page is checked for what a reader relies on: every name shown as text, every
in-page link lands, one standings table per currency whose settled amounts add up to zero
and whose payments settle it, Markdown tables whose rows have the header's cells.
"""

from __future__ import annotations

import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from ofc_audit.audit.driver import audit_items  # noqa: E402
from ofc_audit.game.ruleset import Ruleset  # noqa: E402
from ofc_audit.history.reader import HistoryParseError, read_text  # noqa: E402
from ofc_audit.present.report import SessionSummaries, write_session  # noqa: E402
from ofc_audit.present.report_view import ReportOptions  # noqa: E402
from ofc_audit.session.tables import SessionTables, TableBuilder  # noqa: E402
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text  # noqa: E402

RTL = "\u202eevil\u202c"
HOSTILE = ("<script>alert'1'</script>", 'say "hi", ok', "=1+2", "+cmd", "-minus", "@at", RTL,
           "x" * 200)
HOSTILE_TABLE = '<b>T</b>, =SUM"1" @x'


def simulated(seed: int = 1, **options: object) -> str:
    return simulate_text(SimulationOptions(ruleset=Ruleset(), seed=seed, **options))  # type: ignore[arg-type]


def tables_of(text: str) -> SessionTables:
    builder = TableBuilder()
    for item in audit_items(read_text(text, "s.txt"), Ruleset()):
        if isinstance(item, HistoryParseError):
            builder.reject(item)
        else:
            builder.add(item)
    return builder.build()


class Page(HTMLParser):
    """Ids, links, visible text, and per table id its rows of (text, data-sort) cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.duplicate_ids: list[str] = []
        self.hrefs: list[str] = []
        self.text: list[str] = []
        self.tables: dict[str, list[list[tuple[str, str]]]] = defaultdict(list)
        self.handlers: list[str] = []
        self._table: list[str] = []
        self._cell: list[str] | None = None
        self._sort = ""
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            if str(a["id"]) in self.ids:
                self.duplicate_ids.append(str(a["id"]))
            self.ids.add(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.hrefs.append(str(a["href"]))
        self.handlers += [k for k in a if k.startswith("on")]
        if tag in ("script", "style"):
            self._skip += 1
        if tag == "table":
            self._table.append(str(a.get("id") or ""))
        elif tag == "tr" and self._table and self._table[-1]:
            self.tables[self._table[-1]].append([])
        elif tag == "td" and self._table:
            self._cell, self._sort = [], str(a.get("data-sort") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1
        if tag == "table" and self._table:
            self._table.pop()
        elif tag == "td" and self._cell is not None and self._table and self._table[-1]:
            self.tables[self._table[-1]][-1].append(("".join(self._cell).strip(), self._sort))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def report(tables: SessionTables, out: Path, charts: bool = False) -> tuple[Page, str]:
    s = SessionSummaries.of(tables)
    write_session(tables, s, out, with_charts=charts, options=ReportOptions(min_hands=5))
    page = Page()
    page.feed((out / "report.html").read_text(encoding="utf-8"))
    md = (out / "summary.md").read_text(encoding="utf-8")
    check(tables, s, page, md)
    return page, md


def check(tables: SessionTables, s: SessionSummaries, page: Page, md: str) -> None:
    text = "".join(page.text)
    for name in tables.seats["name"].unique():
        assert str(name) in text, name
    for href in page.hrefs:
        assert href.startswith("#") and href[1:] in page.ids, href
    assert not page.handlers
    assert not page.duplicate_ids  # the script finds each table by its id
    currencies = sorted(s.players["currency"].unique())
    standings = sorted(k for k in page.tables if k.startswith("standings-"))
    assert len(standings) == len(currencies)
    for i, currency in enumerate(currencies):
        rows = page.tables[f"standings-{i}"][1:]  # the header row has no cells
        assert len(rows) == (s.players["currency"] == currency).sum()
        settled = {row[0][0]: float(row[2][1]) for row in rows}
        assert sum(settled.values()) == pytest.approx(0, abs=1e-9)  # money only moves
        # The payments settle every player's net exactly.
        for payer, payee, amount in page.tables[f"payments-{i}"][1:]:
            settled[payer[0]] += float(amount[1])
            settled[payee[0]] -= float(amount[1])
        assert all(v == pytest.approx(0, abs=1e-9) for v in settled.values()), currency
    for block in re.split(r"\n\n+", md):
        lines = [line for line in block.splitlines() if line.startswith("|")]
        counts = {len(re.findall(r"(?<!\\)\|", line)) for line in lines}
        assert len(counts) <= 1, block[:200]


def test_hostile_player_and_table_names(tmp_path: Path) -> None:
    text = simulated(players=3, hands=40, names=HOSTILE, stake="0.25 EUR")
    text = re.sub(r"^Table '[^']*'", f"Table '{HOSTILE_TABLE}'", text, flags=re.M)
    tables = tables_of(text)
    assert set(tables.seats["name"]) <= set(HOSTILE) and len(set(tables.seats["name"])) >= 3
    page, md = report(tables, tmp_path, charts=True)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html
    assert "<b>T</b>" not in html
    # A right-to-left mark stays inside its own <bdi>: it cannot turn the row around.
    if RTL in set(tables.seats["name"]):
        assert f"<bdi>{RTL}</bdi>" in html
    assert "<script" not in md and "\\<script" not in md


def test_a_session_of_one_hand(tmp_path: Path) -> None:
    tables = tables_of(simulated(players=3, hands=1))
    assert len(tables.hands) == 1
    page, _ = report(tables, tmp_path, charts=True)
    assert "not shown (1 hand)" in "".join(page.text)  # rates need --min-hands hands


def test_a_session_of_points_only_tables(tmp_path: Path) -> None:
    tables = tables_of(simulated(players=3, hands=20, stake="1 points"))
    page, md = report(tables, tmp_path)
    text = "".join(page.text)
    assert "points (points-only tables)" in text and "money settled" not in text
    assert "points settled" in text and "EUR" not in text


def test_five_currencies_at_once(tmp_path: Path) -> None:
    stakes = ["0.10 EUR", "0.50 USD", "1 GBP", "2 PLN", "1000 UZS"]
    text = "\n".join(simulated(seed=i, players=3, hands=8, stake=stake)
                     for i, stake in enumerate(stakes))
    tables = tables_of(text)
    page, md = report(tables, tmp_path)
    assert sorted(tables.seats["currency"].unique()) == ["EUR", "GBP", "PLN", "USD", "UZS"]
    assert [h for h in re.findall(r"^### (\w+)$", md, re.M)][:5] == [
        "EUR", "GBP", "PLN", "USD", "UZS"]


def test_forty_players(tmp_path: Path) -> None:
    names = tuple(f"player {i:02d}" for i in range(40))
    tables = tables_of(simulated(players=3, hands=300, tables=14, names=names))
    assert tables.seats["name"].nunique() == 40
    page, _ = report(tables, tmp_path)
    assert sum(1 for i in page.ids if re.fullmatch(r"player-\d+", i)) == 40


def test_a_hand_cut_off_is_listed_as_incomplete(tmp_path: Path) -> None:
    from tests.support.histories import WORKED_EXAMPLE

    cut = WORKED_EXAMPLE[:WORKED_EXAMPLE.index("*** STREET 3 ***")]
    tables = tables_of(WORKED_EXAMPLE.replace("PD-1001", "PD-1000") + "\n" + cut)
    assert tables.hands["incomplete"].notna().tolist() == [False, True]
    page, md = report(tables, tmp_path)
    rows = {row[0][0]: row for row in page.tables["problems"][1:]}
    # (The second hand repeats the first one's table and stacks: other findings may come.)
    row = rows["#PD-1001"]
    assert row[1][0].endswith("incomplete")
    assert "incomplete: " in row[2][0]
