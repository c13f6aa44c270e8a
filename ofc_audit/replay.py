"""The replay engine: every hand of a history replayed as a state machine.

Each action is verified (``_verify_*``) and then applied (``_do_*``); a broken rule becomes a
:class:`~ofc_audit.results.Finding` with its rule id and the engine goes on, so one history
yields every finding, never only the first. Hands of one table are replayed in file order
with a :class:`TableState` that carries what crosses hands: the button, stacks, Fantasyland
qualifications, busted and sat-out players.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import cast

from .board import Board, BoardResult, evaluate_board
from .cards import HIDDEN, JOKERS, Card, format_cards
from .fantasyland import next_fantasyland, standard_count
from .records import (
    ROWS,
    Action,
    Cards,
    Deal,
    Event,
    EventKind,
    Hand,
    Placement,
    Row,
    Seat,
    Section,
    SectionKind,
    SummaryEntry,
    fast_constructor,
)
from .results import (
    Finding,
    HandResult,
    Incomplete,
    Mismatch,
    PairResult,
    PlayerResult,
    Step,
)
from .rules import FantasylandType, Ruleset, Variant
from .scoring import settle_rows

FL_PLACED = 13
_FL_WHERE = "its Fantasyland deal"  # where a Fantasyland placement is, in messages
TOP, MIDDLE, BOTTOM = ROWS
# Enum properties cost a Python call each; the hot path reads the sizes from a dict.
_ROW_SIZE = {row: row.size for row in ROWS}
# Positional constructors of the frozen records built for every hand (a frozen dataclass's
# keyword __init__ costs several times as much; see records.fast_constructor).
_new_board = fast_constructor(Board)
_new_player = fast_constructor(PlayerResult)
_new_pair = fast_constructor(PairResult)
_new_hand_result = fast_constructor(HandResult)
# Enum members the hot paths compare against, read once (an enum class attribute look-up
# costs a few hundred nanoseconds).
_STREET = SectionKind.STREET
_FANTASYLAND = SectionKind.FANTASYLAND
_USES_TIME_BANK = EventKind.USES_TIME_BANK
_NO_TOPUPS: Counter[str] = Counter()
# Per variant: its streets, deck size and most players (Enum properties, read once).
_VARIANT_FACTS = {v: (v.streets, v.deck_size, v.max_players) for v in Variant}
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


def allowed_fantasyland_counts(variant: Variant, fl_type: FantasylandType) -> frozenset[int]:
    """Every count a Fantasyland deal can have under a type (entries and repeats)."""
    if fl_type is FantasylandType.NONE:
        return frozenset()
    counts = {standard_count(variant)}
    if fl_type in (FantasylandType.PROGRESSIVE, FantasylandType.ULTIMATE):
        counts |= {14, 15, 16, 17}
    elif fl_type is FantasylandType.TOURNAMENT:
        counts = {13, 14, 15, 16}
    return frozenset(counts)


def automatic_placement(
    board: dict[Row, list[Card]], dealt: Sequence[Card], place_count: int
) -> tuple[dict[Row, list[Card]], list[Card]]:
    """R-TIME-1: in the order received, each placed card goes to the bottom row while it has
    room, then the middle, then the top; the first ``place_count`` cards are placed."""
    room = {row: row.size - len(board[row]) for row in ROWS}
    rows: dict[Row, list[Card]] = {row: [] for row in ROWS}
    for card in dealt[:place_count]:
        for row in (Row.BOTTOM, Row.MIDDLE, Row.TOP):
            if room[row] > 0:
                rows[row].append(card)
                room[row] -= 1
                break
    return rows, list(dealt[place_count:])


@lru_cache(maxsize=64)
def _hand_ruleset(ruleset: Ruleset, variant: Variant, fl_type: FantasylandType) -> Ruleset:
    """The header overrides the ruleset's variant and Fantasyland type (RULES.md)."""
    return ruleset.with_options(variant=variant, fantasyland=fl_type)


def _by_seat(player: PlayerResult) -> int:
    return player.seat


_player_of = attrgetter("player")  # of an action; in C, for map()


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


class HandReplay:
    """Replays one hand; ``run()`` returns its :class:`HandResult`."""

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
        self.streets, self.deck_size, self.max_players = _VARIANT_FACTS[self.variant]
        self.given_ruleset = ruleset
        # The header overrides the ruleset's variant and Fantasyland type (RULES.md).
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
        self.seats = {seat.name: seat for seat in hand.seats}
        button = hand.table.button_seat
        # Action and settlement order: left of the button first, the button last (R-ACT-1).
        self.order: list[Seat] = sorted(hand.seats, key=lambda s: (s.seat <= button, s.seat))
        self.fl_players: set[str] = {s.name for s in hand.seats if s.in_fantasyland}
        for section in hand.sections:
            if section.kind is _FANTASYLAND:
                self.fl_players.update(
                    a.player for a in section.actions if not isinstance(a, Event)
                )
        self.street_players = [s.name for s in self.order if s.name not in self.fl_players]
        # What a clean street looks like (see _street_fast): who acts, and how, line by line.
        self.street_turns = [name for name in self.street_players for _ in (Deal, Placement)]
        self.street_kinds = [Deal, Placement] * len(self.street_players)
        self.boards: dict[str, dict[Row, list[Card]]] = {
            s.name: {TOP: [], MIDDLE: [], BOTTOM: []} for s in hand.seats
        }
        self.seen: dict[Card, int] = {}  # natural cards and jokers -> line first seen
        self.fl_dealt: dict[str, Cards] = {}  # the union of its packets (RULES.md)
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
        # A text that stops before the play is over (see _find_incomplete): the section it
        # stops in, and the (Deal or Placement, player) turns of it that the text never got to.
        self.incomplete: Incomplete | None = None
        self.cut_section: Section | None = None
        self.cut: set[tuple[type, str]] = set()

    # -- findings ----------------------------------------------------------------------------

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

    # -- cards -------------------------------------------------------------------------------

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

    # -- the hand ----------------------------------------------------------------------------

    def run(self) -> tuple[HandResult, TableState]:
        """Replay the hand. Most hands are clean: their streets take the fast path, which
        checks the same rules for the one pattern a clean street has. At the first thing that
        pattern does not cover, the hand is replayed again from the start on the full path,
        which finds and words every finding (nothing of the first attempt is kept; the
        previous table state is only read)."""
        if not self.fast:
            return self._replay()
        try:
            return self._replay()
        except _OffTheFastPath:
            full = HandReplay(
                self.hand, self.given_ruleset, self.previous, self.explain, fast=False
            )
            return full._replay()

    def _replay(self) -> tuple[HandResult, TableState]:
        hand = self.hand
        if self.explain:
            self.note(
                hand.line,
                f"Hand #{hand.hand_id}: {self.variant.title}, "
                f"Fantasyland {self.fl_type.value}; button seat {hand.table.button_seat}",
            )
        self._check_table()
        self._check_previous_hand()
        if hand.showdown is None and hand.summary is None:
            self.incomplete = self._find_incomplete()
        streets_seen = 0
        fast = self.fast
        for section in hand.sections:
            if section.kind is _STREET:
                streets_seen = section.number or streets_seen
                if fast:
                    self._street_fast(section)
                else:
                    self._street(section)
            else:
                self._fantasyland(section)
        if fast:
            self._check_rows_fast()
        if self.incomplete is not None:
            self.note(self.incomplete.line, f"INCOMPLETE: {self.incomplete.message}")
        self._check_missing_streets(streets_seen)
        self._check_fantasyland_players_dealt()
        self._check_deck_capacity()
        for name, places in self.hidden_deals.items():
            self.cannot_verify(
                f"{name}'s deal is hidden {_join(places)}: that the cards it placed and "
                "discarded are the ones dealt could not be checked (R-ACT-2)"
            )
        boards = self._final_boards()
        result, state = self._results(boards)
        return result, state

    # -- table-level checks ------------------------------------------------------------------

    def _check_table(self) -> None:
        hand, variant = self.hand, self.variant
        n = len(hand.seats)
        if not 2 <= n <= self.max_players:
            self.violation(
                "R-DEAL-2",
                hand.table.line,
                None,
                f"{n} players dealt in; {variant.title} is played by 2 to {variant.max_players}",
            )
        for seat in hand.seats:
            if seat.seat < 1 or seat.seat > hand.table.max_seats:
                self.violation(
                    "R-DEAL-2",
                    seat.line,
                    seat.name,
                    f"seat {seat.seat} is beyond the table's {hand.table.max_seats}-max",
                )

    def _check_deck_capacity(self) -> None:
        street_cards = sum(dealt for dealt, _ in self.streets)
        needed = street_cards * len(self.street_players)
        for name in self.fl_players:
            owed = self._expected_fl_count(name)
            needed += owed if owed is not None else len(self.fl_dealt.get(name, ())) or FL_PLACED
        if needed > self.deck_size:
            self.violation(
                "R-DEAL-2",
                self.hand.table.line,
                None,
                f"the hand needs {needed} cards but the {self.variant.title} deck has "
                f"{self.variant.deck_size}",
            )

    def _check_previous_hand(self) -> None:
        """Match continuation, Fantasyland qualification, button, stacks, busted, sat out."""
        hand, prev = self.hand, self.previous
        match = hand.match
        fl_rule_for = self._fl_rule_for
        if match is not None:
            self.continuation = match.hand_number >= 2
        else:
            self.continuation = bool(self.fl_players) or bool(prev and prev.qualifiers)

        if prev is None:
            if self.continuation and match is not None:
                self.cannot_verify(
                    f"hand {match.hand_number} of match {match.match_id}: the match's previous "
                    "hand is not in the input, so the Fantasyland qualifications, the button and "
                    "the stacks carried into this hand could not be checked"
                )
        else:
            if match is not None and match.hand_number >= 2:
                if prev.match_id != match.match_id or (
                    prev.match_hand is not None and prev.match_hand != match.hand_number - 1
                ):
                    self.violation(
                        "R-MATCH-1",
                        match.line,
                        None,
                        f"hand {match.hand_number} of match {match.match_id} does not follow "
                        f"hand {match.hand_number - 1} of that match (the table's previous hand "
                        f"#{prev.hand_id} is "
                        + (
                            f"hand {prev.match_hand} of match {prev.match_id})"
                            if prev.match_id
                            else "not part of a match)"
                        ),
                    )
                elif prev.qualifiers_known and not prev.qualifiers:
                    self.violation(
                        "R-MATCH-1",
                        match.line,
                        None,
                        f"hand {match.hand_number} of match {match.match_id} continues the match "
                        f"but nobody qualified for Fantasyland in hand #{prev.hand_id}",
                    )
            if prev.qualifiers_known:
                self.expected_fl = dict(prev.qualifiers) if self.continuation else {}
                for name, count in prev.qualifiers.items():
                    if name in self.seats and name not in self.fl_players:
                        self.violation(
                            fl_rule_for(name),
                            self.seats[name].line,
                            name,
                            f"{name} qualified for a {count}-card Fantasyland in hand "
                            f"#{prev.hand_id} but plays the streets",
                        )
            else:
                self.cannot_verify(
                    f"the Fantasyland qualifications of hand #{prev.hand_id} are unknown, so "
                    "who plays this hand in Fantasyland could not be checked"
                )
            self._check_button(prev)
            self._check_stacks(prev)
        self._check_busted(prev)
        if match is not None and match.hand_number == 1:
            self.expected_fl = {}  # hand 1 opens a match: nobody can have qualified into it
        self._check_fantasyland_seats()

    def _fl_rule_for(self, name: str) -> str:
        """R-FL-3 for a player who was already in Fantasyland, else R-FL-1."""
        prev = self.previous
        return "R-FL-3" if prev is not None and name in prev.fl_players else "R-FL-1"

    def _check_button(self, prev: TableState) -> None:
        table = self.hand.table
        fl_hand = self.continuation and bool(self.fl_players)
        seats = sorted(s.seat for s in self.hand.seats)
        # R-FL-4: the button stays for a Fantasyland hand, unless its seat is empty now (its
        # player busted or left): then it moves as R-MATCH-2 says, and that is no violation.
        stays = (
            fl_hand
            and not self.ruleset.button_moves_on_fantasyland
            and prev.button_seat in seats
        )
        if stays:
            expected, rule = prev.button_seat, "R-FL-4"
            why = "the button stays for a Fantasyland hand"
        else:
            later = [s for s in seats if s > prev.button_seat]
            expected = later[0] if later else seats[0]
            rule = "R-FL-4" if fl_hand else "R-MATCH-2"
            why = "the button moves one occupied seat clockwise"
            if fl_hand and not self.ruleset.button_moves_on_fantasyland:
                why = (
                    f"seat {prev.button_seat} is empty, so the button cannot stay for the "
                    "Fantasyland hand and moves one occupied seat clockwise"
                )
        if table.button_seat != expected:
            self.violation(
                rule,
                table.line,
                None,
                f"the button is on seat {table.button_seat}; {why}, so after hand "
                f"#{prev.hand_id} (button seat {prev.button_seat}) it belongs on seat {expected}",
            )

    def _check_stacks(self, prev: TableState) -> None:
        # Most hands have no top-up: they share one empty Counter (only ever read).
        topups = Counter[str]() if self.hand.topups else _NO_TOPUPS
        for topup in self.hand.topups:
            topups[topup.player] += topup.amount
        stacks, sat_out = prev.stacks, prev.sat_out
        for seat in self.hand.seats:
            name = seat.name
            if name in sat_out and not self._returns_before_deal(name):
                self.violation(
                    "R-TIME-3",
                    seat.line,
                    name,
                    f"{name} sat out after hand #{prev.sat_out[name]} and is dealt in without a "
                    "'returns' line",
                )
            carried = stacks.get(name)
            if carried == seat.stack and not topups:
                continue  # the common case: the stack carried over, no top-up
            if name in stacks:
                if carried is None:
                    self.cannot_verify(
                        f"{name}'s stack at the end of its previous hand is unknown, so the "
                        "stack carried into this hand could not be checked"
                    )
                elif carried + topups[name] != seat.stack:
                    self.miscarried.add(name)
                    extra = (
                        f", plus a top-up of {topups[name]}: {carried + topups[name]}"
                        if topups[name]
                        else ""
                    )
                    self.violation(
                        "R-SETTLE-5",
                        seat.line,
                        name,
                        f"{name} starts with {seat.stack} but ended its previous hand at this "
                        f"table with {carried}{extra}",
                    )

    def _check_busted(self, prev: TableState | None) -> None:
        """R-SETTLE-4: a player busted in an earlier hand of the table, or a seat line with a
        stack of 0 or less (busted, even when the hand that busted it is not in the input)."""
        busted = prev.busted if prev is not None else {}
        for seat in self.hand.seats:
            name = seat.name
            if name in busted:
                self.violation(
                    "R-SETTLE-4",
                    seat.line,
                    name,
                    f"{name} busted in hand #{busted[name]} and is dealt no further hands "
                    "at this table",
                )
            elif seat.stack <= 0 and name not in self.miscarried:
                # (A stack not carried is R-SETTLE-5 alone: the seat line's 0 is that fault.)
                self.violation(
                    "R-SETTLE-4",
                    seat.line,
                    name,
                    f"{name} is dealt in with a stack of {seat.stack}: a player whose stack "
                    "reaches 0 or less is busted and is dealt no further hands at this table",
                )

    def _returns_before_deal(self, name: str) -> bool:
        for section in self.hand.sections:
            for action in section.actions:
                if action.player != name:
                    continue
                if isinstance(action, Event) and action.kind is EventKind.RETURNS:
                    return True
                if isinstance(action, Deal):
                    return False
        return False

    def _check_fantasyland_seats(self) -> None:
        if not self.fl_players:
            return
        fl_rule_for = self._fl_rule_for
        for name in sorted(self.fl_players, key=lambda n: self.seats[n].seat):
            seat = self.seats[name]
            if self.fl_type is FantasylandType.NONE:
                self.violation(
                    "R-FL-1",
                    seat.line,
                    name,
                    f"{name} is in Fantasyland but the game is played without Fantasyland",
                )
                continue
            expected = self.expected_fl
            if expected is None:
                if self.previous is None:
                    self.cannot_verify(
                        f"whether {name} qualified for Fantasyland: the previous hand of the "
                        "match is not in the input"
                    )
                continue
            if name not in expected:
                self.violation(
                    fl_rule_for(name),
                    seat.line,
                    name,
                    f"{name} plays Fantasyland without having qualified in hand "
                    f"#{self.previous.hand_id if self.previous else '?'}",
                )
            elif seat.fantasyland_cards is not None and seat.fantasyland_cards != expected[name]:
                self.violation(
                    "R-FL-2",
                    seat.line,
                    name,
                    f"{name}'s seat says {seat.fantasyland_cards} Fantasyland cards; it earned "
                    f"{expected[name]} ({self.fl_type.value} Fantasyland)",
                )

    def _expected_fl_count(self, name: str) -> int | None:
        if self.expected_fl is not None and name in self.expected_fl:
            return self.expected_fl[name]
        return self.seats[name].fantasyland_cards

    # -- streets -----------------------------------------------------------------------------

    def _street_fast(self, section: Section) -> None:
        """A clean street, or _OffTheFastPath. Clean: each street player in turn (left of the
        button first) is dealt the street's count of cards, none seen before in the hand, then
        places exactly that deal (the street's count placed, the rest discarded); only "uses
        time bank" events come between; nobody has timed out or is disconnected. That is every
        check of ``_street`` passing, with the same effects. Two checks wait until the streets
        are over (``_check_rows_fast``): the rows' room (R-ACT-3), and that no card dealt was
        hidden or a joker outside its deck.

        Work done before an irregularity is found is dropped with the whole attempt, which
        lets effects come before checks, and whole lists be compared at once (in C)."""
        k = section.number or 0
        streets = self.streets
        if not 0 < k <= len(streets) or self.timed_out or self.disconnected:
            raise _OffTheFastPath
        size, place = streets[k - 1]
        actions: Sequence[Action] = section.actions
        turns = self.street_turns
        if len(actions) != len(turns):
            # "uses time bank" is the only event a clean street has, and it changes nothing.
            if any(isinstance(a, Event) and a.kind is not _USES_TIME_BANK for a in actions):
                raise _OffTheFastPath
            actions = [a for a in actions if not isinstance(a, Event)]
        # Deal, placement, deal, placement... each player in turn, twice in a row.
        if [*map(type, actions)] != self.street_kinds or [*map(_player_of, actions)] != turns:
            raise _OffTheFastPath
        deals = cast("list[Deal]", actions[0::2])
        seen = self.seen
        known_before = len(seen)
        for deal in deals:
            if len(deal.cards) != size:
                raise _OffTheFastPath
            seen.update(dict.fromkeys(deal.cards, deal.line))
        if len(seen) != known_before + size * len(deals):
            raise _OffTheFastPath  # a card seen before, or twice in the street
        boards = self.boards
        for deal, placement in zip(deals, cast("list[Placement]", actions[1::2]), strict=True):
            board = boards[deal.player]
            discards = placement.discards or ()
            # Placed + discarded must be the deal: as many cards, all distinct, all dealt.
            cards = set(discards)
            count = len(discards)
            for row, row_cards in placement.rows:
                board[row].extend(row_cards)
                cards.update(row_cards)
                count += len(row_cards)
            if (
                count != size
                or count - len(discards) != place
                or len(cards) != size
                or not cards.issuperset(deal.cards)
            ):
                raise _OffTheFastPath

    def _check_rows_fast(self) -> None:
        """The fast path's last checks, once the streets are over. R-ACT-3: rows only grow, so
        a row that ever held too many cards still does at the end. R-CARD-2 and hidden deals:
        every card seen stays in ``seen``."""
        if not _NOT_DEALT_FROM[self.deck_size].isdisjoint(self.seen):
            raise _OffTheFastPath
        for rows in self.boards.values():
            if len(rows[TOP]) > 3 or len(rows[MIDDLE]) > 5 or len(rows[BOTTOM]) > 5:
                raise _OffTheFastPath

    def _street(self, section: Section) -> None:
        k = section.number or 0
        streets = self.variant.streets
        if self.explain:
            self.note(section.line, f"*** STREET {k} ***")
        if k > len(streets):
            self.violation(
                "R-DEAL-1",
                section.line,
                None,
                f"{self.variant.title} has {len(streets)} streets; there is no street {k}",
            )
            size, place = streets[-1]
        else:
            size, place = streets[k - 1]
        dealt: dict[str, Deal] = {}
        placed: set[str] = set()
        for action in section.actions:
            name = action.player
            if isinstance(action, Event):
                self._event(action)
                continue
            if name in self.fl_players:
                self.violation(
                    "R-ACT-4",
                    action.line,
                    name,
                    f"{name} is in Fantasyland and takes no part in the streets",
                )
                self._see(
                    action.cards
                    if isinstance(action, Deal)
                    else action.placed + (action.discards or ()),
                    action.line,
                    name,
                    "on a street by",
                )
                continue
            if isinstance(action, Deal):
                self._street_deal(action, k, size, dealt, placed)
            else:
                self._street_place(action, k, size, place, dealt, placed)
        cut = self.cut if section is self.cut_section else ()
        for name in self.street_players:
            if name not in dealt:
                if (Deal, name) not in cut:
                    self.violation(
                        "R-ACT-1", section.line, name, f"{name} is not dealt on street {k}"
                    )
            elif name not in placed and (Placement, name) not in cut:
                self.violation(
                    "R-ACT-2",
                    dealt[name].line,
                    name,
                    f"{name} is dealt on street {k} but places nothing",
                )

    def _street_deal(
        self, deal: Deal, k: int, size: int, dealt: dict[str, Deal], placed: set[str]
    ) -> None:
        name = deal.player
        if name in dealt:
            self.violation("R-ACT-1", deal.line, name, f"{name} is dealt twice on street {k}")
        else:
            players = self.street_players
            expected = players[len(dealt)] if len(dealt) < len(players) else None
            if expected is not None and expected in dealt:  # an earlier deal was out of turn
                expected = next((p for p in players if p not in dealt), None)
            waiting = [expected] if expected is not None else []
            if waiting and waiting[0] != name:
                self.violation(
                    "R-ACT-1",
                    deal.line,
                    name,
                    f"{name} is dealt out of turn on street {k}: {waiting[0]} acts first "
                    "(left of the button first, the button last)",
                )
            unplaced = [p for p in dealt if p not in placed] if len(placed) < len(dealt) else []
            if unplaced:
                self.violation(
                    "R-ACT-1",
                    deal.line,
                    name,
                    f"{name} is dealt before {unplaced[0]} has placed on street {k}",
                )
            dealt[name] = deal
        if len(deal.cards) != size:
            self.wrong_size.add((name, f"street {k}"))
            self.violation(
                "R-DEAL-1",
                deal.line,
                name,
                f"{name} is dealt {len(deal.cards)} cards on street {k}; {self.variant.title} "
                f"deals {size}",
            )
        self._see(deal.cards, deal.line, name, "dealt to")
        if self.explain:
            self.note(deal.line, f"{name} is dealt {_cards(deal.cards)}")

    def _street_place(
        self,
        placement: Placement,
        k: int,
        size: int,
        place: int,
        dealt: dict[str, Deal],
        placed: set[str],
    ) -> None:
        name = placement.player
        deal = dealt.get(name)
        first = deal is not None and name not in placed
        if deal is None:
            self.violation(
                "R-ACT-2", placement.line, name, f"{name} places cards without a deal on street {k}"
            )
            self._see(
                placement.placed + (placement.discards or ()), placement.line, name, "placed by"
            )
        elif not first:
            self.violation("R-ACT-2", placement.line, name, f"{name} places twice on street {k}")
        else:
            self._check_placement(placement, deal.cards, place, f"street {k}")
        placed.add(name)
        # A placement that is already a finding (no deal, a second one) does not also overflow
        # the row (R-ACT-3): its cards are applied, as the history has them, without a word.
        self._apply(placement, report_overflow=first)

    def _check_placement(
        self,
        placement: Placement,
        dealt: Cards,
        place: int,
        where: str,
        count_rule: str = "R-ACT-2",
        auto_dealt: Cards | None = None,
    ) -> None:
        """R-ACT-2 (placed + discarded = the deal), R-TIME-1/2 (automatic placement); the
        count placed under ``count_rule`` (R-FL-2 in Fantasyland: "not 13 placed").
        ``auto_dealt``: the cards an automatic placement is taken from, when not the whole of
        ``dealt`` (the first of two whole Fantasyland deals, R-FL-5)."""
        name = placement.player
        placed_rows = placement.rows
        cards = placed_rows[0][1] if len(placed_rows) == 1 else placement.placed
        discards = placement.discards or ()
        if len(cards) != place:
            self.violation(
                count_rule,
                placement.line,
                name,
                f"{name} places {len(cards)} cards on {where}; {place} must be placed"
                + (" (all of street 1)" if where == "street 1" else ""),
            )
        # Placed + discarded must be the deal, unless that follows from a finding already
        # made: a deal of the wrong size (the placement is then held to the variant's count
        # of cards from that deal, each once), or the count placed with the right discards.
        miscounted = len(cards) != place and len(discards) == len(dealt) - place
        if (
            len(cards) + len(discards) != len(dealt)
            and not miscounted
            and (name, where) not in self.wrong_size
        ):
            self.violation(
                "R-ACT-2",
                placement.line,
                name,
                f"{name} places {len(cards)} and discards {len(discards)} of the "
                f"{len(dealt)} cards dealt on {where}",
            )
        deal_known = HIDDEN not in dealt
        both = cards + discards
        dealt_set = set(dealt)
        if deal_known and len(both) == len(dealt) == len(dealt_set) and set(both) == dealt_set:
            pass  # the common case: exactly the deal, each card once (sets are C-fast)
        elif deal_known:
            remaining = list(dealt)
            for card in cards + discards:
                if card.index < 0:
                    continue
                if card in remaining:
                    remaining.remove(card)
                    continue
                verb = "places" if card in cards else "discards"
                # A card from somewhere else in the hand is this one fault (R-ACT-2), named
                # once: not a second finding (R-CARD-3) for the same card on the same line.
                first_seen = self.seen.get(card) if card.index >= 0 else None
                self.violation(
                    "R-ACT-2",
                    placement.line,
                    name,
                    f"{name} {verb} {card}, which was not dealt to {name} on {where} "
                    f"{_cards(dealt)}"
                    + (f" (it was seen at line {first_seen})" if first_seen is not None else ""),
                )
                if first_seen is None:
                    self._see([card], placement.line, name, f"{verb[:-1]}d by")
        else:
            # The deal is hidden from the history's writer: what it shows now is new to it.
            self._see(cards + discards, placement.line, name, "placed by")
            self.hidden_deals.setdefault(name, []).append(where)
        auto_rule = None
        if name in self.disconnected:
            auto_rule = "R-TIME-2"
        elif name in self.timed_out:
            auto_rule = "R-TIME-1"
        self.timed_out.discard(name)
        if auto_rule is None:
            return
        if not deal_known:
            self.cannot_verify(
                f"{name}'s automatic placement on {where}: the deal is hidden, so it could not "
                "be checked against R-TIME-1"
            )
            return
        rows, auto_discards = automatic_placement(
            self.boards[name], dealt if auto_dealt is None else auto_dealt, place
        )
        got = {row: Counter(placement.cards_for(row)) for row in ROWS}
        if got != {row: Counter(rows[row]) for row in ROWS} or Counter(discards) != Counter(
            auto_discards
        ):
            want = " ".join(f"{row.value} {_cards(rows[row])}" for row in ROWS if rows[row])
            self.violation(
                auto_rule,
                placement.line,
                name,
                f"{name}'s automatic placement on {where} should be {want}"
                + (f", discards {_cards(auto_discards)}" if auto_discards else "")
                + " (in the order received, bottom while it has room, then middle, then top)",
            )

    def _apply(self, placement: Placement, report_overflow: bool = True) -> None:
        board = self.boards[placement.player]
        for row, cards in placement.rows:
            have = board[row]
            if len(have) + len(cards) > _ROW_SIZE[row]:
                self.overflowed.add(placement.player)
                if not report_overflow:
                    have.extend(cards)
                    continue
                self.violation(
                    "R-ACT-3",
                    placement.line,
                    placement.player,
                    f"{placement.player}'s {row.value} row would hold "
                    f"{len(have) + len(cards)} cards; it holds {row.size}",
                )
            have.extend(cards)
        if self.explain:
            shown = " / ".join(format_cards(board[row]) or "-" for row in ROWS)
            text = " ".join(f"{row.value} {_cards(cards)}" for row, cards in placement.rows)
            if placement.discards:
                text += f", discards {_cards(placement.discards)}"
            self.note(placement.line, f"{placement.player} places {text}; board now {shown}")

    def _event(self, event: Event) -> None:
        name, kind = event.player, event.kind
        if kind is EventKind.TIMES_OUT:
            self.timed_out.add(name)
        elif kind is EventKind.DISCONNECTS:
            self.disconnected.add(name)
        elif kind is EventKind.RECONNECTS:
            self.disconnected.discard(name)
            self.reconnected.add(name)
        elif kind is EventKind.SITS_OUT:
            self.sits_out.add(name)
        elif kind is EventKind.RETURNS:
            self.returned.add(name)
            self.sits_out.discard(name)
        if self.explain:
            self.note(event.line, f"{name} {kind.value}")

    def _check_missing_streets(self, streets_seen: int) -> None:
        if not self.street_players or self.incomplete is not None:
            return  # an incomplete hand's missing streets are its Incomplete record
        for k in range(streets_seen + 1, len(self.streets) + 1):
            for name in self.street_players:
                self.violation(
                    "R-ACT-1",
                    self.hand.line,
                    name,
                    f"{name} is not dealt on street {k}: the history has no street {k}",
                )

    # -- a history cut off --------------------------------------------------------------------

    def _find_incomplete(self) -> Incomplete | None:
        """A hand with no SHOWDOWN and no SUMMARY whose text stops before the play is over:
        the section it stops in lacks its last turns, later streets are absent, or a
        Fantasyland player's section is absent. What is missing lies after the last line, so
        it is reported once, as missing, and blames nobody. A turn missing before a later one
        that is present (a gap) is no cut: R-ACT-1 or R-ACT-2 as on any hand."""
        sections = self.hand.sections
        missing: list[str] = []
        details = ""
        last = sections[-1] if sections else None
        if last is not None:
            cut = self._cut_turns(last)
            if cut:
                self.cut_section, self.cut = last, set(cut)
                where = "FANTASYLAND" if last.kind is _FANTASYLAND else f"street {last.number}"
                missing.append(f"rest of {where}")
                details = f" (the rest of {where}: {self._describe_turns(cut)})"
        if self.street_players:
            numbers = [s.number or 0 for s in sections if s.kind is _STREET]
            first_absent = max(numbers, default=0) + 1
            missing += [f"street {k}" for k in range(first_absent, len(self.streets) + 1)]
        if self.fl_players and all(s.kind is not _FANTASYLAND for s in sections):
            missing.append("FANTASYLAND")
        if not missing:
            return None
        missing += ["SHOWDOWN", "SUMMARY"]
        line = self._last_line()
        message = (
            f"the history stops at line {line}; missing: {', '.join(missing)}{details}. "
            "Nobody is at fault for what the text does not hold: no result is computed for "
            "this hand, and nothing is checked across it"
        )
        return Incomplete(line, tuple(missing), message)

    def _cut_turns(self, section: Section) -> list[tuple[type, str]]:
        """The turns of the section the text stops in that come after its last line."""
        actions = [a for a in section.actions if not isinstance(a, Event)]
        if section.kind is _FANTASYLAND:
            # Fantasyland players act in no order: whoever has not finished was cut off.
            fl_order = [s.name for s in self.order if s.name in self.fl_players]
            done = {(type(a), a.player) for a in actions}
            return [
                (kind, name)
                for name in fl_order
                for kind in (Deal, Placement)
                if (kind, name) not in done
            ]
        turns = list(zip(self.street_kinds, self.street_turns, strict=True))
        position = {turn: i for i, turn in enumerate(turns)}
        last = max((position.get((type(a), a.player), -1) for a in actions), default=-1)
        return turns[last + 1:]

    @staticmethod
    def _describe_turns(turns: list[tuple[type, str]]) -> str:
        by_player: dict[str, list[str]] = {}
        for kind, name in turns:
            by_player.setdefault(name, []).append("deal" if kind is Deal else "placement")
        return "; ".join(f"{name}'s {' and '.join(kinds)}" for name, kinds in by_player.items())

    def _last_line(self) -> int:
        """The last line of the hand's text (comments and blank lines aside)."""
        hand = self.hand
        lines = [hand.line, hand.table.line]
        lines += [s.line for s in hand.seats] + [t.line for t in hand.topups]
        for section in hand.sections:
            lines.append(section.line)
            lines += [a.line for a in section.actions]
        return max(lines)

    # -- Fantasyland -------------------------------------------------------------------------

    def _fantasyland(self, section: Section) -> None:
        self.note(section.line, "*** FANTASYLAND ***")
        # A deal written in several packets is one deal, their union (RULES.md, "Which rule a
        # finding cites"): one R-FL-5, and the union is checked for its count (R-FL-2), its
        # placement (R-ACT-2) and its cards (R-CARD-3, each packet's cards seen once).
        packets: dict[str, list[Deal]] = {}
        for action in section.actions:
            if isinstance(action, Deal):
                packets.setdefault(action.player, []).append(action)
        for action in section.actions:
            name = action.player
            if isinstance(action, Event):
                self._event(action)
                continue
            if isinstance(action, Deal):
                mine = packets[name]
                complete = self._complete_fl_packets(name, mine)
                if action is mine[0]:
                    union = tuple(card for packet in mine for card in packet.cards)
                    self.fl_dealt[name] = union
                    if complete is None:
                        self._check_fl_deal(name, len(union), action.line)
                    else:
                        # A whole deal, then more: a second deal (R-FL-5 alone), not a wrong
                        # count; the placement is held to the cards dealt, not to their number,
                        # and an automatic placement to the first deal (the site sets the first
                        # 13 cards received and discards the rest of that deal).
                        self.wrong_size.add((name, _FL_WHERE))
                        self.fl_first_deal[name] = union[:complete]
                elif action is mine[1]:
                    lines = ", ".join(str(packet.line) for packet in mine)
                    total = len(self.fl_dealt[name])
                    self.violation(
                        "R-FL-5",
                        action.line,
                        name,
                        f"{name}'s Fantasyland cards are dealt in {len(mine)} packets (lines "
                        f"{lines}, {total} cards in all); all its cards come at once"
                        if complete is None
                        else f"{name} is dealt again in Fantasyland (lines {lines}, {total} "
                        f"cards in all) after a whole deal of {complete} cards; all its cards "
                        "come at once, in one deal",
                    )
                self._see(action.cards, action.line, name, "dealt to")
                if self.explain:
                    self.note(action.line, f"{name} is dealt {_cards(action.cards)} (Fantasyland)")
                continue
            dealt_cards = self.fl_dealt.get(name)
            if name in self.fl_placed:
                self.violation(
                    "R-FL-5",
                    action.line,
                    name,
                    f"{name} places twice in Fantasyland; the whole hand is set in one action",
                )
                self._apply(action, report_overflow=False)  # one fault: no R-ACT-3 besides
                continue
            elif dealt_cards is None:
                self.violation(
                    "R-ACT-2",
                    action.line,
                    name,
                    f"{name} places Fantasyland cards without a Fantasyland deal",
                )
                self._see(action.placed + (action.discards or ()), action.line, name, "placed by")
            else:
                # Not 13 placed is R-FL-2 ("Which rule a finding cites"), once; a row over its
                # size with 13 placed is R-ACT-3, from _apply.
                self._check_placement(
                    action, dealt_cards, FL_PLACED, _FL_WHERE, "R-FL-2",
                    self.fl_first_deal.get(name),
                )
            self.fl_placed.add(name)
            self._apply(action, report_overflow=dealt_cards is not None)

    def _fl_count_ok(self, name: str, count: int) -> bool:
        expected = self._expected_fl_count(name)
        if expected is not None:
            return count == expected
        allowed = allowed_fantasyland_counts(self.variant, self.fl_type)
        return not allowed or count in allowed

    def _complete_fl_packets(self, name: str, packets: list[Deal]) -> int | None:
        """When the packets' union has a wrong count but is two whole deals, each of a right
        count (the first packets, then the rest), the first deal's count: the player was
        dealt twice (R-FL-5), which says all there is; the union's count is no second fault
        (R-FL-2). None otherwise: one packet, a union of the right count, or packets that
        are not two whole deals (a whole deal and a few cards more is a deal of the wrong
        count, in packets: R-FL-2 on the union, and R-FL-5)."""
        if len(packets) < 2:
            return None
        total = sum(len(packet.cards) for packet in packets)
        if self._fl_count_ok(name, total):
            return None
        count = 0
        for packet in packets[:-1]:
            count += len(packet.cards)
            if self._fl_count_ok(name, count) and self._fl_count_ok(name, total - count):
                return count
        return None

    def _check_fl_deal(self, name: str, count: int, line: int) -> None:
        """R-FL-2: the count of a player's whole Fantasyland deal (all its packets)."""
        expected = self._expected_fl_count(name)
        if expected is not None and count != expected:
            self.wrong_size.add((name, _FL_WHERE))
            self.violation(
                "R-FL-2",
                line,
                name,
                f"{name} is dealt {count} Fantasyland cards; {self.fl_type.value} Fantasyland "
                f"gives it {expected}",
            )
        allowed = allowed_fantasyland_counts(self.variant, self.fl_type)
        if expected is None and allowed and count not in allowed:
            self.wrong_size.add((name, _FL_WHERE))
            self.violation(
                "R-FL-2",
                line,
                name,
                f"{name} is dealt {count} Fantasyland cards; {self.fl_type.value} Fantasyland "
                f"deals {', '.join(str(c) for c in sorted(allowed))}",
            )

    def _check_fantasyland_players_dealt(self) -> None:
        incomplete = self.incomplete
        for name in self.fl_players:
            if name not in self.fl_dealt:
                if incomplete is not None and (
                    "FANTASYLAND" in incomplete.missing or (Deal, name) in self.cut
                ):
                    continue  # the text stops before its deal: missing, not a fault
                self.violation(
                    "R-ACT-1",
                    self.seats[name].line,
                    name,
                    f"{name} is in Fantasyland but is never dealt its Fantasyland cards",
                )

    # -- showdown and results ----------------------------------------------------------------

    def _final_boards(self) -> dict[str, Board]:
        """The placements, with hidden cards revealed by a matching SHOWDOWN line."""
        new_board = _new_board
        boards = {
            name: new_board(tuple(rows[TOP]), tuple(rows[MIDDLE]), tuple(rows[BOTTOM]))
            for name, rows in self.boards.items()
        }
        showdown = self.hand.showdown
        if showdown is None:
            return boards
        self.note(showdown.line, "*** SHOWDOWN ***")
        for shown in showdown.boards:
            name = shown.player
            if shown.mucked or shown.top is None or shown.middle is None or shown.bottom is None:
                continue
            replayed = boards[name]
            shown_rows = (shown.top, shown.middle, shown.bottom)
            if shown_rows == (replayed.top, replayed.middle, replayed.bottom):
                # The common case: shown as placed, in the same order (cards are interned, so
                # this is an identity test). Any hidden cards stay hidden: nothing to reveal.
                continue
            revealed: list[Cards] = []
            differs = False
            for placed, seen in zip(replayed.rows, shown_rows, strict=True):
                if len(seen) != len(placed):
                    differs = True
                    revealed.append(placed)
                    continue
                if HIDDEN not in placed:
                    if not _same_cards(placed, seen):
                        differs = True
                    revealed.append(placed)
                    continue
                known = [c for c in placed if c is not HIDDEN]
                rest = list(seen)
                for card in known:
                    if card in rest:
                        rest.remove(card)
                    else:
                        differs = True
                if differs:
                    revealed.append(placed)
                    continue
                self._see(rest, shown.line, name, "shown at showdown by")
                revealed.append(seen)
            if differs and name not in self.overflowed:
                self.violation(
                    "R-ACT-3",
                    shown.line,
                    name,
                    f"{name}'s showdown board {Board(*shown_rows)} differs from its placements "
                    f"{replayed}; the placements are scored",
                )
            boards[name] = Board(revealed[0], revealed[1], revealed[2])
        return boards

    def _results(self, boards: dict[str, Board]) -> tuple[HandResult, TableState]:
        hand, prev = self.hand, self.previous
        ruleset, variant, fl_type = self.ruleset, self.variant, self.fl_type
        known = self.seen.keys()  # read only when jokers are assigned under `known`
        order = self.order
        # Per player in settlement order: its final board and result (None: not fully known).
        ordered_boards = [boards[seat.name] for seat in order]
        ordered: list[BoardResult | None] = []
        for seat, board in zip(order, ordered_boards, strict=True):
            if self.incomplete is not None:
                ordered.append(None)  # the boards are unfinished because the text stops
            elif HIDDEN in board.top or HIDDEN in board.middle or HIDDEN in board.bottom:
                ordered.append(None)
                self.cannot_verify(
                    f"{seat.name}'s board is not fully known ({board}): its foul, royalties, "
                    "points and stack after the hand could not be computed"
                )
            else:
                ordered.append(evaluate_board(board, ruleset, known))
        points, settled_pairs, stacks_after = settle_rows(
            ordered, ruleset, [s.stack for s in order]
        )
        chain_entry = prev.chain_entry if prev else {}
        fl_players, fl_dealt = self.fl_players, self.fl_dealt
        players: list[PlayerResult] = []
        qualifiers: dict[str, int] = {}
        qualifiers_known = True
        new_chain: dict[str, int] = {}
        new_player = _new_player
        for i, seat in enumerate(order):
            name = seat.name
            result = ordered[i]
            in_fl = name in fl_players
            entry = chain_entry.get(name) if in_fl else None
            if in_fl and entry is None:
                entry = len(fl_dealt.get(name, ())) or seat.fantasyland_cards
            fl_next: int | None = None
            if result is None:
                qualifiers_known = False
            else:
                fl_next = next_fantasyland(result, variant, fl_type, in_fl, entry)
                if fl_next is not None:
                    qualifiers[name] = fl_next
                    new_chain[name] = entry if in_fl and entry is not None else fl_next
            # Positional, in PlayerResult's field order: name, seat, position, in_fantasyland,
            # board, result, points, stack_before, stack_after, fantasyland_next (+ known).
            players.append(
                new_player(
                    name,
                    seat.seat,
                    i,
                    in_fl,
                    ordered_boards[i],
                    result,
                    points[i],
                    seat.stack,
                    stacks_after[i] if stacks_after else None,
                    fl_next,
                    result is not None,
                )
            )
        names = [seat.name for seat in order]
        new_pair = _new_pair
        pairs = tuple(
            new_pair(names[a], names[b], rows, scoop, royalties, points_a, transfer)
            for a, b, rows, scoop, royalties, points_a, transfer in settled_pairs
        )
        mismatches = self._compare_summary(players)
        by_seat = tuple(sorted(players, key=_by_seat))
        match = hand.match
        header = hand.header
        result_record = _new_hand_result(
            hand.file,
            header.line,
            header.hand_id,
            match.match_id if match else None,
            match.hand_number if match else None,
            hand.table.name,
            variant,
            fl_type,
            header.stake,
            header.timestamp,
            hand.table.button_seat,
            by_seat,
            pairs,
            tuple(self.findings),
            tuple(mismatches),
            tuple(self.unverifiable),
            tuple(self.log),
            hand.summary.line if hand.summary else None,
            self.incomplete,
        )
        return result_record, self._next_state(players, qualifiers, qualifiers_known, new_chain)

    def _next_state(
        self,
        players: list[PlayerResult],
        qualifiers: dict[str, int],
        qualifiers_known: bool,
        chain: dict[str, int],
    ) -> TableState:
        hand, prev = self.hand, self.previous
        # A state's dictionaries are never changed once it is made, so the busted, sat-out
        # and pending ones are shared with the previous state until a hand changes them.
        stacks = dict(prev.stacks) if prev else {}
        busted = prev.busted if prev else {}
        sat_out = prev.sat_out if prev else {}
        pending = prev.pending_sit_out if prev else {}
        for p in players:
            after = p.stack_after
            if after is None and hand.summary:
                for entry in hand.summary.entries:
                    if entry.player == p.name:
                        after = entry.stack_after  # the site's word, when ours is unknown
            stacks[p.name] = after
            if after is not None and after <= 0 and p.name not in busted:
                busted = {**busted, p.name: hand.hand_id}
        # R-TIME-3: a sit-out, or a player still disconnected at the end of a hand, takes
        # effect when the match ends, i.e. after a hand that earns nobody Fantasyland.
        if self.returned or self.reconnected or self.sits_out or self.disconnected:
            sat_out, pending = dict(sat_out), dict(pending)
            for name in self.returned | self.reconnected:
                sat_out.pop(name, None)
                pending.pop(name, None)
            for name in self.sits_out | self.disconnected:
                pending.setdefault(name, hand.hand_id)
        if not qualifiers and pending:
            sat_out = {**sat_out, **pending}
            pending = {}
        return TableState(
            hand_id=hand.hand_id,
            button_seat=hand.table.button_seat,
            match_id=hand.match.match_id if hand.match else None,
            match_hand=hand.match.hand_number if hand.match else None,
            fl_players=frozenset(self.fl_players),
            qualifiers=qualifiers,
            qualifiers_known=qualifiers_known,
            chain_entry=chain,
            stacks=stacks,
            busted=busted,
            sat_out=sat_out,
            pending_sit_out=pending,
            disconnected=set(self.disconnected) if qualifiers else set(),
        )

    def _compare_summary(self, players: list[PlayerResult]) -> list[Mismatch]:
        summary = self.hand.summary
        if summary is None:
            return []
        by_name = {p.name: p for p in players}
        mismatches: list[Mismatch] = []
        for entry in summary.entries:
            p = by_name.get(entry.player)
            if p is None:
                continue
            result = p.result
            fouled = None if result is None else result.fouled
            royalties = None if result is None else result.royalties.total
            # Each field is compared only when both sides are known (the site's fouled flag
            # and Fantasyland count are always "recorded": absent means no).
            if (
                (fouled is not None and entry.fouled != fouled)
                or (
                    entry.royalties is not None
                    and royalties is not None
                    and entry.royalties != royalties
                )
                or (
                    entry.points is not None
                    and p.points is not None
                    and entry.points != p.points
                )
                or (entry.stack_before is not None and entry.stack_before != p.stack_before)
                or (
                    entry.stack_after is not None
                    and p.stack_after is not None
                    and entry.stack_after != p.stack_after
                )
                or (p.fantasyland_next_known and entry.fantasyland_next != p.fantasyland_next)
            ):
                mismatches.extend(self._entry_mismatches(entry, p, royalties))
        return mismatches

    @staticmethod
    def _entry_mismatches(
        entry: SummaryEntry, p: PlayerResult, royalties: int | None
    ) -> list[Mismatch]:
        """Every field of one SUMMARY entry that differs, in CLI.md's order."""
        checks: list[tuple[str, int | bool | None, int | bool | None, bool]] = [
            ("fouled", entry.fouled, p.fouled, p.fouled is not None),
            (
                "royalties",
                entry.royalties,
                royalties,
                entry.royalties is not None and royalties is not None,
            ),
            (
                "points",
                entry.points,
                p.points,
                entry.points is not None and p.points is not None,
            ),
            (
                "stack_before",
                entry.stack_before,
                p.stack_before,
                entry.stack_before is not None,
            ),
            (
                "stack_after",
                entry.stack_after,
                p.stack_after,
                entry.stack_after is not None and p.stack_after is not None,
            ),
            (
                "fantasyland_next",
                entry.fantasyland_next,
                p.fantasyland_next,
                p.fantasyland_next_known,
            ),
        ]
        return [
            Mismatch(entry.player, name, recorded, computed, entry.line)
            for name, recorded, computed, comparable in checks
            if comparable and recorded != computed
        ]


class Replayer:
    """Replays hands in file order; each table's hands carry state from one to the next."""

    def __init__(self, ruleset: Ruleset, explain: bool = False) -> None:
        self.ruleset = ruleset
        self.explain = explain
        self.states: dict[tuple[str, str], TableState] = {}

    def replay(self, hand: Hand) -> HandResult:
        key = (hand.file, hand.table.name)
        result, state = HandReplay(hand, self.ruleset, self.states.get(key), self.explain).run()
        if result.incomplete is None:
            self.states[key] = state
        else:
            # An incomplete hand breaks its table's chain like a rejected hand: what it would
            # leave (stacks, button, Fantasyland) is unknown, so nothing is checked across it.
            self.states.pop(key, None)
        return result

    def break_chains(self, file: str) -> None:
        """A rejected hand breaks its table's chain: nothing is checked across it. Its table
        may be unreadable, so every chain of its file is broken."""
        for key in [key for key in self.states if key[0] == file]:
            del self.states[key]


def replay_hands(
    hands: Iterable[Hand], ruleset: Ruleset, explain: bool = False
) -> Iterator[HandResult]:
    replayer = Replayer(ruleset, explain)
    for hand in hands:
        yield replayer.replay(hand)
