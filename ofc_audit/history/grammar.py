"""The grammar of the OFC hand-history text format v1 (docs/FORMAT.md), in pyparsing.

This module is the single definition of the format. Every token is a named ``pp.Regex`` (or a
named literal), every production is a named pyparsing element, and ``grammars/ofc-hh-v1.ebnf``
lists the same production names (a test compares them). The railroad diagram in
``grammars/ofc-hh-v1.html`` is drawn from these elements::

    python -m ofc_audit.history.grammar --diagram grammars/ofc-hh-v1.html

The format is line-oriented, so the grammar is built from line productions (``deal_line``,
``seat_line``, ...), each ending in ``line_end``. A full pyparsing parse costs milliseconds a
hand, far too slow for large files, so :func:`line_matcher` translates line productions into
one compiled Python regular expression with the same meaning: tokens are written with
possessive quantifiers (the names, which must backtrack, go in atomic groups), and
``Opt``/``ZeroOrMore``/``OneOrMore``/``MatchFirst`` become possessive or atomic constructs,
which is exactly pyparsing's "match greedily, never backtrack into what matched" behaviour.
The reader runs those patterns on its hot path (with the :data:`SINGLE_LINE_FORMS` of two
elements) and falls back to pyparsing itself only to explain a line that does not match:
pyparsing then names what was expected, and where. Tests check on mutated lines that the
compiled patterns and pyparsing accept the same lines.

What a context-free grammar cannot say (street numbers in sequence, names among the seats, no
seat or row listed twice) is checked by the reader; :data:`CONTEXT_RULES` lists those rules,
and the EBNF file states them in comments.
"""

from __future__ import annotations

import argparse
import re
import string
import sys
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import pyparsing as pp

# The format is line-oriented: only spaces and tabs separate tokens, a newline never does.
# The default is global state of pyparsing, so it is restored once the grammar is built, to
# leave other users of pyparsing in the process unaffected (elements keep the white space
# characters they were created with).
_SAVED_WHITESPACE = pp.ParserElement.DEFAULT_WHITE_CHARS
pp.ParserElement.set_default_whitespace_chars(" \t")

# -- registry ---------------------------------------------------------------------------------

#: Every named element of the grammar, by name. Names that are identifiers are productions of
#: the EBNF; names in single quotes are terminals (keywords and punctuation).
ELEMENTS: dict[str, pp.ParserElement] = {}

#: What each named element is, in words, for error messages ("expected a card list ...").
DESCRIPTIONS: dict[str, str] = {}


_E = TypeVar("_E", bound=pp.ParserElement)


def _named(name: str, element: _E, description: str) -> _E:
    if name in ELEMENTS:
        raise ValueError(f"grammar element {name!r} defined twice")
    element.set_name(name)
    ELEMENTS[name] = element
    DESCRIPTIONS[name] = description
    return element


#: Tokens whose pattern can match in more than one way at a position (the names, which
#: end where a look-ahead allows). Every other token is written with possessive quantifiers,
#: so it matches in one way only and needs no atomic group in :func:`line_regex`.
_BACKTRACKING: set[str] = set()


def _token(name: str, pattern: str, description: str, *, backtracks: bool = False) -> pp.Regex:
    if backtracks:
        _BACKTRACKING.add(name)
    return _named(name, pp.Regex(pattern), description)


_WORD_END = r"(?![A-Za-z0-9_])"  # a keyword must not run on into a longer word
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")
# After a character of _WORD_CHARS, an ASCII word boundary accepts exactly the positions
# _WORD_END accepts (the next character is not one of them, or there is none), and costs
# the regex engine one opcode where the look-ahead costs a sub-match. The scoped flag keeps
# the rest of a pattern as it is.
_ASCII_WORD_END = r"(?a:\b)"

#: The words each word end of the grammar follows (see :func:`_words`), for the tests.
WORD_ENDS: list[tuple[str, ...]] = []


def _words(*words: str) -> str:
    r"""Any one of ``words``, which must not run on into a longer word: the words of a
    multi-word one (``is dealt``) may be separated by any run of spaces and tabs.

    Every word ends in an ASCII letter, digit or underscore (checked here), so the word end
    is written as ``(?a:\b)``, which means there what ``_WORD_END`` means."""
    for word in words:
        if word[-1:] not in _WORD_CHARS:
            raise ValueError(f"{word!r} does not end in an ASCII letter, digit or underscore")
    WORD_ENDS.append(words)
    return _words_pattern(words)


def _words_pattern(words: Sequence[str]) -> str:
    body = "|".join(r"[ \t]++".join(re.escape(part) for part in word.split(" ")) for word in words)
    return (f"(?:{body})" if len(words) > 1 else body) + _ASCII_WORD_END


def _keyword(text: str) -> pp.Regex:
    """A keyword or punctuation terminal, named by its text in quotes (``'is dealt'``).

    Words of a multi-word keyword may be separated by any run of spaces and tabs."""
    if text[-1].isalnum():
        pattern = _words(text)
    else:
        pattern = r"[ \t]++".join(re.escape(word) for word in text.split(" "))
    return _named(f"'{text}'", pp.Regex(pattern), f"'{text}'")


# -- tokens -----------------------------------------------------------------------------------

# A line ends at a newline (optionally preceded by a carriage return) or at the end of the
# text (a final carriage return there counts as the line end it was meant to be).
_EOL = r"(?:\r?\n|\r?\Z)"

line_end = _token(
    "line_end",
    # The line end swallows the blank and comment lines after it: they may stand anywhere.
    rf"[ \t]*+{_EOL}(?:[ \t]*+(?:#[^\n]*+)?+{_EOL})*+",
    "end of line",
)
blank_lines = _token("blank_lines", rf"(?:[ \t]*+(?:#[^\n]*+)?+{_EOL})*+", "blank or comment lines")

count = _token("count", r"[1-9][0-9]*+", "a whole number >= 1")
amount = _token("amount", r"[+-]?+[0-9]++", "a whole number (optionally signed)")
topup_amount = _token(
    "topup_amount", r"\+?+0*+[1-9][0-9]*+", "a whole number > 0 (the points added)"
)
decimal = _token("decimal", r"[0-9]++(?:\.[0-9]++)?+", "a decimal number (the stake, 0.10)")
currency = _token(
    "currency", rf"(?:[A-Z]{{3}}|points){_WORD_END}", "a currency code (EUR) or 'points'"
)

hand_id = _token("hand_id", r"#[A-Za-z0-9._-]++", "a hand id '#' + letters, digits, '-', '_', '.'")
match_id = _token(
    "match_id", r"#[A-Za-z0-9._-]++", "a match id '#' + letters, digits, '-', '_', '.'"
)
variant = _token(
    "variant",
    _words("Classic", "Pineapple", "Turbo", "Joker Pineapple"),
    "a variant: Classic, Pineapple, Turbo or Joker Pineapple",
)
fantasyland_type = _token(
    "fantasyland_type",
    _words("standard", "progressive", "ultimate", "tournament"),
    "a Fantasyland type: standard, progressive, ultimate or tournament",
)
date = _token("date", r"[0-9]{4}-[0-9]{2}-[0-9]{2}", "a date YYYY-MM-DD")
time = _token("time", r"[0-9]{2}:[0-9]{2}:[0-9]{2}", "a time HH:MM:SS")
zone = _token(
    "zone",
    rf"(?:[+-][0-9]{{2}}:[0-9]{{2}}|[A-Za-z][A-Za-z0-9_/+-]*+){_WORD_END}",
    "a time zone: a word (UTC) or an offset (+05:00)",
)
table_name = _token(
    "table_name",
    # The name ends at the next quote, so the token matches in one way only.
    r"'[ \t]*+[^' \t\r\n](?:[^'\r\n]*[^' \t\r\n])?[ \t]*+'",
    "a table name in single quotes ('Tashkent 3')",
)
max_seats = _token("max_seats", rf"[1-9][0-9]*+-{_words('max')}", "the table size K-max")
button_seat = _token("button_seat", r"#[1-9][0-9]*+", "the button's seat '#S'")

# Cards: either case ("ah", "JK1", "jk1", "jK1"); the look-ahead keeps ``AhKd`` from reading
# as two cards (cards are separated by blanks). ``Card.parse`` accepts exactly these tokens
# (tests/test_grammar.py checks it).
card = _token(
    "card",
    r"(?:[2-9TJQKAtjqka][shdcSHDC]|[Jj][Kk][12]|\?\?)(?![^ \t\]\r\n])",
    "a card (rank 23456789TJQKA + suit shdc, JK1, JK2 or ??)",
)

# Player names: characters other than ( ) [ ] : and line ends, no leading or trailing blank;
# written as words (runs of other characters) separated by blanks, which the regex engine
# matches a word at a time rather than a character at a time.
_NAME_WORD = r"[^ \t()\[\]:\r\n]++"
_NAME_CHAR = r"[^()\[\]:\r\n]"
# A line that begins with the keyword ``OFC Hand`` is a hand header, whatever follows, so a
# name never begins with it (a line starting with '#' is a comment, which line_end takes).
_NOT_HEADER = rf"(?!{_words('OFC Hand')})"

player = _token(
    "player",
    # Every word up to a character a name cannot hold (':' or '(' after a name): one way only.
    rf"{_NOT_HEADER}{_NAME_WORD}(?:[ \t]++{_NAME_WORD})*+",
    "a player name",
)


#: The section patterns' form of each name that ends before a keyword (see
#: :data:`SECTION_FORMS`), by the name of its token.
_SECTION_NAMES: dict[str, str] = {}
#: Names that end before a keyword whose tail reaches a ``[``: a line splits into such a name
#: and the rest in one way only (see :func:`section_regex`).
_SPLIT_AT_BRACKET: set[str] = set()


def _player_before(
    name: str, keywords: Sequence[str], tail: str, description: str
) -> pp.Regex:
    """A name at the start of a line, which ends where one of ``keywords`` begins.

    Names may contain spaces and even keywords ("Big Al", "Al places"), so the name is the
    shortest one followed by a keyword + ``tail`` (the rest of a well-formed line's start).
    When no such split exists the name stops before the first keyword at all, so that an
    error after the keyword is reported there ("expected a card list after 'is dealt'")
    instead of at the start of the line.

    The section patterns read the name in a cheaper form, a subset of this one: its words up
    to the first word that begins a keyword (a name that holds such a word is left to the
    line patterns). Where that form matches and the rest of the line follows, it reads the
    same name: the line's rest holds the keyword + ``tail`` after the name, and at every
    earlier word end the next word does not begin a keyword, so neither does a keyword
    follow there: the name is the shortest one followed by a keyword + ``tail``.
    """
    after = rf"[ \t]++{_words(*keywords)}"
    pattern = (
        rf"{_NOT_HEADER}{_NAME_WORD}(?:[ \t]++{_NAME_WORD})*?"
        rf"(?={after}(?:{tail}|(?![^ \t\r\n])(?!{_NAME_CHAR}*?{after}{tail})))"
    )
    if tail.endswith(r"\["):
        _SPLIT_AT_BRACKET.add(name)
    firsts = _words(*sorted({keyword.split(" ")[0] for keyword in keywords}))
    _SECTION_NAMES[name] = (
        rf"{_NOT_HEADER}{_NAME_WORD}(?:[ \t]++(?!{firsts}){_NAME_WORD})*+"
    )
    return _token(name, pattern, description, backtracks=True)


_EVENTS = ("times out", "uses time bank", "disconnects", "reconnects", "sits out", "returns")
_ROW = _words("top", "middle", "bottom")
_EVENT = _words(*_EVENTS)

dealt_player = _player_before(
    "dealt_player", ["is dealt"], r"[ \t]*\[", "a player name followed by 'is dealt'"
)
placing_player = _player_before(
    "placing_player", ["places"], rf"[ \t]+{_ROW}[ \t]*\[", "a player name followed by 'places'"
)
event_player = _player_before(
    "event_player",
    _EVENTS,
    rf"[ \t]*{_EOL}",
    "a player name followed by 'times out', 'uses time bank', 'disconnects', 'reconnects', "
    "'sits out' or 'returns'",
)
topup_player = _player_before(
    "topup_player",
    ["tops up"],
    rf"[ \t]+\+?[0-9]+[ \t]*{_EOL}",
    "a player name followed by 'tops up'",
)

row = _token("row", _ROW, "a row: top, middle or bottom")
event_kind = _token(
    "event_kind",
    _EVENT,
    "'times out', 'uses time bank', 'disconnects', 'reconnects', 'sits out' or 'returns'",
)

# A summary field ends with a comma that leads to the next field, or with the end of the line;
# a trailing comma is an error at the comma, not a silently ignored field.
field_end = _token(
    "field_end",
    rf",(?=[ \t]*[A-Za-z])|(?=[ \t]*{_EOL})",
    "',' and the next field (fouled, royalties, points, stack, Fantasyland next) or end of line",
)

# -- keywords and punctuation -----------------------------------------------------------------

OFC_HAND = _keyword("OFC Hand")
COLON = _keyword(":")
COMMA = _keyword(",")
DASH = _keyword("-")
SLASH = _keyword("/")
LBRACKET = _keyword("[")
RBRACKET = _keyword("]")
LPAREN = _keyword("(")
RPAREN = _keyword(")")
STARS = _keyword("***")
ARROW = _keyword("->")
FANTASYLAND = _keyword("Fantasyland")
POINT = _keyword("point")
MATCH = _keyword("Match")
HAND = _keyword("hand")
TABLE = _keyword("Table")
SEAT = _keyword("Seat")
IS_THE_BUTTON = _keyword("is the button")
IN_FANTASYLAND = _keyword("in Fantasyland")
CARDS = _keyword("cards")
TOPS_UP = _keyword("tops up")
STREET = _keyword("STREET")
FANTASYLAND_CAPS = _keyword("FANTASYLAND")
SHOWDOWN = _keyword("SHOWDOWN")
SUMMARY = _keyword("SUMMARY")
IS_DEALT = _keyword("is dealt")
PLACES = _keyword("places")
DISCARDS = _keyword("discards")
TOP = _keyword("top")
MIDDLE = _keyword("middle")
BOTTOM = _keyword("bottom")
MUCKED = _keyword("mucked")
FOULED = _keyword("fouled")
ROYALTIES = _keyword("royalties")
POINTS = _keyword("points")
STACK = _keyword("stack")
FANTASYLAND_NEXT = _keyword("Fantasyland next")

# -- productions ------------------------------------------------------------------------------


class _Stop:
    """Marks pyparsing's ``-`` in :func:`_seq` (a sentinel: pyparsing elements compare equal
    to any string they match, so no string can mark it)."""


_STOP = _Stop()


def _seq(*items: pp.ParserElement | _Stop) -> pp.ParserElement:
    """A sequence of elements; ``_STOP`` is pyparsing's ``-``: no backtracking past it.

    ``-`` stands only where nothing else could match once the element before it has matched;
    it makes pyparsing report an error where it is, instead of at the start of an optional or
    repeated part, and does not change the language. The sequence is built flat, in one And:
    pyparsing folds a two-element And into a neighbouring one, which would dissolve a named
    production into its parent (and out of the diagram), so a two-element sequence gets an
    invisible ``Empty`` third.
    """
    elements = [pp.And._ErrorStop() if isinstance(item, _Stop) else item for item in items]
    if len(elements) == 2:
        elements.append(pp.Empty())
    return pp.And(elements)


card_list = _named(
    "card_list",
    pp.Group(_seq(LBRACKET, _STOP, pp.ZeroOrMore(card), _STOP, RBRACKET)),
    "a card list '[' ... ']'",
)
stake = _named("stake", _seq(decimal("stake_amount"), currency("currency")), "a stake (0.10 EUR)")
timestamp = _named(
    "timestamp",
    _seq(date("date"), time("time"), zone("zone")),
    "a timestamp YYYY-MM-DD HH:MM:SS ZONE",
)

header_line = _named(
    "header_line",
    _seq(
        OFC_HAND,
        hand_id("hand_id"),
        COLON,
        variant("variant"),
        pp.Opt(_seq(COMMA, _STOP, fantasyland_type("fantasyland"), _STOP, FANTASYLAND)),
        DASH,
        stake,
        SLASH,
        POINT,
        DASH,
        timestamp,
        line_end,
    ),
    "a hand header 'OFC Hand #ID: VARIANT[, TYPE Fantasyland] - STAKE/point - TIMESTAMP'",
)
match_line = _named(
    "match_line",
    _seq(MATCH, match_id("match_id"), COMMA, HAND, count("hand_number"), line_end),
    "a match line 'Match #ID, hand N'",
)
table_line = _named(
    "table_line",
    _seq(
        TABLE,
        table_name("table"),
        max_seats("max_seats"),
        DASH,
        SEAT,
        button_seat("button"),
        IS_THE_BUTTON,
        line_end,
    ),
    "a table line \"Table 'NAME' K-max - Seat #S is the button\"",
)
fantasyland_mark = _named(
    "fantasyland_mark",
    _seq(
        IN_FANTASYLAND,
        pp.Opt(_seq(LPAREN, _STOP, count("fantasyland_cards"), _STOP, CARDS, _STOP, RPAREN)),
    ),
    "'in Fantasyland' or 'in Fantasyland (N cards)'",
)
seat_line = _named(
    "seat_line",
    _seq(
        SEAT,
        count("seat"),
        COLON,
        player("player"),
        LPAREN,
        amount("stack"),
        RPAREN,
        pp.Opt(fantasyland_mark("in_fantasyland")),
        line_end,
    ),
    "a seat line 'Seat S: NAME (STACK)'",
)
topup_line = _named(
    "topup_line",
    _seq(topup_player("player"), TOPS_UP, topup_amount("amount"), line_end),
    "a top-up line 'NAME tops up N'",
)

street_header = _named(
    "street_header",
    _seq(STARS, STREET, count("street"), STARS, line_end),
    "a section header '*** STREET k ***'",
)
fantasyland_header = _named(
    "fantasyland_header",
    _seq(STARS, FANTASYLAND_CAPS, STARS, line_end),
    "a section header '*** FANTASYLAND ***'",
)
showdown_header = _named(
    "showdown_header",
    _seq(STARS, SHOWDOWN, STARS, line_end),
    "a section header '*** SHOWDOWN ***'",
)
summary_header = _named(
    "summary_header",
    _seq(STARS, SUMMARY, STARS, line_end),
    "a section header '*** SUMMARY ***'",
)

deal_line = _named(
    "deal_line",
    _seq(dealt_player("player"), IS_DEALT, card_list("cards"), line_end),
    "a deal line 'NAME is dealt [...]'",
)
row_cards = _named("row_cards", _seq(row, _STOP, card_list), "a row and its cards ('top [...]')")
placements = _named(
    "placements",
    pp.OneOrMore(row_cards),
    "one or more of 'top [...]', 'middle [...]', 'bottom [...]'",
)
discards = _named(
    "discards", _seq(COMMA, _STOP, DISCARDS, _STOP, card_list("discards")), "', discards [...]'"
)
#: The rows of a places line in the order top, middle, bottom, each at most once and each
#: captured on its own (``top``, ``middle``, ``bottom``): a subset of ``placements`` that
#: reads as the same rows. Sites and the simulator write rows in this order; the reader's
#: section patterns (:func:`section_regex`) use it, and leave a line with its rows in
#: another order, or a row twice, to the line patterns. Not a production of the format.
placements_in_order = _seq(
    pp.FollowedBy(row),
    pp.Opt(_seq(TOP, card_list("top"))),
    pp.Opt(_seq(MIDDLE, card_list("middle"))),
    pp.Opt(_seq(BOTTOM, card_list("bottom"))),
)
places_line = _named(
    "places_line",
    _seq(placing_player("player"), PLACES, placements("rows"), pp.Opt(discards), line_end),
    "a places line 'NAME places top [...] middle [...] bottom [...], discards [...]'",
)
event_line = _named(
    "event_line",
    _seq(event_player("player"), event_kind("event"), line_end),
    "an event line 'NAME times out' (or uses time bank, disconnects, reconnects, sits out, "
    "returns)",
)
# The event line comes first: its name is whatever stands before the final event keyword,
# which keeps "Al places top returns" (a player named "Al places top") an event.
street_line = _named(
    "street_line",
    pp.MatchFirst([event_line, deal_line, places_line]),
    "a deal, places or event line ('NAME is dealt [...]', 'NAME places ...', "
    "'NAME times out', ...)",
)

board_line = _named(
    "board_line",
    _seq(
        player("player"),
        COLON,
        TOP,
        card_list("top"),
        MIDDLE,
        card_list("middle"),
        BOTTOM,
        card_list("bottom"),
        line_end,
    ),
    "a showdown board 'NAME: top [...] middle [...] bottom [...]'",
)
mucked_line = _named(
    "mucked_line",
    _seq(player("player"), COLON, MUCKED, line_end),
    "a showdown line 'NAME: mucked'",
)
showdown_line = _named(
    "showdown_line",
    pp.MatchFirst([mucked_line, board_line]),
    "a showdown line 'NAME: top [...] middle [...] bottom [...]' or 'NAME: mucked'",
)

# SUMMARY fields are optional and in a fixed order; each one ends with ``field_end``.
summary_line = _named(
    "summary_line",
    _seq(
        player("player"),
        COLON,
        pp.Opt(_seq(FOULED("fouled"), _STOP, field_end)),
        pp.Opt(_seq(ROYALTIES, _STOP, amount("royalties"), _STOP, field_end)),
        pp.Opt(_seq(POINTS, _STOP, amount("points"), _STOP, field_end)),
        pp.Opt(
            _seq(
                STACK,
                _STOP,
                amount("stack_before"),
                _STOP,
                ARROW,
                _STOP,
                amount("stack_after"),
                _STOP,
                field_end,
            )
        ),
        pp.Opt(
            _seq(
                FANTASYLAND_NEXT,
                _STOP,
                LPAREN,
                _STOP,
                count("fantasyland_next"),
                _STOP,
                CARDS,
                _STOP,
                RPAREN,
            )
        ),
        line_end,
    ),
    "a summary line 'NAME: [fouled, ]royalties R, points P, stack A -> B[, Fantasyland "
    "next (N cards)]' (fields in this order, each optional)",
)

street_section = _named(
    "street_section",
    _seq(street_header, pp.ZeroOrMore(street_line)),
    "a STREET section",
)
fantasyland_section = _named(
    "fantasyland_section",
    _seq(fantasyland_header, pp.ZeroOrMore(street_line)),
    "the FANTASYLAND section",
)
sections = _named(
    "sections",
    _seq(
        pp.ZeroOrMore(street_section),
        pp.Opt(_seq(fantasyland_section, pp.ZeroOrMore(street_section))),
    ),
    "the STREET sections and at most one FANTASYLAND section",
)
showdown_section = _named(
    "showdown_section",
    _seq(showdown_header, pp.ZeroOrMore(showdown_line)),
    "the SHOWDOWN section",
)
summary_section = _named(
    "summary_section",
    _seq(summary_header, pp.ZeroOrMore(summary_line)),
    "the SUMMARY section",
)
hand = _named(
    "hand",
    _seq(
        header_line,
        pp.Opt(match_line),
        table_line,
        pp.OneOrMore(seat_line),
        pp.ZeroOrMore(topup_line),
        sections,
        pp.Opt(showdown_section),
        pp.Opt(summary_section),
    ),
    "a hand",
)
history = _named("history", _seq(blank_lines, pp.ZeroOrMore(hand)), "a hand-history file")

pp.ParserElement.set_default_whitespace_chars(_SAVED_WHITESPACE)
for _element in ELEMENTS.values():
    # pyparsing expands tabs before parsing unless told not to: that would move the columns
    # of errors on lines with tabs.
    _element.parse_with_tabs()

#: The rules the reader checks beyond the grammar (a context-free grammar cannot state them).
CONTEXT_RULES: tuple[str, ...] = (
    "STREET k follows STREET k-1 (the first street is STREET 1)",
    "no seat number and no name is listed twice on the seat lines",
    "every line that starts with a NAME names one of the hand's seats",
    "no row appears twice in one places line",
)

#: Line productions, each of which a reader can match on its own.
LINE_PRODUCTIONS: tuple[str, ...] = (
    "header_line",
    "match_line",
    "table_line",
    "seat_line",
    "topup_line",
    "street_header",
    "fantasyland_header",
    "showdown_header",
    "summary_header",
    "deal_line",
    "places_line",
    "event_line",
    "board_line",
    "mucked_line",
    "summary_line",
)

#: Names in quotes are terminals: the literal text of keywords and punctuation.
KEYWORDS: tuple[str, ...] = tuple(name[1:-1] for name in ELEMENTS if name.startswith("'"))


def productions() -> set[str]:
    """The production names of the grammar (the named elements that are not terminals)."""
    return {name for name in ELEMENTS if not name.startswith("'")}


# -- the grammar as one regular expression per line -------------------------------------------

#: Single-line forms: what a reader may match instead of an element when it matches one line
#: at a time, without its ``\n`` (a ``\r`` of ``\r\n`` may remain). ``line_end`` then has no
#: blank or comment lines to swallow. ``card_list`` becomes one cheap pattern for its shape,
#: and the reader completes it by looking every blank-separated token up among the cards
#: (``Card.parse``): together they accept exactly the element's language (``[``, cards
#: separated by blanks, ``]``).
SINGLE_LINE_FORMS: dict[str, str] = {
    "line_end": r"[ \t]*+\r?+",
    "card_list": r"\[[ \t0-9A-Za-z?]*+\]",
}
#: Forms of a section pattern (:func:`section_regex`): several lines in one match, each ending
#: at its own ``\n`` (a blank or comment line ends the match, and the line patterns take
#: over there), card lists as in :data:`SINGLE_LINE_FORMS`, the rows of a places line in
#: order (:data:`placements_in_order`), and names before a keyword in the form that stops at
#: the keyword's first word (see :func:`_player_before`). So every line a section pattern
#: matches holds exactly one ``\n``, which lets the reader prove by counting them that it read
#: every line once.
SECTION_FORMS: dict[str, str | pp.ParserElement] = {
    "line_end": r"[ \t]*+\r?+\n",
    "card_list": SINGLE_LINE_FORMS["card_list"],
    "placements": placements_in_order,
    **_SECTION_NAMES,
}
_SKIP = r"[ \t]*+"
_RUN_LINE = r"(?![#*])"  # after the line's leading blanks


def _children(element: pp.ParserElement) -> list[pp.ParserElement]:
    if isinstance(element, pp.ParseExpression):
        return list(element.exprs)
    if isinstance(element, pp.ParseElementEnhance) and element.expr is not None:
        return [element.expr]
    return []


def walk(element: pp.ParserElement) -> Iterator[pp.ParserElement]:
    """Every element reachable from ``element`` (each once), depth first."""
    seen: set[int] = set()
    stack = [element]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack.extend(reversed(_children(current)))


_Forms = Mapping[str, "str | pp.ParserElement"]


def _unskipped(pattern: str) -> str:
    """``pattern`` after the blanks skipped before it: the blanks it begins with, if any,
    are taken by the skip already (both runs are possessive), so they go."""
    return pattern[len(_SKIP) :] if pattern.startswith(_SKIP) else pattern


def _to_regex(element: pp.ParserElement, prefix: str, capture: bool, forms: _Forms) -> str:
    """The regular expression that matches what ``element`` matches, as pyparsing does.

    pyparsing skips blanks before each token and never backtracks into a token, an option or
    a repetition that succeeded: tokens are written with possessive quantifiers (or, for the
    names, wrapped in atomic groups), options and repetitions become possessive, and
    ``MatchFirst`` an atomic alternation. Results names become named groups (``prefix`` +
    name), except inside repetitions, where a group would keep only its last match; a named
    group of a composite element includes the blanks before it. ``forms`` gives, by element
    name, the pattern (a string) or the element to translate instead of the element.
    """
    name = element.customName
    form = forms.get(name)
    if isinstance(form, str):
        body = _SKIP + _unskipped(form)
    elif form is not None:
        body = _to_regex(form, prefix, capture, forms)
    elif isinstance(element, pp.FollowedBy):
        body = f"(?={_to_regex(element.expr, prefix, False, forms)})"
    elif isinstance(element, pp.And._ErrorStop):
        # "No backtracking past here" decides only how pyparsing reports an error: the
        # grammar puts it where nothing else could match anyway.
        return ""
    elif type(element) is pp.Empty:
        return _SKIP if element.skipWhitespace else ""
    elif isinstance(element, pp.Regex | pp.Literal):
        if set(element.whiteChars) - {" ", "\t"} or not element.skipWhitespace:
            raise ValueError(f"{element}: tokens must skip spaces and tabs, nothing else")
        if isinstance(element, pp.Regex):
            if element.flags:
                raise ValueError(f"{element}: regex flags are not supported")
            pattern = _unskipped(str(element.pattern))
            body = f"(?>{pattern})" if name in _BACKTRACKING else f"(?:{pattern})"
        else:
            body = re.escape(element.match)
        body = _SKIP + body
    elif isinstance(element, pp.And):
        body = "".join(_to_regex(e, prefix, capture, forms) for e in element.exprs)
    elif isinstance(element, pp.MatchFirst):
        options = (_to_regex(e, prefix, capture, forms) for e in element.exprs)
        body = "(?>" + "|".join(options) + ")"
    elif isinstance(element, pp.Opt):
        body = f"(?:{_to_regex(element.expr, prefix, capture, forms)})?+"
    elif isinstance(element, pp.OneOrMore | pp.ZeroOrMore):
        inner = _to_regex(element.expr, prefix, False, forms)
        body = f"(?:{inner})" + ("++" if isinstance(element, pp.OneOrMore) else "*+")
    elif isinstance(element, pp.Group | pp.Suppress):
        body = _to_regex(element.expr, prefix, capture, forms)
    else:
        raise ValueError(f"cannot translate {type(element).__name__} {element} to a regex")
    if capture and element.resultsName:
        if body.startswith(_SKIP):
            # Keep the blanks out of the group: a captured token never starts with a blank.
            body = f"{_SKIP}(?P<{prefix}{element.resultsName}>{body[len(_SKIP) :]})"
        else:
            body = f"(?P<{prefix}{element.resultsName}>{body})"
    return body


def line_regex(names: Sequence[str], single_line: bool = False) -> str:
    """One pattern for a whole line of any of the named line productions, to ``fullmatch``.

    Each production is a named group (its name), and a results name ``x`` of production ``p``
    is the group ``p__x``; ``Match.lastgroup`` names the production that matched (the outer
    group closes last). Line productions end in ``line_end``, so an alternative matches a
    whole line or nothing, and the alternation means what pyparsing's ``MatchFirst`` means.
    With ``single_line`` the :data:`SINGLE_LINE_FORMS` stand in for their elements.
    """
    forms = SINGLE_LINE_FORMS if single_line else {}
    parts = []
    for name in names:
        element = ELEMENTS[name]
        parts.append(f"(?P<{name}>{_to_regex(element, name + '__', True, forms)})")
    return "|".join(parts)


def _name_token(line: str) -> str:
    """The name of the token that reads the player's name at the start of line production
    ``line``."""
    first = _children(ELEMENTS[line])[0]
    if first.resultsName != "player":
        raise ValueError(f"{line} does not begin with a player's name")
    return first.customName


def _uncaptured(pattern: str, group: str) -> str:
    """``pattern`` with the named group ``group`` as a group that captures nothing."""
    named = f"(?P<{group}>"
    if pattern.count(named) != 1:
        raise ValueError(f"no group {group!r} to leave out")
    return pattern.replace(named, "(?:")


def section_regex(
    headers: Sequence[str],
    lines: Sequence[str],
    repeats: int,
    one_player: bool = False,
    uncaptured: Collection[str] = (),
) -> str:
    """One pattern for a section's header line and up to ``repeats`` runs of its lines, to
    ``match`` at the start of a line of a text (see :data:`SECTION_FORMS`).

    The header is one of the line productions ``headers`` (each marked by an empty named
    group after it, which is None when another header matched); then come the line
    productions ``lines`` in this order, as often as they follow, ``repeats`` times at most
    (a street's deal and places lines, once per player). A results name ``x`` of production
    ``p`` in run ``i`` (from 0) is the group ``p{i}__x``, but for the groups ``uncaptured``
    names (formats of those names, ``places_line{}__rows``): a reader that has no use for
    a group spares ``Match.groups()`` the copy of its text. The pattern matches what the line
    patterns match on those lines (with the rows of a places line in order), so a reader may
    read the lines it matched from it and leave the rest of the section, if any, to the line
    patterns.

    With ``one_player``, the lines of a run all begin with a name, and a run's lines after
    its first name the player its first line names: their name is a back-reference to the
    first line's, the same text (a run where another player's line follows ends before that
    line, which the line patterns then read). Only for lines whose name ends before a keyword
    whose tail reaches a ``[`` (deal and places lines): such a line splits into a name and
    the rest in one way only, for between the name's end and the line's first ``[`` stand
    just the keyword's words and the tail's (``is dealt``, ``places top``), and a name holds
    no ``[``; a shorter name would leave more words there. So where the back-reference and the
    rest of the line match, the line's own name token reads the same name. Such a line has
    no group of the name: it is the first line's.
    """
    # The group that names the header is empty, after it: a match copies no line of text.
    header = "|".join(
        f"{_to_regex(ELEMENTS[name], name + '__', True, SECTION_FORMS)}(?P<{name}>)"
        for name in headers
    )
    body = ""
    for run in reversed(range(repeats)):
        # A line that starts with '#' is a comment (``line_end`` swallows it), whatever
        # follows: never a line of a run. Nor is a line that starts with '*': a section
        # header, most often, and the run ends there at once instead of trying it as a
        # name (a name that starts with '*' is left to the line patterns).
        lines_of_run = ""
        for index, name in enumerate(lines):
            if one_player and index > 0:
                token = _name_token(name)
                _name_token(lines[0])  # the run's first line begins with a name too
                if token not in _SPLIT_AT_BRACKET:
                    raise ValueError(f"{name}: its name cannot be a back-reference")
                # The first line's name starts with neither '#' nor '*': nor does this one.
                first = f"{lines[0]}{run}__player"
                forms = {**SECTION_FORMS, token: f"(?P={first})"}
                line = _to_regex(ELEMENTS[name], f"{name}{run}__", True, forms)
                # The name is the first line's: no group of its own.
                lines_of_run += _uncaptured(line, f"{name}{run}__player")
            else:
                line = _to_regex(ELEMENTS[name], f"{name}{run}__", True, SECTION_FORMS)
                assert line.startswith(_SKIP)  # every token skips the blanks before it
                lines_of_run += _SKIP + _RUN_LINE + line[len(_SKIP) :]
        for group in uncaptured:
            lines_of_run = _uncaptured(lines_of_run, group.format(run))
        body = f"(?:{lines_of_run}{body})?+"
    return f"(?>{header}){body}"


def line_matcher(names: Sequence[str], single_line: bool = False) -> re.Pattern[str]:
    """:func:`line_regex`, compiled."""
    return re.compile(line_regex(names, single_line))


def alternatives(names: Sequence[str], description: str) -> pp.ParserElement:
    """The line productions ``names`` as one pyparsing element (tried in this order), for
    explaining a line that matches none of them; ``description`` names them in messages."""
    element = pp.MatchFirst([ELEMENTS[name] for name in names])
    # Built after the grammar restored pyparsing's default white space: set it again.
    element.set_whitespace_chars(" \t", copy_defaults=False)
    return element.set_name(description).parse_with_tabs()


# -- the railroad diagram ---------------------------------------------------------------------


def write_diagram(path: str | Path) -> None:
    """Draw the railroad diagram of :data:`history` (needs railroad-diagrams and jinja2)."""
    with open(path, "w", encoding="utf-8") as out:
        history.create_diagram(out, vertical=3, show_results_names=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ofc_audit.history.grammar", description="The OFC hand-history grammar."
    )
    parser.add_argument("--diagram", metavar="HTML", help="write the railroad diagram here")
    parser.add_argument(
        "--productions", action="store_true", help="print the production names, one a line"
    )
    args = parser.parse_args(argv)
    if args.diagram:
        write_diagram(args.diagram)
        print(f"wrote {args.diagram}", file=sys.stderr)
    if args.productions:
        print("\n".join(sorted(productions())))
    if not args.diagram and not args.productions:
        parser.print_help()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
