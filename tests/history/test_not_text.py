"""A file that is not UTF-8 text says what it is: compressed, an archive, UTF-16 or binary
(named on the command line, or read from standard input), never that it was cut mid-line."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from pathlib import Path

import pytest

from ofc_audit.cli.app import app
from ofc_audit.history.reader import CUT_MID_LINE, HistoryParseError, packed, read_stream
from ofc_audit.history.survey import find_files
from tests.support.histories import WORKED_EXAMPLE, cli_runner


def _zipped(text: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("hands.txt", text)
    return buffer.getvalue()


HISTORY = WORKED_EXAMPLE.encode()
PACKED = {
    "gzip": (gzip.compress(HISTORY), "compressed (gzip): decompress it first (gunzip -k FILE)"),
    "bzip2": (bz2.compress(HISTORY),
              "compressed (bzip2): decompress it first (bunzip2 -k FILE)"),
    "xz": (lzma.compress(HISTORY), "compressed (xz): decompress it first (unxz -k FILE)"),
    # zstd and 7z are not in the standard library: their magic numbers and a body.
    "zstd": (b"\x28\xb5\x2f\xfd\x04\x58" + bytes(range(200)),
             "compressed (zstd): decompress it first (unzstd FILE)"),
    "zip": (_zipped(HISTORY), "a zip archive: extract it, then give its files or their folder"),
    "7z": (b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(range(200)),
           "a 7z archive: extract it, then give its files or their folder"),
}


@pytest.mark.parametrize("kind", sorted(PACKED))
def test_each_packing_is_told_by_its_first_bytes(kind: str) -> None:
    data, what = PACKED[kind]
    assert packed(data) == what
    assert packed(data[:3]) is None or kind == "gzip"  # a magic number cut short is none


@pytest.mark.parametrize("text", [
    WORKED_EXAMPLE,  # a history
    "BZh9 is a line of prose\n",  # bzip2's first letters, not its block magic
    "PK of the club: notes\n",  # zip's first letters, not its signature
    "7z notes\n",
    "",
])
def test_text_is_never_taken_for_a_packed_file(text: str) -> None:
    assert packed(text.encode()) is None


@pytest.mark.parametrize("kind", sorted(PACKED))
def test_a_named_packed_file_says_what_it_is_and_what_to_do(tmp_path: Path, kind: str) -> None:
    data, what = PACKED[kind]
    path = tmp_path / "export.txt"  # the name says nothing: the bytes do
    path.write_bytes(data)
    files = find_files([str(path)])
    assert files.files == ()
    assert [str(n) for n in files.not_histories] == [f"{path}: not a hand history: it is {what}"]
    # In a folder it is skipped and counted as before (the contract's one line).
    assert find_files([str(tmp_path)]).skipped_line() == "read 0 files; skipped 1: 1 not text"


@pytest.mark.parametrize("kind", sorted(PACKED))
def test_a_packed_stream_says_so_and_not_that_it_was_cut(kind: str) -> None:
    data, what = PACKED[kind]
    items = list(read_stream(io.BytesIO(data), "-"))
    (error,) = [i for i in items if isinstance(i, HistoryParseError)]
    assert (error.line, error.column, error.kind) == (1, 1, "encoding")
    assert error.message == f"the file is {what}; a history is UTF-8 text"
    assert CUT_MID_LINE not in error.message


@pytest.mark.parametrize(("data", "message"), [
    (WORKED_EXAMPLE.encode("utf-16"), "the file looks like UTF-16 text, not a hand history: "
     "a history is UTF-8 text (save the file as UTF-8)"),
    (bytes(range(256)) * 4, "the file looks binary, not like a hand history (a history is "
     "UTF-8 text)"),
])
def test_utf16_and_binary_streams_are_not_said_to_be_cut(data: bytes, message: str) -> None:
    # Neither ends with a line end; before, the message began "the file ends in the middle
    # of a line; is it still being written?", which is not what is wrong with them.
    assert not data.endswith(b"\n")
    (error,) = [i for i in read_stream(io.BytesIO(data), "-") if isinstance(i, HistoryParseError)]
    assert error.message == message


def test_the_command_names_the_packed_file_and_reads_the_rest(tmp_path: Path) -> None:
    export = tmp_path / "export.zip"
    export.write_bytes(PACKED["zip"][0])
    good = tmp_path / "tonight.txt"
    good.write_text(WORKED_EXAMPLE, encoding="utf-8")
    runner = cli_runner()
    result = runner.invoke(app, ["audit", str(export), str(good)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"ofc-audit: error: {export}: not a hand history: it is a zip archive: extract it, "
        f"then give its files or their folder"]
    assert "1 hand: 1 valid" in result.stdout
    alone = runner.invoke(app, ["audit", str(export)])
    assert alone.exit_code == 2
    from_stdin = runner.invoke(app, ["audit", "-"], input=PACKED["gzip"][0])
    assert from_stdin.exit_code == 2
    assert ("REJECTED -:1:1: the file is compressed (gzip): decompress it first (gunzip -k "
            "FILE); a history is UTF-8 text") in from_stdin.stdout
