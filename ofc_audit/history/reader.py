"""Streaming reader of OFC hand histories (docs/FORMAT.md v1): text in, typed records out.

>>> [type(item).__name__ for item in read_text("OFC Hand #1: Classic - 1 points/point - "
...     "2026-01-01 10:00:00 UTC\\nTable 'T' 2-max - Seat #1 is the button\\n"
...     "Seat 1: ann (100)\\nSeat 2: Big  Al (100)\\n*** STREET 1 ***\\nBig Al is dealt [ah]\\n")]
['Hand']
>>> print(next(read_text("OFC Hand #1: Classic - 1 points/point - 2026-01-01 10:00:00 UTC\\n"
...     "Table 'T' 2-max - Seat #1 is the button\\nSeat 1: ann (100)\\n*** STREET 1 ***\\n"
...     "ann is dealt [Ah Ax]\\n")))
<text>:5:18: 'Ax' is not a card: the suit must be one of s h d c (either case)
ann is dealt [Ah Ax]
                 ^

The reader is a generator: it reads a file in blocks of lines (never the whole file), keeps
only the records of the hand it is reading, and yields each hand as a
:class:`~ofc_audit.history.records.Hand` or, when the hand is rejected, a :class:`HistoryParseError`
(yielded, never raised). A rejected hand is all the text from its header line to the next
one; the reader goes on there.

Most of a hand is read a section at a time: the table and seat lines, each STREET or
FANTASYLAND section (a deal and a places line per player), SHOWDOWN and SUMMARY are each one
match of a section pattern the grammar generates (:func:`ofc_audit.history.grammar.section_regex`),
and a count of the match's line ends proves that every line was read once. Every other line,
and the rest of a section where its pattern stops (an event line, a comment, rows out of
order, anything unusual), is matched against the compiled form of the grammar's own line
productions (see :func:`ofc_audit.history.grammar.line_matcher`); only a line that does not match
goes through a full pyparsing parse, which says what was expected and where.
"""

from __future__ import annotations

import io
import operator
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from itertools import islice
from pathlib import Path
from typing import IO, Final

import pyparsing as pp

from ..common.textfmt import printable
from ..game.cards import Card, CardError
from ..game.record import Row
from ..game.ruleset import FantasylandType, Variant
from . import grammar
from .records import (
    Action,
    Deal,
    Event,
    EventKind,
    Hand,
    Header,
    MatchInfo,
    Placement,
    Seat,
    Section,
    SectionKind,
    Showdown,
    ShowdownBoard,
    Stake,
    Summary,
    SummaryEntry,
    TableInfo,
    TopUp,
)
from .sources import STDIN, history_files, real_name

__all__ = ["HistoryParseError", "packed", "read_hands", "read_path", "read_stream", "read_text"]


class HistoryParseError(Exception):
    """A rejected hand (or rejected text before the first hand): where, and what was expected.

    ``line`` and ``column`` are 1-based (a column counts characters; a tab is one); ``text`` is
    the line as written, without its line end. ``entry_line`` is the first line of the rejected
    entry (its header line). ``kind`` is ``"syntax"`` (the grammar does not accept the line, or
    it stands where it may not), ``"context"`` (one of
    :data:`ofc_audit.history.grammar.CONTEXT_RULES`)
    or ``"encoding"`` (bytes that are not UTF-8). ``before_first_hand`` is true for text
    before a file's first hand header: such a file holds no hand history at all when it is
    the only entry (a rejected hand, by contrast, has its header). ``table`` is the name on
    the entry's table line when that line can be read (the grammar's table line, right after
    the header or its match line, as a hand's table is named), else None: a rejected hand
    breaks its own table's chain, or every chain of its file when its table is not known
    (docs/FORMAT.md, Files and sessions).
    """

    before_first_hand: bool = False
    table: str | None = None

    def __init__(
        self,
        file: str,
        line: int,
        column: int,
        message: str,
        text: str,
        entry_line: int | None = None,
        kind: str = "syntax",
    ) -> None:
        super().__init__(file, line, column, message, text, entry_line, kind)
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.text = text
        self.entry_line = line if entry_line is None else entry_line
        self.kind = kind

    def __str__(self) -> str:
        # The caret line copies the tabs of the text before the column, so that the caret
        # stands under the column however wide the terminal draws a tab.
        prefix = "".join("\t" if ch == "\t" else " " for ch in self.text[: self.column - 1])
        return f"{self.file}:{self.line}:{self.column}: {self.message}\n{self.text}\n{prefix}^"


# -- public API -------------------------------------------------------------------------------


def read_hands(paths: Iterable[str | Path]) -> Iterator[Hand | HistoryParseError]:
    """Hands of every path, in order: a file, a folder (every history under it, sorted by
    path) or ``-`` (standard input). A path that cannot be read raises ``OSError``."""
    for file in history_files(paths):
        if file == STDIN:
            yield from read_stream(sys.stdin.buffer, STDIN)
        else:
            yield from read_path(file)


def read_path(path: str | Path) -> Iterator[Hand | HistoryParseError]:
    """Hands of one file; ``Hand.file`` and ``HistoryParseError.file`` are ``str(path)``."""
    with open(real_name(str(path)), "rb") as stream:
        yield from read_stream(stream, str(path))


def read_stream(stream: IO[bytes], file: str) -> Iterator[Hand | HistoryParseError]:
    """Hands of a binary stream, read in blocks (constant memory but for the longest line)."""
    # Decoding with surrogateescape turns each byte that is not UTF-8 into one lone surrogate
    # character, so a bad byte costs only the hand it stands in (see _bad_bytes), and the
    # buffered text layer decodes far faster than a decode() call per line.
    text = io.TextIOWrapper(stream, encoding="utf-8", errors="surrogateescape", newline="\n")
    try:
        yield from _read_to_the_end(file, text)
    finally:
        # The caller owns the stream; a reading abandoned after the caller closed it (a
        # runner that stopped) has nothing left to hand back.
        if not stream.closed:
            text.detach()


def read_text(
    text: str, file: str = "<text>", first_line: int = 1
) -> Iterator[Hand | HistoryParseError]:
    """Hands of a string (lines end at ``\\n``; a leading byte-order mark is ignored).
    ``first_line`` is the number of its first line in its file (an engine reads a piece of
    a file: an entry, from its header on)."""
    yield from _read_to_the_end(file, io.StringIO(text, newline="\n"), first_line)


#: What a rejection on a last line without its line end says first: a history exported while
#: the site still writes it is cut mid-line, and the real fault is that, not the card or word
#: the cut happened to split.
CUT_MID_LINE = "the file ends in the middle of a line; is it still being written?"


class _Tail:
    """A text stream that remembers how many line ends it gave and its last character."""

    def __init__(self, text: IO[str]) -> None:
        self._read = text.read
        self.line_ends = 0
        self.last = "\n"

    def read(self, size: int = -1) -> str:
        block = self._read(size)
        if block:
            self.line_ends += block.count("\n")
            self.last = block[-1]
        return block


def _read_to_the_end(
    file: str, text: IO[str], first_line: int = 1
) -> Iterator[Hand | HistoryParseError]:
    """The reader's items, a rejection on an unfinished last line saying so (CUT_MID_LINE)."""
    tail = _Tail(text)
    for item in _Reader(file).read(tail, first_line):  # type: ignore[arg-type]
        if (
            isinstance(item, HistoryParseError)
            and tail.last != "\n"
            and item.line == first_line + tail.line_ends
            # A file judged not text as a whole (binary, UTF-16, compressed) was not cut:
            # it never had lines to cut.
            and not (item.before_first_hand and item.kind == "encoding")
        ):
            item.message = f"{CUT_MID_LINE} ({item.message})"
            item.args = (item.file, item.line, item.column, item.message, item.text,
                         item.entry_line, item.kind)
        yield item



# -- tables built once from the grammar -------------------------------------------------------

# Every token the grammar's card pattern accepts, mapped through Card.parse once, so that the
# hot path turns a token into a card with one dictionary look-up (a KeyError is a bad card).
_CARD_TOKENS = [
    *(rank + suit for rank in "23456789TJQKAtjqka" for suit in "shdcSHDC"),
    *(j + k + n for j in "Jj" for k in "Kk" for n in "12"),
    "??",
]
_CARDS: Final[dict[str, Card]] = {
    token: Card.parse(token) for token in _CARD_TOKENS if grammar.card.re.fullmatch(token)
}
_card = _CARDS.__getitem__
_getter = operator.itemgetter

_ROWS: Final[dict[str, Row]] = {row.value: row for row in Row}
_EVENTS: Final[dict[str, EventKind]] = {kind.value: kind for kind in EventKind}
_BLANKS = re.compile(r"[ \t]+")
_SURROGATE = re.compile("[\udc80-\udcff]")
#: Whether a line, after its leading blanks, begins a hand (the engines split files with it;
#: they match the pattern on bytes too).
HEADER_PATTERN: str = grammar.OFC_HAND.re.pattern
HEADER_START = grammar.OFC_HAND.re.match
_BLOCK = 1 << 16  # characters read at a time
# First characters that need a closer look: blank, comment, header and indented lines.
_SPECIAL_FIRST = frozenset(["", "\r", "#", "O", " ", "\t"])


def _norm(text: str) -> str:
    """Runs of spaces and tabs as one space (names, the variant)."""
    if "\t" in text or "  " in text:
        return _BLANKS.sub(" ", text)
    return text


def _card_tuple(tokens: list[str]) -> tuple[Card, ...]:
    """The cards of card tokens; a ``KeyError`` for a token that is not a card."""
    # itemgetter looks several keys up in one call and returns the tuple: the cheapest way
    # to turn a list of tokens into cards (it returns a bare item for one key, though).
    return _getter(*tokens)(_CARDS) if len(tokens) > 1 else tuple(map(_card, tokens))


# Card lists of up to two cards as written ("[Ah Kd]", 7 characters), read once: most rows
# of a places line and most discards are such lists, and there are only a few thousand of
# them, so after the first hands nearly every one is known. Bounded, for files that spell
# them in many ways.
_SHORT_LIST = 7
_SHORT_LISTS: Final[dict[str, tuple[Card, ...]]] = {}
_SHORT_LISTS_MAX = 8192


# The card tokens, also as they stand first and last in a card list split with its brackets
# ("[Ah", "Kd]"): a list is split as it is, without the copy of its text inside the brackets.
_BRACKETED: Final[dict[str, Card]] = {
    **_CARDS,
    **{"[" + token: card for token, card in _CARDS.items()},
    **{token + "]": card for token, card in _CARDS.items()},
}


def _cards(text: str) -> tuple[Card, ...]:
    """The cards of a card list the grammar matched: ``[Ah kd ??]``."""
    if len(text) > _SHORT_LIST:
        # The hot path of the deals and the boards. Of a list of two tokens or more, the
        # first holds the '[' and the last the ']' (the grammar's card list holds no other
        # bracket); a blank after '[' or before ']' leaves a bare bracket, which is no key,
        # and so does a token that is not a card: then the list is read as _card_tuple
        # reads it (which raises the KeyError of a token that is not a card).
        tokens = text.split()
        if len(tokens) > 1:
            try:
                cards: tuple[Card, ...] = _getter(*tokens)(_BRACKETED)
                return cards
            except KeyError:
                pass
        return _card_tuple(text[1:-1].split())
    known = _SHORT_LISTS.get(text)
    if known is None:
        known = _card_tuple(text[1:-1].split())
        if len(_SHORT_LISTS) < _SHORT_LISTS_MAX:
            _SHORT_LISTS[text] = known
    return known


def _int(text: str | None) -> int | None:
    return None if text is None else int(text)


# The states of a hand, and the line productions each accepts (docs/FORMAT.md "The lines of a
# hand"; the order of sections and their numbers are checked by _Hand). Plain ints: the hot
# loop compares them on every line.
HEADER, MATCH, TABLE, SEATS, TOPUPS, SECTION, SHOWDOWN, SUMMARY = range(8)
_WHERE = (
    "after the header line",
    "after the match line",
    "after the table line",
    "after the seat lines",
    "after the top-up lines",
    "in a STREET or FANTASYLAND section",
    "in SHOWDOWN",
    "in SUMMARY",
)
_HEADERS = ("street_header", "fantasyland_header", "showdown_header", "summary_header")
_STATE_LINES: Final[tuple[tuple[str, ...], ...]] = (
    ("match_line", "table_line"),
    ("table_line",),
    ("seat_line",),
    ("seat_line", "topup_line", *_HEADERS),
    ("topup_line", *_HEADERS),
    ("event_line", "deal_line", "places_line", *_HEADERS),
    ("mucked_line", "board_line", "summary_header"),
    ("summary_line",),
)
_EXPECTS: Final[tuple[str, ...]] = (
    "a match line 'Match #ID, hand N' or a table line 'Table ...'",
    "a table line \"Table 'NAME' K-max - Seat #S is the button\"",
    "a seat line 'Seat S: NAME (STACK)'",
    "a seat line, a top-up line 'NAME tops up N' or a section header '*** ... ***'",
    "a top-up line 'NAME tops up N' or a section header '*** ... ***'",
    "a deal, places or event line, or a section header '*** ... ***'",
    "a showdown line 'NAME: top [...] middle [...] bottom [...]' or 'NAME: mucked', "
    "or '*** SUMMARY ***'",
    "a summary line 'NAME: royalties R, points P, stack A -> B' (nothing else may follow "
    "SUMMARY in a hand)",
)

_Matcher = Callable[[str], "re.Match[str] | None"]


def _matcher(names: Iterable[str]) -> _Matcher:
    return grammar.line_matcher(tuple(names), single_line=True).fullmatch


_MATCHERS: Final[tuple[_Matcher, ...]] = tuple(_matcher(names) for names in _STATE_LINES)
# The line productions never match the same line (a test checks it), so the order of the
# alternatives changes only the time to a match. Street lines are most of a file: a line
# with '[' can only be a deal or a places line, one without an event or a section header.
_DEAL_FIRST = _matcher(("deal_line", "places_line"))
_PLACES_FIRST = _matcher(("places_line", "deal_line"))
_NO_BRACKET = _matcher(("event_line", *_HEADERS))
_HEADERS_FIRST = _matcher((*_HEADERS, "event_line"))
_BOARD = _matcher(("board_line",))
_HEADER_PATTERN = grammar.line_matcher(("header_line",), single_line=True)
_HEADER_LINE = _HEADER_PATTERN.fullmatch
# Sections in one match each (grammar.section_regex), read by _Hand.read_section: the table
# line and the seat lines, a STREET or FANTASYLAND section (its header, then a deal and a
# places line per player), SHOWDOWN (boards) and SUMMARY. More players than this, an event
# or a mucked line, a comment or a line the pattern does not take: the line patterns read on
# from there.
_PLAYERS_PER_SECTION = 4
_SECTION_KINDS: Final = (
    ("streets", ("street_header", "fantasyland_header"), ("deal_line", "places_line")),
    ("showdown", ("showdown_header",), ("board_line",)),
    ("summary", ("summary_header",), ("summary_line",)),
    ("seats", ("table_line",), ("seat_line",)),
)
# A street's run is a player's deal and places lines: the places line's name is read as
# the deal line's (a run where another player places ends there; the line patterns read on).
_ONE_PLAYER: Final = frozenset(["streets"])
# Groups the reader does not read (Match.groups() would copy their text): a places line's
# rows, read from the groups of each row.
_UNCAPTURED: Final = {"streets": ("places_line{}__rows",)}
# One pattern per kind (the kind an empty group at its end, for Match.lastgroup): the reader
# picks the one a line can start (one pattern of all kinds cost a few thousand
# instructions more per match, for the kinds tried before the one that matches).
_SECTIONS: Final[dict[str, re.Pattern[str]]] = {
    kind: re.compile(
        grammar.section_regex(
            headers, lines, _PLAYERS_PER_SECTION, kind in _ONE_PLAYER, _UNCAPTURED.get(kind, ())
        )
        + f"(?P<{kind}>)"
    )
    for kind, headers, lines in _SECTION_KINDS
}
_SectionAt = Callable[[str, int], "re.Match[str] | None"]
# By the sixth character of a header line as the format writes it ("*** STREET 1 ***"); a
# header written otherwise is read by the line patterns.
_SECTION_AT: Final[dict[str, _SectionAt]] = {
    "T": _SECTIONS["streets"].match,
    "A": _SECTIONS["streets"].match,
    "H": _SECTIONS["showdown"].match,
    "U": _SECTIONS["summary"].match,
}
_SEATS_AT: Final[_SectionAt] = _SECTIONS["seats"].match


def _runs(kind: str, fields: tuple[str, ...]) -> tuple[int, int, tuple[int, ...]]:
    """Where the groups ``fields`` (formats of a run's group names) of a section pattern
    stand in ``Match.groups()``: the first run's first field, the distance between runs,
    and each field's offset from a run's first field."""
    index = {name: number - 1 for name, number in _SECTIONS[kind].groupindex.items()}
    first = [index[fields[0].format(run)] for run in range(_PLAYERS_PER_SECTION)]
    stride = first[1] - first[0]
    offsets = tuple(index[field.format(0)] - first[0] for field in fields)
    for run, base in enumerate(first):  # every run has the same layout
        assert base == first[0] + run * stride
        assert tuple(index[field.format(run)] - base for field in fields) == offsets
    return first[0], stride, offsets


_STREET_NUMBER = _SECTIONS["streets"].groupindex["street_header__street"] - 1
_PAIRS, _PAIR_STRIDE, (_, _DEALT, _TOP, _MIDDLE, _BOTTOM, _DISCARDS) = _runs(
    "streets",
    ("deal_line{}__player", "deal_line{}__cards", "places_line{}__top",
     "places_line{}__middle", "places_line{}__bottom", "places_line{}__discards")
)  # fmt: skip
_BOARDS, _BOARD_STRIDE, (_, _BOARD_TOP, _BOARD_MIDDLE, _BOARD_BOTTOM) = _runs(
    "showdown",
    ("board_line{}__player", "board_line{}__top", "board_line{}__middle", "board_line{}__bottom")
)
_ENTRIES, _ENTRY_STRIDE, _ENTRY_FIELDS = _runs(
    "summary",
    ("summary_line{}__player", "summary_line{}__fouled", "summary_line{}__royalties",
     "summary_line{}__points", "summary_line{}__stack_before", "summary_line{}__stack_after",
     "summary_line{}__fantasyland_next")
)  # fmt: skip
assert _ENTRY_FIELDS == tuple(range(7))  # a summary line's groups follow each other
_PAIRS_END = _PAIRS + _PAIR_STRIDE * _PLAYERS_PER_SECTION
_BOARDS_END = _BOARDS + _BOARD_STRIDE * _PLAYERS_PER_SECTION
_ENTRIES_END = _ENTRIES + _ENTRY_STRIDE * _PLAYERS_PER_SECTION
_SEATS, _SEAT_STRIDE, _SEAT_FIELDS = _runs(
    "seats",
    ("seat_line{}__seat", "seat_line{}__player", "seat_line{}__stack",
     "seat_line{}__in_fantasyland", "seat_line{}__fantasyland_cards")
)  # fmt: skip
assert _SEAT_FIELDS == tuple(range(5))  # a seat line's groups follow each other
_SEATS_END = _SEATS + _SEAT_STRIDE * _PLAYERS_PER_SECTION
_TABLE_INDEX = _SECTIONS["seats"].groupindex
_TABLE = _TABLE_INDEX["table_line__table"] - 1
assert [_TABLE_INDEX[f"table_line__{field}"] - 1 for field in ("max_seats", "button")] == [
    _TABLE + 1,
    _TABLE + 2,
]
# Enum members as module constants: a member looked up on its class goes through the enum
# type's __getattr__ hook, several times the cost of a global.
_ROW_TOP, _ROW_MIDDLE, _ROW_BOTTOM = Row.TOP, Row.MIDDLE, Row.BOTTOM
_STREET, _FANTASYLAND = SectionKind.STREET, SectionKind.FANTASYLAND

_ALTERNATIVES: Final[tuple[pp.ParserElement, ...]] = tuple(
    grammar.alternatives(names, expects)
    for names, expects in zip(_STATE_LINES, _EXPECTS, strict=True)
)
# A line that starts with '***' is meant as a section header: it is explained against the
# headers its state accepts only. Against all its lines, a showdown or summary line (whose
# NAME may hold '*' and blanks) reads further into it and the message asked for a ':'.
_SECTION_NAMES: Final = ("STREET", "FANTASYLAND", "SHOWDOWN", "SUMMARY")
_SECTION_LIKE = re.compile(r"[ \t]*\*\*\*[ \t]*(?P<name>[^ \t]*)")
_SECTIONS_MAY_FOLLOW: Final[dict[int, str]] = {
    state: "a section name after '***' (STREET k, FANTASYLAND, SHOWDOWN or SUMMARY)"
    if state != SHOWDOWN
    else "'SUMMARY' after '***' (only SUMMARY may follow SHOWDOWN)"
    for state in (SEATS, TOPUPS, SECTION, SHOWDOWN)
}
_HEADER_ONLY: Final[dict[int, pp.ParserElement]] = {
    state: grammar.alternatives(
        [name for name in _STATE_LINES[state] if name in _HEADERS],
        "a section header '*** ... ***'",
    )
    for state in _SECTIONS_MAY_FOLLOW
}
_HEADER_ALTERNATIVES = grammar.alternatives(["header_line"], "a hand header")
# Any line but a header, in full (not single-line) form: tells a line in the wrong place
# from a line that is not a line of the format at all.
_ANY_LINE = grammar.line_matcher([n for n in grammar.LINE_PRODUCTIONS if n != "header_line"])


# -- errors -----------------------------------------------------------------------------------


class _Reject(Exception):
    """Rejects the hand being read; caught by the reader, never leaves this module."""

    def __init__(self, column: int, message: str, kind: str = "syntax") -> None:
        super().__init__(message)
        self.column = column
        self.message = message
        self.kind = kind


def _display(line: str) -> str:
    """A line as an error shows it: no line end, bytes that are not UTF-8 as U+FFFD."""
    if line.endswith("\r"):
        line = line[:-1]
    return _SURROGATE.sub("\ufffd", line)


def _bad_bytes(line: str) -> _Reject | None:
    """The first byte of ``line`` that is not UTF-8, if any."""
    match = _SURROGATE.search(line)
    if match is None:
        return None
    byte = ord(match.group()) - 0xDC00
    return _Reject(
        match.start() + 1,
        f"byte 0x{byte:02X} is not UTF-8 (a history is UTF-8 text"
        f"{_legacy_hint(line, match, byte)})",
        "encoding",
    )


def _legacy_hint(line: str, match: re.Match[str], byte: int) -> str:
    """Where a lone byte reads as a letter in Windows-1252 (a name such as 'José' saved by a
    Windows program), say so: every hand with such a name is rejected, and the remedy is
    the same for all. A byte within a run of such bytes (a UTF-8 sequence cut or mangled)
    is not a Windows-1252 letter: no hint."""
    end = match.end()
    if _SURROGATE.match(line, end) or (match.start() and _SURROGATE.match(line, match.start() - 1)):
        return ""
    try:
        letter = bytes([byte]).decode("cp1252")
    except UnicodeDecodeError:
        return ""
    if not letter.isalpha():
        return ""
    start = match.start()
    while start and line[start - 1].isalpha():
        start -= 1
    while end < len(line) and line[end].isalpha():
        end += 1
    word = line[start : match.start()] + letter + line[match.end() : end]
    return f"; in Windows-1252 it is {letter!r}, as in {word!r}: save the file as UTF-8"


_UTF16_BOMS = ("\udcff\udcfe", "\udcfe\udcff")  # FF FE and FE FF, as surrogateescape reads them
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\udc80-\udcff]")
# What a compressed file or an archive starts with (each with bytes no text has, so a
# history's first line is never taken for one), and what to do with it.
_PACKED = (
    (re.compile(rb"\x1f\x8b"), "compressed (gzip): decompress it first (gunzip -k FILE)"),
    (re.compile(rb"BZh[1-9]1AY&SY"), "compressed (bzip2): decompress it first (bunzip2 -k FILE)"),
    (re.compile(rb"\xfd7zXZ\x00"), "compressed (xz): decompress it first (unxz -k FILE)"),
    (re.compile(rb"\x28\xb5\x2f\xfd"), "compressed (zstd): decompress it first (unzstd FILE)"),
    (re.compile(rb"PK(?:\x03\x04|\x05\x06|\x07\x08)"),
     "a zip archive: extract it, then give its files or their folder"),
    (re.compile(rb"7z\xbc\xaf\x27\x1c"),
     "a 7z archive: extract it, then give its files or their folder"),
)


def packed(head: bytes) -> str | None:
    r"""What a file that starts with ``head`` is and what to do, when it is compressed or an
    archive (``"compressed (gzip): decompress it first ..."``); None otherwise. A site's
    export often comes zipped or gzipped: named, such a file says so, not "not text".

    >>> packed(b"\x1f\x8b\x08\x00")
    'compressed (gzip): decompress it first (gunzip -k FILE)'
    >>> packed(b"PK\x03\x04\x14\x00")
    'a zip archive: extract it, then give its files or their folder'
    >>> packed(b"OFC Hand #1: Pineapple") is None
    True
    """
    for magic, what in _PACKED:
        if magic.match(head):
            return what
    return None


def quoted(text: str, limit: int = 60) -> str:
    """``text`` for a message: cut to ``limit`` characters, quoted, bytes that are not
    UTF-8 as U+FFFD and every character that is not printable (controls, direction marks)
    as its escape, so what a file holds cannot garble a terminal."""
    cut = _display(text)
    cut = cut[:limit] + "..." if len(cut) > limit else cut
    return "'" + printable(cut) + "'"


def _not_a_history(line: str) -> tuple[_Reject, str]:
    """Why text before the first hand header (the file's first line of text) is rejected,
    and the line to show with it: a UTF-16 or binary file is said to be one (showing none
    of its bytes); other text is quoted as the file's first line."""
    head = line[:200]
    what = packed(head.encode("utf-8", "surrogateescape"))
    if what is not None:
        return _Reject(1, f"the file is {what}; a history is UTF-8 text", "encoding"), ""
    nuls = head.count("\x00")
    if head.startswith(_UTF16_BOMS) or (nuls and nuls * 3 >= len(head)):
        return _Reject(1, "the file looks like UTF-16 text, not a hand history: a history is "
                       "UTF-8 text (save the file as UTF-8)", "encoding"), ""
    if nuls or len(_CONTROL.findall(head)) * 10 > len(head):
        return _Reject(1, "the file looks binary, not like a hand history (a history is "
                       "UTF-8 text)", "encoding"), ""
    return _Reject(
        _first_column(line),
        "text before the first hand: the file does not start like a hand history; expected "
        f"a hand header 'OFC Hand #ID: ...', its first line is {quoted(line.strip())}",
    ), line


_TOKEN_AT = re.compile(r"[^ \t\r\[\]():,/]+|[\[\]():,/]")
_CARD_TOKEN_AT = re.compile(r"[^ \t\r\[\]]+")
# What an error may follow: the keywords, and the event kinds (one token of the grammar).
_KEYWORDS = sorted(
    {_norm(k) for k in grammar.KEYWORDS} | {kind.value for kind in EventKind},
    key=len,
    reverse=True,
)
_SUMMARY_FIELDS = ("fouled", "royalties", "points", "stack", "Fantasyland")
# After a showdown line's ':' both of its forms fail on the same token, and pyparsing names
# the last one tried: say both.
_BOTH_OF_A_SHOWDOWN_LINE = "'top [...] middle [...] bottom [...]' or 'mucked'"
_SUMMARY_FIELD = "a summary field (fouled, royalties, points, stack, Fantasyland next)"
# What may follow a seated player's name in a STREET or FANTASYLAND section, word by word.
_VERBS: Final = tuple(
    tuple(verb.split(" ")) for verb in ("is dealt", "places", *(kind.value for kind in EventKind))
)
_AFTER_A_NAME = f"'is dealt', 'places' or an event ({grammar.DESCRIPTIONS['event_kind']})"
_WORD = re.compile(r"[^ \t\[]+")


def _first_column(line: str) -> int:
    """The column of a line's first character that is not a blank."""
    return len(line) - len(line.lstrip(" \t")) + 1


def _found(text: str, loc: int) -> str:
    match = _TOKEN_AT.match(text, loc)
    return f"found {match.group()!r}" if match else "found the end of the line"


def _after(before: str) -> str:
    """What stands right before an error: the longest keyword the text ends with, or its
    last token (" after 'is dealt'")."""
    text = _norm(before.rstrip(" \t"))
    if not text:
        return ""
    for keyword in _KEYWORDS:
        if text.endswith(keyword) and (
            len(text) == len(keyword)
            or not (keyword[0].isalnum() and text[-len(keyword) - 1].isalnum())
        ):
            return f" after {keyword!r}"
    tokens = _TOKEN_AT.findall(text)
    return f" after {tokens[-1][-20:]!r}" if tokens else ""


def _card_error(text: str, start: int) -> _Reject | None:
    """The first token of the card list at ``start`` that is not a card, if any."""
    end = text.find("]", start)
    for match in _CARD_TOKEN_AT.finditer(text, start + 1, len(text) if end < 0 else end):
        try:
            Card.parse(match.group())
        except CardError as error:
            return _Reject(match.start() + 1, str(error))
    return None


def _explain_parse_error(text: str, error: pp.ParseBaseException) -> _Reject:
    """Turn pyparsing's error into a message that says what was expected, after what."""
    loc = error.loc
    before = text[:loc]
    opened = before.rfind("[")
    if opened > before.rfind("]"):
        # Inside a card list: say what is wrong with the token at the error.
        match = _CARD_TOKEN_AT.match(text, loc)
        if match:
            return _card_error(text, loc - 1) or _Reject(
                loc + 1, f"{match.group()!r} must be separated from the next card by a blank"
            )
        return _Reject(
            loc + 1,
            f"expected a card or ']' to close the card list opened at column {opened + 1}, "
            + _found(text, loc),
        )
    name = error.msg[len("Expected ") :] if error.msg.startswith("Expected ") else error.msg
    found = _found(text, loc)
    if name == "line_end" and found[7:-1] in _SUMMARY_FIELDS and ":" in before:
        return _Reject(
            loc + 1,
            f"summary field {found[6:]} is out of order or repeated: the fields go fouled, "
            "royalties, points, stack, Fantasyland next, each at most once",
        )
    if name == "line_end" and found == "found 'discards'":
        return _Reject(
            loc + 1, f"expected ', discards [...]' (with its comma){_after(before)}, {found}"
        )
    if (
        name == "line_end"
        and before.rstrip(" \t").endswith("]")
        and " places " in before
        and "discards" not in before
    ):
        # Rows may follow each other in any order, then the discards.
        return _Reject(
            loc + 1,
            f"expected a row (top, middle or bottom), ', discards [...]' or end of line after "
            f"']', {found}",
        )
    if name == "line_end" and before.rstrip(" \t").endswith(":"):
        # Only a summary line may end right after its ':' (every field is optional).
        return _Reject(loc + 1, f"expected {_SUMMARY_FIELD} or end of line after ':', {found}")
    if name == "line_end" and before.rstrip(" \t").endswith(","):
        # A summary field's comma, followed by a word that is no field.
        return _Reject(loc + 1, f"expected {_SUMMARY_FIELD} after ',', {found}")
    if name == "field_end" and found == "found ','":
        # The comma is there; what should follow it is not (the error stays at the comma).
        after = len(text) - len(text[loc + 1 :].lstrip(" \t"))
        return _Reject(
            loc + 1, f"a ',' with no field after it: expected {_SUMMARY_FIELD}, "
            f"{_found(text, after)}"
        )
    expected = _BOTH_OF_A_SHOWDOWN_LINE if name == "'mucked'" else grammar.DESCRIPTIONS.get(
        name, name
    )
    return _Reject(loc + 1, f"expected {expected}{_after(before)}, {found}")


def _explain(line: str, state: int, names: Iterable[str] = ()) -> _Reject:
    """Why ``line`` is not accepted in ``state`` (only called for a line that is not);
    ``names``: the hand's seats, to tell a mistyped verb after a seated player's name."""
    other = _ANY_LINE.fullmatch(line)
    if other is not None and other.lastgroup is not None:
        what = grammar.DESCRIPTIONS[other.lastgroup]
        return _Reject(
            _first_column(line), f"{what} cannot stand {_WHERE[state]}; expected {_EXPECTS[state]}"
        )
    section = _SECTION_LIKE.match(line)
    if section is not None and (
        line.rstrip().endswith("*") or section.group("name").upper() in _SECTION_NAMES
    ):
        return _explain_section(line, state, section)
    reject = _explain_by_grammar(line, _ALTERNATIVES[state])
    if state == SECTION and reject.column == _first_column(line):
        return _explain_after_name(line, names) or reject
    return reject


def _explain_after_name(line: str, names: Iterable[str]) -> _Reject | None:
    """A line of a STREET or FANTASYLAND section that begins with a seated player's name and
    goes on with no verb of the format: the first word that is not the verb's (the grammar
    alone cannot say where a NAME ends, since it may hold blanks)."""
    for name in sorted(names, key=len, reverse=True):
        start = re.match(
            r"[ \t]*" + r"[ \t]+".join(map(re.escape, name.split(" "))) + r"(?=[ \t])", line
        )
        if start is None:
            continue
        words = list(_WORD.finditer(line, start.end()))
        said = [word.group() for word in words]
        # No two verbs share a first word: the longest match is the only one.
        k, verb = max((_common_words(verb, said), verb) for verb in _VERBS)
        if k == len(verb):
            return None  # the verb is whole: what is wrong is after it
        found = f"found {said[k]!r}" if k < len(said) else "found the end of the line"
        column = words[k].start() + 1 if k < len(words) else len(line.rstrip()) + 1
        if k == 0:
            return _Reject(column, f"expected {_AFTER_A_NAME} after {name!r}, {found}")
        return _Reject(column, f"expected {verb[k]!r} after {verb[k - 1]!r}, {found}")
    return None


def _common_words(verb: tuple[str, ...], said: list[str]) -> int:
    k = 0
    while k < len(verb) and k < len(said) and said[k] == verb[k]:
        k += 1
    return k


def _explain_section(line: str, state: int, section: re.Match[str]) -> _Reject:
    """Why a line meant as a section header (it opens with '***' and closes with '*' or
    names a section; a NAME may begin with '*', but no line of a player ends with one) is
    not a header its state accepts."""
    if state not in _SECTIONS_MAY_FOLLOW:
        return _Reject(
            _first_column(line),
            f"a section header cannot stand {_WHERE[state]}; expected {_EXPECTS[state]}",
        )
    name = section.group("name")
    if name in _SECTION_NAMES:
        return _explain_by_grammar(line, _HEADER_ONLY[state])
    found = f"found {name!r}" if name else "found the end of the line"
    if name.upper() in _SECTION_NAMES:
        found += " (section names are upper case)"
    return _Reject(
        section.start("name") + 1, f"expected {_SECTIONS_MAY_FOLLOW[state]}, {found}"
    )


def _explain_by_grammar(line: str, element: pp.ParserElement) -> _Reject:
    try:
        element.parse_string(line, parse_all=True)
    except pp.ParseBaseException as error:
        return _explain_parse_error(line, error)
    # The compiled matcher and pyparsing accept the same language (tests check it); should
    # they ever disagree, the hand is still rejected rather than read wrongly.
    return _Reject(1, "internal error: the grammar accepts this line but the reader does not")


# -- one hand ---------------------------------------------------------------------------------


class _Hand:
    """The records of the hand being read, and where in the hand the reader stands."""

    def __init__(self, file: str, header: Header) -> None:
        self.file = file
        self.header = header
        self.match: MatchInfo | None = None
        self.table: TableInfo | None = None
        self.seats: list[Seat] = []
        self.names: dict[str, Seat] = {}
        self.topups: list[TopUp] = []
        self.sections: list[Section] = []
        self.section: tuple[SectionKind, int | None, int] | None = None
        self.actions: list[Action] = []
        self.street = 0
        self.fantasyland_seen = False
        self.showdown: int | None = None  # the SHOWDOWN line
        self.boards: list[ShowdownBoard] = []
        self.summary: int | None = None  # the SUMMARY line
        self.entries: list[SummaryEntry] = []

    def finish(self) -> Hand:
        self._close_section()
        assert self.table is not None
        return Hand(
            self.file,
            self.header,
            self.match,
            self.table,
            tuple(self.seats),
            tuple(self.topups),
            tuple(self.sections),
            None if self.showdown is None else Showdown(tuple(self.boards), self.showdown),
            None if self.summary is None else Summary(tuple(self.entries), self.summary),
        )

    def player(self, match: re.Match[str], group: str) -> str:
        """The name in ``group``, normalised; it must be one of the hand's seats."""
        name = _norm(match[group])
        if name not in self.names:
            seated = ", ".join(repr(seat) for seat in self.names)
            raise _Reject(
                match.start(group) + 1,
                f"{name!r} is not seated in this hand (seats: {seated})",
                "context",
            )
        return name

    def read_section(self, match: re.Match[str], lineno: int, state: int) -> tuple[int, int]:
        """Read a section one of :data:`_SECTIONS` matched at line ``lineno`` in ``state``: its
        header and the lines the match holds. Return the number of lines read and the state
        after them, or 0 lines when the line patterns must read the section instead (it
        stands where it may not, is out of order, names a player not seated or holds a
        token that is not a card: the line patterns then say why, on the right line)."""
        g = match.groups()
        # The proof that each line was read once: a section pattern's line ends each hold
        # one \n, so the \n of the match are the lines read (a match starts at a line).
        count = match.string.count
        names = self.names
        cards = _cards
        # The rows and discards of places lines are short card lists, nearly always known
        # (see _SHORT_LISTS): looked up here, the call of _cards is saved (an unknown list,
        # or an empty one, goes to _cards).
        known = _SHORT_LISTS.get
        line = lineno
        kind = match.lastgroup
        try:
            if kind == "seats":
                return self._read_seats(match, g, lineno)
            if kind == "streets":
                if state == SHOWDOWN:
                    return 0, state
                number_text = g[_STREET_NUMBER]
                if number_text is not None:
                    number: int | None = int(number_text)
                    if number != self.street + 1:
                        return 0, state
                elif self.fantasyland_seen:
                    return 0, state
                else:
                    number = None
                actions: list[Action] = []
                for base in range(_PAIRS, _PAIRS_END, _PAIR_STRIDE):
                    name = g[base]
                    if name is None:
                        break
                    if name not in names:
                        return 0, state
                    actions.append(Deal(name, cards(g[base + _DEALT]), line + 1))
                    rows: list[tuple[Row, tuple[Card, ...]]] = []
                    if (top := g[base + _TOP]) is not None:
                        rows.append((_ROW_TOP, known(top) or cards(top)))
                    if (middle := g[base + _MIDDLE]) is not None:
                        rows.append((_ROW_MIDDLE, known(middle) or cards(middle)))
                    if (bottom := g[base + _BOTTOM]) is not None:
                        rows.append((_ROW_BOTTOM, known(bottom) or cards(bottom)))
                    discards = g[base + _DISCARDS]
                    line += 2
                    actions.append(
                        Placement(
                            name,  # the deal line's player (see _ONE_PLAYER)
                            tuple(rows),
                            None if discards is None else known(discards) or cards(discards),
                            line,
                        )
                    )
                if count("\n", match.start(), match.end()) != line - lineno + 1:
                    return 0, state
                if number is None:
                    self.fantasyland_seen = True
                    self.open_section(_FANTASYLAND, None, lineno)
                else:
                    self.street = number
                    self.open_section(_STREET, number, lineno)
                self.actions = actions
                return line - lineno + 1, SECTION
            if kind == "showdown":
                if state == SHOWDOWN:
                    return 0, state
                boards: list[ShowdownBoard] = []
                for base in range(_BOARDS, _BOARDS_END, _BOARD_STRIDE):
                    name = g[base]
                    if name is None:
                        break
                    if name not in names:
                        return 0, state
                    line += 1
                    boards.append(
                        ShowdownBoard(
                            name,
                            cards(g[base + _BOARD_TOP]),
                            cards(g[base + _BOARD_MIDDLE]),
                            cards(g[base + _BOARD_BOTTOM]),
                            line,
                        )
                    )
                if count("\n", match.start(), match.end()) != line - lineno + 1:
                    return 0, state
                self._close_section()
                self.showdown = lineno
                self.boards = boards
                return line - lineno + 1, SHOWDOWN
        except KeyError:
            return 0, state
        entries: list[SummaryEntry] = []
        for base in range(_ENTRIES, _ENTRIES_END, _ENTRY_STRIDE):
            name, fouled, royalties, points, before, after, fantasyland = g[base : base + 7]
            if name is None:
                break
            if name not in names:
                return 0, state
            line += 1
            entries.append(
                SummaryEntry(
                    name,
                    fouled is not None,
                    None if royalties is None else int(royalties),
                    None if points is None else int(points),
                    None if before is None else int(before),
                    None if after is None else int(after),
                    None if fantasyland is None else int(fantasyland),
                    line,
                )
            )
        if count("\n", match.start(), match.end()) != line - lineno + 1:
            return 0, state
        self._close_section()
        self.summary = lineno
        self.entries = entries
        return line - lineno + 1, SUMMARY

    def _read_seats(
        self, match: re.Match[str], g: tuple[str | None, ...], lineno: int
    ) -> tuple[int, int]:
        """The table line and the seat lines after it (see read_section; the state before
        is HEADER or MATCH)."""
        table, max_seats, button = g[_TABLE : _TABLE + 3]
        assert table is not None and max_seats is not None and button is not None
        count = match.string.count  # for the proof (see read_section)
        seats: list[Seat] = []
        numbers: set[int] = set()
        names: dict[str, Seat] = {}
        line = lineno
        for base in range(_SEATS, _SEATS_END, _SEAT_STRIDE):
            number_text, name, stack, in_fantasyland, fantasyland_cards = g[base : base + 5]
            if number_text is None:
                break
            assert name is not None and stack is not None
            number = int(number_text)
            name = _norm(name)
            if number in numbers or name in names:
                return 0, HEADER  # the line patterns say which seat is listed twice
            line += 1
            seat = Seat(
                number,
                name,
                int(stack),
                in_fantasyland is not None,
                None if fantasyland_cards is None else int(fantasyland_cards),
                line,
            )
            seats.append(seat)
            numbers.add(number)
            names[name] = seat
        if count("\n", match.start(), match.end()) != line - lineno + 1:
            return 0, HEADER
        self.table = TableInfo(
            _norm(table[1:-1].strip(" \t")), int(max_seats[:-4]), int(button[1:]), lineno
        )
        self.seats = seats
        self.names.update(names)  # the reader's loop holds this dict
        return line - lineno + 1, SEATS if seats else TABLE

    def open_section(self, kind: SectionKind, number: int | None, lineno: int) -> None:
        """Close the section being read, if any, and open a new one at line ``lineno``."""
        self._close_section()
        self.section = (kind, number, lineno)

    def _close_section(self) -> None:
        if self.section is not None:
            kind, number, line = self.section
            self.sections.append(Section(kind, number, tuple(self.actions), line))
            self.section = None
            self.actions = []

    def line(self, kind: str, match: re.Match[str], lineno: int) -> int:
        """Read a line of production ``kind``; return the state after it."""
        g = match.group
        if kind == "seat_line":
            number = int(g("seat_line__seat"))
            name = _norm(g("seat_line__player"))
            for seat in self.seats:
                if seat.seat == number:
                    raise _Reject(
                        match.start("seat_line__seat") + 1,
                        f"seat {number} is listed twice (first on line {seat.line})",
                        "context",
                    )
            if name in self.names:
                raise _Reject(
                    match.start("seat_line__player") + 1,
                    f"{name!r} is listed twice (first on line {self.names[name].line})",
                    "context",
                )
            seat = Seat(
                number,
                name,
                int(g("seat_line__stack")),
                g("seat_line__in_fantasyland") is not None,
                _int(g("seat_line__fantasyland_cards")),
                lineno,
            )
            self.seats.append(seat)
            self.names[name] = seat
            return SEATS
        if kind == "street_header":
            number = int(g("street_header__street"))
            if number != self.street + 1:
                raise _Reject(
                    match.start("street_header__street") + 1,
                    f"streets out of order: expected STREET {self.street + 1}, "
                    f"found STREET {number}",
                    "context",
                )
            self.street = number
            self.open_section(SectionKind.STREET, number, lineno)
            return SECTION
        if kind == "event_line":
            self.actions.append(
                Event(
                    self.player(match, "event_line__player"),
                    _EVENTS[_norm(g("event_line__event"))],
                    lineno,
                )
            )
            return SECTION
        if kind == "board_line":
            self.boards.append(
                ShowdownBoard(
                    self.player(match, "board_line__player"),
                    _cards(g("board_line__top")),
                    _cards(g("board_line__middle")),
                    _cards(g("board_line__bottom")),
                    lineno,
                )
            )
            return SHOWDOWN
        if kind == "summary_line":
            self.entries.append(
                SummaryEntry(
                    self.player(match, "summary_line__player"),
                    g("summary_line__fouled") is not None,
                    _int(g("summary_line__royalties")),
                    _int(g("summary_line__points")),
                    _int(g("summary_line__stack_before")),
                    _int(g("summary_line__stack_after")),
                    _int(g("summary_line__fantasyland_next")),
                    lineno,
                )
            )
            return SUMMARY
        if kind == "fantasyland_header":
            if self.fantasyland_seen:
                raise _Reject(
                    _first_column(match.string),
                    "a second FANTASYLAND section (a hand has at most one)",
                )
            self.fantasyland_seen = True
            self.open_section(SectionKind.FANTASYLAND, None, lineno)
            return SECTION
        if kind == "showdown_header":
            self._close_section()
            self.showdown = lineno
            return SHOWDOWN
        if kind == "summary_header":
            self._close_section()
            self.summary = lineno
            return SUMMARY
        if kind == "mucked_line":
            self.boards.append(
                ShowdownBoard(self.player(match, "mucked_line__player"), None, None, None, lineno)
            )
            return SHOWDOWN
        if kind == "topup_line":
            self.topups.append(
                TopUp(
                    self.player(match, "topup_line__player"), int(g("topup_line__amount")), lineno
                )
            )
            return TOPUPS
        if kind == "match_line":
            self.match = MatchInfo(
                g("match_line__match_id")[1:], int(g("match_line__hand_number")), lineno
            )
            return MATCH
        if kind == "table_line":
            self.table = TableInfo(
                _table_name(match),
                int(g("table_line__max_seats")[:-4]),
                int(g("table_line__button")[1:]),
                lineno,
            )
            return TABLE
        # deal and places lines are read by the reader's loop itself (they are most lines).
        raise AssertionError(f"unexpected line production {kind}")  # pragma: no cover


# The header's fields, in Match.groups() order.
_HEADER_FIELDS = operator.itemgetter(
    *(
        _HEADER_PATTERN.groupindex[f"header_line__{field}"] - 1
        for field in (
            "hand_id", "variant", "fantasyland", "stake_amount", "currency", "date", "time", "zone"
        )
    )
)  # fmt: skip
_FANTASYLAND_TYPES: Final = {kind.value: kind for kind in FantasylandType}
# A file has a few stakes: each read once (a Decimal costs more than the rest of the header).
_STAKES: Final[dict[tuple[str, str], Stake]] = {}
_STAKES_MAX = 256


def _header(line: str, lineno: int) -> Header:
    match = _HEADER_LINE(line)
    if match is None:
        raise _bad_bytes(line) or _explain_by_grammar(line, _HEADER_ALTERNATIVES)
    hand_id, variant, fantasyland, amount, currency, date, time, zone = _HEADER_FIELDS(
        match.groups()
    )
    stake = _STAKES.get((amount, currency))
    if stake is None:
        stake = Stake(Decimal(amount), currency, amount)
        if len(_STAKES) < _STAKES_MAX:
            _STAKES[amount, currency] = stake
    return Header(
        hand_id[1:],
        Variant.from_title(_norm(variant)),
        _FANTASYLAND_TYPES[fantasyland] if fantasyland else FantasylandType.NONE,
        stake,
        f"{date} {time} {zone}",
        lineno,
    )


def _duplicate_row(match: re.Match[str], row: Row) -> _Reject:
    start = match.start("places_line__rows")
    hits = [m.start() for m in re.finditer(rf"{row.value}[ \t]*\[", match["places_line__rows"])]
    return _Reject(
        start + hits[1] + 1, f"row {row.value!r} appears twice in one places line", "context"
    )


def _table_name(match: re.Match[str]) -> str:
    """The table's name on a table line the grammar matched, as a hand's table is named."""
    return _norm(match["table_line__table"][1:-1].strip(" \t"))


# -- the reader -------------------------------------------------------------------------------


def _blocks(text: IO[str]) -> Iterator[tuple[str, list[str], bool]]:
    """``text`` a block of whole lines at a time: the block's text, its lines (without
    ``\\n``), and whether the block is ASCII (then no line holds a byte that is not UTF-8).
    The block's text ends with its last line's ``\\n`` (but for a last line without one)."""
    read = text.read
    rest = ""
    first = True
    while True:
        block = read(_BLOCK)
        if not block:
            break
        if first and block.startswith("\ufeff"):
            block = block[1:]  # the byte-order mark
        first = False
        # The first line continues the last block's unfinished line: count it in.
        whole = rest + block
        cut = whole.rfind("\n") + 1
        rest = whole[cut:]
        if cut:
            chunk = whole[:cut]
            lines = chunk.split("\n")
            lines.pop()  # the empty text after the last \n
            yield chunk, lines, chunk.isascii()
    if rest:
        yield rest, [rest], rest.isascii()


class _Reader:
    """Reads one file: a state machine over its lines (see docs/FORMAT.md, The lines of a hand)."""

    def __init__(self, file: str) -> None:
        self.file = file

    def _error(self, lineno: int, line: str, reject: _Reject, entry: int,
               hand: _Hand | None = None) -> HistoryParseError:
        error = HistoryParseError(
            self.file, lineno, reject.column, reject.message, _display(line), entry, reject.kind
        )
        if hand is not None and hand.table is not None:
            error.table = hand.table.name
        return error

    def read(self, text: IO[str], first_line: int = 1) -> Iterator[Hand | HistoryParseError]:
        file = self.file
        header_start = HEADER_START
        deal_first, places_first, no_bracket, headers_first, board = (
            _DEAL_FIRST,
            _PLACES_FIRST,
            _NO_BRACKET,
            _HEADERS_FIRST,
            _BOARD,
        )
        cards, card_tuple = _cards, _card_tuple
        rows_by_name = _ROWS
        matchers = _MATCHERS
        hand: _Hand | None = None  # the hand being read; None when there is none to read
        # A rejection before its hand's table line was read waits for the lines after it:
        # the table line, if it can be read, names the table whose chain it breaks.
        pending: HistoryParseError | None = None
        probe = 0  # lines of a waiting rejection still to look at for its table line
        entry = 0  # first line of the current entry (a hand, or the text before the first)
        preamble = True  # before the first header
        state = HEADER
        names: dict[str, Seat] = {}
        actions: list[Action] = []
        last_line, last_text = 0, ""
        lineno = first_line - 1
        section_at: _SectionAt | None
        for chunk, lines, ascii_block in _blocks(text):
            pos = 0  # where the next line starts in chunk
            it = iter(lines)
            for line in it:
                lineno += 1
                start = pos
                pos += len(line) + 1
                # Blank lines, comments, headers and indented lines first: a cheap test of
                # the first character keeps this off the path of ordinary lines.
                first = line[:1]
                if first in _SPECIAL_FIRST:
                    stripped = line.lstrip(" \t")
                    first = stripped[:1]
                    if first == "" or first == "#" or stripped == "\r":
                        if (
                            first == "#"
                            and hand is not None
                            and not ascii_block
                            and (bad := _bad_bytes(line))
                        ):
                            error = self._error(lineno, line, bad, entry, hand)
                            if error.table is None:
                                pending, probe = error, 2
                            else:
                                yield error
                            hand = None
                        continue
                    if first == "O" and header_start(stripped):
                        if pending is not None:
                            yield pending
                            pending = None
                        if hand is not None:
                            yield self._finish(hand, state, last_line, last_text)
                        preamble = False
                        entry = last_line = lineno
                        last_text = line
                        try:
                            hand = _Hand(file, _header(line, lineno))
                        except _Reject as reject:
                            hand = None
                            pending, probe = self._error(lineno, line, reject, entry), 2
                            continue
                        state = HEADER
                        names = hand.names
                        actions = hand.actions
                        continue
                if hand is None:
                    if preamble:
                        preamble = False
                        entry = lineno
                        why, shown = _not_a_history(line)
                        error = self._error(lineno, shown, why, entry)
                        error.before_first_hand = True
                        yield error
                    elif pending is not None:
                        # A match line may stand before the table line.
                        probe -= 1
                        found = matchers[HEADER](line)
                        kind = found.lastgroup if found is not None else None
                        if kind == "match_line" and probe:
                            continue
                        if kind == "table_line" and not _SURROGATE.search(line):
                            assert found is not None
                            pending.table = _table_name(found)
                        yield pending
                        pending = None
                    continue  # the rest of a rejected entry
                last_line, last_text = lineno, line
                if first == "*" and SEATS <= state <= SHOWDOWN:
                    section_at = _SECTION_AT.get(line[5:6])
                elif first == "T" and state <= MATCH:
                    section_at = _SEATS_AT
                else:
                    section_at = None
                if (
                    section_at is not None
                    and (section := section_at(chunk, start)) is not None
                    and (ascii_block or not _SURROGATE.search(chunk, start, section.end()))
                    and (read_state := hand.read_section(section, lineno, state))[0]
                ):
                    # The section's lines after its header, read: step over them.
                    read, state = read_state
                    next(islice(it, read - 1, read - 1), None)
                    lineno += read - 1
                    pos = section.end()
                    last_line = lineno
                    last_text = chunk[chunk.rfind("\n", 0, pos - 1) + 1 : pos - 1]
                    actions = hand.actions
                    continue
                try:
                    if not ascii_block and (bad := _bad_bytes(line)):
                        raise bad
                    if state == SECTION:
                        if "[" in line:
                            match = (deal_first if "dealt" in line else places_first)(line)
                        elif first == "*":
                            match = headers_first(line)
                        else:
                            match = no_bracket(line)
                    elif state == SHOWDOWN and "[" in line:
                        match = board(line)
                    else:
                        match = matchers[state](line)
                    if match is None:
                        raise _explain(line, state, names)
                    kind = match.lastgroup
                    try:
                        if kind == "deal_line":
                            name = match["deal_line__player"]
                            if name not in names:
                                name = hand.player(match, "deal_line__player")
                            actions.append(Deal(name, cards(match["deal_line__cards"]), lineno))
                        elif kind == "places_line":
                            name = match["places_line__player"]
                            if name not in names:
                                name = hand.player(match, "places_line__player")
                            rows: list[tuple[Row, tuple[Card, ...]]] = []
                            # The grammar matched "top [..] middle [..]": each ']' ends a row.
                            for part in match["places_line__rows"].split("]")[:-1]:
                                row_name, _, tokens = part.partition("[")
                                row = rows_by_name[row_name.strip(" \t")]
                                for seen, _seen_cards in rows:
                                    if seen is row:
                                        raise _duplicate_row(match, row)
                                rows.append((row, card_tuple(tokens.split())))
                            discards = match["places_line__discards"]
                            actions.append(
                                Placement(
                                    name,
                                    tuple(rows),
                                    None if discards is None else cards(discards),
                                    lineno,
                                )
                            )
                        else:
                            assert kind is not None
                            state = hand.line(kind, match, lineno)
                            actions = hand.actions
                    except KeyError:
                        # A token of a card list is not a card (the single-line form of a
                        # card list leaves that to the look-up): say which, and where.
                        raise _explain(line, state, names) from None
                except _Reject as reject:
                    error = self._error(lineno, line, reject, entry, hand)
                    if error.table is None:
                        pending, probe = error, 2
                    else:
                        yield error
                    hand = None
        if pending is not None:
            yield pending
        if hand is not None:
            yield self._finish(hand, state, last_line, last_text)

    def _finish(
        self, hand: _Hand, state: int, last_line: int, last_text: str
    ) -> Hand | HistoryParseError:
        """The hand read, or why it is incomplete."""
        if state in (HEADER, MATCH, TABLE):
            missing = "a seat line" if state == TABLE else "a table line"
            reject = _Reject(
                len(_display(last_text)) + 1,
                f"the hand ends here without {missing}: expected {_EXPECTS[state]}",
            )
            return self._error(last_line, last_text, reject, hand.header.line, hand)
        return hand.finish()
