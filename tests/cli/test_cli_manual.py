"""The command line as a manual (help with examples, flags, --version), empty or wrong
input (exit 2, what was looked at), the filters end to end, and progress on standard error."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from ofc_audit import __version__  # noqa: E402
from ofc_audit.audit.progress import Progress, metered_hands  # noqa: E402
from ofc_audit.cli.app import app, package_version  # noqa: E402
from ofc_audit.history.reader import HistoryParseError, read_text  # noqa: E402
from tests.support.histories import WORKED_EXAMPLE, cli_runner, worked_example_hand  # noqa: E402

runner = cli_runner()
COMMANDS = [c for c in ("score", "audit", "session", "simulate", "rules")
            if runner.invoke(app, [c, "--help"]).exit_code == 0]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_help_has_examples_and_plain_flags(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    text = result.stdout
    assert "Examples:" in text and text.count("ofc-audit " + command) >= 2
    assert "<bool>" not in text  # a flag takes no value
    if command != "rules":
        assert "[default: standard]" in text  # the ruleset's default is shown
    if command in ("audit", "session"):
        for flag in ("--json ", "--player NAME", "--table NAME", "--since WHEN",
                     "--until WHEN", "--exit-zero "):
            assert flag in text, flag


@pytest.mark.parametrize(("command", "usage", "argument"), [
    ("audit", "ofc-audit audit [OPTIONS] [PATH]...", "  PATH...  History files"),
    ("session", "ofc-audit session [OPTIONS] [PATH]...", "  PATH...  History files"),
    ("score", "ofc-audit score [OPTIONS] BOARD...", "  BOARD...  Boards as"),
    ("rules", "ofc-audit rules [OPTIONS] [ID]...", "  ID...  Rule ids"),
])
def test_help_shows_arguments_by_their_metavar(command: str, usage: str, argument: str) -> None:
    # Not typer's "{PATH}..." and "PATH <list[str]>": a Python type means nothing there.
    text = runner.invoke(app, [command, "--help"]).stdout
    assert f"Usage: {usage}\n" in text
    assert argument in text
    assert "<list" not in text and "{" not in text.partition("\n\n")[0]


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert re.fullmatch(r"ofc-audit \d+\.\d+\.\d+\S*\n", result.stdout)
    assert result.stdout == f"ofc-audit {package_version()}\n"
    assert package_version() == __version__  # pyproject.toml and the package agree


def test_no_command_prints_the_commands_and_how_to_start() -> None:
    result = runner.invoke(app, [])
    assert result.exit_code == 0
    for command in ("score", "audit", "session", "simulate"):
        assert f"  {command}" in result.stdout
    assert "Getting started: ofc-audit session sample_histories/" in result.stdout


# -- no hand at all ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["audit", "session"])
def test_nothing_to_read_exits_2(command: str, tmp_path: Path) -> None:
    empty_dir = tmp_path / "none"
    empty_dir.mkdir()
    (empty_dir / "notes.md").write_text("not a .txt\n", encoding="utf-8")
    empty_file = tmp_path / "empty.txt"
    empty_file.write_bytes(b"")
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "letter.txt").write_text("Dear club,\nthe results are attached.\n", "utf-8")
    (junk / "blank.txt").write_text("\n\n   \n", "utf-8")
    out = tmp_path / "r"
    cases = {
        str(empty_dir): "no file there holds one",
        str(empty_file): "the file is empty",
        str(junk): "no file there holds one",
    }
    for path, reason in cases.items():
        result = runner.invoke(app, [command, path, "--out", str(out)] if command == "session"
                               else [command, path])
        assert result.exit_code == 2, (path, result.stderr)
        assert f"no hand histories found in {path}: {reason}" in result.stderr
        assert not out.exists()  # session wrote no report


def test_an_empty_file_among_others_is_a_warning_and_a_report_line(
        tmp_path: Path, without_charts: None) -> None:
    (tmp_path / "h.txt").write_text(WORKED_EXAMPLE, encoding="utf-8")
    (tmp_path / "later.txt").write_bytes(b"")
    out = tmp_path / "r"
    result = runner.invoke(app, ["session", str(tmp_path), "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    assert f"warning: {tmp_path / 'later.txt'} is empty" in result.stderr
    assert "later.txt is empty" in (out / "report.html").read_text(encoding="utf-8")
    assert "later.txt is empty" in (out / "summary.md").read_text(encoding="utf-8")


# -- what a file that is not a history says ---------------------------------------------------


def only_error(text: str) -> HistoryParseError:
    items = list(read_text(text, "f.txt"))
    assert len(items) == 1 and isinstance(items[0], HistoryParseError)
    return items[0]


def test_a_text_file_shows_its_first_line_quoted_and_cut() -> None:
    error = only_error("\n# a comment\nDear club,\x1b[2J \u202eattached " + "x" * 80 + "\n")
    assert error.line == 3
    assert "does not start like a hand history" in error.message
    assert "its first line is 'Dear club,\\x1b[2J \\u202eattached xxx" in error.message
    assert error.message.endswith("...'") and "\x1b" not in error.message


def test_utf16_and_binary_files_say_so(tmp_path: Path) -> None:
    utf16 = tmp_path / "utf16.txt"
    utf16.write_bytes(WORKED_EXAMPLE.encode("utf-16"))  # with its byte-order mark
    utf16_le = tmp_path / "utf16le.txt"
    utf16_le.write_bytes(WORKED_EXAMPLE.encode("utf-16-le"))  # no mark: NULs
    binary = tmp_path / "image.txt"
    binary.write_bytes(bytes(range(256)) * 4)
    result = runner.invoke(app, ["audit", str(utf16), str(utf16_le), str(binary)])
    assert result.exit_code == 2
    # Named explicitly, each is an error of its own; nothing else was read: exit 2.
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    # With its byte-order mark, UTF-16 is known as such (and what to do is said).
    assert lines[:3] == [
        f"ofc-audit: error: {utf16}: not a hand history: it is UTF-16 text; histories are "
        f"UTF-8 (save it as UTF-8)",
        *[f"ofc-audit: error: {path}: not a hand history: it is not a text file"
          for path in (utf16_le, binary)]]
    assert all(line.isprintable() and "\ufffd" not in line for line in lines)


# -- filters end to end -----------------------------------------------------------------------


@pytest.fixture
def two_tables(tmp_path: Path) -> Path:
    early = worked_example_hand("E-1", "Early")  # 2026-11-29 21:04:11 UTC in the example
    late = worked_example_hand("L-1", "Late").replace("2026-11-29 21:04:11 UTC",
                                                      "2026-11-30 09:00:00 +05:00")
    (tmp_path / "s.txt").write_text(early + "\n" + late, encoding="utf-8")
    return tmp_path / "s.txt"


def test_audit_filters(two_tables: Path) -> None:
    result = runner.invoke(app, ["audit", str(two_tables), "--table", "Late"])
    assert result.exit_code == 0, result.stderr
    assert "#L-1" in result.stdout and "#E-1" not in result.stdout
    assert "1 hand:" in result.stdout and "Hands filtered: table Late." in result.stdout
    # 09:00 at +05:00 is 04:00 UTC.
    result = runner.invoke(app, ["audit", "--json", str(two_tables), "--since",
                                 "2026-11-30 04:00"])
    assert [h["hand_id"] for h in json.loads(result.stdout)["hands"]] == ["L-1"]
    result = runner.invoke(app, ["audit", str(two_tables), "--until", "2026-11-30 03:59"])
    assert "#E-1" in result.stdout and "#L-1" not in result.stdout


@pytest.mark.parametrize("command", ["audit", "session"])
def test_unknown_names_exit_2_and_print_nothing(command: str, two_tables: Path,
                                                tmp_path: Path) -> None:
    out = ["--out", str(tmp_path / "r")] if command == "session" else []
    result = runner.invoke(app, [command, str(two_tables), "--player", "Carol", *out])
    assert result.exit_code == 2
    assert "no player named 'Carol'" in result.stderr and "'carol'" in result.stderr
    assert result.stdout == ""
    result = runner.invoke(app, [command, str(two_tables), "--table", "Lat", *out])
    assert result.exit_code == 2 and "closest: 'Late'" in result.stderr
    assert not (tmp_path / "r").exists()


def test_session_of_one_player(two_tables: Path, tmp_path: Path, without_charts: None) -> None:
    out = tmp_path / "r"
    result = runner.invoke(app, ["session", str(two_tables), "--player", "bob",
                                 "--until", "2026-11-29", "--json", "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    # Only E-1, only bob's row: -2 points at 0.10 EUR. His pairs settle one by one: alice
    # pays bob 0.10 (alice-bob is -1 to alice), bob pays carol 0.30 (bob-carol -3).
    assert [(p["name"], p["hands"], p["money_settled"]) for p in document["players"]] == [
        ("bob", 1, -0.2)]
    assert document["payments"] == [
        {"currency": "EUR", "payer": "bob", "payee": "carol", "amount": 0.3},
        {"currency": "EUR", "payer": "alice", "payee": "bob", "amount": 0.1},
    ]
    assert "player bob; through 2026-11-29" in (
        out / "report.html").read_text(encoding="utf-8")


def test_bad_dates_exit_2(two_tables: Path) -> None:
    result = runner.invoke(app, ["audit", str(two_tables), "--since", "last week"])
    assert result.exit_code == 2 and "--since: expected a date" in result.stderr


# -- progress ---------------------------------------------------------------------------------


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_progress_off_a_terminal_in_a_short_run(two_tables: Path) -> None:
    result = runner.invoke(app, ["audit", "--json", str(two_tables)])
    assert result.exit_code == 0
    json.loads(result.stdout)  # nothing but the document
    assert result.stderr == ""


def test_progress_counts_bytes_and_time_left() -> None:
    now = [0.0]
    stream = io.StringIO()
    progress = Progress(stream, 1000, after=5.0, interval=5.0, clock=lambda: now[0])
    progress.read(100)
    assert stream.getvalue() == ""  # not yet: short runs stay quiet
    now[0] = 10.0
    progress.read(250)
    assert stream.getvalue() == ("ofc-audit: reading and replaying: 250 bytes of 1.0 kB (25%), "
                                 "about 30 s left\n")
    progress.step("drawing the charts")
    assert stream.getvalue().endswith("ofc-audit: drawing the charts\n")


def test_progress_on_a_terminal_respects_no_color(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    path = tmp_path / "h.txt"
    path.write_text(WORKED_EXAMPLE * 3, encoding="utf-8")
    stream = FakeTty()
    progress = Progress(stream, path.stat().st_size)
    hands = list(metered_hands([str(path)], progress))
    progress.done()
    assert len(hands) == 3 and progress.done_bytes == path.stat().st_size
    drawn = stream.getvalue()
    assert "reading and replaying" in drawn and "\x1b[3" not in drawn  # no colour codes


def test_hostile_names_in_the_terminal_and_the_settlement_files(tmp_path: Path) -> None:
    names = {"alice": "=1+2", "bob": "@bob \u202eevil", "carol": "<b>" + "c" * 200 + "</b>"}
    text = WORKED_EXAMPLE
    for plain, hostile in names.items():
        text = text.replace(plain, hostile)
    (tmp_path / "h.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "r"
    result = runner.invoke(app, ["session", str(tmp_path / "h.txt"), "--owes", "--out",
                                 str(out)])
    assert result.exit_code == 0, result.stderr
    assert "\u202e" not in result.stdout and "@bob \\u202eevil" in result.stdout
    assert names["carol"] in result.stdout  # long and marked up: shown as text, whole
    owes = (out / "csv" / "owes.csv").read_text(encoding="utf-8")
    payments = (out / "csv" / "payments.csv").read_text(encoding="utf-8")
    # alice pays carol 0.60 and bob pays carol 0.20; every name cell is guarded.
    assert "'=1+2" in payments and "'@bob \u202eevil" in payments
    assert "'=1+2" in owes
    assert "\n=" not in owes + payments and ",=" not in owes + payments


def test_owes_prints_the_pairs(tmp_path: Path, without_charts: None) -> None:
    (tmp_path / "h.txt").write_text(WORKED_EXAMPLE, encoding="utf-8")
    result = runner.invoke(app, ["session", str(tmp_path / "h.txt"), "--owes", "--out",
                                 str(tmp_path / "r")])
    assert result.exit_code == 0, result.stderr
    pairs = result.stdout.split("Who owes whom")[1].split("Settle up")[0]
    assert [line.split()[:4] for line in pairs.splitlines()[3:6]] == [
        ["alice", "pays", "carol", "0.50"], ["bob", "pays", "carol", "0.30"],
        ["alice", "pays", "bob", "0.10"]]
    plain = runner.invoke(app, ["session", str(tmp_path / "h.txt"), "--out",
                                str(tmp_path / "r2")])
    assert "Who owes whom" not in plain.stdout and "Settle up (2 payments" in plain.stdout


def test_hand_takes_no_filters(two_tables: Path) -> None:
    result = runner.invoke(app, ["audit", str(two_tables), "--hand", "E-1", "--player", "bob"])
    assert result.exit_code == 2 and "--hand explains one hand" in result.stderr


EVERY_COMMAND = ["score", "audit", "session", "simulate", "rules", "review", "import", "watch"]


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_the_examples_name_sample_files_hands_and_players_that_exist(command: str) -> None:
    # A help example is what a new user types first: one that names a file the project
    # does not have fails at once ("no such file or folder"), as review's first did.
    root = Path(__file__).resolve().parents[2]
    text = runner.invoke(app, [command, "--help"]).stdout
    examples = [line.split() for line in text.partition("Examples:")[2].splitlines()
                if line.strip().startswith("ofc-audit ")]
    assert examples
    for words in examples:
        samples = [root / w for w in words if w.startswith("sample_histories/")]
        for sample in samples:
            assert sample.exists(), (" ".join(words), sample)
        texts = "".join(path.read_text(encoding="utf-8")
                        for sample in samples
                        for path in ([sample] if sample.is_file()
                                     else sorted(sample.rglob("*.txt"))))
        for flag, shown in (("--hand", "#{}"), ("--player", " {} ")):
            for k, word in enumerate(words[:-1]):
                if word == flag and samples:
                    assert shown.format(words[k + 1]) in texts, (" ".join(words), flag)
