"""What the simulator's table loop and its faults share: the game played, the table, the hand
as it is written (lines of bot ints: 0..51 natural cards, 52/53 jokers), and the two moments
a fault acts on it: the plan before the deal (who is dealt in, the button, the stacks, the
Match line) and the deal in progress (the deck, the cards to spare, the lines struck).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..game.cards import JOKERS, NATURAL_CARDS, Card
from ..game.ruleset import FantasylandType, Ruleset, Variant
from ..history.records import EventKind
from .bot import BotBoard, Policy, Rows

if TYPE_CHECKING:
    from .faults import LineFault

FAULT_COMMENT = "# fault: "

CARDS: tuple[Card, ...] = NATURAL_CARDS + JOKERS  # by bot int


def cards_of(cards: Sequence[int]) -> tuple[Card, ...]:
    return tuple(map(CARDS.__getitem__, cards))


def card_text(c: int) -> str:
    return str(CARDS[c])


def action_order(names: dict[int, str], button: int) -> list[str]:
    """Action order: left of the button first, the button last (R-ACT-1)."""
    return [names[s] for s in sorted(names, key=lambda s: (s <= button, s))]


def next_seat(button: int | None, seats: Sequence[int]) -> int:
    """The first occupied seat clockwise after ``button`` (R-MATCH-2)."""
    later = [s for s in seats if button is not None and s > button]
    return later[0] if later else seats[0]


@dataclass(frozen=True)
class Game:
    """The game every table plays: the ruleset and what follows from it, and the view."""

    ruleset: Ruleset
    stacks: int  # the starting stack
    viewer: str | None  # None: the operator's view

    @property
    def variant(self) -> Variant:
        return self.ruleset.variant

    @property
    def fl_type(self) -> FantasylandType:
        return self.ruleset.fantasyland

    @property
    def streets(self) -> tuple[tuple[int, int], ...]:
        """(cards dealt, cards placed) by street."""
        return tuple(self.variant.streets)

    @property
    def street_cards(self) -> int:
        """The cards a street player is dealt in a hand."""
        return sum(dealt for dealt, _ in self.variant.streets)

    @property
    def deck_size(self) -> int:
        return self.variant.deck_size


# -- the hand as it is written ----------------------------------------------------------------


@dataclass(slots=True)
class Line:
    """One action line; cards are bot ints (0..51, 52/53 jokers)."""

    kind: str  # "deal", "place", "event"
    player: str
    cards: list[int] = field(default_factory=list)  # deal
    rows: Rows = field(default_factory=lambda: [[], [], []])  # place: per row
    discards: list[int] | None = None  # place
    event: EventKind | None = None


@dataclass(slots=True)
class SeatLine:
    seat: int
    name: str
    stack: int
    fl_cards: int | None  # the Fantasyland hand's card count when in Fantasyland
    show_count: bool = False  # the seat line says ``in Fantasyland (N cards)``


@dataclass(slots=True)
class HandDraft:
    """A hand as the simulator writes it, then settles it."""

    hand_id: str
    timestamp: str
    match_id: str
    match_hand: int
    table: str
    max_seats: int
    button: int
    seats: list[SeatLine]
    order: list[str]  # action and settlement order
    topups: list[tuple[str, int]]
    fl_lines: list[Line]
    streets: list[list[Line]]
    faults: list[tuple[str, str]] = field(default_factory=list)  # (kind, what was done)
    summary_fault: tuple[str, str, int] | None = None  # (player, field, delta)
    # Results, filled in when the hand is settled:
    boards: dict[str, Rows] = field(default_factory=dict)
    fouled: dict[str, bool] = field(default_factory=dict)
    royalties: dict[str, int] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    stacks_after: dict[str, int] = field(default_factory=dict)
    fl_next: dict[str, int] = field(default_factory=dict)
    chain: dict[str, int] = field(default_factory=dict)

    def add_fault(self, kind: str, what: str) -> None:
        """Record a fault as it is written into the hand (the ground truth of its comments)."""
        self.faults.append((kind, what))

    def has_fault(self, kind: str) -> bool:
        return any(k == kind for k, _ in self.faults)

    def comments(self) -> tuple[str, ...]:
        return tuple(f"{FAULT_COMMENT}{kind} {what}" for kind, what in self.faults)

    def seat(self, name: str) -> SeatLine:
        for s in self.seats:
            if s.name == name:
                return s
        raise KeyError(name)  # pragma: no cover


# -- the table --------------------------------------------------------------------------------


@dataclass
class TablePlayer:
    name: str
    stack: int


@dataclass
class Table:
    name: str
    max_seats: int
    players: dict[int, TablePlayer]  # seat -> player
    button: int | None = None
    match_id: str = ""
    match_hand: int = 0
    owed: dict[str, int] = field(default_factory=dict)  # Fantasyland next, by name
    chain: dict[str, int] = field(default_factory=dict)  # chain entry counts (ultimate)
    hands: int = 0
    last_names: frozenset[str] = frozenset()  # players of the table's previous hand
    fl_last: frozenset[str] = frozenset()  # players in Fantasyland in the previous hand
    busted: dict[int, TablePlayer] = field(default_factory=dict)  # seat -> busted last hand
    # Sit-outs and disconnections as the history's lines make them (the replay's reading,
    # docs/RULINGS.md): `sits out`, or still disconnected at the end of a hand, is pending
    # until the match ends, then the player is sat out until a `returns` line; a player
    # still disconnected when the match goes on is disconnected in its next hand too.
    sat_out: set[str] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)
    disconnected: set[str] = field(default_factory=set)


# -- the moments a fault acts on --------------------------------------------------------------


@dataclass
class HandPlan:
    """A hand before its deal: who is dealt in, where, the button and who is in Fantasyland.
    The faults decided before the deal change it, each one after the other."""

    game: Game
    table: Table
    seats: list[int]
    names: dict[int, str]  # seat -> player
    button: int
    owed: dict[str, int]  # Fantasyland hands dealt, by player
    topups: list[tuple[str, int]]
    continuation: bool  # the match's next hand (someone earned Fantasyland)
    sat_out: list[int]  # seats of sat-out players not dealt in
    spare: int  # the cards no one is dealt, as planned before any fault
    new_match: bool
    notes: list[tuple[str, str]] = field(default_factory=list)  # faults written: (kind, what)
    # What faults write differently from honest play:
    unannounced: str | None = None  # dealt in without its `returns` line (R-TIME-3)
    leaves_after: str | None = None  # dealt in after busting: leaves again (R-SETTLE-4)
    stacks_written: dict[str, int] = field(default_factory=dict)  # not the carried stack
    match_line: tuple[str, int] | None = None  # not the match's own numbering

    def note(self, kind: str, what: str) -> None:
        self.notes.append((kind, what))

    @property
    def street_names(self) -> list[str]:
        """The players dealt on the streets, in action order."""
        return [n for n in action_order(self.names, self.button) if n not in self.owed]

    def carried_stack(self, name: str) -> int:
        seat = next(s for s in self.seats if self.names[s] == name)
        return self.table.players[seat].stack


@dataclass(slots=True)
class Turn:
    """One street player's line on one street: its cards, as dealt and as written."""

    name: str
    street: int  # 1..
    board: BotBoard
    cards: list[int]  # what the player has to place
    place: int  # how many of them it places
    offline: bool  # disconnected: placed automatically (R-TIME-2)
    lines: list[Line]  # the street's lines so far
    shown: list[int] | None = None  # written in the deal line instead of ``cards``


@dataclass
class Dealing:
    """A hand's deal in progress: the deck, the cards no one is dealt (what faults that deal
    more take from: each takes its share when it is planned, one that finds too few is not
    written), the line each in-play fault strikes, and what the connections must allow."""

    game: Game
    hand: HandDraft
    table: Table
    owed: dict[str, int]
    deck: list[int]
    street_names: list[str]
    spare: int
    policy: Policy
    placed: dict[str, list[int]]  # cards each street player placed so far
    strikes: dict[tuple[str, int], LineFault] = field(default_factory=dict)  # (player, street)
    dealt_twice: str | None = None  # a second Fantasyland deal (R-FL-5)
    # A player a fault keeps disconnected to the end of the hand, from the step after whose
    # deal it disconnects (0: the Fantasyland section, 1..: the streets).
    kept_offline: str | None = None
    kept_offline_from: int | None = None

    @property
    def last(self) -> int:
        return len(self.game.streets)

    def draw(self, count: int) -> list[int]:
        return [self.deck.pop() for _ in range(count)]
