"""The hand page's play review: known answers where the review is exact (a last street
whose other board is complete, a Fantasyland setting), and the commands that write it.

The values are checked on the view records the template prints (the browser tests read the
same strings off the page); review runs stay short (an exact decision, or 20 rollouts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc_audit.cli.app import app
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import read_path
from ofc_audit.present.dispute import find_pages, render_page
from ofc_audit.present.review_page import DecisionView, review_section, with_reviews
from ofc_audit.review.json_doc import points_text
from ofc_audit.review.run import HandReview, ReviewOptions, review_hands, reviewable_hands
from tests.review.test_review_command import BOB_LAST, HEADS_UP, _bob_candidates
from tests.support.golden import CORPUS

FAST = ReviewOptions(rollouts=20, seed=3)
FL_CHAIN = CORPUS / "pineapple_3p_progressive_fl_chain.txt"
# bob's last placement fouls (555 99 in the middle over 444 JJ): the costliest exact answer.
FOULING = HEADS_UP.replace(BOB_LAST, "bob places top [2d] middle [5c], discards [Ad]")


def _review(path: Path, hand: str, players: set[str]) -> HandReview:
    hands = list(reviewable_hands(read_path(str(path)), Ruleset(), players, hand))
    (review,) = review_hands(hands, FAST)
    return review


def _decisions(review: HandReview, player: str) -> tuple[DecisionView, ...]:
    section = review_section(review, FAST)
    return next(d for p, d in section.decisions if p.name == player)


@pytest.fixture(scope="module")
def fouling(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, HandReview]:
    path = tmp_path_factory.mktemp("review") / "heads_up.txt"
    path.write_text(FOULING, encoding="utf-8")
    return path, _review(path, "EX-1", {"bob"})


def test_exact_last_street_shows_the_exact_values(fouling: tuple[Path, HandReview]) -> None:
    _, review = fouling
    last = _decisions(review, "bob")[-1]
    assert last.title == "Street 5" and last.exact and last.ci95 is None
    values = _bob_candidates()  # (top, middle) -> value, scored by the rules' own code
    assert last.count == len(values) == 6 and not last.everything  # all listed, no "show all"
    shown = {(c.rows[0][0].code, c.rows[1][0].code): c.ev for c in last.shown}
    assert shown == {kept: points_text(v, sign=True) for kept, v in values.items()}
    top = max(values.values())
    cost = top - values[("2d", "5c")]
    assert cost > 6 and last.cost == points_text(cost) and last.blunder
    # The best is listed first (several placements may share the top value).
    first, = (c for c in last.shown if c.best)
    best = (first.rows[0][0].code, first.rows[1][0].code)
    assert first.rank == 1 and values[best] == top
    played, = (c for c in last.shown if c.played)
    assert (played.foul, played.fantasyland) == ("100%", "0%")
    # The two boards: the played one, then the best, each card this street placed elsewhere
    # by the other marked, and said in words.
    assert [b.label for b in last.boards] == ["Played", "Best"]
    where_played = {"2d": "top", "5c": "middle", "Ad": "discard"}
    where_best = {best[0]: "top", best[1]: "middle"}
    where_best.update({c: "discard" for c in where_played if c not in where_best})
    moved = {s.card.code for b in last.boards for r in b.rows for s in r.cards if s.differs}
    moved |= {s.card.code for b in last.boards for s in b.discards if s.differs}
    assert moved == {c for c in where_played if where_played[c] != where_best[c]}
    for card in moved:
        face = card[0] + {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}[card[1]]
        target = where_best[card]
        assert (f"{face} discarded" if target == "discard" else f"{face} to the {target}"
                ) in last.differences


def test_fantasyland_setting_beside_the_best_row_by_row() -> None:
    # alice sets 14 cards in Fantasyland (hand 3 of the chain): Kh Kd 5c / Js Jd Jc 4h 3s /
    # Ac Qc 9c 7c 2c, royalties KK 8 + trips 2 + flush 4 = 14 and no stay (R-FL-3 needs
    # trips on top or quads on the bottom); the best keeps KK on top and makes a straight in
    # the middle (4): 16. By RULES.md's royalty table, by hand.
    (decision,) = _decisions(_review(FL_CHAIN, "PD-5503", {"alice"}), "alice")
    assert decision.fantasyland and decision.exact and decision.title == "Fantasyland setting"
    played, best = decision.boards
    assert [(r.category, r.royalties) for r in played.rows] == [
        ("pair", 8), ("trips", 2), ("flush", 4)]
    assert [(r.category, r.royalties) for r in best.rows] == [
        ("pair", 8), ("straight", 4), ("flush", 4)]
    assert [s.card.code for s in played.discards] == ["6h"]
    assert played.note == "royalties 14, does not stay in Fantasyland: value 14.00"
    assert best.note == "royalties 16, does not stay in Fantasyland: value 16.00"
    assert decision.cost == "2.00" and not decision.blunder


@pytest.mark.parametrize(("relative", "hand", "players", "said"), [
    ("disputes/duplicate_card.txt", "PD-2291", None,
     ["This hand is not reviewed: it breaks the rules"]),
    ("pineapple_3p_own_view_hidden_cards.txt", "PD-5611", {"Sardor", "Timur"},
     ["5 decisions of Sardor are not reviewed", "5 decisions of Timur are not reviewed"]),
])
def test_what_is_not_reviewed_is_said(relative: str, hand: str, players: set[str] | None,
                                      said: list[str]) -> None:
    # Nothing here runs the engine: a hand with violations has no decision, and the two
    # players asked for have their own cards hidden.
    (decisions,) = reviewable_hands(read_path(str(CORPUS / relative)), Ruleset(), players,
                                    hand)
    assert decisions.decisions == ()
    section = review_section(HandReview(decisions, ()), FAST)
    assert [s[: len(w)] for s, w in zip(section.left_out, said, strict=True)] == said
    assert section.players == () and "no decision" in section.summary


def test_page_without_review_is_the_dispute_page(fouling: tuple[Path, HandReview]) -> None:
    path, review = fouling
    pages = find_pages([str(path)], "EX-1", Ruleset()).pages
    plain = render_page(pages, "x")
    assert render_page(with_reviews(pages, [], FAST), "x") == plain
    assert "Play review" not in plain and ".decision" not in plain
    reviewed = render_page(with_reviews(pages, [review], FAST), "x")
    assert reviewed.count('class="decision') == 5 and 'id="h1-review"' in reviewed


def _invoke(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("args", [
    ["review", "{h}", "--html", "{p}"],  # no --hand
    ["review", "{h}", "--hand", "EX-1", "--html", "{p}", "--json"],
    ["audit", "{h}", "--hand", "EX-1", "--review"],  # --review without --html
])
def test_usage_errors(tmp_path: Path, fouling: tuple[Path, HandReview], args: list[str]) -> None:
    history, _ = fouling
    page = tmp_path / "page.html"
    code, _, err = _invoke([a.format(h=history, p=page) for a in args])
    assert code == 2 and not page.exists(), err


def test_review_command_writes_the_page(tmp_path: Path, fouling: tuple[Path, HandReview]
                                       ) -> None:
    history, _ = fouling
    page = tmp_path / "EX-1.html"
    code, out, err = _invoke(["review", str(history), "--hand", "EX-1", "--player", "bob",
                              "--rollouts", "20", "--seed", "3", "--html", str(page)])
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert text.count('class="decision') == 5 and "Hand #<bdi>EX-1</bdi>" in text
    assert "Costliest decisions" in out and f"to {page}" in err


def test_audit_review_adds_the_section(tmp_path: Path, fouling: tuple[Path, HandReview]
                                      ) -> None:
    history, _ = fouling
    plain, reviewed = tmp_path / "plain.html", tmp_path / "reviewed.html"
    assert _invoke(["audit", str(history), "--hand", "EX-1", "--html", str(plain)])[0] == 0
    code, _, err = _invoke(["audit", str(history), "--hand", "EX-1", "--html", str(reviewed),
                            "--review"])
    assert code == 0, err
    assert "Play review" not in plain.read_text(encoding="utf-8")
    assert reviewed.read_text(encoding="utf-8").count('class="decision') == 10


def test_session_review_adds_the_section_to_hand_pages(tmp_path: Path) -> None:
    # One hand whose SUMMARY records a wrong royalty: a page, and (no violation) a review.
    history = CORPUS / "disputes" / "wrong_royalty_in_summary.txt"
    code, _, err = _invoke(["session", str(history), "--out", str(tmp_path / "r"),
                            "--review"])
    assert code == 1, err  # the mismatch
    (page,) = (tmp_path / "r" / "hands").iterdir()
    text = page.read_text(encoding="utf-8")
    assert 'id="h1-review"' in text and text.count('class="decision') >= 1


def _pages(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def test_session_review_pages_take_the_sessions_reviews_not_a_second_review(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # session --review reviews every hand once: the pages of its problem hands take those
    # reviews. With the page review made to fail, the pages come out as before.
    history = CORPUS / "disputes" / "wrong_royalty_in_summary.txt"
    code, _, err = _invoke(["session", str(history), "--out", str(tmp_path / "a"), "--review"])
    assert code == 1, err
    from ofc_audit.present import review_page

    def _second_review(*_: object) -> list[HandReview]:
        raise AssertionError("a page's hand was reviewed a second time")

    monkeypatch.setattr(review_page, "reviews_of_lines", _second_review)
    code, _, err = _invoke(["session", str(history), "--out", str(tmp_path / "b"), "--review"])
    assert code == 1, err
    before, after = _pages(tmp_path / "a" / "hands"), _pages(tmp_path / "b" / "hands")
    assert list(before) == list(after) and len(after) == 1
    (text,) = after.values()
    assert 'id="h1-review"' in text and text.count('class="decision') >= 1
    assert before == after


def test_session_review_of_some_players_reviews_the_pages_for_every_player(
        tmp_path: Path) -> None:
    # --player reviews only that player's decisions, while a page reviews every player of
    # its hand: the page's review is made for it, as without --review's ledger.
    history = CORPUS / "disputes" / "wrong_royalty_in_summary.txt"
    name = "nadia"  # one of the hand's three players
    code, _, err = _invoke(["session", str(history), "--out", str(tmp_path / "all"),
                            "--review"])
    assert code == 1, err
    code, _, err = _invoke(["session", str(history), "--out", str(tmp_path / "one"),
                            "--review", "--player", name])
    assert code == 1, err
    (whole,) = _pages(tmp_path / "all" / "hands").values()
    (one,) = _pages(tmp_path / "one" / "hands").values()
    count = whole.count('class="decision')
    assert count >= 2 and one.count('class="decision') == count
