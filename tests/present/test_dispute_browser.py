"""Dispute pages in headless Chromium, as a person sees them: every card of every board
visible with its face, the worked example's settlement on the page, each highlighted line
the one its finding cites, no console error, no request leaving the page, and a print of
one or two pages. A handful of pages, one browser for the whole run (tests/browser.py)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ofc_audit.audit.driver import audit_paths
from ofc_audit.game.cards import Card
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.present.dispute import find_pages, render_page
from ofc_audit.replay.results import HandResult, PlayerResult
from tests.support.browser import Browser
from tests.support.golden import CORPUS

# (history, hand): the FORMAT.md worked example, a violation, eight recorded mismatches, a
# violation at a 4-player Classic table, an own-view history with hidden cards, and jokers.
PAGES = {
    "worked": ("pineapple_3p_progressive_fl_worked_example.txt", "PD-1001"),
    "duplicate": ("disputes/duplicate_card.txt", "PD-2291"),
    "fouled": ("disputes/fouled_hand_paid_as_legal.txt", "TB-C-20911"),
    "four": ("disputes/stack_not_carried.txt", "TB-C-30402"),  # Classic, 4 players
    "hidden": ("pineapple_3p_own_view_hidden_cards.txt", None),
    "jokers": ("joker_pineapple_2p_joker_avoids_foul.txt", None),
    "capped": ("disputes/wrong_capped_transfer.txt", "PD-9671"),
    "royalty": ("disputes/wrong_royalty_in_summary.txt", "TB-T-5871"),
    "mucked": ("pineapple_2p_own_view_fl_opponent_mucked.txt", "PD-9030"),
}


def _first_hand(history: Path) -> str:
    match = re.search(r"(?m)^OFC Hand #([\w.-]+)", history.read_text(encoding="utf-8"))
    assert match
    return match.group(1)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, HandResult]]:
    """name -> (page file, history, the hand's result)."""
    folder = tmp_path_factory.mktemp("disputes")
    out = {}
    for name, (relative, hand) in PAGES.items():
        history = CORPUS / relative
        hand = hand or _first_hand(history)
        search = find_pages([str(history)], hand, Ruleset())
        path = folder / f"{name}.html"
        path.write_text(render_page(search.pages, hand), encoding="utf-8")
        result = next(r for r in audit_paths([str(history)], Ruleset())
                      if isinstance(r, HandResult) and r.hand_id == hand)
        out[name] = (path, history, result)
    return out


def pdf_pages(page: Any) -> int:
    return len(re.findall(rb"/Type\s*/Page\b", page.pdf(format="A4")))


SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


def face(card: Card) -> str:
    """What a card shows: rank (10 for T) and suit symbol; nothing for a hidden card."""
    if card.text == "??":
        return ""
    return card.text[0].replace("T", "10") + SUITS[card.text[1]]


def board_faces(player: PlayerResult) -> list[str]:
    """The faces of a final board in row order; a joker shows JK1 or JK2 and the card it stands for
    (the scored row keeps the input order, the joker replaced)."""
    faces = []
    for i, row in enumerate(player.board.rows):
        scored = player.result.rows[i].cards if player.result else row
        for placed, real in zip(row, scored, strict=True):
            faces.append(f"{placed.text}={face(real)}" if placed.is_joker else face(placed))
    return faces


def check_clean(visit: Any) -> None:
    assert visit.console_errors == []
    assert visit.outside_requests == []


def check_boards(visit: Any, result: HandResult) -> None:
    """Every card of every final board is visible and shows its rank and suit."""
    boards = visit.page.locator(".board")
    assert boards.count() == len(result.players)
    for i, player in enumerate(result.players):
        # Nothing of a board spills out of its box (a cut-off row would hide its royalties).
        assert boards.nth(i).evaluate("e => e.scrollWidth <= e.clientWidth")
        cards = boards.nth(i).locator(".card")
        faces = board_faces(player)
        assert cards.count() == len(faces) == len(player.board.cards)
        for j, face in enumerate(faces):
            card = cards.nth(j)
            assert card.is_visible()
            box = card.bounding_box()
            assert box is not None and box["width"] >= 12 and box["height"] >= 12
            assert card.inner_text().replace("\n", "") == face


def check_cited(visit: Any, history: Path) -> set[int]:
    """Each highlighted line is the line a finding cites, with the file's text."""
    page = visit.page
    lines = history.read_text(encoding="utf-8").splitlines()
    cited = page.locator(".source div.cited")
    marked = set()
    for i in range(cited.count()):
        row = cited.nth(i)
        assert row.is_visible()
        number = int(row.get_attribute("data-line"))
        assert row.locator(".text").inner_text() == lines[number - 1]
        background = row.evaluate("e => getComputedStyle(e).backgroundColor")
        assert background not in ("rgba(0, 0, 0, 0)", "transparent")
        marked.add(number)
    findings = page.locator(".finding[data-line]")
    cites = {int(findings.nth(i).get_attribute("data-line")) for i in range(findings.count())}
    assert marked == cites
    return marked


def test_worked_example(browser: Browser, pages: dict[str, tuple[Path, Path, HandResult]]
                        ) -> None:
    path, history, result = pages["worked"]
    visit = browser.open(path)
    check_clean(visit)
    check_boards(visit, result)
    rows = visit.page.locator("table.results tbody tr")
    seen = [re.split(r"\t", rows.nth(i).inner_text()) for i in range(rows.count())]
    # FORMAT.md: points -6 / -2 / +8, stacks 244 / 178 / 308, at 0.10 EUR a point.
    assert [(r[0].split(" ")[0], r[1], r[3], r[4]) for r in seen] == [
        ("alice", "-0.60 EUR", "244", "-6"), ("bob", "-0.20 EUR", "178", "-2"),
        ("carol", "+0.80 EUR", "308", "+8")]
    assert check_cited(visit, history) == set()
    assert 1 <= pdf_pages(visit.page) <= 2
    # The four-colour deck: diamonds turn from red to blue.
    diamond = visit.page.locator(".board .card.d").first
    red = diamond.evaluate("e => getComputedStyle(e).color")
    visit.page.locator("label[for=four-colour]").click()
    assert diamond.evaluate("e => getComputedStyle(e).color") not in (red, "rgb(17, 17, 17)")


def test_worked_example_narrow(browser: Browser,
                               pages: dict[str, tuple[Path, Path, HandResult]]) -> None:
    path, _, result = pages["worked"]
    visit = browser.open(path, width=420)
    check_clean(visit)
    check_boards(visit, result)
    width = visit.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 420


@pytest.mark.parametrize("name", ["duplicate", "fouled", "four"])
def test_findings_pages(browser: Browser, pages: dict[str, tuple[Path, Path, HandResult]],
                        name: str) -> None:
    path, history, result = pages[name]
    visit = browser.open(path)
    check_clean(visit)
    check_boards(visit, result)
    cited = check_cited(visit, history)
    assert cited == {v.line for v in result.violations} | {m.line for m in result.mismatches}
    assert 1 <= pdf_pages(visit.page) <= 2


@pytest.mark.parametrize("name", ["hidden", "jokers"])
def test_hidden_cards_and_jokers(browser: Browser,
                                 pages: dict[str, tuple[Path, Path, HandResult]],
                                 name: str) -> None:
    path, _, result = pages[name]
    visit = browser.open(path)
    check_clean(visit)
    check_boards(visit, result)
    page = visit.page
    if name == "hidden":
        hidden = page.locator(".step .card.hidden")
        assert hidden.count() > 0
        assert all(hidden.nth(i).is_visible() for i in range(hidden.count()))
    else:
        jokers = page.locator(".board .card.joker")
        assert jokers.count() >= 2
        assert all(re.fullmatch(r"JK[12]=\w+[♠♥♦♣]", jokers.nth(i).inner_text().replace("\n", ""))
                   for i in range(jokers.count()))
    assert 1 <= pdf_pages(page) <= 2


def _first_screen(visit: Any, selector: str) -> str:
    """The text of ``selector`` when it is wholly inside the first screen (no scrolling)."""
    element = visit.page.locator(selector).first
    box = element.bounding_box()
    height = visit.page.viewport_size["height"]
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, box
    return str(element.inner_text())


@pytest.mark.parametrize(("name", "amount", "rule"), [
    ("fouled", "17 points (0.85 EUR) too much", "R-SCORE-3"),
    ("capped", "2 points (2.00 USD) too little", "R-SETTLE-3"),
    ("royalty", "2 points too little", "R-ROY-3"),
])
@pytest.mark.parametrize("width", [1280, 420])
def test_first_screen_has_the_amount_and_the_rule(
        browser: Browser, pages: dict[str, tuple[Path, Path, HandResult]], name: str,
        amount: str, rule: str, width: int) -> None:
    """A player copies what the site owes and the rule that says so without scrolling, on
    a laptop and on a phone; the phone never scrolls sideways."""
    path, _, _ = pages[name]
    visit = browser.open(path, width=width, height=800)
    check_clean(visit)
    assert amount in _first_screen(visit, ".verdict .headline")
    cause = _first_screen(visit, ".verdict .cause p")
    assert cause.startswith("Why:") and rule in cause
    assert visit.page.evaluate("document.documentElement.scrollWidth") <= width


def test_results_show_the_money_that_moved(
        browser: Browser, pages: dict[str, tuple[Path, Path, HandResult]]) -> None:
    # wrong_capped_transfer at 1.00 USD a point: bob had 28 and lost it all; Big Al won 13
    # after the cap, though his points before caps are +25 and bob's -42.
    path, _, _ = pages["capped"]
    visit = browser.open(path)
    head = visit.page.locator("table.results thead th")
    headings = [head.nth(i).inner_text() for i in range(head.count())]
    assert headings[1] == "money moved" and headings[4] == "points before caps"
    rows = visit.page.locator("table.results tbody tr")
    seen = {r[0]: r for r in (rows.nth(i).inner_text().split("\t") for i in range(rows.count()))}
    assert seen["Big Al"][1] == "+13.00 USD" and seen["Big Al"][4] == "+25"
    assert seen["bob"][1] == "-28.00 USD" and seen["bob"][4] == "-42"
    assert seen["carol"][1] == "+15.00 USD"
    # Effects grouped: one line per player whose payment differs.
    effects = visit.page.locator(".verdict li.effect")
    assert [effects.nth(i).inner_text().split(":")[0] for i in range(effects.count())] == [
        "Big Al", "carol"]


def test_what_cannot_be_checked_is_neutral_and_claims_nothing(
        browser: Browser, pages: dict[str, tuple[Path, Path, HandResult]]) -> None:
    # PD-9030: the opponent mucked in Fantasyland; the site recorded -20 / +20.
    path, _, _ = pages["mucked"]
    visit = browser.open(path)
    check_clean(visit)
    box = visit.page.locator("section.verdict")
    colour = box.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour == "rgb(238, 241, 246)"  # neither the green of "all good" nor the red
    text = box.inner_text()
    assert "agrees with the rules" not in text and "every result" not in text
    rows = visit.page.locator(".unchecked tbody tr")
    cells = [rows.nth(i).inner_text().split("\t") for i in range(rows.count())]
    assert [c[0] for c in cells] == ["Big Al", "zarina"]
    assert "points +20" in cells[1][1] and cells[1][2].startswith("cannot be checked: ")
    assert "points -20" in cells[0][1] and "not fully known" in cells[0][2]
    # On a phone every word of it shows without scrolling the box sideways.
    phone = browser.open(path, width=420)
    unchecked = phone.page.locator(".unchecked")
    assert unchecked.locator(".scroll").evaluate("e => e.scrollWidth <= e.clientWidth")
    assert "cannot be checked: zarina's results depend on" in unchecked.inner_text()
    assert phone.page.evaluate("document.documentElement.scrollWidth") <= 420


def test_a_long_name_wraps_and_the_page_names_the_file_only(
        browser: Browser, tmp_path: Path) -> None:
    """A 60-character name keeps the Results table inside the window, and the page for
    the site shows the file's name, not the folders it was read from."""
    long = "Big_" + "A" * 56
    history = tmp_path / "folder with a local path" / "wrong_capped_transfer.txt"
    history.parent.mkdir()
    history.write_text((CORPUS / "disputes" / "wrong_capped_transfer.txt")
                       .read_text(encoding="utf-8").replace("Big Al", long), encoding="utf-8")
    search = find_pages([str(history)], "PD-9671", Ruleset())
    page = tmp_path / "page.html"
    page.write_text(render_page(search.pages, "PD-9671"), encoding="utf-8")
    for width in (1400, 420):
        visit = browser.open(page, width=width)
        check_clean(visit)
        assert visit.page.evaluate("document.documentElement.scrollWidth") <= width
        table = visit.page.locator("table.results").bounding_box()
        assert table is not None and table["x"] + table["width"] <= width
        text = visit.text()
        assert "wrong_capped_transfer.txt, line 11" in text
        assert str(tmp_path) not in text and "folder with a local path" not in text
