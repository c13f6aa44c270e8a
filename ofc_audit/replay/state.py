"""What every rule family of the replay shares: the hand's state (:class:`HandState`: the seats,
boards, cards seen, findings), the table's state across hands (:class:`TableState`) and the
small rule helpers the fast and the full path both use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter

from ..game.cards import HIDDEN, JOKERS, Card, format_cards
from ..game.record import ROWS, Cards, Row
from ..game.ruleset import FantasylandType, Ruleset, Variant
from ..history.records import Event, EventKind, Hand, Seat, Section, SectionKind
from .results import Finding, Incomplete, Step

FL_PLACED = 13
_FL_WHERE = "its Fantasyland deal"  # where a Fantasyland placement is, in messages
TOP, MIDDLE, BOTTOM = ROWS
# Enum properties cost a Python call each; the hot path reads the sizes from a dict.
_ROW_SIZE = {row: row.size for row in ROWS}
# Enum members the hot paths compare against, read once (an enum class attribute look-up
# costs a few hundred nanoseconds).
_STREET = SectionKind.STREET
_FANTASYLAND = SectionKind.FANTASYLAND
_USES_TIME_BANK = EventKind.USES_TIME_BANK
_NO_TOPUPS: Counter[str] = Counter()
# Per variant: its streets, deck size, most players and the cards a street player is dealt
# over the streets (Enum properties, read once).
_VARIANT_FACTS = {
    v: (v.streets, v.deck_size, v.max_players, sum(dealt for dealt, _ in v.streets))
    for v in Variant
}
# Cards a clean street never deals, by deck size: hidden cards, and jokers outside their deck.
_NOT_DEALT_FROM = {52: frozenset((HIDDEN, *JOKERS)), 54: frozenset((HIDDEN,))}


def _cards(cards: Iterable[Card]) -> str:
    return "[" + format_cards(cards) + "]"


def _same_cards(a: Cards, b: Cards) -> bool:
    """The same cards in any order (a row's order does not matter)."""

    if len(a) != len(b):
        return False
    set_a = set(a)
    if set_a != set(b):
        return False
    # Only a row that repeats a card (already an R-CARD-3 finding) needs a multiset test.
    return len(set_a) == len(a) or sorted(c.index for c in a) == sorted(c.index for c in b)


def _join(places: list[str]) -> str:
    streets = [p.removeprefix("street ") for p in places if p.startswith("street ")]
    others = [p for p in places if not p.startswith("street ")]
    parts = ["in Fantasyland" for _ in others[:1]] + (
        [f"on street{'s' if len(streets) > 1 else ''} {', '.join(streets)}"] if streets else []
    )
    return " and ".join(parts)


def is_the_deal(count: int, cards: set[Card], dealt: Cards) -> bool:
    """R-ACT-2: ``count`` cards placed and discarded, ``cards`` the distinct ones, are exactly
    the deal: as many cards, each once, all dealt (for the fast and the full path)."""
    return count == len(dealt) == len(cards) and cards == set(dealt)


def fits(row: Row, count: int) -> bool:
    """R-ACT-3: ``count`` cards fit in ``row`` (3 on top, 5 in the middle and bottom)."""
    return count <= _ROW_SIZE[row]


def rows_fit(rows: dict[Row, list[Card]]) -> bool:
    """R-ACT-3 for a whole board: no row over its size."""
    return (
        len(rows[TOP]) <= _ROW_SIZE[TOP]
        and len(rows[MIDDLE]) <= _ROW_SIZE[MIDDLE]
        and len(rows[BOTTOM]) <= _ROW_SIZE[BOTTOM]
    )


@lru_cache(maxsize=64)
def _hand_ruleset(ruleset: Ruleset, variant: Variant, fl_type: FantasylandType) -> Ruleset:
    """The header overrides the ruleset's variant and Fantasyland type (docs/RULES.md)."""
    return ruleset.with_options(variant=variant, fantasyland=fl_type)


# Attributes read in C (for sorted() and map()): a Seat's or a PlayerResult's seat number and
# name, a Seat's stack.
_seat_of = attrgetter("seat")
_name_of = attrgetter("name")
_stack_of = attrgetter("stack")


class _OffTheFastPath(Exception):
    """A street that is not the clean pattern the fast path replays (see ``_street_fast``)."""


@dataclass
class TableState:
    """What one table's previous hands leave for the next (per file and table name)."""

    hand_id: str
    button_seat: int
    match_id: str | None
    match_hand: int | None
    fl_players: frozenset[str]
    qualifiers: dict[str, int]  # Fantasyland next, computed
    qualifiers_known: bool
    chain_entry: dict[str, int]  # entry count of each player's Fantasyland chain (ultimate)
    stacks: dict[str, int | None] = field(default_factory=dict)  # every player ever seen
    busted: dict[str, str] = field(default_factory=dict)  # player -> hand that busted it
    sat_out: dict[str, str] = field(default_factory=dict)  # effective sit-outs
    pending_sit_out: dict[str, str] = field(default_factory=dict)  # at the end of the match
    disconnected: set[str] = field(default_factory=set)
    # R-MATCH-3: the players of the table's current round and the matches it has had.
    round_players: frozenset[str] = frozenset()
    round_matches: int = 0


class HandState:
    """One hand's replay state and its findings; the rule families (the other modules of
    this package) are its subclasses, each building on the families it calls."""

    def __init__(
        self,
        hand: Hand,
        ruleset: Ruleset,
        previous: TableState | None,
        explain: bool = False,
        fast: bool = True,
    ) -> None:
        self.hand = hand
        header = hand.header
        self.variant = header.variant
        self.fl_type = header.fantasyland
        self.streets, self.deck_size, self.max_players, self.street_cards = _VARIANT_FACTS[
            self.variant
        ]
        self.given_ruleset = ruleset
        # The header overrides the ruleset's variant and Fantasyland type (docs/RULES.md).
        if ruleset.variant is self.variant and ruleset.fantasyland is self.fl_type:
            self.ruleset = ruleset  # nothing to override (the usual case: no hashing)
        else:
            self.ruleset = _hand_ruleset(ruleset, self.variant, self.fl_type)
        self.previous = previous
        self.explain = explain
        # The fast path replays clean streets only and never writes a log (see run()).
        self.fast = fast and not explain
        self.findings: list[Finding] = []
        self.unverifiable: list[str] = []
        self.log: list[Step] = []
        seats = hand.seats
        self.seats: dict[str, Seat] = dict(zip(map(_name_of, seats), seats, strict=True))
        # Action and settlement order: left of the button first, the button last (R-ACT-1).
        by_seat = sorted(seats, key=_seat_of)
        button = hand.table.button_seat
        left = 0
        while left < len(by_seat) and by_seat[left].seat <= button:
            left += 1
        self.order: list[Seat] = by_seat[left:] + by_seat[:left]
        self.fl_players: set[str] = {s.name for s in seats if s.in_fantasyland}
        for section in hand.sections:
            if section.kind is _FANTASYLAND:
                self.fl_players.update(
                    a.player for a in section.actions if not isinstance(a, Event)
                )
        fl_players = self.fl_players
        self.street_players = [
            name for name in map(_name_of, self.order) if name not in fl_players
        ]
        # A clean street (see _street_fast): a deal and a placement for each of these.
        self.street_actions = 2 * len(self.street_players)
        self.boards: dict[str, dict[Row, list[Card]]] = {
            name: {TOP: [], MIDDLE: [], BOTTOM: []} for name in self.seats
        }
        self.seen: dict[Card, int] = {}  # natural cards and jokers -> line first seen
        self.fl_dealt: dict[str, Cards] = {}  # the union of its packets (docs/RULES.md)
        # A player dealt a second whole Fantasyland hand (R-FL-5): its first deal, which is
        # what the site sets automatically for it while disconnected (R-TIME-1).
        self.fl_first_deal: dict[str, Cards] = {}
        self.fl_placed: set[str] = set()
        # Players whose deal size is already a finding (R-DEAL-1 on a street, R-FL-2 in
        # Fantasyland), by where: their placement is not also R-ACT-2 for that size.
        self.wrong_size: set[tuple[str, str]] = set()
        # Players whose placements overflowed a row (R-ACT-3): their SHOWDOWN line cannot
        # match the placements, and that is not reported a second time.
        self.overflowed: set[str] = set()
        self.miscarried: set[str] = set()  # stacks not carried (R-SETTLE-5)
        self.timed_out: set[str] = set()
        self.disconnected: set[str] = set(previous.disconnected) if previous else set()
        self.returned: set[str] = set()
        self.reconnected: set[str] = set()
        self.sits_out: set[str] = set()
        self.hidden_deals: dict[str, list[str]] = {}  # player -> where its deal was hidden
        self.expected_fl: dict[str, int] | None = None  # None: not known
        self.continuation = False
        self.round_players: frozenset[str] = frozenset(self.seats)
        self.round_matches = 1
        # A text that stops before the play is over (see _find_incomplete): the section it
        # stops in, and the (Deal or Placement, player) turns of it that the text never got to.
        self.incomplete: Incomplete | None = None
        self.cut_section: Section | None = None
        self.cut: set[tuple[type, str]] = set()

    def violation(self, rule: str, line: int, player: str | None, message: str) -> None:
        self.findings.append(Finding(rule, line, player, message))
        if self.explain:
            self.log.append(Step(line, f"VIOLATION {rule}: {message}"))

    def note(self, line: int, text: str) -> None:
        if self.explain:
            self.log.append(Step(line, text))

    def cannot_verify(self, sentence: str) -> None:
        if sentence not in self.unverifiable:
            self.unverifiable.append(sentence)

    def _see(self, cards: Iterable[Card], line: int, player: str, verb: str) -> None:
        """R-CARD-3: a card comes into the hand once; R-CARD-2: jokers only in their deck."""
        seen = self.seen
        for card in cards:
            index = card.index
            if index < 0:
                continue  # hidden: never a duplicate of anything
            if index > 51 and self.variant.deck_size < 54:
                self.violation(
                    "R-CARD-2",
                    line,
                    player,
                    f"{card} {verb} {player}: {self.variant.title} is played with the 52-card "
                    "deck, which has no jokers",
                )
            first = seen.get(card)
            if first is not None:
                self.violation(
                    "R-CARD-3",
                    line,
                    player,
                    f"{card} {verb} {player} was already seen at line {first}: no card appears "
                    "twice in one hand",
                )
            else:
                seen[card] = line
