"""Records back to text: the canonical form of a hand history (docs/FORMAT.md v1).

Canonical means: cards as ``Ah`` (rank capital, suit small), one space between tokens, no
comments or blank lines inside a hand, one blank line between hands, ``\\n`` line ends, and
amounts as plain integers except a positive ``points`` field, which carries its ``+``
(``points +8``), as in docs/FORMAT.md. Reading the text back gives the same records
(``read_text(write_hands(hands))``), line numbers included when the records were read from
canonical text, and ``write_hands(read_text(text))`` is the canonical form of ``text``.

>>> from ofc_audit.history.reader import read_text
>>> text = ("OFC Hand #7:  Classic - 1 points/point - 2026-01-01 10:00:00 UTC\\n"
...         "# a comment\\nTable 'T' 2-max - Seat #1 is the button\\n"
...         "Seat 1:   Big \\t Al (100)\\n*** STREET 1 ***\\nBig Al is dealt [ah  kd]\\n")
>>> print(write_hands(read_text(text)), end="")
OFC Hand #7: Classic - 1 points/point - 2026-01-01 10:00:00 UTC
Table 'T' 2-max - Seat #1 is the button
Seat 1: Big Al (100)
*** STREET 1 ***
Big Al is dealt [Ah Kd]

Every line written is checked against its production of the grammar, and names against the
reader's normalisation, so a record that cannot be written (a name with ``:``, a table name
with ``'``) raises ``ValueError`` instead of writing text that would read back differently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import IO

from ..game.cards import format_cards
from ..game.record import Cards
from ..game.ruleset import FantasylandType
from . import grammar
from .reader import HistoryParseError, read_text
from .records import (
    Deal,
    Event,
    Hand,
    Placement,
    Section,
    SectionKind,
    ShowdownBoard,
    SummaryEntry,
)

__all__ = ["hand_lines", "write_hand", "write_hands", "write_to"]

# The full (not single-line) matchers: they check every card of a card list.
_LINE = {name: grammar.line_matcher([name]).fullmatch for name in grammar.LINE_PRODUCTIONS}
_BLANK_RUN = re.compile(r"[ \t]{2,}|\t")


def write_hands(hands: Iterable[object]) -> str:
    """The canonical text of ``hands``, one blank line between two hands.

    Anything that is not a :class:`~ofc_audit.history.records.Hand` (a ``HistoryParseError`` of
    the reader, say) is skipped, so ``write_hands(read_text(text))`` works on any text."""
    return "\n".join(write_hand(hand) for hand in hands if isinstance(hand, Hand))


def write_to(out: IO[str], hands: Iterable[object]) -> None:
    """:func:`write_hands`, streamed to ``out`` a hand at a time."""
    first = True
    for hand in hands:
        if isinstance(hand, Hand):
            if not first:
                out.write("\n")
            out.write(write_hand(hand))
            first = False


def write_hand(hand: Hand) -> str:
    """The canonical text of one hand, each line ending in ``\\n``.

    The text is read back once: a hand that breaks a rule of the format across its lines (a
    street out of order, a row placed twice, a name not seated, ...) raises ``ValueError``,
    as the reader would reject it."""
    text = "".join(line + "\n" for line in hand_lines(hand))
    for item in read_text(text):
        if isinstance(item, HistoryParseError):
            raise ValueError(f"cannot write hand {hand.hand_id}: {item.message} ({item.text!r})")
    return text


def hand_lines(hand: Hand) -> Iterator[str]:
    """The canonical lines of one hand, without line ends, each checked by the grammar (but
    not the hand as a whole: see :func:`write_hand`)."""
    header = hand.header
    fantasyland = (
        ""
        if header.fantasyland is FantasylandType.NONE
        else f", {header.fantasyland.value} Fantasyland"
    )
    stake = header.stake
    yield _checked(
        "header_line",
        f"OFC Hand #{header.hand_id}: {header.variant.title}{fantasyland} - "
        f"{stake.text} {stake.currency}/point - {_single_spaced(header.timestamp, 'timestamp')}",
    )
    if hand.match is not None:
        yield _checked("match_line", f"Match #{hand.match.match_id}, hand {hand.match.hand_number}")
    table = hand.table
    yield _checked(
        "table_line",
        f"Table '{_single_spaced(table.name, 'table name')}' {table.max_seats}-max - "
        f"Seat #{table.button_seat} is the button",
    )
    for seat in hand.seats:
        mark = ""
        if seat.in_fantasyland:
            mark = " in Fantasyland"
            if seat.fantasyland_cards is not None:
                mark += f" ({seat.fantasyland_cards} cards)"
        elif seat.fantasyland_cards is not None:
            raise ValueError(f"seat {seat.seat}: Fantasyland cards without 'in Fantasyland'")
        yield _checked(
            "seat_line", f"Seat {seat.seat}: {_name(seat.name)} ({seat.stack}){mark}", seat.name
        )
    for topup in hand.topups:
        yield _checked("topup_line", f"{_name(topup.player)} tops up {topup.amount}", topup.player)
    for section in hand.sections:
        yield from _section_lines(section)
    if hand.showdown is not None:
        yield _checked("showdown_header", "*** SHOWDOWN ***")
        for board in hand.showdown.boards:
            yield _checked(_board_kind(board), _board_line(board), board.player)
    if hand.summary is not None:
        yield _checked("summary_header", "*** SUMMARY ***")
        for entry in hand.summary.entries:
            yield _checked("summary_line", _summary_line(entry), entry.player)


def _section_lines(section: Section) -> Iterator[str]:
    if section.kind is SectionKind.STREET:
        yield _checked("street_header", f"*** STREET {section.number} ***")
    else:
        yield _checked("fantasyland_header", "*** FANTASYLAND ***")
    for action in section.actions:
        if isinstance(action, Deal):
            line = f"{_name(action.player)} is dealt {_cards(action.cards)}"
            yield _checked("deal_line", line, action.player)
        elif isinstance(action, Placement):
            rows = " ".join(f"{row.value} {_cards(cards)}" for row, cards in action.rows)
            discards = "" if action.discards is None else f", discards {_cards(action.discards)}"
            line = f"{_name(action.player)} places {rows}{discards}"
            yield _checked("places_line", line, action.player)
        elif isinstance(action, Event):
            line = f"{_name(action.player)} {action.kind.value}"
            yield _checked("event_line", line, action.player)
        else:  # pragma: no cover - Action is exactly these three
            raise TypeError(f"not an action: {action!r}")


def _board_kind(board: ShowdownBoard) -> str:
    return "mucked_line" if board.mucked else "board_line"


def _board_line(board: ShowdownBoard) -> str:
    if board.top is None or board.middle is None or board.bottom is None:
        if board.top is board.middle is board.bottom is None:
            return f"{_name(board.player)}: mucked"
        raise ValueError(f"{board.player}: a showdown board has all three rows or none")
    return (
        f"{_name(board.player)}: top {_cards(board.top)} middle {_cards(board.middle)} "
        f"bottom {_cards(board.bottom)}"
    )


def _summary_line(entry: SummaryEntry) -> str:
    fields = []
    if entry.fouled:
        fields.append("fouled")
    if entry.royalties is not None:
        fields.append(f"royalties {entry.royalties}")
    if entry.points is not None:
        fields.append(f"points {entry.points:+d}" if entry.points > 0 else f"points {entry.points}")
    if (entry.stack_before is None) != (entry.stack_after is None):
        raise ValueError(f"{entry.player}: the stack field needs both stack_before and stack_after")
    if entry.stack_before is not None:
        fields.append(f"stack {entry.stack_before} -> {entry.stack_after}")
    if entry.fantasyland_next is not None:
        fields.append(f"Fantasyland next ({entry.fantasyland_next} cards)")
    return f"{_name(entry.player)}: {', '.join(fields)}".rstrip()


def _cards(cards: Cards) -> str:
    return f"[{format_cards(cards)}]"


def _name(text: str) -> str:
    """A player name, if the reader reads it back unchanged: a line that starts with '#' is
    a comment (and the grammar keeps the other characters a name may hold)."""
    if text.startswith("#"):
        raise ValueError(f"cannot write name {text!r}: a line starting with '#' is a comment")
    return _single_spaced(text, "name")


def _single_spaced(text: str, what: str) -> str:
    """``text`` if it has no blanks that the reader would read back as one space."""
    if _BLANK_RUN.search(text) or text != text.strip(" \t"):
        raise ValueError(f"cannot write {what} {text!r}: blanks would read back as one space")
    return text


def _checked(production: str, line: str, player: str | None = None) -> str:
    """``line``, which must be a ``production`` line; one that holds a ``player`` name must
    read back with that name (a name holding a keyword could split differently)."""
    match = _LINE[production](line)
    if match is None:
        raise ValueError(f"cannot write {line!r}: it is not {grammar.DESCRIPTIONS[production]}")
    if player is not None and match[f"{production}__player"] != player:
        read_back = match[f"{production}__player"]
        raise ValueError(f"cannot write {line!r}: the name would read back as {read_back!r}")
    return line
