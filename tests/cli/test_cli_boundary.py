"""The command line's loose ends (issue 19, point 8) and its one error boundary: exit
statuses of CLI.md, plain help, the dispute page's place, a closed pipe, shell completion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ofc_audit.audit import driver
from ofc_audit.cli.app import app
from ofc_audit.cli.errors import EXIT_BROKEN_PIPE, EXIT_FINDINGS, EXIT_USAGE, exit_status
from ofc_audit.common.errors import NoHistoryFound, UnreadableInput, UsageError
from ofc_audit.history.sources import Source
from tests.support.histories import WORKED_EXAMPLE, cli_runner

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_histories"
runner = cli_runner

#: A hand header whose variant is no variant, then lines of the hand: the reader rejects it
#: (FORMAT.md: the header names Classic, Pineapple, Turbo or Joker Pineapple).
REJECTED_HAND = ("OFC Hand #X-1: Nonsense - 0.10 EUR/point - 2026-11-29 21:04:11 UTC\n"
                 "Table 'Riga' 3-max - Seat #1 is the button\n")


# -- exit 2 only when nothing looks like a hand history ---------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_whose_every_hand_is_rejected_exits_1_with_its_rejections(
    tmp_path: Path, jobs: str
) -> None:
    path = tmp_path / "all_rejected.txt"
    path.write_text(REJECTED_HAND + "\n" + REJECTED_HAND.replace("X-1", "X-2"),
                    encoding="utf-8")
    text = runner().invoke(app, ["audit", str(path), "--jobs", jobs])
    assert text.exit_code == EXIT_FINDINGS, text.stderr
    assert text.stdout.count(f"REJECTED {path}:") == 2
    assert "no hand histories found" not in text.stderr
    document = runner().invoke(app, ["audit", str(path), "--json", "--jobs", jobs])
    assert document.exit_code == EXIT_FINDINGS
    doc = json.loads(document.stdout)
    assert doc["totals"]["hands"] == 0 and doc["totals"]["rejected"] == 2
    assert [r["line"] for r in doc["rejected"]] == [1, 4]
    out = tmp_path / "out"
    session = runner().invoke(app, ["session", str(path), "--json", "--out", str(out),
                                    "--jobs", jobs])
    assert session.exit_code == EXIT_FINDINGS, session.stderr
    assert json.loads(session.stdout)["players"] == []
    assert session.stderr.count(f"ofc-audit: rejected {path}:") == 2
    rejected = json.loads((out / "session.json").read_text(encoding="utf-8"))["rejected"]
    assert [r["line"] for r in rejected] == [1, 4]


def test_a_file_without_a_hand_header_exits_2_saying_where_it_looked(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\nmilk\n", encoding="utf-8")
    for command in (["audit", str(path)], ["audit", "--json", str(path)],
                    ["session", str(path), "--out", str(tmp_path / "out")]):
        result = runner().invoke(app, command)
        assert result.exit_code == EXIT_USAGE, command
        assert result.stderr == (f"ofc-audit: error: {path}: not a hand history: its first "
                                 "line is not a hand header (OFC Hand #...)\n"), command
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_rejected_hand_beside_text_that_is_no_history_is_a_finding(tmp_path: Path) -> None:
    # In a folder, the text that is no history is skipped and counted, never rejected.
    (tmp_path / "a_notes.txt").write_text("shopping list\n", encoding="utf-8")
    (tmp_path / "b_hands.txt").write_text(REJECTED_HAND, encoding="utf-8")
    result = runner().invoke(app, ["audit", str(tmp_path)])
    assert result.exit_code == EXIT_FINDINGS
    assert result.stdout.count("REJECTED ") == 1
    assert "ofc-audit: read 1 file; skipped 1: 1 not a hand history\n" in result.stderr


def test_a_folder_reads_every_history_whatever_its_name(tmp_path: Path) -> None:
    (tmp_path / "HH_turbo.TXT").write_text(WORKED_EXAMPLE, encoding="utf-8")
    (tmp_path / "README.txt").write_text("These are my hands.\n", encoding="utf-8")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "hh").write_text(WORKED_EXAMPLE.replace("PD-1001", "PD-1002"),
                                         encoding="utf-8")
    result = runner().invoke(app, ["audit", "--json", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["hands"] == 2
    assert result.stderr == ("ofc-audit: read 2 files; skipped 2: 1 not a hand history, "
                             "1 not text\n")


def test_a_file_named_twice_is_read_once_and_a_named_non_history_is_its_own_error(
    tmp_path: Path,
) -> None:
    hand = tmp_path / "hh.log"
    hand.write_text(WORKED_EXAMPLE, encoding="utf-8")
    notes = tmp_path / "notes.txt"
    notes.write_text("shopping list\n", encoding="utf-8")
    result = runner().invoke(app, ["audit", "--json", str(hand), str(hand), str(notes)])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["totals"]["hands"] == 1
    assert result.stderr == (f"ofc-audit: error: {notes}: not a hand history: its first line "
                             "is not a hand header (OFC Hand #...)\n")


# -- one boundary: typed errors, one status each ----------------------------------------------


def test_each_typed_error_has_its_status() -> None:
    for error in (UsageError("x"), NoHistoryFound("x"), UnreadableInput("x")):
        assert exit_status(error) == EXIT_USAGE
    assert exit_status(RuntimeError("a bug")) is None  # not for people: its traceback shows


def test_an_unreadable_input_is_said_once_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tests run as root, who reads every file: the refusal is the file system's answer.
    path = tmp_path / "secret.txt"
    path.write_text(WORKED_EXAMPLE, encoding="utf-8")

    def refuse(source: Source) -> Any:
        raise PermissionError(13, "Permission denied", source.file)

    monkeypatch.setattr(driver, "open_source", refuse)
    for jobs in ("1", "2"):
        result = runner().invoke(app, ["audit", str(path), "--jobs", jobs])
        assert result.exit_code == EXIT_USAGE
        assert result.stderr == f"ofc-audit: error: cannot read {path}: Permission denied\n"
        assert result.stdout == ""  # checked before anything is written


# -- help -------------------------------------------------------------------------------------


COMMANDS = ["score", "audit", "session", "simulate", "rules", "review", "import", "watch"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_arguments_as_a_manual_page_does(command: str) -> None:
    result = runner().invoke(app, [command, "--help"], prog_name="ofc-audit")
    assert result.exit_code == 0
    assert "<list" not in result.stdout and "list[str]" not in result.stdout
    usage = result.stdout.splitlines()[0]
    # audit, session and review read an archive instead with --archive FILE: their paths are
    # optional.
    want = {"score": "BOARD...", "audit": "[PATH]...", "session": "[PATH]...", "simulate": "",
            "rules": "[ID]...", "review": "[PATH]...", "import": "PATH...",
            "watch": "DIR"}[command]
    assert usage.rstrip().endswith(f"[OPTIONS] {want}".rstrip()), usage


def test_the_command_list_is_not_cut_mid_sentence() -> None:
    result = runner().invoke(app, ["--help"], prog_name="ofc-audit")
    lines = result.stdout.splitlines()
    listed = lines[lines.index("Commands:") + 1:][:len(COMMANDS)]
    assert [line.split()[0] for line in listed] == COMMANDS
    for line in listed:
        assert line.endswith(".") and not line.endswith("..."), line


# -- audit --hand ID --html PAGE --------------------------------------------------------------


def test_the_dispute_page_says_where_it_was_written(tmp_path: Path) -> None:
    path = tmp_path / "h.txt"
    path.write_text(WORKED_EXAMPLE, encoding="utf-8")
    page = tmp_path / "page.html"
    result = runner().invoke(app, ["audit", str(path), "--hand", "PD-1001", "--html",
                                   str(page)])
    assert result.exit_code == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert result.stderr == f"ofc-audit: wrote the dispute page of #PD-1001 to {page}\n"
    assert result.stdout == ""
    # To standard output: the page alone, nothing said about where it went.
    result = runner().invoke(app, ["audit", str(path), "--hand", "PD-1001", "--html", "-"])
    assert result.stdout.startswith("<!DOCTYPE html>") and result.stderr == ""


# -- a closed pipe ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["audit", str(SAMPLES)], ["audit", "--json", str(SAMPLES)],
                                     ["audit", "--jobs", "2", str(SAMPLES)], ["rules"],
                                     ["simulate", "--hands", "50"]])
def test_output_cut_by_a_closed_pipe_ends_quietly(command: list[str]) -> None:
    """``ofc-audit ... | head -1`` with the reader gone before the first line: no error on
    standard error, status 141 (as a shell reports a command that SIGPIPE ended)."""
    process = subprocess.Popen([sys.executable, "-m", "ofc_audit", *command], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=dict(os.environ, NO_COLOR="1"))
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # long before the command has imported its modules
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == EXIT_BROKEN_PIPE, stderr
    assert "rror" not in stderr and "Broken pipe" not in stderr, stderr


# -- shell completion -------------------------------------------------------------------------


def test_shell_completion_is_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    import typer.completion

    result = runner().invoke(app, ["--help"], prog_name="ofc-audit")
    assert "--install-completion" in result.stdout and "--show-completion" in result.stdout
    # --show-completion is a flag: typer detects the shell from the parent processes, so a
    # run under a shell other than bash (a CI runner's sh) would print another script.
    monkeypatch.setattr(typer.completion, "_get_shell_name", lambda: "bash")
    script = runner().invoke(app, ["--show-completion"], prog_name="ofc-audit")
    assert script.exit_code == 0 and "_OFC_AUDIT_COMPLETE=complete_bash" in script.stdout
    completed = runner().invoke(app, [], prog_name="ofc-audit", env={
        "_OFC_AUDIT_COMPLETE": "complete_bash", "COMP_WORDS": "ofc-audit se",
        "COMP_CWORD": "1"})
    assert completed.stdout.split() == ["session"]


# -- standard output that cannot grow -----------------------------------------------------------

#: A review of about a second whose JSON is far past the limit below (82 KB).
_REVIEWED = SAMPLES / "classic_2p_heads_up.txt"


@pytest.mark.parametrize("args", [
    ["rules"],
    ["score", "Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd",
     "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"],
    ["audit", "--json", str(SAMPLES)],
    ["audit", str(SAMPLES)],
    ["review", str(_REVIEWED), "--rollouts", "1", "--json"],
    ["simulate", "--hands", "400"],
], ids=["rules", "score", "audit-json", "audit-text", "review", "simulate"])
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
def test_standard_output_that_cannot_grow_is_an_error_that_says_so(
        tmp_path: Path, args: list[str], unbuffered: bool) -> None:
    """``... > out.json`` on a full disk (here: a limit on the size of a file the command
    writes, which fails the same way, "File too large"; ``session``'s reports would be
    stopped by it first): the command says that standard output could not be written,
    exit 2. Before: a traceback and exit 1, the status of
    hands with findings, from every command; and under ``PYTHONUNBUFFERED`` (standard
    output unbuffered: the system took part of a write, the rest was dropped) exit 0 and a
    cut document, without a word."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))

    with open(tmp_path / "out", "wb") as out:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        if unbuffered:
            env["PYTHONUNBUFFERED"] = "1"
        done = subprocess.run([sys.executable, "-m", "ofc_audit", *args], cwd=ROOT,
                              stdout=out, stderr=subprocess.PIPE, text=True,
                              preexec_fn=limited, env=env)
    assert done.returncode == EXIT_USAGE, done.stderr
    assert done.stderr.endswith("ofc-audit: error: cannot write standard output: File too "
                                "large; what was written is incomplete\n"), done.stderr
    assert done.stderr.count("error") == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert (tmp_path / "out").stat().st_size == 1000  # every byte up to the limit


def test_standard_input_that_cannot_be_copied_for_the_workers_says_where(
        tmp_path: Path) -> None:
    """``--jobs 2`` reads standard input from a copy in the temporary folder: a copy that
    cannot be written (that folder's disk full; here a file size limit) names the folder
    and what to do, exit 2. It was "cannot read input: No space left on device"."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (10_000, 10_000))

    text = b"".join(path.read_bytes() + b"\n" for path in sorted(SAMPLES.glob("*.txt")))
    assert len(text) > 10_000
    done = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "-", "--jobs", "2"],
                          cwd=ROOT, input=text, capture_output=True, preexec_fn=limited,
                          env=dict(os.environ, TMPDIR=str(tmp_path)))
    stderr = done.stderr.decode()
    assert done.returncode == EXIT_USAGE, stderr
    assert stderr == (f"ofc-audit: error: cannot keep a copy of standard input in the "
                      f"temporary folder {tmp_path}: File too large (--jobs N reads it from "
                      f"there; TMPDIR chooses the folder, --jobs 1 needs none)\n")
    assert list(tmp_path.iterdir()) == []  # the copy's folder removed


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_temporary_folder_that_cannot_grow_is_named(tmp_path: Path, jobs: str) -> None:
    """A session keeps its tables in the temporary folder while it runs: a disk there that
    fills up (here: a file size limit, which every file of the run shares, and the tables'
    pieces come first) is said as such, the folder named, exit 2, and nothing of the run
    is left there. It was "cannot read input: ..." (the tables' pieces, written while the
    hands were read) or a traceback (the report's own pieces)."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1500, 1500))

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    done = subprocess.run([sys.executable, "-m", "ofc_audit", "session", str(SAMPLES),
                           "--jobs", jobs, "--out", str(tmp_path / "reports")],
                          cwd=ROOT, capture_output=True, text=True, preexec_fn=limited,
                          env=dict(os.environ, TMPDIR=str(temporary)))
    assert done.returncode == EXIT_USAGE, done.stderr
    assert done.stderr.endswith(f"ofc-audit: error: cannot write in the temporary folder "
                                f"{temporary}: File too large (TMPDIR chooses it)\n"), \
        done.stderr
    assert list(temporary.iterdir()) == []


@pytest.mark.parametrize("command", ["audit", "session", "import"])
def test_a_pipe_given_as_a_path_is_said_to_be_one(tmp_path: Path, command: str) -> None:
    """``ofc-audit audit <(zcat h.txt.gz)``: a pipe named as a file. Every reading of a file
    (what it is, its copies, its hands) read another part of it, and the command said
    "no hand histories found in /dev/fd/63: 1 file read, no hand in it". Now it says what
    it is and what to do, without reading it (exit 2 when nothing else was given); the
    same text on standard input (``-``) is read."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = (SAMPLES / "classic_4p_session.txt").read_bytes()
    args = {"audit": ["audit", str(fifo)],
            "session": ["session", str(fifo), "--out", str(tmp_path / "reports")],
            "import": ["import", str(fifo), "--archive", str(tmp_path / "a.duckdb")]}[command]
    done = subprocess.run([sys.executable, "-m", "ofc_audit", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == EXIT_USAGE, done.stderr
    assert done.stderr == (f"ofc-audit: error: {fifo}: a pipe or a device, not a file (it can "
                           f"be read only once): save it to a file first, or give it on "
                           f"standard input as - (audit, session, review)\n")
    if command == "audit":
        piped = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "-"], cwd=ROOT,
                               input=text, capture_output=True)
        named = subprocess.run([sys.executable, "-m", "ofc_audit", "audit",
                                str(SAMPLES / "classic_4p_session.txt")], cwd=ROOT,
                               capture_output=True)
        assert piped.returncode == named.returncode == 0
        # The same hands and findings; the file is named "-" there.
        assert piped.stdout.splitlines()[-1] == named.stdout.splitlines()[-1]
        assert piped.stdout.replace(b"-:", b"") == \
            named.stdout.replace(str(SAMPLES / "classic_4p_session.txt").encode() + b":", b"")


def test_a_file_name_that_is_not_utf_8_is_shown_with_escapes_everywhere(tmp_path: Path) -> None:
    """A history whose file name is not UTF-8 (a zip of a Windows machine's histories
    unpacked here: code page 1251), beside a copy of it under a UTF-8 name: every output
    is UTF-8 and names it with ``%XX`` for the bytes that are not; the file is still read.
    Before: the session ended in a traceback (UnicodeEncodeError writing session.json) and
    ``audit --json`` wrote bytes that are not UTF-8."""
    folder = tmp_path / "hands"
    folder.mkdir()
    text = (SAMPLES / "classic_3p_one_fouled.txt").read_bytes()
    odd = os.fsdecode(os.fsencode(str(folder)) + b"/\xf2\xf3\xf0\xed\xe8\xf0.txt")  # cp1251
    Path(odd).write_bytes(text)
    (folder / "турнир.txt").write_bytes(text)
    shown = f"{folder}/%F2%F3%F0%ED%E8%F0.txt"
    # A disputed hand in another such file: its page reads the file again.
    disputed = os.fsdecode(os.fsencode(str(folder)) + b"/\xf1\xef\xee\xf0.txt")
    Path(disputed).write_bytes((SAMPLES / "disputes" / "fouled_hand_paid_as_legal.txt")
                               .read_bytes())

    audit = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "--json", str(folder)],
                           cwd=ROOT, capture_output=True)
    assert audit.returncode == 1, audit.stderr  # the disputed hand's findings
    document = json.loads(audit.stdout.decode("utf-8"))  # strict: every byte UTF-8
    # Read in the order of the names: the UTF-8 one first, the other is its duplicate.
    assert [hand["file"] for hand in document["hands"]] == [
        str(folder / "турнир.txt"), f"{folder}/%F1%EF%EE%F0.txt"]
    assert document["duplicates"][0]["file"] == shown

    out = tmp_path / "reports"
    session = subprocess.run([sys.executable, "-m", "ofc_audit", "session", str(folder),
                              "--out", str(out), "--jobs", "2"], cwd=ROOT, capture_output=True)
    assert session.returncode == 1, session.stderr  # the disputed hand's findings
    assert b"Traceback" not in session.stderr
    written = json.loads((out / "session.json").read_bytes().decode("utf-8"))
    assert written["duplicates"][0]["file"] == shown
    for path in out.rglob("*"):
        if path.suffix in (".json", ".csv", ".md", ".html"):
            path.read_bytes().decode("utf-8")  # strict
    assert shown in (out / "report.html").read_text("utf-8")
    pages = list((out / "hands").glob("*.html"))
    assert len(pages) == 1 and "%F1%EF%EE%F0.txt" in pages[0].read_text("utf-8")

    archive = tmp_path / "a.duckdb"
    imported = subprocess.run([sys.executable, "-m", "ofc_audit", "import", str(folder),
                               "--archive", str(archive)], cwd=ROOT, capture_output=True)
    assert imported.returncode in (0, 1), imported.stderr
    again = subprocess.run([sys.executable, "-m", "ofc_audit", "import", str(folder),
                            "--archive", str(archive)], cwd=ROOT, capture_output=True)
    assert again.stdout.decode().startswith("files: 0 read, 3 skipped")
    stored = subprocess.run([sys.executable, "-m", "ofc_audit", "audit", "--json",
                             "--archive", str(archive)], cwd=ROOT, capture_output=True)
    assert json.loads(stored.stdout.decode("utf-8"))["hands"] == document["hands"]


@pytest.mark.parametrize("args", [["rules"], ["audit", str(SAMPLES / "classic_4p_session.txt")]])
def test_a_closed_standard_output_is_said_so(args: list[str]) -> None:
    """``ofc-audit rules >&-``: nowhere to write; it said so at once, exit 2 (it was a
    traceback at the first write or at the end, exit 1)."""
    done = subprocess.run([sys.executable, "-m", "ofc_audit", *args], cwd=ROOT,
                          capture_output=False, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == EXIT_USAGE
    assert done.stderr == ("ofc-audit: error: standard output is closed: nowhere to write "
                           "(give it a file, or /dev/null)\n")
