"""Which files are read, and every hand once (issue 21; the end of CLI.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.history.survey import Copy, HandIndex, find_files, what_file_is
from tests.support.histories import WORKED_EXAMPLE, worked_example_hand

H1 = worked_example_hand("H-1", "T1")
H2 = worked_example_hand("H-2", "T1", button=1)


def _write(path: Path, text: str | bytes) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text, "utf-8", newline="")
    else:
        path.write_bytes(text)
    return str(path)


@pytest.mark.parametrize(
    ("content", "kind"),
    [
        (WORKED_EXAMPLE, "history"),
        ("\ufeff# exported by the site\n\n   \n" + WORKED_EXAMPLE, "history"),
        ("  \t" + WORKED_EXAMPLE.replace("\n", "\r\n"), "history"),
        ("", "empty"),
        ("These are my notes about the session.\n" + WORKED_EXAMPLE, "not a hand history"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not text"),
        (b"\xff\xfe\xfd not utf-8 at all", "not text"),
    ],
)
def test_what_a_file_is_is_told_by_its_first_line(tmp_path: Path, content: str | bytes,
                                                  kind: str) -> None:
    assert what_file_is(_write(tmp_path / "f", content)) == kind


def test_a_folder_reads_histories_whatever_their_names_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "pile"
    a = _write(folder / "HH_turbo.TXT", H1)
    b = _write(folder / "logs" / "hh.log", H2)
    c = _write(folder / "no_extension", worked_example_hand("H-3", "T2"))
    _write(folder / "README.txt", "How I export my hands.\n")
    _write(folder / "notes.md", "# notes\nnothing here\n")
    _write(folder / "chart.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    _write(folder / "empty.txt", "")
    files = find_files([str(folder)])
    assert list(files.files) == sorted([a, b, c])
    assert sorted((Path(s.path).name, s.reason) for s in files.skipped) == [
        ("README.txt", "not a hand history"), ("chart.png", "not text"),
        ("empty.txt", "empty"), ("notes.md", "not a hand history"),
    ]
    assert files.skipped_line() == (
        "read 3 files; skipped 4: 2 not hand histories, 1 empty, 1 not text"
    )
    assert files.not_histories == ()


def test_a_pipe_or_a_dangling_link_in_a_folder_is_counted_not_read(tmp_path: Path) -> None:
    """A pipe (read, it would wait for a writer, and be read once and lost) and a link to
    nothing: skipped and counted as "not files", never read; they were dropped without a
    word ("nothing is skipped silently")."""
    folder = tmp_path / "pile"
    a = _write(folder / "hands.txt", H1)
    os.mkfifo(folder / "pipe")
    (folder / "gone.txt").symlink_to(tmp_path / "nowhere.txt")
    files = find_files([str(folder)])
    assert list(files.files) == [a]
    assert sorted((Path(s.path).name, s.reason) for s in files.skipped) == [
        ("gone.txt", "not a file"), ("pipe", "not a file")]
    assert files.skipped_line() == "read 1 file; skipped 2: 2 not files"


def test_the_same_file_is_read_once(tmp_path: Path) -> None:
    a = _write(tmp_path / "x" / "a.txt", H1)
    os.symlink(a, tmp_path / "x" / "link.txt")
    files = find_files([a, a, str(tmp_path / "x"), str(tmp_path / "x" / "link.txt")])
    assert list(files.files) == [a]


def test_a_file_named_that_holds_no_history_is_its_own_error(tmp_path: Path) -> None:
    notes = _write(tmp_path / "notes.txt", "no hands here\n")
    good = _write(tmp_path / "good.txt", H1)
    files = find_files([notes, good])
    assert list(files.files) == [good]
    assert [str(n) for n in files.not_histories] == [
        f"{notes}: not a hand history: its first line is not a hand header (OFC Hand #...)"
    ]


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be"])
def test_a_history_saved_as_utf_16_is_said_to_be_one(tmp_path: Path, codec: str) -> None:
    """Notepad's "Unicode" is UTF-16: text, not a history's UTF-8. Named, it said "it is
    not a text file"; it says what it is and what to do now. In a folder it is counted as
    "not text", as before."""
    path = tmp_path / "hands.txt"
    data = H1.encode(codec)
    path.write_bytes(data if data[:2] in (b"\xff\xfe", b"\xfe\xff") else b"\xfe\xff" + data)
    files = find_files([str(path)])
    assert files.files == ()
    assert [str(n) for n in files.not_histories] == [
        f"{path}: not a hand history: it is UTF-16 text; histories are UTF-8 (save it as UTF-8)"
    ]
    assert find_files([str(tmp_path)]).skipped_line() == "read 0 files; skipped 1: 1 not text"


def _line_of(text: str, hand_id: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1)
                if line.startswith(f"OFC Hand #{hand_id}:"))


def test_a_re_downloaded_export_is_read_once(tmp_path: Path) -> None:
    export = H1 + "\n" + H2
    a = _write(tmp_path / "export.txt", export)
    # The copy came through another tool: CRLF line ends, a BOM, no blank line at the end.
    b = _write(tmp_path / "export (1).txt", "\ufeff" + export.replace("\n", "\r\n").rstrip())
    index = HandIndex.of([a, b])
    assert [(d.hand_id, d.copy, d.first) for d in index.duplicates] == [
        ("H-1", Copy(b, 1), Copy(a, 1)),
        ("H-2", Copy(b, _line_of(export, "H-2")), Copy(a, _line_of(export, "H-2"))),
    ]
    assert index.conflicts == []
    assert not index.leaves_out(a, 1) and index.leaves_out(b, 1)


def test_the_same_id_with_another_text_is_a_conflict_and_no_copy_counts(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.txt", H1 + "\n" + H2)
    changed = H1.replace("alice: royalties 11, points -6", "alice: royalties 11, points -5")
    b = _write(tmp_path / "b.txt", changed)
    c = _write(tmp_path / "c.txt", H1)  # a third copy, the same as the first
    index = HandIndex.of([a, b, c])
    assert [(k.hand_id, k.copies) for k in index.conflicts] == [
        ("H-1", (Copy(a, 1), Copy(b, 1), Copy(c, 1)))
    ]
    assert index.duplicates == []
    assert index.leaves_out(a, 1) and index.leaves_out(b, 1) and index.leaves_out(c, 1)
    assert not index.leaves_out(a, _line_of(H1 + "\n" + H2, "H-2"))


def test_line_numbers_hold_across_read_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    from ofc_audit.history import survey

    hands = [worked_example_hand(f"B-{k}", "T9") for k in range(30)]
    text = "# preamble\n\n" + "\n".join(hands)
    a = _write(tmp_path / "a.txt", text)
    b = _write(tmp_path / "b.txt", text)
    for block in (7, 64, 1000, 1 << 20):
        monkeypatch.setattr(survey, "_BLOCK", block)
        index = HandIndex.of([a, b])
        assert [(d.hand_id, d.copy.line) for d in index.duplicates] == [
            (f"B-{k}", _line_of(text, f"B-{k}")) for k in range(30)
        ]


_PIECES = ["OFC", "OFC Hand", " Hand", "Hand", " ", "\t", "\n", "\r\n", "#7: x", "#", ":",
           "x", "OFC\tHand #1:", "  OFC  Hand #2: y", "OFCHand", "OFC Handy", "\ufeff"]


@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_the_header_search_finds_what_the_header_pattern_finds(pieces: list[str]) -> None:
    from ofc_audit.history import survey

    data = "".join(pieces).encode("utf-8")
    expected = [m.start() for m in survey._HEADER_LINE.finditer(data)]
    assert survey._header_starts(data) == expected


def test_the_header_search_stays_linear_on_a_long_line_of_keywords() -> None:
    """Untrusted input: 2 MB on one line, half a million ``OFC`` (looking back to the line's
    start from each would take minutes)."""
    import time

    from ofc_audit.history import survey

    data = b"OFC Hand #1: x\n" + b"OFC " * 500_000 + b"\n  OFC Hand #2: y\n"
    began = time.process_time()
    assert survey._header_starts(data) == [0, data.rindex(b"\n  OFC") + 1]
    assert time.process_time() - began < 20


def test_files_whose_ids_all_differ_have_an_empty_index_without_the_exact_survey(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual case (no hand twice) is told from 8-byte hashes of the ids alone."""
    from ofc_audit.history import survey

    a = _write(tmp_path / "a.txt", "\n".join(worked_example_hand(f"U-{k}", "T9")
                                             for k in range(20)))
    b = _write(tmp_path / "b.txt", "\n".join(worked_example_hand(f"V-{k}", "T9")
                                             for k in range(20)))

    def exact(files: object) -> HandIndex:
        raise AssertionError("the exact survey ran")

    monkeypatch.setattr(HandIndex, "_of", classmethod(lambda cls, files: exact(files)))
    index = HandIndex.of([a, b])
    assert index == HandIndex() and not index.leaves_out(a, 1)
    assert survey._ids_differ([a, b]) and not survey._ids_differ([a, a])


def test_ids_that_hash_alike_go_to_the_exact_survey(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Two different ids with one hash are not taken for a duplicate: the exact survey
    tells them apart (every hash the same here)."""
    import builtins

    from ofc_audit.history import survey

    a = _write(tmp_path / "a.txt", H1 + "\n" + H2)
    b = _write(tmp_path / "b.txt", H1)
    monkeypatch.setattr(survey, "hash", lambda value: 7, raising=False)
    assert not survey._ids_differ([a])
    assert HandIndex.of([a]) == HandIndex()
    index = HandIndex.of([a, b])
    assert [(d.hand_id, d.copy) for d in index.duplicates] == [("H-1", Copy(b, 1))]
    monkeypatch.setattr(survey, "hash", builtins.hash, raising=False)
    assert survey._ids_differ([a]) and HandIndex.of([a, b]) == index


@pytest.mark.parametrize("small", [0, 1 << 18])
def test_the_quick_survey_counts_ids_alike_in_a_set_and_with_numpy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, small: int) -> None:
    """Up to ``_SMALL_SURVEY`` hands the hashes are counted in a set (no NumPy import before
    an audit's first hand), beyond with NumPy: the same answer either way."""
    from ofc_audit.history import survey

    monkeypatch.setattr(survey, "_SMALL_SURVEY", small)
    a = _write(tmp_path / "a.txt", "\n".join(worked_example_hand(f"U-{k}", "T9")
                                             for k in range(5)))
    b = _write(tmp_path / "b.txt", worked_example_hand("U-3", "T9"))
    empty = _write(tmp_path / "empty.txt", "")
    assert survey._ids_differ([a]) and survey._ids_differ([a, empty])
    assert survey._ids_differ([empty]) and survey._ids_differ([])
    assert not survey._ids_differ([a, b]) and not survey._ids_differ([a, a])


# -- the ids of the quick survey: each entry's, as the exact survey reads them ------------------

_LINES = st.sampled_from([
    b"OFC Hand #A-1: Pineapple - 0.10 EUR/point - 2026-11-29 21:04:11 UTC",
    b"  OFC Hand #  B 2 : Classic",
    b"OFC Hand #C-3:",
    b"OFC Hand #no colon here",
    b"OFC  Hand\t#D-4\t:x",
    b"\tOFC Hand #E-5: Turbo\r",
    b"Seat 1: alice (250) OFC Hand #F-6: not a header",
    b"OFC",
    b"# a comment",
    b"",
    b"alice: [Ah Kd]",
    b"OFC Hand #\xff\xfe-7: bad bytes",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINES, max_size=40), st.booleans(), st.sampled_from([b"\n", b"\r\n"]),
       st.booleans(), st.integers(4, 64))
def test_the_quick_ids_are_the_entries_ids(
        tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], bom: bool,
        newline: bytes, last_newline: bool, block: int) -> None:
    from ofc_audit.history import survey

    data = (survey._BOM if bom else b"") + newline.join(lines) + (newline if last_newline
                                                                 else b"")
    path = tmp_path_factory.mktemp("ids") / "h.txt"
    path.write_bytes(data)
    # Blocks of a few bytes: headers cut at a block's end, entries across many blocks (each
    # block read again from where the one before left its unfinished entry or line).
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(survey, "_BLOCK", block)
        quick = list(survey._ids(str(path)))
        entries = list(survey._entries(str(path)))
        patch.setattr(survey, "_BLOCK", len(data) + 1)  # the whole file in one block
        whole = list(survey._entries(str(path)))
    assert quick == [hand_id for hand_id, _, _ in entries]
    assert entries == whole  # the same ids, first lines and texts (their digests)
