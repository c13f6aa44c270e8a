"""Typed records of a hand history (docs/FORMAT.md v1).

The reader turns text into these frozen records; nothing after the reader sees a pyparsing
``ParseResults``. Every record keeps the 1-based line of the file it came from.

A record is a :class:`Record`: a frozen ``msgspec.Struct`` outside the garbage collector. A
hand is about 45 of them, and a Struct is built several times faster than a frozen dataclass
(its constructor is C: no ``object.__setattr__`` per field), while it stays typed, immutable,
comparable, hashable and picklable. The fields keep their names and order (positional
construction as before).
"""

from __future__ import annotations

from decimal import Decimal
from enum import StrEnum

from ..game.record import Cards, Record, Row
from ..game.ruleset import FantasylandType, Variant


class Stake(Record, frozen=True):
    """``0.10 EUR/point`` is Stake(Decimal('0.10'), 'EUR'); ``1 points/point`` has currency
    'points'."""

    amount: Decimal
    currency: str
    text: str  # the amount as written (``0.10``), kept for a faithful round trip

    @property
    def is_money(self) -> bool:
        return self.currency != "points"


class Header(Record, frozen=True):
    hand_id: str
    variant: Variant
    fantasyland: FantasylandType  # NONE when the header names no Fantasyland type
    stake: Stake
    timestamp: str  # ``2026-11-29 21:04:11 UTC`` or ``... +05:00``, white space normalised
    line: int


class MatchInfo(Record, frozen=True):
    match_id: str
    hand_number: int
    line: int


class TableInfo(Record, frozen=True):
    name: str
    max_seats: int
    button_seat: int
    line: int


class Seat(Record, frozen=True):
    seat: int
    name: str
    stack: int
    in_fantasyland: bool
    fantasyland_cards: int | None  # ``in Fantasyland (N cards)``
    line: int


class TopUp(Record, frozen=True):
    player: str
    amount: int
    line: int


class Deal(Record, frozen=True):
    player: str
    cards: Cards
    line: int


class Placement(Record, frozen=True):
    """``NAME places top [..] bottom [..], discards [..]``.

    ``rows`` keeps the rows in the order written; ``discards`` is None when the line has no
    ``discards`` part (which is not the same as ``discards []``).
    """

    player: str
    rows: tuple[tuple[Row, Cards], ...]
    discards: Cards | None
    line: int

    def cards_for(self, row: Row) -> Cards:
        for r, cards in self.rows:
            if r is row:
                return cards
        return ()

    @property
    def placed(self) -> Cards:
        return tuple(card for _, cards in self.rows for card in cards)


class EventKind(StrEnum):
    TIMES_OUT = "times out"
    USES_TIME_BANK = "uses time bank"
    DISCONNECTS = "disconnects"
    RECONNECTS = "reconnects"
    SITS_OUT = "sits out"
    RETURNS = "returns"


class Event(Record, frozen=True):
    player: str
    kind: EventKind
    line: int


Action = Deal | Placement | Event


class SectionKind(StrEnum):
    STREET = "STREET"
    FANTASYLAND = "FANTASYLAND"


class Section(Record, frozen=True):
    """A ``*** STREET k ***`` (number k) or ``*** FANTASYLAND ***`` (number None) section."""

    kind: SectionKind
    number: int | None
    actions: tuple[Action, ...]
    line: int


class ShowdownBoard(Record, frozen=True):
    """``NAME: top [..] middle [..] bottom [..]``; all three None for ``NAME: mucked``."""

    player: str
    top: Cards | None
    middle: Cards | None
    bottom: Cards | None
    line: int

    @property
    def mucked(self) -> bool:
        return self.top is None


class Showdown(Record, frozen=True):
    boards: tuple[ShowdownBoard, ...]
    line: int


class SummaryEntry(Record, frozen=True):
    """What the site recorded for one player. ``fouled`` and ``fantasyland_next`` are flags:
    absent means the site recorded "not fouled" / "no Fantasyland"; ``fantasyland_next`` is
    the card count, None when absent. The numeric fields are None when left out."""

    player: str
    fouled: bool
    royalties: int | None
    points: int | None
    stack_before: int | None
    stack_after: int | None
    fantasyland_next: int | None
    line: int


class Summary(Record, frozen=True):
    entries: tuple[SummaryEntry, ...]
    line: int


class Hand(Record, frozen=True):
    """One hand, from its header line to the line before the next header."""

    file: str
    header: Header
    match: MatchInfo | None
    table: TableInfo
    seats: tuple[Seat, ...]
    topups: tuple[TopUp, ...]
    sections: tuple[Section, ...]  # streets and the FANTASYLAND section, in file order
    showdown: Showdown | None
    summary: Summary | None

    @property
    def hand_id(self) -> str:
        return self.header.hand_id

    @property
    def line(self) -> int:
        return self.header.line

    def seat_of(self, name: str) -> Seat | None:
        for seat in self.seats:
            if seat.name == name:
                return seat
        return None
