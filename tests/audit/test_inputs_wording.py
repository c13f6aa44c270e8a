"""The message when files were read and no hand came of them, in real plurals (issue 20.7:
"1 file read, and the 3 entries in them")."""

from __future__ import annotations

from ofc_audit.audit.inputs import Inputs


def message(files: int, rejected: int | None) -> str:
    names = tuple(f"f{i}.txt" for i in range(files))
    return Inputs(names, names, ()).no_hands_read(rejected).split(": ", 1)[1]


def test_one_file_its_entries_in_it() -> None:
    assert message(1, 3) == "1 file read, and the 3 entries in it could not be read as hands " \
        "(listed above)"
    assert message(1, 1).startswith("1 file read, and the entry in it could not be read")
    assert message(1, 0) == "1 file read, no hand in it"


def test_many_files_their_entries_in_them_with_separators() -> None:
    assert message(2, 1).startswith("2 files read, and the 1 entry in them could not be read")
    assert message(3, 1_500).startswith("3 files read, and the 1,500 entries in them")
    assert message(2, None).startswith("2 files read, no hand in them (any entry")
