"""The hand page with its play review in headless Chromium: the section renders with every
decision, the exact values read on the page are the rules' own, "show all" opens every
street-1 placement, every link resolves, no console error, no request leaves the page,
nothing scrolls sideways at 420 px, and the print stays within a few pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import read_path
from ofc_audit.present.dispute import find_pages, render_page
from ofc_audit.present.review_page import with_reviews
from ofc_audit.review.json_doc import points_text
from ofc_audit.review.run import review_hands, reviewable_hands
from tests.present.test_dispute_browser import check_clean, pdf_pages
from tests.present.test_review_page import FAST, FL_CHAIN, FOULING
from tests.review.test_review_command import _bob_candidates
from tests.support.browser import Browser


def _page(history: Path, hand: str, target: Path, players: set[str] | None = None) -> Path:
    hands = list(reviewable_hands(read_path(str(history)), Ruleset(), players, hand))
    reviews = list(review_hands(hands, FAST))
    pages = find_pages([str(history)], hand, Ruleset()).pages
    target.write_text(render_page(with_reviews(pages, reviews, FAST), f"OFC hand #{hand}"),
                      encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("reviewed")
    history = folder / "heads_up.txt"
    history.write_text(FOULING, encoding="utf-8")
    return {"heads_up": _page(history, "EX-1", folder / "heads_up.html"),
            "fantasyland": _page(FL_CHAIN, "PD-5503", folder / "fl.html", {"alice", "bob"})}


def check_links(visit: Any, decisions: int) -> None:
    """Every link of the page points at an element of the page: the one to the review,
    each player's, each decision's line at least."""
    missing = visit.page.evaluate("""() => [...document.querySelectorAll('a[href]')]
        .map(a => a.getAttribute('href'))
        .filter(h => !h.startsWith('#') || !document.getElementById(h.slice(1)))""")
    assert missing == []
    assert visit.page.locator("a[href]").count() >= 1 + decisions


def test_section_renders_with_the_exact_values(browser: Browser, pages: dict[str, Path]
                                               ) -> None:
    visit = browser.open(pages["heads_up"])
    check_clean(visit)
    check_links(visit, 10)
    page = visit.page
    section = page.locator("section.review")
    assert section.is_visible() and section.locator("h2").inner_text().startswith("Play review")
    assert page.locator(".review-link").is_visible()
    assert section.locator(".decision").count() == 10  # five streets for each player
    # bob's last decision is exact: each candidate's EV is its value by the rules' own
    # scoring, and the ± column says "exact".
    last = page.locator("#h1-review-p2-5")
    assert "exact" in last.locator("h4").inner_text()
    rows = last.locator("table.candidates tbody tr")
    assert rows.count() == 6
    values = _bob_candidates()
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td")
        top, middle = cells.nth(1).inner_text(), cells.nth(2).inner_text()
        key = next(k for k in values if _face(k[0]) == top and _face(k[1]) == middle)
        assert cells.nth(5).inner_text() == points_text(values[key], sign=True)
        assert cells.nth(6).inner_text() == "exact"
    # The cards the best placement puts elsewhere are marked by a sign, not only a colour.
    marked = last.locator(".slot.differs")
    assert marked.count() >= 2
    assert all(marked.nth(i).locator(".diff").inner_text() == "≠" for i in range(marked.count()))
    assert "The best placement differs:" in last.inner_text()


def _face(code: str) -> str:
    return code[0].replace("T", "10") + {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}[code[1]]


def test_street_one_shows_the_best_few_then_all(browser: Browser, pages: dict[str, Path]
                                                ) -> None:
    visit = browser.open(pages["heads_up"])
    first = visit.page.locator("#h1-review-p1-1")
    shown = first.locator(":scope > .scroll table.candidates tbody tr")
    assert 5 <= shown.count() <= 6  # the best five, and the one played when it is not there
    every = first.locator("details.all-candidates table.candidates tbody tr")
    assert every.count() == 232 and not every.first.is_visible()
    first.locator("details.all-candidates summary").click()
    assert every.nth(231).is_visible()


def test_fantasyland_settings(browser: Browser, pages: dict[str, Path]) -> None:
    visit = browser.open(pages["fantasyland"])
    check_clean(visit)
    check_links(visit, 2)
    settings = visit.page.locator(".decision", has_text="Fantasyland setting")
    assert settings.count() == 2  # alice's 14 cards and bob's 17
    for i in range(settings.count()):
        boards = settings.nth(i).locator(".rboard")
        assert [boards.nth(j).locator("h5").inner_text().split(" ")[0] for j in range(2)] == \
            ["Played", "Best"]
        for j in range(2):
            assert boards.nth(j).locator("tbody tr").count() == 4  # three rows and discards
            assert "royalties" in boards.nth(j).locator("p").inner_text()


@pytest.mark.parametrize("name", ["heads_up", "fantasyland"])
def test_narrow_and_print(browser: Browser, pages: dict[str, Path], name: str) -> None:
    visit = browser.open(pages[name], width=420)
    check_clean(visit)
    assert visit.page.evaluate("document.documentElement.scrollWidth") <= 420
    boards = visit.page.locator(".rboard")
    for i in range(boards.count()):
        assert boards.nth(i).evaluate("e => e.getBoundingClientRect().right <= 420")
    assert 1 <= pdf_pages(visit.page) <= 6
