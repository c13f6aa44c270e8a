"""The dispute page (``audit --hand ID --html``) and the session's hand pages, read as text
(tests/test_dispute_browser.py looks at them in Chromium)."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ofc_audit.cli.app import app
from ofc_audit.game.cards import Card
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.records import Stake
from ofc_audit.present.dispute import card_view, find_pages, moved, shown
from ofc_audit.present.hand_pages import page_name
from tests.support.golden import CORPUS, dispute_histories, dispute_page, page_sidecar, visible_text
from tests.support.histories import WORKED_EXAMPLE, cli_runner

WORKED = CORPUS / "pineapple_3p_progressive_fl_worked_example.txt"


def page_of(tmp_path: Path, history: Path | str, hand: str, *extra: str) -> tuple[int, str]:
    """Runs ``audit HISTORY --hand HAND --html PAGE``; (exit code, page text)."""
    if isinstance(history, str):
        path = tmp_path / "history.txt"
        path.write_text(history, encoding="utf-8")
        history = path
    page = tmp_path / "page.html"
    result = cli_runner().invoke(app, ["audit", str(history), "--hand", hand, "--html",
                                       str(page), *extra])
    assert result.exit_code in (0, 1), result.output + str(result.exception)
    return result.exit_code, page.read_text(encoding="utf-8")


def source_lines(page: str, cited_only: bool = False) -> dict[int, str]:
    """Line number -> text of every source line of a page (or the highlighted ones)."""
    kind = "cited[^\"]*" if cited_only else "[^\"]*"
    return {
        int(number): html.unescape(text)
        for number, text in re.findall(
            rf'<div class="{kind}" id="[^"]*" data-line="(\d+)"><span class="no">\d+</span>'
            r'<span class="text">(.*?)</span></div>', page)
    }


def cited_lines(page: str) -> dict[int, str]:
    return source_lines(page, cited_only=True)


def test_worked_example_page_has_the_settlement(tmp_path: Path) -> None:
    code, page = page_of(tmp_path, WORKED, "PD-1001")
    assert code == 0
    text = visible_text(page)
    # FORMAT.md's worked example: points -6 / -2 / +8, stacks 250->244, 180->178, 300->308,
    # money at 0.10 EUR a point; pairs settled alice v bob, alice v carol, bob v carol.
    # The money that moved (no cap here: points x stake), then the points before caps.
    assert "alice\t-0.60 EUR\t250\t244\t-6\tno" in text
    assert "bob\t-0.20 EUR\t180\t178\t-2\tyes, 14 cards" in text
    assert "carol (in Fantasyland)\t+0.80 EUR\t300\t308\t+8\tno" in text
    assert "alice v bob: bob is due 1, 1 moved; alice 250 → 249, bob 180 → 181" in text
    assert "bob v carol: carol is due 3, 3 moved; bob 181 → 178, carol 305 → 308" in text
    # The previous hand of match M-77 is missing: a neutral box, no claim about it.
    assert ("Part of this hand cannot be checked (hidden cards or hands missing from the "
            "file); nothing that could be checked differs from the rules.") in text
    assert 'class="verdict neutral"' in page
    assert "every result the site recorded agrees" not in text
    assert "top\tA♥ 6♣ 6♦\tpair\t1" in text  # alice's top: 66 is 1 royalty
    assert "bottom\tJ♥ 10♥ 8♥ 4♥ 3♥\tflush\t4" in text
    # Every line of the hand is on the page, none marked (nothing is cited).
    lines = WORKED.read_text(encoding="utf-8").splitlines()
    assert source_lines(page) == {n: lines[n - 1] for n in range(8, 50)}
    assert cited_lines(page) == {}


def test_page_is_self_contained(tmp_path: Path) -> None:
    _, page = page_of(tmp_path, CORPUS / "disputes" / "duplicate_card.txt", "PD-2291")
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", page)
    assert "@import" not in page and "url(" not in page and "<script" not in page
    assert "@media print" in page


@pytest.mark.parametrize("history", dispute_histories(), ids=lambda p: p.stem)
def test_dispute_page_text_matches_golden(history: Path) -> None:
    expected = page_sidecar(history)
    assert expected.exists(), f"{expected.name} is missing: python -m tests.support.golden --update"
    assert visible_text(dispute_page(history)) == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize("history", dispute_histories(), ids=lambda p: p.stem)
def test_each_highlighted_line_is_the_cited_line(history: Path) -> None:
    page = dispute_page(history)
    file_lines = history.read_text(encoding="utf-8").splitlines()
    cited = cited_lines(page)
    findings = {int(n) for n in re.findall(r'class="[^"]*\bfinding\b[^"]*" data-line="(\d+)"',
                                           page)}
    assert findings and set(cited) == findings
    for number, text in cited.items():
        assert text == file_lines[number - 1]


def test_mismatch_says_recorded_and_rules_with_money(tmp_path: Path) -> None:
    code, page = page_of(tmp_path, CORPUS / "disputes" / "fouled_hand_paid_as_legal.txt",
                         "TB-C-20911")
    assert code == 1
    text = visible_text(page)
    # ramune fouled: the site paid her as legal (-16), the rules give -33; her stack 84
    # against 67: 17 points too much at 0.25 EUR... the stake of that file.
    stake = re.search(r"- ([\d.]+) (\w+)/point", (CORPUS / "disputes" /
                      "fouled_hand_paid_as_legal.txt").read_text()).groups()
    amount = f"{float(stake[0]) * 17:.2f} {stake[1]}"
    # The answer first, in money; the cause with the scoring rule; one line per player.
    assert text.index("The site paid Big Al") < text.index("Why: ramune's board is fouled")
    assert (f"ramune: the site recorded points -16 and stack after 84, the rules give -33 and "
            f"67: paid 17 points ({amount}) too much") in text
    assert "R-SCORE-3" in text.split("Why:")[1].split("\n")[0]
    assert "play within the rules that scores as a foul" in text
    assert "Legal play" not in text and "legal play" not in text
    assert len(re.findall(r"(?m)^(Big Al|ramune|tomas): the site recorded", text)) == 3


def test_a_royalties_mismatch_is_royalty_points_not_money(tmp_path: Path) -> None:
    # wrong_royalty_in_summary at 0.10 EUR a point: nadia's TT on top is 5 (R-ROY-3), the
    # site gave 4: 1 royalty point, paid through the points (2 points, 0.20 EUR, from two
    # opponents) whose own lines carry the money; the terminal says the same.
    history = (CORPUS / "disputes" / "wrong_royalty_in_summary.txt").read_text("utf-8")
    history = history.replace("Turbo - 1 points/point", "Turbo - 0.10 EUR/point")
    _, page = page_of(tmp_path, history, "TB-T-5871")
    text = visible_text(page)
    # The cause first, with the rule and its clause, in royalties (not money) ...
    why = ('Why: nadia\'s top pair of tens pays 5 (R-ROY-3 "Top row royalties") and bottom '
           'quads of eights pays 10 (R-ROY-1 "Bottom row royalties"); the site counted 14 '
           "royalties, the rules give 15.")
    assert why in text
    # ... then its effects, priced where money moved.
    assert ("nadia: the site recorded points +27 and stack after 127, the rules give +29 and "
            "129: paid 2 points (0.20 EUR) too little") in text
    assert ("Big Al: the site recorded points -4 and stack after 96, the rules give -5 and "
            "95: paid 1 point (0.10 EUR) too much") in text
    assert text.index(why) < text.index("nadia: the site recorded")
    # The terminal tells the same cause in the same units.
    terminal = cli_runner().invoke(app, ["audit", str(tmp_path / "history.txt"), "--hand",
                                         "TB-T-5871"]).stdout
    assert why.removeprefix("Why: ") in terminal
    assert ("nadia: the site recorded points +27 and stack after 127, the rules give +29 and "
            "129: paid 2 points (0.20 EUR) too little") in terminal


def test_unknown_hand_lists_near_matches(tmp_path: Path) -> None:
    result = cli_runner().invoke(app, ["audit", str(CORPUS), "--hand", "PD-229",
                                       "--html", str(tmp_path / "x.html")])
    assert result.exit_code == 2
    assert "no hand #PD-229" in result.stderr and "#PD-2291" in result.stderr
    assert not (tmp_path / "x.html").exists()
    result = cli_runner().invoke(app, ["audit", str(WORKED), "--html", "-"])
    assert result.exit_code == 2 and "--html needs --hand" in result.stderr


def test_html_to_stdout() -> None:
    result = cli_runner().invoke(app, ["audit", str(WORKED), "--hand", "PD-1001",
                                       "--html", "-"])
    assert result.exit_code == 0
    assert result.stdout.startswith("<!DOCTYPE html>") and "Hand #PD-1001" in result.stdout


def test_rejected_hand_gets_a_page_with_the_rejection(tmp_path: Path) -> None:
    bad = WORKED_EXAMPLE.replace("PD-1001", "PD-7").replace(
        "bob places bottom [4d 4s], discards [2s]", "bob places bottom [4d 4s], discrds [2s]")
    history = WORKED_EXAMPLE + "\n" + bad
    code, page = page_of(tmp_path, history, "PD-7")
    assert code == 1
    text = visible_text(page)
    header = len(WORKED_EXAMPLE.splitlines()) + 2  # after the first hand and a blank line
    line = header + WORKED_EXAMPLE.splitlines().index("bob places bottom [4d 4s], discards [2s]")
    assert "Hand #PD-7 could not be read" in text
    assert re.search(rf"history\.txt, line {line}, column \d+: ", text)
    assert cited_lines(page) == {line: "bob places bottom [4d 4s], discrds [2s]"}
    assert re.search(r"\n\^ expected .*, found .discrds.", text)
    assert "OFC Hand #PD-7: Pineapple" in text  # the text around it: the whole entry


def test_untrusted_names_are_text(tmp_path: Path) -> None:
    script, quoted, rtl = '<script>alert"x"</script>', "o'neil \"bob\"", "\u202ecarol\u200f"
    history = (WORKED_EXAMPLE.replace("alice", script).replace("bob", quoted)
               .replace("carol", rtl))
    _, page = page_of(tmp_path, history, "PD-1001")
    assert "<script" not in page
    assert "&lt;script&gt;alert&#34;x&#34;&lt;/script&gt;" in page
    assert "o&#39;neil &#34;o" not in page  # 'bob' inside the quoted name was not replaced
    assert "\u202e" not in page and "\u200f" not in page
    text = visible_text(page)
    assert '<script>alert"x"</script>\t-0.60 EUR\t' in text
    assert "<U+202E>carol<U+200F> (in Fantasyland)\t+0.80 EUR" in text
    assert '<bdi class="name">o&#39;neil &#34;bob&#34;</bdi>' in page


def test_jokers_show_the_card_they_stand_for(tmp_path: Path) -> None:
    history = CORPUS / "joker_pineapple_2p_joker_avoids_foul.txt"
    hand = re.search(r"OFC Hand #([\w.-]+)", history.read_text()).group(1)  # type: ignore[union-attr]
    _, page = page_of(tmp_path, history, hand)
    text = visible_text(page)
    # JK1 = Kh in a bottom flush, JK2 on top = 5s (README of the corpus).
    assert "JK1=K♥" in text and "JK2=5♠" in text
    assert "jokers (R-JOKER-2): JK1 = Kh" in text


def test_hidden_cards_are_face_down(tmp_path: Path) -> None:
    history = CORPUS / "pineapple_3p_own_view_hidden_cards.txt"
    hands = re.findall(r"OFC Hand #([\w.-]+)", history.read_text())
    _, page = page_of(tmp_path, history, hands[0])
    assert page.count('class="card hidden"') >= 4
    assert "Not verified from this history" in visible_text(page)


def test_fantasyland_hand_without_streets(tmp_path: Path) -> None:
    history = CORPUS / "pineapple_2p_ultimate_fl_chain.txt"
    text = history.read_text()
    blocks = re.split(r"(?m)^(?=OFC Hand #)", text)
    hand = next(re.match(r"OFC Hand #([\w.-]+)", b).group(1)  # type: ignore[union-attr]
                for b in blocks if b.startswith("OFC") and "*** STREET" not in b)
    code, page = page_of(tmp_path, history, hand)
    assert code == 0
    text = visible_text(page)
    assert "Fantasyland line" in text and "Street 1" not in text
    assert text.count("rows in order, R-ORDER-1") + text.count("FOULED") == 2


def test_classic_four_players(tmp_path: Path) -> None:
    history = CORPUS / "classic_4p_session.txt"
    hand = re.findall(r"OFC Hand #([\w.-]+)", history.read_text())[1]
    code, page = page_of(tmp_path, history, hand)
    assert code == 0
    text = visible_text(page)
    assert "variant\tClassic" in text
    assert len(re.findall(r'class="board[ "]', page)) == 4
    assert text.count(" v ") >= 6  # six pairs, in the table and the settlement
    assert "Street 9" in text  # Classic: 5 cards, then 8 streets of one


def test_same_id_in_two_files(tmp_path: Path) -> None:
    """docs/CLI.md, every hand once; docs/RULINGS.md: the same text twice is one hand (the
    first copy's page); two texts under one id are a conflict, not scored: no page."""
    a, b, c = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    a.write_text(WORKED_EXAMPLE, encoding="utf-8")
    b.write_text(WORKED_EXAMPLE.replace("\n", "\r\n"), encoding="utf-8")  # the same hand
    search = find_pages([str(a), str(b)], "PD-1001", Ruleset())
    assert [(p.file, p.anchor) for p in search.pages] == [("a.txt", "h1")]
    assert [(d.copy.file, d.first.file) for d in search.index.duplicates] == [
        (str(b), str(a))]
    c.write_text(WORKED_EXAMPLE.replace("stack 250 -> 244", "stack 250 -> 245"),
                 encoding="utf-8")
    search = find_pages([str(a), str(b), str(c)], "PD-1001", Ruleset())
    assert search.pages == [] and "PD-1001" in search.ids
    assert [[x.file for x in k.copies] for k in search.index.conflicts] == [
        [str(a), str(b), str(c)]]


def test_cards_and_money() -> None:
    assert card_view(Card.parse("Td")).face == "10♦"
    assert card_view(Card.parse("JK2"), Card.parse("Ah")).face == "JK2=A♥"
    assert card_view(Card.parse("??")).face == ""
    stake = Stake(__import__("decimal").Decimal("0.10"), "EUR", "0.10")
    assert moved(-6, stake) == "-0.60 EUR" and moved(0, stake) == "0.00 EUR"
    assert moved(13, stake) == "+1.30 EUR" and moved(None, stake) == "-"
    assert moved(3, Stake(__import__("decimal").Decimal("1"), "points", "1")) == "+3 points"
    assert shown("a\u202eb\udc80") == "a<U+202E>b\ufffd"


@given(st.text(max_size=120), st.lists(st.text(max_size=20), max_size=5))
def test_page_names_are_safe_and_unique(hand_id: str, others: list[str]) -> None:
    taken: set[str] = set()
    names = [page_name(i, taken) for i in [*others, hand_id, hand_id]]
    assert len({n.lower() for n in names}) == len(names)
    for name in names:
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,90}\.html", name)


def test_session_writes_a_page_per_problem_hand(tmp_path: Path) -> None:
    import pandas as pd

    out = tmp_path / "out"
    result = cli_runner().invoke(app, ["session", str(CORPUS), "--out", str(out),
                                       "--exit-zero"])
    assert result.exit_code == 0, result.output
    hands = pd.read_csv(out / "csv" / "hands.csv")
    problems = hands[(~hands["valid"]) | (hands["mismatches"] > 0) | (hands["unverifiable"] > 0)]
    assert len(problems) >= 12
    report = (out / "report.html").read_text(encoding="utf-8")
    for hand_id in problems["hand_id"]:
        page = out / "hands" / f"{hand_id}.html"
        assert page.exists(), hand_id
        assert f'href="hands/{hand_id}.html"' in report
        assert f"Hand #{hand_id}" in page.read_text(encoding="utf-8")
    assert len(list((out / "hands").iterdir())) == len(problems)


def test_session_page_cap(tmp_path: Path, without_charts: None) -> None:
    out = tmp_path / "out"
    result = cli_runner().invoke(app, ["session", str(CORPUS / "disputes"), "--out", str(out),
                                       "--exit-zero", "--hand-pages", "3"])
    assert result.exit_code == 0, result.output
    assert len(list((out / "hands").iterdir())) == 3
    report = visible_text((out / "report.html").read_text(encoding="utf-8"))
    assert "9 more problem hands are listed without a page (pages are written for the " \
        "first 3" in report


def test_session_without_problems_reads_nothing_again(tmp_path: Path, without_charts: None) -> None:
    out = tmp_path / "out"
    history = tmp_path / "h.txt"
    history.write_text(CORPUS.joinpath("edge_scoop_bonus.txt").read_text(), encoding="utf-8")
    result = cli_runner().invoke(app, ["session", str(history), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert not (out / "hands").exists()


def test_session_pages_are_the_same_with_jobs(tmp_path: Path, without_charts: None) -> None:
    pages = {}
    for jobs in ("1", "2"):
        out = tmp_path / jobs
        result = cli_runner().invoke(app, ["session", str(CORPUS / "disputes"), "--out",
                                           str(out), "--exit-zero", "--jobs", jobs])
        assert result.exit_code == 0, result.output
        pages[jobs] = {p.name: p.read_text(encoding="utf-8")
                       for p in (out / "hands").iterdir()}
    assert len(pages["1"]) == 12 and pages["1"] == pages["2"]


def test_session_from_stdin_says_why_pages_are_missing(tmp_path: Path,
                                                       without_charts: None) -> None:
    out = tmp_path / "out"
    history = (CORPUS / "disputes" / "duplicate_card.txt").read_bytes()
    result = cli_runner().invoke(app, ["session", "-", "--out", str(out), "--exit-zero"],
                                 input=history)
    assert result.exit_code == 0, result.output
    report = visible_text((out / "report.html").read_text(encoding="utf-8"))
    assert "1 problem hand has no page: its input cannot be read again" in report


def test_stack_caps_are_shown_where_they_cut(tmp_path: Path) -> None:
    history = CORPUS / "edge_capped_transfer.txt"
    hand = re.findall(r"OFC Hand #([\w.-]+)", history.read_text())[0]
    _, page = page_of(tmp_path, history, hand)
    text = visible_text(page)
    # The corpus README: the first pair is capped by the winner's stack (10 of 22), the
    # third by the loser's (18 of 20); the loser busts.
    assert "Big Al is due 22, 10 moved, capped by Big Al's stack of 10, R-SETTLE-3" in text
    assert "carol is due 20, 18 moved, capped by bob's stack of 18, R-SETTLE-3" in text
    assert "bob 18 → 0" in text
    assert text.count(" capped\n") == 2  # the two capped pairs of the pair table


def test_session_pages_of_one_id_in_two_files(tmp_path: Path, without_charts: None) -> None:
    """The same hand in two files is read once: one page (the worked example is
    unverifiable: it gets one), of the first copy; a third file with another text under the
    same id makes a conflict: no copy is scored, no page, the report lists it."""
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("a.txt", "b.txt"):
        (folder / name).write_text(WORKED_EXAMPLE, encoding="utf-8")
    out = tmp_path / "out"
    result = cli_runner().invoke(app, ["session", str(folder), "--out", str(out),
                                       "--exit-zero"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "hands").iterdir()) == ["PD-1001.html"]
    page = (out / "hands" / "PD-1001.html").read_text(encoding="utf-8")
    # The first copy's page, and no local path (the page goes to the site).
    assert "a.txt, line" in page and "b.txt" not in page and str(folder) not in page
    report = visible_text((out / "report.html").read_text(encoding="utf-8"))
    assert f"duplicate #PD-1001 at {folder / 'b.txt'}:1, first read at" in report

    (folder / "c.txt").write_text(WORKED_EXAMPLE.replace("stack 250 -> 244",
                                                         "stack 250 -> 245"), encoding="utf-8")
    result = cli_runner().invoke(app, ["session", str(folder), "--out", str(out)])
    assert result.exit_code == 1, result.output  # a conflict is a finding
    assert not (out / "hands").exists() or not list((out / "hands").iterdir())
    report = visible_text((out / "report.html").read_text(encoding="utf-8"))
    assert "conflict #PD-1001: " in report and "(the copies differ: no dispute page)" in report


def test_incomplete_hand(tmp_path: Path) -> None:
    cut = WORKED_EXAMPLE.split("bob is dealt [5d 5s Qh]")[0]  # stops inside street 3
    last = len(cut.splitlines())
    code, page = page_of(tmp_path, cut, "PD-1001")
    assert code == 1  # an incomplete hand is a finding (docs/CLI-EXTENSIONS.md)
    text = visible_text(page)
    assert f"Incomplete: the history stops at line {last}; missing: rest of street 3, " \
        "street 4, street 5, SHOWDOWN, SUMMARY" in text
    assert "Payment: not compared: the hand could not be scored" in text
    assert text.count("the hand is unfinished: its history stops") == 3  # no board scored
    assert "violation" not in text.lower().replace("no rule", "")  # nobody is accused
    assert cited_lines(page) == {last: cut.splitlines()[-1]}


def test_session_pages_incomplete_hands(tmp_path: Path, without_charts: None) -> None:
    # A complete clean hand and a cut one at another table: only the cut one gets a page.
    clean = (CORPUS / "edge_scoop_bonus.txt").read_text(encoding="utf-8")
    cut = WORKED_EXAMPLE.split("*** STREET 4 ***")[0].replace("Match #M-77, hand 2\n", "")
    history = tmp_path / "h.txt"
    history.write_text(clean + "\n" + cut, encoding="utf-8")
    out = tmp_path / "out"
    result = cli_runner().invoke(app, ["session", str(history), "--out", str(out),
                                       "--exit-zero"])
    assert result.exit_code == 0, result.output
    assert [p.name for p in (out / "hands").iterdir()] == ["PD-1001.html"]
