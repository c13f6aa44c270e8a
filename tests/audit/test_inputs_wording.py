"""The message when files were read and no hand came of them, in real plurals (issue 20.7:
"1 file read, and the 3 entries in them")."""

from __future__ import annotations

import pytest

from ofc_audit.audit.inputs import Inputs
from ofc_audit.common.errors import NoHistoryFound
from ofc_audit.history.reader import HistoryParseError


def message(files: int, rejected: int) -> str:
    names = tuple(f"f{i}.txt" for i in range(files))
    rejections = []
    for line in range(1, rejected + 1):
        error = HistoryParseError("f0.txt", line, 1, "not a hand header", "prose")
        error.before_first_hand = True  # text before any hand header: nothing looks like one
        rejections.append(error)
    with pytest.raises(NoHistoryFound) as raised:
        Inputs(names, names, ()).check_read(0, rejections)
    return str(raised.value).split(": ", 1)[1]


def test_one_file_its_entries_in_it() -> None:
    assert message(1, 3) == "1 file read, and the 3 entries in it could not be read as hands " \
        "(listed above)"
    assert message(1, 1).startswith("1 file read, and the entry in it could not be read")
    assert message(1, 0) == "1 file read, no hand in it"


def test_many_files_their_entries_in_them_with_separators() -> None:
    assert message(2, 1).startswith("2 files read, and the 1 entry in them could not be read")
    assert message(3, 1_500).startswith("3 files read, and the 1,500 entries in them")
    assert message(2, 0) == "2 files read, no hand in them"


def test_a_file_whose_hands_are_all_rejected_is_a_history() -> None:
    error = HistoryParseError("f0.txt", 3, 1, "bad card", "x")  # inside a hand
    Inputs(("f0.txt",), ("f0.txt",), ()).check_read(0, [error])  # no NoHistoryFound
