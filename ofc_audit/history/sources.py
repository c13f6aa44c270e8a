"""The files a list of paths stands for, in the order they are read: one definition.

A path is a file, a folder (every file under it that holds a hand history, whatever its
name, sorted by path; :mod:`.survey` says which) or ``-`` (standard input). Every part of
the package that needs the files of the paths (the reader, the engines' scan, the survey of
the inputs, the dispute pages) asks :func:`history_files`, so they all read the same files
in the same order under the same names.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import IO

__all__ = [
    "STDIN", "Source", "history_files", "open_source", "real_name", "shown_name",
    "source_bases", "source_size", "sources_of",
]

#: The path that stands for standard input.
STDIN = "-"


#: The real names of the files that are shown by another (:func:`shown_name`).
_REAL: dict[str, str] = {}


def shown_name(name: str) -> str:
    """The name a history file is reported by: its own, or, when the system's name for it
    is not UTF-8 (a zip of a Windows machine's histories unpacked here: ``турнир.txt`` in
    code page 1251), that name with each byte that is not UTF-8 as ``%XX``. Every output
    is UTF-8 text (a name with such bytes ended a session in a traceback, and made ``audit
    --json`` write bytes that are not UTF-8); the file is still opened by its own name
    (:func:`real_name`). (Not ``\\xNN``: a backslash is a folder's separator to the pages
    that show a file's name alone.)

    >>> shown_name("club.txt")
    'club.txt'
    >>> shown_name(b"t\\xf3rneo.txt".decode("utf-8", "surrogateescape"))
    't%F3rneo.txt'
    """
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        shown = "".join(f"%{ord(c) - 0xDC00:02X}" if 0xDC80 <= ord(c) <= 0xDCFF
                        else "\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in name)
        _REAL[shown] = name
        return shown
    return name


def real_name(name: str) -> str:
    """The name to open a file by that :func:`shown_name` reports as ``name``."""
    return _REAL.get(name, name)


def history_files(paths: Iterable[str | Path]) -> Iterator[str]:
    """The files of ``paths`` in read order, each once, named as the reader names them
    (``str`` of the path as given, or of the path under the folder); ``-`` stays ``-``.
    Files that hold no history are left out (:func:`.survey.find_files` says which). A
    path that does not exist is yielded as it is: reading it says why."""
    from .survey import find_files  # the survey reads headers with the reader's pattern

    yield from find_files([str(path) for path in paths]).files


@dataclass(frozen=True)
class Source:
    """One file in read order: ``file`` is the name the reader reports (``str(path)``, or
    ``-``), ``path`` the absolute path a worker opens, ``data`` standard input's bytes when
    they were read here."""

    index: int
    file: str
    path: str | None
    data: bytes | None = None


def sources_of(paths: Iterable[str | Path], stdin: IO[bytes] | None = None) -> list[Source]:
    """The files of ``paths`` (:func:`history_files`) as numbered sources; standard input is
    read here, whole."""
    sources: list[Source] = []
    for file in history_files(paths):
        if file == STDIN:
            data = (stdin if stdin is not None else sys.stdin.buffer).read()
            sources.append(Source(len(sources), STDIN, None, data))
        else:
            sources.append(Source(len(sources), file, os.path.abspath(real_name(file))))
    return sources


def open_source(source: Source) -> IO[bytes]:
    """The bytes of a source; an ``OSError`` names the file as the user gave it."""
    if source.path is None:
        return io.BytesIO(source.data or b"")
    try:
        return open(source.path, "rb")
    except OSError as error:
        raise OSError(error.errno, error.strerror, source.file) from None


def source_size(source: Source) -> int:
    """The bytes of a source (0 when it cannot be read: opening it says why)."""
    if source.path is None:
        return len(source.data or b"")
    try:
        return os.path.getsize(source.path)
    except OSError:
        return 0


def source_bases(sources: Sequence[Source]) -> list[int]:
    """The bytes of all the sources before each one (and, last, of all of them)."""
    return list(accumulate((source_size(source) for source in sources), initial=0))
