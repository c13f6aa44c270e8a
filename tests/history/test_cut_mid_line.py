"""A history cut in the middle of a line (a file still being written) says so (issue 21)."""

from __future__ import annotations

import io
from pathlib import Path

from ofc_audit.cli.app import app
from ofc_audit.history.reader import CUT_MID_LINE, HistoryParseError, read_stream, read_text
from tests.support.histories import WORKED_EXAMPLE, cli_runner

# The worked example cut inside bob's street-3 placement: "bob places middle [5d 5" .
CUT_AT = WORKED_EXAMPLE.index("bob places middle [5d 5s]") + len("bob places middle [5d 5")
CUT = WORKED_EXAMPLE[:CUT_AT]
CUT_LINE = CUT.count("\n") + 1


def _rejections(items: list[object]) -> list[HistoryParseError]:
    return [i for i in items if isinstance(i, HistoryParseError)]


def test_a_line_cut_at_the_end_of_the_file_says_the_file_may_still_be_written() -> None:
    for items in (list(read_text(CUT, "live.txt")),
                  list(read_stream(io.BytesIO(CUT.encode()), "live.txt"))):
        (error,) = _rejections(items)
        assert error.line == CUT_LINE
        assert error.message.startswith(CUT_MID_LINE + " (")
        assert str(error).startswith(f"live.txt:{CUT_LINE}:")


def test_the_same_fault_on_a_finished_line_is_only_the_fault() -> None:
    # The same text with its line end: the line is finished, so it is a plain bad card.
    (error,) = _rejections(list(read_text(CUT + "\n", "done.txt")))
    assert error.line == CUT_LINE
    assert CUT_MID_LINE not in error.message


def test_a_last_line_without_its_line_end_is_no_fault() -> None:
    items = list(read_text(WORKED_EXAMPLE.rstrip("\n"), "x.txt"))
    assert not _rejections(items)


def test_an_earlier_fault_in_a_file_cut_mid_line_is_not_blamed_on_the_cut() -> None:
    broken = WORKED_EXAMPLE.replace("alice is dealt [Ah Kd 7c 7s 2h]", "alice is dealt [Ah Kd")
    text = broken + "\n" + CUT
    errors = _rejections(list(read_text(text, "x.txt")))
    assert [CUT_MID_LINE in e.message for e in errors] == [False, True]


def test_the_command_says_it_with_and_without_jobs(tmp_path: Path) -> None:
    history = tmp_path / "live.txt"
    # The cut hand has its own id: the same id with another text would be a conflict.
    history.write_text(WORKED_EXAMPLE + "\n" + CUT.replace("PD-1001", "PD-1002"), "utf-8")
    runner = cli_runner()
    for extra in ([], ["--jobs", "2"]):
        result = runner.invoke(app, ["audit", str(history), *extra])
        assert result.exit_code == 1, result.stderr
        assert f"live.txt:{WORKED_EXAMPLE.count(chr(10)) + CUT_LINE + 1}:" in result.stdout
        assert CUT_MID_LINE in result.stdout
