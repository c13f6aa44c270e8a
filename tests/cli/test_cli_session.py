"""`ofc-audit session` against CLI.md: output, --json document, files, exit statuses."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from ofc_audit.audit import driver  # noqa: E402
from ofc_audit.cli.app import app  # noqa: E402
from ofc_audit.game.ruleset import Ruleset  # noqa: E402
from ofc_audit.history.reader import HistoryParseError  # noqa: E402
from ofc_audit.replay.results import Finding, HandResult, Mismatch  # noqa: E402
from ofc_audit.session.tables import Rejection  # noqa: E402
from tests.session.test_tables import ALICE, KK_FH, P, Rejected, hand_result, worked_example  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_histories"


def make_runner() -> CliRunner:
    """Standard error apart from standard output (click < 8.2 needs mix_stderr=False)."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


runner = make_runner()


@pytest.fixture
def feed(monkeypatch: pytest.MonkeyPatch) -> list[HandResult | Rejection]:
    """What the audit yields for the next run (the reader is replaced, paths still checked)."""
    items: list[HandResult | Rejection] = []

    def load(sources: object, ruleset: Ruleset, *_: object
             ) -> Iterator[tuple[tuple[int, int], HandResult | HistoryParseError]]:
        for line, item in enumerate(items, start=1):
            yield (0, line), item if isinstance(item, HandResult) else HistoryParseError(
                item.file, item.line, item.column, item.message, "")

    monkeypatch.setattr(driver, "local_items", load)
    return items


@pytest.fixture
def history(tmp_path: Path) -> str:
    path = tmp_path / "h.txt"
    path.write_text("OFC Hand #0: (replaced by the feed fixture)\n", encoding="utf-8")
    return str(path)


def run(*args: str) -> Any:
    return runner.invoke(app, ["session", *args])


def test_json_document(feed: list[Any], history: str, tmp_path: Path,
                       without_charts: None) -> None:
    feed.append(worked_example())
    result = run(history, "--out", str(tmp_path / "r"), "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)  # nothing but the JSON on standard output
    assert list(document) == ["players", "owes", "payments"]
    players = {p["name"]: p for p in document["players"]}
    for p in document["players"]:
        assert {"name", "hands", "points", "money", "currency", "royalties", "fouls",
                "fantasylands"} <= set(p)
    assert {k: players["bob"][k] for k in ("hands", "points", "money", "currency", "royalties",
                                           "fouls", "fantasylands")} == {
        "hands": 1, "points": -2, "money": -0.2, "currency": "EUR", "royalties": 13,
        "fouls": 0, "fantasylands": 1,
    }
    assert [p["name"] for p in document["players"]] == ["carol", "bob", "alice"]
    # No stack capped anything: what moved is the points at 0.10 EUR.
    assert (players["bob"]["transferred"], players["bob"]["money_settled"]) == (-2, -0.2)
    assert document["payments"] == [
        {"currency": "EUR", "payer": "alice", "payee": "carol", "amount": 0.6},
        {"currency": "EUR", "payer": "bob", "payee": "carol", "amount": 0.2},
    ]
    assert document["owes"][0] == {"currency": "EUR", "player": "carol", "opponent": "alice",
                                   "hands": 1, "points": 5, "money": 0.5}


def _not_progress(stderr: str) -> list[str]:
    """The lines of ``stderr`` that are not progress lines (``ofc-audit: STEP ...``)."""
    return [line for line in stderr.splitlines()
            if not line.startswith("ofc-audit: ") or line.startswith(("ofc-audit: error",
                                                                       "ofc-audit: warning"))]


def test_text_output_and_files(feed: list[Any], history: str, tmp_path: Path) -> None:
    feed.append(worked_example())
    out = tmp_path / "r"
    result = run(history, "--out", str(out))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split()[:5] == ["player", "cur", "hands", "money", "stack"]
    assert lines[2].split()[:5] == ["carol", "EUR", "1", "0.80", "8"]
    assert "alice  pays  carol    0.60  EUR" in result.stdout  # the fewest payments
    assert "1 hand: 1 valid" in result.stdout
    # Nothing on stderr but progress lines (a run past 10 s on a loaded machine prints some).
    assert _not_progress(result.stderr) == []
    for name in ("report.html", "summary.md", "session.json", "csv/players.csv",
                 "csv/owes.csv", "csv/payments.csv", "parquet/seats.parquet",
                 "json/hands.json"):
        assert (out / name).is_file(), name
    assert list((out / "charts").glob("*.png"))  # which charts: the report's tests say


def test_default_out_is_reports(feed: list[Any], history: str, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch, without_charts: None) -> None:
    feed.append(worked_example())
    monkeypatch.chdir(tmp_path)
    result = run(history)
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "reports" / "report.html").is_file()


def test_rejected_hands_are_reported_and_exit_1(feed: list[Any], history: str,
                                                tmp_path: Path, without_charts: None) -> None:
    feed.extend([Rejected("x.txt", 40, 9, "'Ax' is not a card"), worked_example()])
    result = run(history, "--out", str(tmp_path / "r"), "--json")
    assert result.exit_code == 1
    assert "rejected x.txt:40:9: 'Ax' is not a card" in result.stderr
    assert "1 rejected" in result.stderr
    assert len(json.loads(result.stdout)["players"]) == 3  # the good hand still counts


@pytest.mark.parametrize("problem", ["violation", "mismatch"])
def test_findings_exit_1(problem: str, feed: list[Any], history: str, tmp_path: Path,
                         without_charts: None) -> None:
    if problem == "violation":
        feed.append(worked_example(violations=[Finding("R-ACT-2", 9, "bob", "too many")]))
    else:
        feed.append(worked_example(mismatches=[Mismatch("bob", "points", -3, -2, 40)]))
    result = run(history, "--out", str(tmp_path / "r"))
    assert result.exit_code == 1
    assert "with violations" in result.stderr


def test_missing_path_exits_2(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope.txt"), "--out", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert "no such file" in result.stderr
    assert not (tmp_path / "r").exists()


def test_bad_rules_exit_2(history: str, tmp_path: Path) -> None:
    result = run(history, "--rules", "no-such-preset", "--out", str(tmp_path / "r"))
    assert result.exit_code == 2


def test_unwritable_out_exits_2(feed: list[Any], history: str, tmp_path: Path) -> None:
    feed.append(worked_example())
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run(history, "--out", str(blocker), "--json")
    assert result.exit_code == 2
    assert "cannot write" in result.stderr
    assert result.stdout == ""


def test_unreadable_input_exits_2(history: str, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def load(sources: object, ruleset: Ruleset, *_: object
             ) -> Iterator[tuple[tuple[int, int], HandResult]]:
        yield (0, 1), hand_result("H", [P("a", 1, KK_FH), P("b", 2, ALICE)])
        raise PermissionError(13, "Permission denied", "secret.txt")

    monkeypatch.setattr(driver, "local_items", load)
    result = run(history, "--out", str(tmp_path / "r"))
    assert result.exit_code == 2
    assert "cannot read secret.txt: Permission denied" in result.stderr


def test_help_lists_the_options() -> None:
    result = runner.invoke(app, ["session", "--help"])
    assert result.exit_code == 0
    for option in ("--out", "--rules", "--json"):
        assert option in result.stdout


# -- end to end, through the reader and the replay --------------------------------------------


def test_sample_history_end_to_end(tmp_path: Path, without_charts: None) -> None:
    """classic_3p_one_fouled.txt: Big Al +25, ramune fouls -33, tomas +8 at 0.05 EUR."""
    pytest.importorskip("ofc_audit.history.reader")
    sample = SAMPLES / "classic_3p_one_fouled.txt"
    if not sample.is_file():
        pytest.skip("sample history not present")
    result = run(str(sample), "--out", str(tmp_path / "r"), "--json")
    assert result.exit_code == 0, result.stderr
    players = {p["name"]: p for p in json.loads(result.stdout)["players"]}
    keys = ("hands", "points", "money", "currency", "royalties", "fouls", "fantasylands")
    assert {n: tuple(p[k] for k in keys) for n, p in players.items()} == {
        "Big Al": (1, 25, 1.25, "EUR", 13, 0, 0),
        "tomas": (1, 8, 0.4, "EUR", 8, 0, 0),
        "ramune": (1, -33, -1.65, "EUR", 0, 1, 0),
    }


def test_all_samples_end_to_end(tmp_path: Path) -> None:
    pytest.importorskip("ofc_audit.history.reader")
    if not SAMPLES.is_dir():
        pytest.skip("no sample histories")
    out = tmp_path / "r"
    result = run(str(SAMPLES), "--out", str(out))
    assert result.exit_code in (0, 1), result.stderr
    assert "rejected" not in result.stderr.lower() or result.exit_code == 1
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.lower().count("<script") == 1  # the page's own (sorting, filtering)


def test_min_hands_and_top_reach_the_report(feed: list[Any], history: str,
                                            tmp_path: Path) -> None:
    feed.append(worked_example())
    shown = {}
    for min_hands in ("1", "2"):
        out = tmp_path / min_hands
        result = run(history, "--out", str(out), "--min-hands", min_hands, "--top", "2")
        assert result.exit_code == 0, result.stderr
        shown[min_hands] = (out / "report.html").read_text(encoding="utf-8")
    # One hand each: with --min-hands 1 the foul rates show (0/1), with 2 they do not.
    assert "0/1 (0.0%)" in shown["1"] and "not shown (1 hand)" not in shown["1"]
    assert "0/1 (0.0%)" not in shown["2"] and "not shown (1 hand)" in shown["2"]
    assert "rates need 2 hands" in shown["2"]
    assert run(history, "--min-hands", "0").exit_code == 2
    assert run(history, "--top", "0").exit_code == 2


def test_no_bracketed_plural_and_counts_with_separators_in_what_people_read(
        tmp_path: Path) -> None:
    """Issue 20.7: "8 result(s)", "1 violation(s)", "mismatch(es)", "2 unverifiable
    point(s)" on the pages, summary and terminal of the sample session."""
    import re
    out = tmp_path / "out"
    result = runner.invoke(app, ["session", str(SAMPLES), "--out", str(out), "--exit-zero"])
    assert result.exit_code == 0, result.output
    texts = {"stdout": result.stdout, "stderr": result.stderr,
             "summary.md": (out / "summary.md").read_text(encoding="utf-8"),
             "report.html": (out / "report.html").read_text(encoding="utf-8")}
    texts.update({f"hands/{p.name}": p.read_text(encoding="utf-8")
                  for p in (out / "hands").glob("*.html")})
    for name, text in texts.items():
        for bracket in ("(s)", "(es)", "unverifiable point", "(ies)"):
            assert bracket not in text, (name, bracket)
    assert re.search(r"\b\d+ hands?: \d+ valid, \d+ with violations; .* valid or not; ",
                     result.stdout)
