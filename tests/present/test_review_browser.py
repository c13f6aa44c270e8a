"""The review report in headless Chromium, as a person uses it: it renders with its charts,
every link resolves (the hand pages included), nothing fails in the console or leaves the
page, a 420-px phone shows it without sideways scrolling, a header click sorts, and a print
stays within a few pages. One short review (a heads-up hand, 20 rollouts) for the module."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ofc_audit.cli.app import app
from tests.present.test_report_browser import CHARTS_JS
from tests.present.test_review_report import FAST, FOULING
from tests.support.browser import Browser
from tests.support.histories import cli_runner

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("review")
    history = tmp / "heads_up.txt"
    history.write_text(FOULING, encoding="utf-8")
    out = tmp / "report"
    result = cli_runner().invoke(app, ["review", *FAST, str(history), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out / "review.html"


def test_it_renders_with_its_charts(browser: Browser, review: Path) -> None:
    visit = browser.open(review)
    page = visit.page
    assert page.inner_text("h1") == "OFC play review"
    document = json.loads((review.parent / "review.json").read_text("utf-8"))
    assert page.locator("#review-players tbody tr").count() == len(document["players"]) == 2
    assert page.locator("#review-costliest tbody tr").count() == len(document["costliest"]) > 0
    images = page.eval_on_selector_all("figure img", "imgs => imgs.map(i => i.naturalWidth)")
    assert len(images) == 3 and all(w > 0 for w in images)  # by street, 2 EV lines
    text = visit.text()
    assert "the cards took" in text or "the cards gave" in text
    assert not visit.console_errors and not visit.outside_requests


def test_every_link_resolves_and_a_hand_link_opens_its_page(browser: Browser,
                                                            review: Path) -> None:
    visit = browser.open(review)
    page = visit.page
    links = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
    hands = [href for href in links if href.startswith("hands/")]
    assert hands and len(hands) == page.locator("#review-costliest tbody tr").count()
    for href in links:
        if href.startswith("#"):
            assert page.locator(f"[id='{href[1:]}']").count() == 1, href
        else:
            # A hand page, at the decision's place in its play review.
            assert re.fullmatch(r"hands/[A-Za-z0-9_-]+\.html#h1-review-p\d+-\w+", href), href
            file, anchor = href.split("#")
            assert (review.parent / file).is_file(), href
            assert f'id="{anchor}"' in (review.parent / file).read_text("utf-8"), href
    page.click(f"a[href='{hands[0]}']")
    page.wait_for_load_state("load")
    assert page.url.endswith(hands[0]) and "EX-1" in page.inner_text("body")
    anchor = page.locator(f"[id='{hands[0].split('#')[1]}']")
    assert anchor.count() == 1 and anchor.first.is_visible()
    box = anchor.first.bounding_box()
    # Scrolled to it: its top at the top of the screen (a fraction of a pixel above, as
    # Chromium rounds the scroll position), not below the first screen.
    assert box is not None and -2 <= box["y"] < 900
    assert not visit.console_errors and not visit.outside_requests


def test_a_click_on_a_header_sorts(browser: Browser, review: Path) -> None:
    visit = browser.open(review)
    page = visit.page

    def costs() -> list[float]:
        return [float(v) for v in page.eval_on_selector_all(
            "#review-streets tbody tr", "rows => rows.map(r => r.cells[3].dataset.sort)")]

    before = costs()
    assert before != sorted(before, reverse=True)
    page.click("#review-streets th[data-col='3']")
    assert costs() == sorted(before, reverse=True)
    assert not visit.console_errors


@pytest.mark.parametrize("width", [420, 1400])
def test_nothing_scrolls_sideways_and_the_charts_are_readable(browser: Browser, review: Path,
                                                              width: int) -> None:
    from ofc_audit.present import charts as C
    visit = browser.open(review, width=width, height=900)
    page = visit.page
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("#review-players").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    # The answer in words is on the first screen.
    first = page.locator("ul.glance li").first.bounding_box()
    assert first is not None and first["y"] < 900
    smallest = min(float(str(C.STYLE["xtick.labelsize"])), float(str(C.STYLE["font.size"])) * 0.833)
    for f in page.eval_on_selector_all(".charts figure", CHARTS_JS):
        assert smallest * f["width"] / (C.WIDTH * 72) >= 9, f
        assert f["left"] >= 0 and f["right"] <= width, f
    assert not visit.console_errors and not visit.outside_requests


def pdf_pages(page: Any) -> int:
    return len(re.findall(rb"/Type\s*/Page\b", page.pdf(format="A4")))


def test_a_print_stays_within_a_few_pages(browser: Browser, review: Path) -> None:
    visit = browser.open(review)
    assert 1 <= pdf_pages(visit.page) <= 4
    assert not visit.console_errors


@pytest.fixture(scope="module")
def session_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("session")
    history = tmp / "heads_up.txt"
    history.write_text(FOULING, encoding="utf-8")
    result = cli_runner().invoke(app, ["session", str(history), "--review", "--rollouts", "20",
                                       "--seed", "3", "--out", str(tmp / "out")])
    assert result.exit_code == 0, result.output
    return tmp / "out" / "report.html"


@pytest.mark.parametrize("width", [420, 1400])
def test_the_session_report_with_its_review(browser: Browser, session_report: Path,
                                            width: int) -> None:
    visit = browser.open(session_report, width=width)
    page = visit.page
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.locator("#review-players tbody tr").count() == 2
    for href in page.eval_on_selector_all("a[href]",
                                          "links => links.map(a => a.getAttribute('href'))"):
        if href.startswith("#"):
            assert page.locator(f"[id='{href[1:]}']").count() == 1, href
        else:
            file, _, anchor = href.partition("#")
            assert (session_report.parent / file).is_file(), href
            assert not anchor or f'id="{anchor}"' in (session_report.parent / file).read_text(
                "utf-8"), href
    assert not visit.console_errors and not visit.outside_requests
