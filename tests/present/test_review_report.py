"""``review --out DIR``: the review report. Known answers on an exact position (bob's last
decision of a heads-up hand, valued from the rules' own scoring), the same numbers on the
page, in summary.md and in review.json as in the run's own JSON, and DIR owned through its
manifest."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ofc_audit.cli.app import app
from ofc_audit.session.out_folder import MANIFEST
from tests.review.test_review_command import BOB_LAST, HEADS_UP, _bob_candidates
from tests.support.histories import cli_runner

FAST = ["--rollouts", "20", "--seed", "3"]
# 5c in the middle makes 555 99 over the bottom's 444 JJ: bob fouls, on an exact decision.
FOULING = HEADS_UP.replace(BOB_LAST, "bob places top [2d] middle [5c], discards [Ad]")


class Tables(HTMLParser):
    """The text of every cell of every ``table.grid`` of a page, by table id (a row's folded
    details left out)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table" and a.get("id"):
            self._table = str(a["id"])
            self.tables[self._table] = []
        elif self._table and tag == "tr":
            self.tables[self._table].append([])
        elif self._table and tag == "td":
            if "more" in (a.get("class") or ""):
                self._skip += 1
            else:
                self._cell = []
        elif self._table and tag == "th":
            self._cell = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._table = None
        elif tag == "td" and self._skip:
            self._skip -= 1
        elif tag == "td" and self._cell is not None and self._table:
            self.tables[self._table][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None and not self._skip:
            self._cell.append(data)


def page_tables(path: Path) -> dict[str, list[list[str]]]:
    parser = Tables()
    parser.feed(path.read_text("utf-8"))
    return {k: [r for r in rows if r] for k, rows in parser.tables.items()}


def _run(tmp_path: Path, text: str, out: Path, *extra: str) -> Any:
    history = tmp_path / "heads_up.txt"
    history.write_text(text, encoding="utf-8")
    return cli_runner().invoke(app, ["review", "--json", *FAST, *extra, str(history),
                                     "--out", str(out)])


@pytest.fixture(scope="module")
def fouled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("review")
    out = tmp / "report"
    result = _run(tmp, FOULING, out)
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)


def _known_cost() -> float:
    values = _bob_candidates()
    return max(values.values()) - values[("2d", "5c")]


def test_the_exact_decision_costs_what_the_rules_say_everywhere(
        fouled: tuple[Path, dict[str, Any]]) -> None:
    out, _ = fouled
    known = _known_cost()
    assert known > 6
    document = json.loads((out / "review.json").read_text("utf-8"))
    street = next(s for s in document["streets"] if (s["player"], s["street"]) == ("bob", 5))
    assert street == {"player": "bob", "street": 5, "kind": "street", "decisions": 1,
                      "cost": round(known, 2), "blunders": 1, "best": 0}
    entry = next(d for d in document["costliest"] if (d["player"], d["street"]) == ("bob", 5))
    assert entry["exact"] is True and entry["cost"] == pytest.approx(known, abs=1e-4)
    # bob decides second in the hand: the page's play review numbers him 2.
    assert entry["page"] == "hands/EX-1.html#h1-review-p2-5" and entry["hand_line"] == 1
    tables = page_tables(out / "review.html")
    assert ["bob", "5", "1", f"{known:.2f}", f"{known:.2f}", "1", "0 of 1 (0.0%)"] in \
        tables["review-streets"]
    row = next(r for r in tables["review-costliest"] if r[1:3] == ["bob", "5"])
    assert row[0] == "#EX-1" and row[-1] == f"{known:.2f} exact"
    values = _bob_candidates()
    best = {f"{top} / {middle} / -" for (top, middle), value in values.items()
            if value == max(values.values())}  # ties: any of them
    assert row[3:5] == ["5c 2d Ad", "2d / 5c / -"] and row[5] in best
    summary = (out / "summary.md").read_text("utf-8")
    assert f"| bob | 5 | 1 | {known:.2f} | {known:.2f} | 1 | 0 of 1 (0.0%) |" in summary
    assert "| [#EX-1](hands/EX-1.html#h1-review-p2-5) | bob | 5 |" in summary
    page = (out / "hands" / "EX-1.html").read_text("utf-8")
    assert "EX-1" in page


def test_the_page_and_review_json_carry_the_runs_numbers(
        fouled: tuple[Path, dict[str, Any]]) -> None:
    out, run = fouled
    document = json.loads((out / "review.json").read_text("utf-8"))
    assert list(document) == ["players", "streets", "costliest", "luck", "skipped", "options"]
    assert document["options"] == run["options"]
    players = {p["name"]: p for p in document["players"]}
    for p in run["players"]:  # the run's --json players, key by key
        mine = players[p["name"]]
        assert {k: mine[k] for k in p} == p
        assert mine["luck"] == pytest.approx(p["actual"] - p["expected"], abs=0.011)
        decisions = [d for h in run["hands"] for d in h["decisions"] if d["player"] == p["name"]]
        assert mine["street_decisions"] == len(decisions)
        assert mine["street_best"] == sum(d["best"] == next(
            i for i, c in enumerate(d["candidates"]) if c["placement"] == d["played"])
            or d["cost"] == 0 for d in decisions)
        streets = [s for s in document["streets"] if s["player"] == p["name"]]
        assert sum(s["cost"] for s in streets) == pytest.approx(p["cost"], abs=0.03)
    rows = {r[0]: r for r in page_tables(out / "review.html")["review-players"]}
    for name, p in players.items():
        assert rows[name][1:] == [f"{p['cost']:.2f}", str(p["blunders"]), f"{p['luck']:+.2f}"]
        # summary.md shows every column, the row's details too.
        assert (f"| {name} | {p['cost']:.2f} | {p['blunders']} | {p['luck']:+.2f} | "
                f"{p['hands']} | {p['cost_per_hand']:.2f} | {p['decisions']} | {p['exact']} |"
                in (out / "summary.md").read_text("utf-8"))
    # The EV line, hand by hand: one hand here, the first decision's played EV against
    # the hand's value.
    luck = {p["player"]: p for p in document["luck"]}
    for name, p in players.items():
        assert luck[name]["number"] == 1 and luck[name]["currency"] == "EUR"
        assert luck[name]["expected"] == pytest.approx(p["expected"], abs=0.006)
        assert luck[name]["actual"] == pytest.approx(p["actual"], abs=0.006)


def test_every_file_is_in_the_manifest(fouled: tuple[Path, dict[str, Any]]) -> None:
    out, _ = fouled
    manifest = json.loads((out / MANIFEST).read_text("utf-8"))
    files = sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                   if p.is_file() and p.name != MANIFEST)
    assert manifest["files"] == files
    assert {"review.html", "summary.md", "review.json", "hands/EX-1.html",
            "charts/cost_by_street.png", "charts/cost_by_street.svg",
            "charts/ev_line_player-0_EUR.png", "charts/ev_line_player-1_EUR.svg"} <= set(files)
    assert (out / "charts" / "cost_by_street.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (out / "charts" / "ev_line_player-0_EUR.svg").read_bytes()


def test_the_next_run_into_the_folder_removes_what_this_one_wrote_only(tmp_path: Path) -> None:
    out = tmp_path / "report"
    assert _run(tmp_path, FOULING, out, "--player", "bob").exit_code == 0
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    assert (out / "hands" / "EX-1.html").is_file()
    again = _run(tmp_path, FOULING.replace("#EX-1", "#EX-2"), out, "--player", "bob")
    assert again.exit_code == 0, again.output
    assert not (out / "hands" / "EX-1.html").exists()
    assert (out / "hands" / "EX-2.html").is_file()
    assert (out / "notes.txt").read_text("utf-8") == "mine"
    assert not (out / "charts" / "ev_line_player-1_EUR.png").exists()  # one player now


# -- session --review --out -------------------------------------------------------------------


class Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [str(v) for k, v in attrs if k == "id"]


def session_review(tmp_path: Path, *extra: str) -> Path:
    """``session`` of the fouled heads-up hand (``--review`` among ``extra``: reviewed with
    few rollouts unless ``extra`` says how)."""
    history = tmp_path / "heads_up.txt"
    history.write_text(FOULING, encoding="utf-8")
    out = tmp_path / "session"
    if "--review" in extra and "--rollouts" not in extra:
        extra = (*extra, "--rollouts", "20", "--seed", "3")
    result = cli_runner().invoke(app, ["session", str(history), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return out


def test_session_review_adds_the_reviews_sections_to_the_report(tmp_path: Path) -> None:
    out = session_review(tmp_path, "--review")
    html = (out / "report.html").read_text("utf-8")
    assert '<h2 id="review">Play review</h2>' in html and 'href="#review"' in html
    parser = Ids()
    parser.feed(html)
    assert len(parser.ids) == len(set(parser.ids))  # the session's ids and the review's apart
    document = json.loads((out / "review.json").read_text("utf-8"))
    tables = page_tables(out / "report.html")
    rows = {r[0]: r for r in tables["review-players"]}
    for p in document["players"]:
        assert rows[p["name"]][1:] == [f"{p['cost']:.2f}", str(p["blunders"]),
                                       f"{p['luck']:+.2f}"]
    known = _known_cost()
    row = next(r for r in tables["review-costliest"] if r[1:3] == ["bob", "5"])
    assert row[-1] == f"{known:.2f} exact"
    manifest = json.loads((out / MANIFEST).read_text("utf-8"))["files"]
    assert {"review.json", "hands/EX-1.html", "charts/cost_by_street.png",
            "charts/ev_line_player-0_EUR.svg"} <= set(manifest)
    assert 'href="hands/EX-1.html#h1-review-p2-5"' in html
    summary = (out / "summary.md").read_text("utf-8")
    assert "## Play review" in summary and "### Costliest decisions" in summary
    assert "| [#EX-1](hands/EX-1.html#h1-review-p2-5) | bob | 5 |" in summary
    assert 'id="h1-review-p2-5"' in (out / "hands" / "EX-1.html").read_text("utf-8")


def test_session_without_review_has_no_review(tmp_path: Path) -> None:
    out = session_review(tmp_path)
    assert "Play review" not in (out / "report.html").read_text("utf-8")
    assert "Play review" not in (out / "summary.md").read_text("utf-8")
    assert not (out / "review.json").exists() and not (out / "hands").exists()


def test_session_review_takes_the_reviews_settings(tmp_path: Path) -> None:
    """``session --review --rollouts N --seed N --fl-value P --blunder P``: the review of
    the session is ``ofc-audit review``'s with the same settings (its review.json holds them
    and the same per-player figures); those not given are review's defaults."""
    settings = ["--rollouts", "30", "--seed", "9", "--fl-value", "10", "--blunder", "0.5"]
    out = session_review(tmp_path, "--review", *settings)
    document = json.loads((out / "review.json").read_text("utf-8"))
    assert document["options"] == {"fl_value": 10, "blunder": 0.5, "rollouts": 30, "seed": 9}
    result = cli_runner().invoke(app, ["review", "--json", str(tmp_path / "heads_up.txt"),
                                       *settings])
    assert result.exit_code == 0, result.output
    alone = json.loads(result.stdout)
    assert alone["options"] == document["options"]
    assert [(p["name"], p["cost"], p["blunders"]) for p in alone["players"]] == [
        (p["name"], p["cost"], p["blunders"]) for p in document["players"]]
    from ofc_audit.cli.session import _review_options
    from ofc_audit.review.run import ReviewOptions

    assert _review_options(None, None, None, None) == ReviewOptions()  # review's defaults
    assert _review_options(None, 9, None, None) == ReviewOptions(seed=9)


@pytest.mark.parametrize("option", [["--rollouts", "20"], ["--seed", "2"],
                                    ["--fl-value", "10"], ["--blunder", "1"]])
def test_session_review_settings_need_review(tmp_path: Path, option: list[str]) -> None:
    history = tmp_path / "heads_up.txt"
    history.write_text(FOULING, encoding="utf-8")
    result = cli_runner().invoke(app, ["session", str(history), "--out", str(tmp_path / "o"),
                                       *option])
    assert result.exit_code == 2
    assert f"{option[0]} set how the play is reviewed: add --review" in result.output
    assert not (tmp_path / "o").exists()


def test_session_review_needs_files(tmp_path: Path) -> None:
    result = cli_runner().invoke(app, ["session", "-", "--review", "--out", str(tmp_path)],
                                 input=FOULING)
    assert result.exit_code == 2
    assert "--review reads the histories a second time" in result.output


def test_hands_from_standard_input_have_no_page(tmp_path: Path) -> None:
    out = tmp_path / "report"
    result = cli_runner().invoke(app, ["review", *FAST, "--player", "bob", "-", "--out",
                                       str(out)], input=FOULING)
    assert result.exit_code == 0, result.output
    assert not (out / "hands").exists()
    document = json.loads((out / "review.json").read_text("utf-8"))
    costly = len(document["costliest"])
    assert costly and all(d["page"] is None for d in document["costliest"])
    html = (out / "review.html").read_text("utf-8")
    assert f"{costly} decisions without a hand page (their history cannot be read again" in html
    assert 'href="hands/' not in html


def test_the_first_screen_answers_the_players_who_gave_away_most_in_words() -> None:
    """Many players: the 20 who gave away most are answered in words (and linked there);
    the table lists every one."""
    from dataclasses import replace

    from ofc_audit.present.review_view import MAX_SENTENCES, review_view
    from ofc_audit.review.ledger import ReviewLedger
    from ofc_audit.review.run import CandidateResult, DecisionReview, HandReview, ReviewOptions
    from tests.review.test_ledger import _hand

    hand = _hand()
    first = hand.decisions[0]
    reviews = []
    for i in range(25):
        decision = replace(first, player=f"p{i:02d}")
        played = CandidateResult(decision.played, 10.0 - i, 0.5, 0.0, 0.0, 20)
        best = CandidateResult(decision.played, 10.0, 0.5, 0.0, 0.0, 20)
        reviews.append(DecisionReview(decision, (played, best), 1 if i else 0, 0, float(i),
                                      0.5, False, 20))
    ledger = ReviewLedger(ReviewOptions())
    ledger.add(HandReview(replace(hand, decisions=tuple(r.decision for r in reviews)),
                          tuple(reviews)))
    view = review_view(ledger, {}, [])
    assert [line.name for line in view.lines] == [f"p{i:02d}" for i in range(24, 4, -1)]
    assert len(view.lines) == MAX_SENTENCES
    rows = view.players.rows
    assert [r.cells[0].text for r in rows] == [f"p{i:02d}" for i in range(24, -1, -1)]
    assert [r.cells[1].text for r in rows][:2] == ["24.00", "23.00"]
    anchors = {line.anchor for line in view.lines}
    assert all(r.cells[0].href[1:] in anchors for r in rows[:20])
    assert all(r.cells[0].href == "" for r in rows[20:])
