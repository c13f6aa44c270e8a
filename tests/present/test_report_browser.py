"""The session report in headless Chromium, as a person uses it: a click on a header sorts,
the filter box filters, every link to a dispute page opens one, nothing fails in the console
or leaves the page, and a 420-px phone shows the standings without sideways scrolling.
One report of the disputes of the samples (they have problem hands, hence pages), written
once for the module; one browser for the whole run (tests/browser.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ofc_audit.cli.app import app
from tests.support.browser import Browser
from tests.support.golden import CORPUS
from tests.support.histories import cli_runner


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    histories = [str(CORPUS / "disputes"), str(CORPUS / "classic_4p_session.txt")]
    result = cli_runner().invoke(app, ["session", *histories, "--out", str(out),
                                       "--exit-zero", "--min-hands", "3"])
    assert result.exit_code == 0, result.output
    return out / "report.html"


def column(page: Any, table: str, col: int) -> list[str]:
    """The data-sort values (numbers) of a column, in the order shown."""
    return list(page.eval_on_selector_all(
        f"#{table} tbody tr", f"rows => rows.map(r => r.cells[{col}].dataset.sort)"))


def test_a_click_on_a_header_sorts_and_a_second_click_reverses(browser: Browser,
                                                               report: Path) -> None:
    visit = browser.open(report)
    page = visit.page
    # The standings come best first; the hands column is in no order yet.
    before = [float(v) for v in column(page, "standings-0", 1)]
    assert len(before) > 3 and before != sorted(before, reverse=True)
    page.click("#standings-0 th[data-col='1']")
    after = [float(v) for v in column(page, "standings-0", 1)]
    assert after == sorted(before, reverse=True)  # numbers: biggest first
    assert page.get_attribute("#standings-0 th[data-col='1']", "aria-sort") == "descending"
    page.click("#standings-0 th[data-col='1']")
    assert [float(v) for v in column(page, "standings-0", 1)] == sorted(before)
    # Text sorts A to Z, whatever the case.
    page.click("#standings-0 th[data-col='0']")
    names = page.eval_on_selector_all("#standings-0 tbody tr",
                                      "rows => rows.map(r => r.cells[0].textContent)")
    assert names[0].casefold() == min(n.casefold() for n in names)
    assert not visit.console_errors and not visit.outside_requests


def test_the_filter_box_keeps_the_matching_rows(browser: Browser, report: Path) -> None:
    visit = browser.open(report)
    page = visit.page
    rows = page.locator("#problems tbody tr")
    total = rows.count()
    page.fill("input[data-table='problems']", "r-card-3")
    shown = [r for r in rows.all() if r.is_visible()]
    assert 0 < len(shown) < total
    assert all("r-card-3" in r.inner_text().lower() for r in shown)
    assert page.inner_text("#problems-count") == f"{len(shown)} of {total} rows"
    page.fill("input[data-table='problems']", "")
    assert sum(r.is_visible() for r in rows.all()) == total
    assert not visit.console_errors and not visit.outside_requests


def test_every_hand_link_opens_its_dispute_page(browser: Browser, report: Path) -> None:
    visit = browser.open(report)
    links = visit.page.eval_on_selector_all(
        "a[href^='hands/']", "links => links.map(a => [a.getAttribute('href'), a.textContent])")
    problems = visit.page.locator("#problems tbody tr").count()
    assert len(links) == problems  # every problem hand has its page here (below the cap)
    for href, _ in links:
        assert (report.parent / href).is_file(), href
    href, hand = links[0]
    visit.page.click(f"a[href='{href}']")
    visit.page.wait_for_load_state("load")
    assert visit.page.url.endswith(href)
    assert hand.lstrip("#") in visit.page.inner_text("body")
    assert not visit.console_errors and not visit.outside_requests


def test_a_phone_shows_the_standings_without_sideways_scrolling(browser: Browser,
                                                                report: Path) -> None:
    visit = browser.open(report, width=420, height=800)
    page = visit.page
    assert page.evaluate("document.documentElement.scrollWidth") <= 420
    for table in page.locator("table[id^='standings-']").all():
        box = table.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 420
    # The standings start on the first screens, before the problem hands.
    top = page.locator("#standings-0").bounding_box()
    assert top is not None and top["y"] < 900
    assert not visit.console_errors and not visit.outside_requests


@pytest.mark.parametrize("width", [1400, 420])
def test_opening_a_rows_details_keeps_the_columns(browser: Browser, report: Path,
                                                  width: int) -> None:
    """Opening "more" in a row shows its details in place; no column of the table moves."""
    visit = browser.open(report, width=width)
    page = visit.page
    widths = ("t => Array.from(t.querySelectorAll('thead th'))"
              ".map(h => Math.round(h.getBoundingClientRect().width))")
    table = page.locator("#standings-0")
    before = table.evaluate(widths)
    table.locator("tbody tr").first.locator("details summary").click()
    assert table.locator("tbody tr details[open] dd").first.is_visible()
    assert table.evaluate(widths) == before
    assert not visit.console_errors
