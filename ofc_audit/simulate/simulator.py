"""Simulated hand histories (format v1): plausible play, stacks carried, Fantasyland chains,
and on request injected rule violations, each labelled with a ``# fault:`` comment.

:class:`Simulator` plays tables hand after hand with the bot of :mod:`ofc_audit.simulate.bot` and
settles every hand with the engine (:func:`~ofc_audit.game.board.evaluate_board`,
:func:`~ofc_audit.game.scoring.settle`, :func:`~ofc_audit.game.fantasyland.next_fantasyland`),
so the
SUMMARY lines are what the auditor computes. The hands are built as the typed records of
:mod:`ofc_audit.history.records` and written with :mod:`ofc_audit.history.writer`.

What a table does, hand after hand:

- a match opens with the button one occupied seat clockwise of the last one (a random seat at
  a new table); every player who earned Fantasyland plays the next hand of the match in
  Fantasyland (dealt all its cards at once, R-FL-2, R-FL-5), and the button stays for it
  unless the ruleset's ``button_moves_on_fantasyland``;
- stacks are carried; a player whose stack reaches 0 leaves (R-SETTLE-4); a short stack
  sometimes tops up; when fewer than two players are left, or the deck cannot deal a
  Fantasyland hand that is owed (R-DEAL-2), or the button's player left before a Fantasyland
  hand that keeps the button, or the ruleset's ``round_hand_cap`` is reached, the table
  closes and a new one opens with new players;
- now and then a player uses its time bank, or times out and is placed automatically
  (R-TIME-1);
- now and then a player disconnects after a deal: from then on it is placed automatically
  (R-TIME-2), until it reconnects (before a later deal or after its last placement) or to the
  end of the hand, and into the match's next hand while the match goes on; a player still
  disconnected when the match ends, or one that asked to ``sits out``, is sat out from then
  on: it is not dealt in until a hand that has its ``returns`` line before its first deal
  (R-TIME-3). A sat-out player comes back at a match's start now and then, and always when
  the table would otherwise have fewer than two players. This follows the replay's reading
  (docs/RULINGS.md, "Sit-outs"). The viewer of a player's view always reconnects within the
  hand and never sits out, so its history has no gaps.

Faults (``faults`` > 0): with that probability a hand breaks rules, one kind of fault by
default, up to ``faults_per_hand`` different kinds otherwise, chosen among those the hand can
break (:data:`FAULT_KINDS`, or the ``fault_kinds`` given) and never two kinds of
:data:`INCOMPATIBLE`. Each fault is written as the hand goes (a fault decided before the deal
works on what the ones before it wrote: the button after a busted player is dealt in, for
instance; two faults in play strike different lines), and one that finds no room (no free
line, no spare card) is not written. Each written fault is labelled with a ``# fault: KIND
what was done`` comment after the hand's header, the ground truth that
:func:`labelled_faults` reads and :data:`FAULT_RULES` turns into the rule ids the audit cites
(:func:`expected_rules`). The hand is otherwise played and settled as written, so nothing
else is broken, and the following hands go on from what the history now says (the button it
recorded, the stacks it settled, the Match line, who is sat out). The kinds, by the rule the
audit cites (docs/RULES.md, "Which rule a finding cites"): cards seen twice (R-CARD-3), a joker in
a 52-card game (R-CARD-2), a deal of the wrong size (R-DEAL-1), a seat beyond the table's
K-max (R-DEAL-2), out of turn (R-ACT-1), a card placed that was not dealt (R-ACT-2), a card in
a full row (R-ACT-3), a Fantasyland player dealt on a street (R-ACT-4), a wrong automatic
placement after ``times out`` (R-TIME-1) or while disconnected (R-TIME-2), a sat-out player
dealt in without ``returns`` (R-TIME-3), a player in Fantasyland who did not qualify or a
qualifier on the streets (R-FL-1; R-FL-3 for a stay decision), a wrong Fantasyland count
(R-FL-2), the button moved or kept wrongly on a Fantasyland hand (R-FL-4), a second
Fantasyland deal (R-FL-5), a Fantasyland deal written in two or three packets whose union is
the right deal, placed once (``fl_split_deal``: one R-FL-5), a continuation hand that nobody
qualified for or a Match line that skips a hand (R-MATCH-1), the button elsewhere
(R-MATCH-2), a busted player dealt in after a top-up (R-SETTLE-4), a stack not carried
(R-SETTLE-5), and a SUMMARY value the site recorded wrongly (``SUMMARY``: a recorded mismatch,
no rule).

A player's view (``view="player:NAME"``) holds the hands NAME is dealt in (NAME sits at the
first table; ``hands`` counts the hands played at every table), with what NAME could not see
hidden (``??``): the other players' deals and discards, and the Fantasyland placements of
others until SHOWDOWN. The other players' placements stay visible.

Each seed gives the same text, whatever ``jobs`` (a second process may write the text while
this one plays) and whatever ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import IO

from ..game.board import Board, BoardResult, evaluate_board
from ..game.cards import HIDDEN, JOKERS, NATURAL_CARDS, Card
from ..game.fantasyland import next_fantasyland, standard_count
from ..game.record import ROWS
from ..game.ruleset import FantasylandType, Ruleset, Variant
from ..game.scoring import settle
from ..history.records import (
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
from .bot import JOKER_INDEX, BotBoard, Policy, Rows, automatic_placement

PLAYER_NAMES = (
    "alice", "bob", "carol", "Big Al", "dilnoza", "emil", "farrukh", "greta", "hasan",
    "ieva", "jonas", "kamila", "lukas", "malika", "nodir", "olga", "paulius", "rustam",
    "sofia", "timur", "ugne", "viktor", "zarina", "Mr. Pink",
)
TABLE_NAMES = (
    "Tashkent", "Vilnius", "Kazan", "Samarkand", "Kaunas", "Bukhara", "Riga", "Almaty",
)

# The faults a hand can carry: the rule each breaks (SUMMARY is a recorded mismatch).
FAULT_KINDS = (
    "R-CARD-3",
    "R-DEAL-1",
    "R-ACT-1",
    "R-ACT-2",
    "R-ACT-3",
    "R-FL-2",
    "R-MATCH-2",
    "R-SETTLE-5",
    "R-TIME-1",
    "SUMMARY",
    "R-ACT-4",
    "R-CARD-2",
    "R-DEAL-2",
    "R-FL-1",
    "R-FL-3",
    "R-FL-4",
    "R-FL-5",
    "R-MATCH-1",
    "R-SETTLE-4",
    "R-TIME-2",
    "R-TIME-3",
    "fl_split_deal",
)

# The rule ids the audit cites for each kind (docs/RULES.md, "Which rule a finding cites"). A kind
# named by its rule cites that rule; SUMMARY cites none (it is one recorded mismatch); a
# Fantasyland deal written in several packets is one R-FL-5 (the packets together are the deal).
FAULT_RULES: dict[str, frozenset[str]] = {
    **{kind: frozenset({kind}) for kind in FAULT_KINDS if kind.startswith("R-")},
    "SUMMARY": frozenset(),
    "fl_split_deal": frozenset({"R-FL-5"}),
}


def _pair(a: str, b: str) -> frozenset[str]:
    return frozenset({a, b})


# Kinds one hand never carries together (``faults_per_hand`` > 1), and why: the second would
# change what the first breaks, so neither would cite only its own rule. Any other two kinds
# meet in a hand whenever the hand can break both (some never can: R-SETTLE-4 opens a match,
# R-FL-2 needs a Fantasyland hand).
_WHO_IS_IN_FANTASYLAND = "R-FL-1 and R-FL-3 change who is in Fantasyland"
INCOMPATIBLE: dict[frozenset[str], str] = {
    _pair("R-SETTLE-4", "R-TIME-3"): "each deals in one player more than the hand had room "
                                     "for; two more may not fit the table or the deck",
    _pair("R-FL-1", "R-FL-3"): _WHO_IS_IN_FANTASYLAND,
    **{
        _pair(entry, other): _WHO_IS_IN_FANTASYLAND
        for entry in ("R-FL-1", "R-FL-3")
        for other in ("R-FL-2", "R-FL-4", "R-FL-5", "fl_split_deal", "R-ACT-4", "R-MATCH-1",
                      "R-SETTLE-4", "R-TIME-3")
    },
}


def compatible(kinds: Sequence[str]) -> bool:
    """Whether one hand can carry all these fault kinds (no pair of :data:`INCOMPATIBLE`)."""
    return not any(
        _pair(a, b) in INCOMPATIBLE for i, a in enumerate(kinds) for b in kinds[i + 1:]
    )


FAULT_COMMENT = "# fault: "


def labelled_faults(text: str) -> dict[str, tuple[str, ...]]:
    """The simulator's ground truth in a history it wrote: hand id -> the kinds of its
    ``# fault: KIND what was done`` comments, one per fault (hands without a fault absent)."""
    found: dict[str, list[str]] = {}
    hand_id: str | None = None
    for line in text.splitlines():
        if line.startswith("OFC Hand #"):
            hand_id = line[len("OFC Hand #"):].split(":", 1)[0]
        elif line.startswith(FAULT_COMMENT) and hand_id is not None:
            found.setdefault(hand_id, []).append(line[len(FAULT_COMMENT):].split(" ", 1)[0])
    return {hand_id: tuple(kinds) for hand_id, kinds in found.items()}


def expected_rules(kinds: Sequence[str]) -> frozenset[str]:
    """The rule ids a hand carrying these fault kinds cites: the union of theirs."""
    return frozenset().union(*(FAULT_RULES[kind] for kind in kinds))

TIMEOUT_RATE = 0.003  # per placement on a street
TIME_BANK_RATE = 0.01
FL_TIMEOUT_RATE = 0.003
TOP_UP_RATE = 0.3  # chance that a short stack tops up before a match
DISCONNECT_RATE = 0.01  # per player and hand
RECONNECT_RATE = 0.5  # a disconnected player comes back within the hand
SIT_OUT_RATE = 0.005  # per player and hand: asks to sit out (from the end of the match)
RETURN_RATE = 0.4  # per sat-out player and match: comes back


class SimulationError(ValueError):
    """Options the simulator cannot play (the message says which and why)."""


@dataclass(frozen=True)
class SimulationOptions:
    """What :class:`Simulator` plays. ``ruleset`` carries the variant and Fantasyland type."""

    ruleset: Ruleset
    players: int = 3
    hands: int = 100
    seed: int = 0
    view: str | None = None  # None (the operator) or a player's name
    faults: float = 0.0
    stacks: int = 200
    tables: int = 1
    stake: str = "0.10 EUR"
    start: datetime = datetime(2026, 1, 5, 18, 0, 0)
    names: tuple[str, ...] = PLAYER_NAMES
    jobs: int = 0  # processes: 0 chooses (a second one writes for long runs), 1 is this one
    # Only these fault kinds (None: every kind of FAULT_KINDS); a hand that can break none of
    # them carries no fault.
    fault_kinds: tuple[str, ...] | None = None
    # Up to this many faults of different kinds in a hand that carries faults (fewer when the
    # hand cannot break that many, or kinds of INCOMPATIBLE meet).
    faults_per_hand: int = 1

    def check(self) -> None:
        variant = self.ruleset.variant
        if not 2 <= self.players <= variant.max_players:
            raise SimulationError(
                f"--players {self.players}: {variant.title} is played by 2 to "
                f"{variant.max_players} players (R-DEAL-2)"
            )
        if self.hands < 0:
            raise SimulationError(f"--hands {self.hands}: expected a number >= 0")
        if not 0.0 <= self.faults <= 1.0:
            raise SimulationError(f"--faults {self.faults}: expected a rate from 0 to 1")
        if self.stacks < 1:
            raise SimulationError(f"--stacks {self.stacks}: expected a starting stack >= 1")
        if self.tables < 1:
            raise SimulationError(f"--tables {self.tables}: expected 1 or more tables")
        if len(set(self.names)) < self.players:
            raise SimulationError("not enough distinct player names for one table")
        if self.jobs < 0:
            raise SimulationError(f"--jobs {self.jobs}: expected 0 (choose) or more")
        if self.view is not None and not self.view.strip():
            raise SimulationError("--view player:NAME needs a name")
        if self.faults_per_hand < 1:
            raise SimulationError(
                f"--faults-per-hand {self.faults_per_hand}: expected 1 or more"
            )
        unknown = sorted(set(self.fault_kinds or ()) - set(FAULT_KINDS))
        if unknown:
            raise SimulationError(
                f"unknown fault kind(s) {', '.join(unknown)}: expected some of "
                f"{', '.join(FAULT_KINDS)}"
            )


# -- the hand under construction --------------------------------------------------------------


@dataclass(slots=True)
class _Line:
    """One action line; cards are bot ints (0..51, 52/53 jokers)."""

    kind: str  # "deal", "place", "event"
    player: str
    cards: list[int] = field(default_factory=list)  # deal
    rows: Rows = field(default_factory=lambda: [[], [], []])  # place: per row
    discards: list[int] | None = None  # place
    event: EventKind | None = None


@dataclass(slots=True)
class _Seat:
    seat: int
    name: str
    stack: int
    fl_cards: int | None  # the Fantasyland hand's card count when in Fantasyland
    show_count: bool = False  # the seat line says ``in Fantasyland (N cards)``


@dataclass(slots=True)
class _Hand:
    hand_id: str
    timestamp: str
    match_id: str
    match_hand: int
    table: str
    max_seats: int
    button: int
    seats: list[_Seat]
    order: list[str]  # action and settlement order
    topups: list[tuple[str, int]]
    fl_lines: list[_Line]
    streets: list[list[_Line]]
    faults: list[tuple[str, str]] = field(default_factory=list)  # (kind, what was done)
    summary_fault: tuple[str, str, int] | None = None  # (player, field, delta)
    # Results, filled in by _settle:
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

    def seat(self, name: str) -> _Seat:
        for s in self.seats:
            if s.name == name:
                return s
        raise KeyError(name)  # pragma: no cover


@dataclass
class _Player:
    name: str
    stack: int


@dataclass
class _Table:
    name: str
    max_seats: int
    players: dict[int, _Player]  # seat -> player
    button: int | None = None
    match_id: str = ""
    match_hand: int = 0
    owed: dict[str, int] = field(default_factory=dict)  # Fantasyland next, by name
    chain: dict[str, int] = field(default_factory=dict)  # chain entry counts (ultimate)
    hands: int = 0
    last_names: frozenset[str] = frozenset()  # players of the table's previous hand
    fl_last: frozenset[str] = frozenset()  # players in Fantasyland in the previous hand
    busted: dict[int, _Player] = field(default_factory=dict)  # seat -> busted last hand
    # Sit-outs and disconnections as the history's lines make them (the replay's reading,
    # docs/RULINGS.md): `sits out`, or still disconnected at the end of a hand, is pending
    # until the match ends, then the player is sat out until a `returns` line; a player
    # still disconnected when the match goes on is disconnected in its next hand too.
    sat_out: set[str] = field(default_factory=set)
    pending: set[str] = field(default_factory=set)
    disconnected: set[str] = field(default_factory=set)


# -- the simulator ----------------------------------------------------------------------------


class Simulator:
    """Plays hands and yields them as records (operator or player view) or text."""

    def __init__(self, options: SimulationOptions) -> None:
        options.check()
        self.options = options
        self.ruleset = options.ruleset
        self.variant: Variant = options.ruleset.variant
        self.fl_type: FantasylandType = options.ruleset.fantasyland
        self.streets = self.variant.streets
        self.street_cards = sum(dealt for dealt, _ in self.streets)
        self.deck_size = self.variant.deck_size
        self.viewer = options.view
        self._deck_rng = random.Random(options.seed)
        self._fault_rng = random.Random(f"{options.seed}/faults")
        self._misc_rng = random.Random(f"{options.seed}/misc")
        self._clock = options.start
        self._hand_seq = 0
        self._match_seq = 0
        self._table_seq = 0
        names = list(dict.fromkeys(options.names))
        if self.viewer is not None:  # the viewer plays at the first table
            names = [self.viewer] + [n for n in names if n != self.viewer]
        self._names = names
        self._name_next = 0
        self._policies: dict[int, Policy] = {}
        amount = options.stake.split()[0]
        currency = options.stake.split()[1] if len(options.stake.split()) > 1 else "points"
        self._stake = Stake(Decimal(amount), currency, amount)
        self.fault_counts: dict[str, int] = {}  # faults written, by kind
        self.faulty_hands = 0  # hands written with one fault or more
        self.played = 0  # hands played (every table, whatever the view)
        self._renderer = _Renderer(self.viewer, self.variant, self.fl_type, self._stake)
        self.jobs = options.jobs if options.jobs > 0 else _auto_jobs(options.hands)
        self.written = 0  # hands written (the view's)

    # -- public ----------------------------------------------------------------------------

    def hands(self) -> Iterator[tuple[Hand, tuple[str, ...]]]:
        """Every hand of the chosen view as records, with its comment lines
        (``# fault: ...``)."""
        for hand in self._view():
            yield self._renderer.record(hand), hand.comments()

    def texts(self) -> Iterator[str]:
        """Every hand of the chosen view as text, comment lines inside the hand (after its
        header). With ``jobs`` > 1, other processes write while this one plays (the same
        text, in the same order)."""
        if self.jobs <= 1:
            yield from map(self._renderer.text, self._view())
            return
        context = multiprocessing.get_context(
            "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        )
        with context.Pool(
            self.jobs - 1, initializer=_start_worker, initargs=(self._renderer,)
        ) as pool:
            yield from pool.imap(_work, self._view(), chunksize=32)

    def _view(self) -> Iterator[_Hand]:
        for hand in self._play_all():
            if self.viewer is None or self.viewer in hand.order:
                yield hand

    def write(self, out: IO[str], progress: Callable[[int], None] | None = None) -> int:
        """Write every hand to ``out`` (hands separated by a blank line); returns the count.
        ``progress`` is told the count after each hand."""
        count = 0
        for text in self.texts():
            if count:
                out.write("\n")
            out.write(text if text.endswith("\n") else text + "\n")
            count += 1
            if progress is not None:
                progress(count)
        return count

    # -- tables ----------------------------------------------------------------------------

    def _play_all(self) -> Iterator[_Hand]:
        tables = [self._new_table() for _ in range(self.options.tables)]
        played = 0
        while played < self.options.hands:
            for i in range(len(tables)):
                if played >= self.options.hands:
                    break
                hand = self._play(tables[i])
                if hand is None:
                    tables[i] = self._new_table()
                    hand = self._play(tables[i])
                    if hand is None:  # pragma: no cover - a new table always deals
                        raise SimulationError("a new table could not deal its first hand")
                played += 1
                self.played = played
                yield hand

    def _new_table(self) -> _Table:
        self._table_seq += 1
        k = self._table_seq
        base = TABLE_NAMES[(k - 1) % len(TABLE_NAMES)]
        name = f"{base} {k}"
        players: dict[int, _Player] = {}
        taken: set[str] = set()
        seat = 1
        while len(players) < self.options.players:
            player = self._names[self._name_next % len(self._names)]
            self._name_next += 1
            if player in taken:
                continue
            taken.add(player)
            players[seat] = _Player(player, self.options.stacks)
            seat += 1
        return _Table(name, self.variant.max_players, players)

    def _policy(self, players: int) -> Policy:
        policy = self._policies.get(players)
        if policy is None:
            limit = self.deck_size - (players - 1) * self.street_cards
            policy = self._policies[players] = Policy(self.ruleset, players, limit)
        return policy

    # -- one hand --------------------------------------------------------------------------

    def _play(self, t: _Table) -> _Hand | None:
        options = self.options
        frng = self._fault_rng
        alive = sorted(s for s, p in t.players.items() if p.stack > 0)
        alive_names = {t.players[s].name for s in alive}
        owed = {name: n for name, n in t.owed.items() if name in alive_names}
        continuation = bool(owed)
        out: list[int] = []  # sat-out players
        if continuation:
            # The match's next hand deals the players of its previous hand: a sit-out waits
            # for the end of the match (R-TIME-2, R-TIME-3).
            seats = [s for s in alive if t.players[s].name in t.last_names]
        else:
            out = [s for s in alive if t.players[s].name in t.sat_out]
            seats = [s for s in alive if s not in out]
            # A sat-out player comes back now and then (a `returns` line before its first
            # deal), and always when the table would otherwise be short of players.
            back = [s for s in out if self._misc_rng.random() < RETURN_RATE]
            if len(seats) + len(back) < 2:
                back = out
            seats = sorted(seats + back)
        if len(seats) < 2:
            return None
        names = {s: t.players[s].name for s in seats}
        fresh = t.hands == 0
        cap = self.ruleset.round_hand_cap
        if not continuation and cap is not None and t.hands >= cap:
            return None
        moves = self.ruleset.button_moves_on_fantasyland
        if continuation:
            if not moves and t.button not in seats:
                return None  # the button's player left: the Fantasyland hand cannot keep it
            button = t.button if not moves else _next_seat(t.button, seats)
        else:
            button = (
                _next_seat(t.button, seats) if t.button is not None
                else self._deck_rng.choice(seats)
            )
        assert button is not None
        street_names = [n for n in _order(names, button) if n not in owed]
        needed = len(street_names) * self.street_cards + sum(owed.values())
        if needed > self.deck_size:
            return None  # R-DEAL-2: the deck cannot deal the Fantasyland hand owed

        # Top-ups before the hand (a short stack, between matches).
        topups: list[tuple[str, int]] = []
        if not continuation and not fresh:
            for s in seats:
                player = t.players[s]
                if player.stack < options.stacks // 4 and self._misc_rng.random() < TOP_UP_RATE:
                    amount = options.stacks - player.stack
                    topups.append((player.name, amount))
                    player.stack += amount

        # The faults of this hand, if any, and the ones decided before the deal: who is dealt
        # in, who is in Fantasyland, the button and the Match line, in this order (each one
        # works on what the ones before it wrote).
        kinds = self._pick_faults(t, seats, names, button, owed, street_names, continuation, out)
        notes: list[tuple[str, str]] = []
        new_match = not continuation
        silent: str | None = None  # R-TIME-3: dealt in without its `returns` line
        leaves: str | None = None  # R-SETTLE-4: leaves the table again after the hand
        if "R-SETTLE-4" in kinds:
            seat = frng.choice(sorted(t.busted))
            busted = t.busted[seat]
            amount = options.stacks - busted.stack
            topups.append((busted.name, amount))  # a rebuy does not lift R-SETTLE-4
            t.players[seat] = _Player(busted.name, busted.stack + amount)
            leaves = names[seat] = busted.name
            seats = sorted([*seats, seat])
            button = _next_seat(t.button, seats)
            notes.append(("R-SETTLE-4", f"{busted.name} busted in the table's previous hand and "
                                        f"is dealt in again after a top-up of {amount}"))
        if "R-TIME-3" in kinds:  # coming back or not, it is dealt in without `returns`
            seat = frng.choice(out)
            silent = names[seat] = t.players[seat].name
            if seat not in seats:
                seats = sorted([*seats, seat])
                button = _next_seat(t.button, seats)
            notes.append(("R-TIME-3", f"{silent} sat out and is dealt in without a 'returns' "
                                      "line"))
        for fault in ("R-FL-1", "R-FL-3"):
            if fault not in kinds:
                continue
            spare = self.deck_size - needed
            name, count = frng.choice(self._fl_faults(t, owed, street_names, spare)[fault])
            if count is None:  # a qualifier plays the streets
                earned = owed.pop(name)
                if not owed:  # nobody is left in Fantasyland: the site opened a new match
                    new_match = True
                    button = _next_seat(t.button, seats)
                notes.append((fault, f"{name} earned a {earned}-card Fantasyland "
                                     + ("again " if fault == "R-FL-3" else "")
                                     + "but plays the streets"))
            else:  # a player who did not qualify is dealt Fantasyland
                owed[name] = count
                notes.append((fault, (f"{name} did not qualify to stay in Fantasyland and is "
                                      f"dealt a {count}-card Fantasyland again"
                                      if fault == "R-FL-3" else
                                      f"{name} is dealt a {count}-card Fantasyland it did not "
                                      "qualify for")))
        if "R-MATCH-2" in kinds:
            expected = button
            others = [s for s in seats if s != expected]
            button = frng.choice(others)
            notes.append(("R-MATCH-2", f"the button is put on seat {button}; it belongs on seat "
                                       f"{expected} (one occupied seat clockwise)"))
        if "R-FL-4" in kinds:
            expected = button
            if moves:  # the ruleset moves it, the site kept it
                assert t.button is not None  # a Fantasyland hand follows the hand that earned it
                button = t.button
            else:
                button = frng.choice([s for s in seats if s != expected])
            notes.append(("R-FL-4", f"the button of a Fantasyland hand is put on seat {button}; "
                                    f"it belongs on seat {expected} ("
                                    + ("it moves" if moves else "it stays")
                                    + " for Fantasyland)"))
        street_names = [n for n in _order(names, button) if n not in owed]
        stacks = {names[s]: t.players[s].stack for s in seats}
        if "R-SETTLE-5" in kinds:
            candidates = [n for n in _order(names, button) if n in t.last_names and n != leaves]
            if candidates:
                victim = frng.choice(candidates)
                delta = frng.choice([-1, 1]) * frng.randint(1, 25)
                if stacks[victim] + delta < 1:
                    delta = abs(delta)
                notes.append(("R-SETTLE-5", f"{victim}'s stack is written "
                                            f"{stacks[victim] + delta}, not the {stacks[victim]} "
                                            "carried from the previous hand"))
                stacks[victim] += delta
        if "R-MATCH-1" in kinds:  # the Match line claims a continuation
            match_id = t.match_id
            match_hand = t.match_hand + (1 if new_match else 2)
            notes.append(("R-MATCH-1", f"the Match line says hand {match_hand} of match "
                                       f"{match_id}, but "
                                       + ("nobody qualified for Fantasyland in its previous hand"
                                          if new_match else f"the match's previous hand is hand "
                                          f"{t.match_hand}")))
        elif new_match:
            self._match_seq += 1
            match_id, match_hand = f"M{options.seed}-{self._match_seq}", 1
        else:
            match_id, match_hand = t.match_id, t.match_hand + 1

        self._hand_seq += 1
        self._clock += timedelta(seconds=self._misc_rng.randint(25, 140))
        order = _order(names, button)
        hand = _Hand(
            hand_id=f"SIM{options.seed}-{self._hand_seq}",
            timestamp=self._clock.strftime("%Y-%m-%d %H:%M:%S") + " UTC",
            match_id=match_id,
            match_hand=match_hand,
            table=t.name,
            max_seats=t.max_seats,
            button=button,
            seats=[
                _Seat(s, names[s], stacks[names[s]], owed.get(names[s]),
                      self.fl_type is not FantasylandType.STANDARD)
                for s in seats
            ],
            order=order,
            topups=topups,
            fl_lines=[],
            streets=[],
            faults=notes,
        )
        if "R-DEAL-2" in kinds:
            self._fault_seat_beyond_max(hand, t, seats, button)
        self._deal(hand, t, owed, kinds, silent)
        if "R-ACT-1" in kinds:
            self._fault_out_of_turn(hand, owed)
        if "SUMMARY" in kinds:
            self._fault_summary(hand)
        self._settle(hand, t)
        for kind, _ in hand.faults:
            self.fault_counts[kind] = self.fault_counts.get(kind, 0) + 1
        self.faulty_hands += bool(hand.faults)

        # The table goes on from what the history says.
        t.button = hand.button
        t.match_id, t.match_hand = match_id, match_hand
        t.hands += 1
        t.last_names = frozenset(order)
        t.fl_last = frozenset(owed)
        for s in seats:
            t.players[s].stack = hand.stacks_after[names[s]]
        t.busted = {}
        for s in seats:
            if t.players[s].stack <= 0:
                t.busted[s] = t.players.pop(s)  # busted: leaves the table (R-SETTLE-4)
            elif names[s] == leaves:
                del t.players[s]  # dealt in after busting: it leaves again
        t.owed = dict(hand.fl_next)
        t.chain = dict(hand.chain)
        self._sit_outs(hand, t)
        return hand

    @staticmethod
    def _sit_outs(hand: _Hand, t: _Table) -> None:
        """Sit-outs and disconnections after the hand, read from its lines as the replay
        reads them (R-TIME-2, R-TIME-3; docs/RULINGS.md)."""
        disconnected = set(t.disconnected)
        sits: set[str] = set()
        back: set[str] = set()  # returned or reconnected
        for line in (*hand.fl_lines, *(line for street in hand.streets for line in street)):
            if line.event is EventKind.DISCONNECTS:
                disconnected.add(line.player)
            elif line.event is EventKind.RECONNECTS:
                disconnected.discard(line.player)
                back.add(line.player)
            elif line.event is EventKind.SITS_OUT:
                sits.add(line.player)
            elif line.event is EventKind.RETURNS:
                back.add(line.player)
                sits.discard(line.player)
        t.sat_out -= back
        t.pending = (t.pending - back) | sits | disconnected
        if not hand.fl_next:  # the match ends: pending sit-outs take effect
            t.sat_out |= t.pending
            t.pending = set()
        t.disconnected = disconnected if hand.fl_next else set()

    def _fl_faults(
        self, t: _Table, owed: dict[str, int], street_names: list[str], spare: int
    ) -> dict[str, list[tuple[str, int | None]]]:
        """The Fantasyland entry faults this hand can carry, by rule: (player, None) for a
        qualifier who plays the streets, (player, count) for a player dealt a Fantasyland it
        did not earn. R-FL-3 when the player was in Fantasyland in the previous hand (a stay
        decision), R-FL-1 otherwise; each within the deck (R-DEAL-2)."""
        faults: dict[str, list[tuple[str, int | None]]] = {"R-FL-1": [], "R-FL-3": []}
        count = standard_count(self.variant)  # a count every Fantasyland type deals
        # A game without Fantasyland has no stay decision: any Fantasyland seat is R-FL-1.
        stays = t.fl_last if self.fl_type is not FantasylandType.NONE else frozenset()
        for name, earned in owed.items():
            if spare + earned >= self.street_cards:
                faults["R-FL-3" if name in stays else "R-FL-1"].append((name, None))
        for name in street_names:
            if spare + self.street_cards >= count:
                faults["R-FL-3" if name in stays else "R-FL-1"].append((name, count))
        return faults

    def _pick_faults(
        self,
        t: _Table,
        seats: list[int],
        names: dict[int, str],
        button: int,
        owed: dict[str, int],
        street_names: list[str],
        continuation: bool,
        sat_out: list[int],
    ) -> list[str]:
        """The kinds of faults this hand carries: none, or up to ``faults_per_hand`` different
        ones among those it can break, no two of :data:`INCOMPATIBLE`."""
        rate = self.options.faults
        if rate <= 0.0 or self._fault_rng.random() >= rate:
            return []
        viewer = self.viewer
        spare = self.deck_size - len(street_names) * self.street_cards - sum(owed.values())
        # A fault in play strikes a player who is not placed automatically for a disconnection.
        playable = [n for n in street_names if n not in t.disconnected]
        # Faults in cards only the victim sees need the viewer as victim in a player's view.
        private_ok = viewer is None or viewer in playable
        kinds: list[str] = ["SUMMARY"]
        if playable:
            kinds.append("R-ACT-3")
            if private_ok:
                kinds.append("R-TIME-1")
                if self.deck_size == 52:
                    kinds.append("R-CARD-2")
            if spare >= 1:
                kinds.append("R-DEAL-1")
                if private_ok:
                    kinds.append("R-ACT-2")
        if len(street_names) >= 2:
            kinds.append("R-ACT-1")
            if playable and private_ok:
                kinds.append("R-CARD-3")
        if viewer is None or viewer in names.values():
            kinds.append("R-TIME-2")
        if owed:
            kinds.append("R-FL-2")
            if street_names and any(size <= spare for size, _ in self.streets):
                kinds.append("R-ACT-4")
            if any(count <= spare for count in owed.values()):
                kinds.append("R-FL-5")
            kinds.append("fl_split_deal")
            # With the button kept, the faulty one is another seat; with the button moving,
            # it stays where it was, which must be an occupied seat.
            if not self.ruleset.button_moves_on_fantasyland or t.button in seats:
                kinds.append("R-FL-4")
        kinds.extend(rule for rule, c in self._fl_faults(t, owed, street_names, spare).items() if c)
        if _beyond_max_ways(t, seats, button):
            kinds.append("R-DEAL-2")
        if t.hands > 0:
            kinds.append("R-MATCH-1")
            if not continuation and len(seats) >= 2:
                kinds.append("R-MATCH-2")
            if any(names[s] in t.last_names for s in seats):
                kinds.append("R-SETTLE-5")
            if not continuation:
                # One more street player fits: the table's seats are within the variant's.
                if t.busted:
                    kinds.append("R-SETTLE-4")
                if sat_out:
                    kinds.append("R-TIME-3")
        wanted = self.options.fault_kinds
        if wanted is not None:
            kinds = [kind for kind in kinds if kind in wanted]
        chosen: list[str] = []
        while kinds and len(chosen) < self.options.faults_per_hand:
            kind = self._fault_rng.choice(kinds)
            chosen.append(kind)
            kinds = [k for k in kinds if k != kind and _pair(k, kind) not in INCOMPATIBLE]
        return chosen

    def _fault_seat_beyond_max(
        self, hand: _Hand, t: _Table, seats: list[int], button: int
    ) -> None:
        """R-DEAL-2: the highest seat written beyond the table's K-max, or the table line's
        K-max written below the highest seat (see :func:`_beyond_max_ways`)."""
        high = max(seats)
        name = next(s.name for s in hand.seats if s.seat == high)
        ways = _beyond_max_ways(t, seats, button)  # another fault may have moved the button
        if not ways:
            return
        if self._fault_rng.choice(ways) == "seat":
            hand.seat(name).seat = t.max_seats + 1
            hand.add_fault("R-DEAL-2", f"{name} sits at seat {t.max_seats + 1} of a "
                                      f"{t.max_seats}-max table")
        else:
            hand.max_seats = high - 1
            hand.add_fault("R-DEAL-2", f"the table line says {high - 1}-max, but {name} sits "
                                      f"at seat {high}")

    # -- dealing and playing -----------------------------------------------------------------

    def _connections(
        self, order: list[str], owed: dict[str, int], carried: set[str], protected: set[str],
        lost: str | None, struck: int = 0,
    ) -> tuple[dict[str, int], dict[str, int]]:
        """Who disconnects and reconnects, by step (0 is the Fantasyland section, 1.. the
        streets): ``down`` the step after whose deal a player disconnects (-1: it still is from
        the match's previous hand), ``up`` the step before whose deal it reconnects (one past
        the last street: after its last placement). The viewer always reconnects within the
        hand, so a player's view never skips a hand it sat out. ``lost`` (R-TIME-2) disconnects
        after street ``struck``."""
        mrng = self._misc_rng
        last = len(self.streets)
        down: dict[str, int] = {}
        up: dict[str, int] = {}
        for name in order:
            fl = name in owed
            if name in carried:
                down[name] = -1
            elif name == lost:
                down[name] = 0 if fl else self._fault_rng.randint(struck + 1, last)
            elif name not in protected and mrng.random() < DISCONNECT_RATE:
                down[name] = 0 if fl else mrng.randint(1, last)
            else:
                continue
            if name == self.viewer or mrng.random() < RECONNECT_RATE:
                # A wrong placement while disconnected (R-TIME-2) needs it offline to the end.
                first = max(down[name], 0) + 1
                up[name] = last + 1 if fl or name == lost else mrng.randint(first, last + 1)
        return down, up

    def _deal(
        self, hand: _Hand, t: _Table, owed: dict[str, int], kinds: Sequence[str],
        silent: str | None,
    ) -> None:
        deck = list(range(self.deck_size))
        self._deck_rng.shuffle(deck)
        policy = self._policy(len(hand.order))
        frng = self._fault_rng
        mrng = self._misc_rng
        viewer = self.viewer
        last = len(self.streets)
        street_names = [n for n in hand.order if n not in owed]
        # The cards no one is dealt: what faults that deal more take from (each takes its
        # share when it is decided; one that finds too few is not written).
        spare = self.deck_size - len(street_names) * self.street_cards - sum(owed.values())

        # Where each in-play fault strikes: (player, street), a line of its own.
        strikes: dict[tuple[str, int], str] = {}
        for kind in _IN_PLAY:
            if kind not in kinds or (kind in ("R-DEAL-1", "R-ACT-2") and spare < 1):
                continue
            if kind in _PRIVATE and viewer is not None:
                pool = [viewer]
            else:
                pool = [n for n in street_names if n not in t.disconnected]
            if not pool:
                continue
            first = last if kind in ("R-ACT-3", "R-CARD-2") else 2 if kind == "R-CARD-3" else 1
            # R-ACT-3 and R-CARD-2 on the last street: the board is complete after it, nothing
            # is played on it.
            victim = frng.choice(pool)
            strike = last if first == last else frng.randint(first, last)
            if (victim, strike) in strikes:
                free = [(n, k) for n in pool for k in range(first, last + 1)
                        if (n, k) not in strikes]
                if not free:
                    continue
                victim, strike = frng.choice(free)
            strikes[victim, strike] = kind
            if kind in ("R-DEAL-1", "R-ACT-2"):
                spare -= 1
        # Fantasyland faults: a wrong count, a second deal, a deal in packets, a deal on a
        # street.
        fl_victim = frng.choice(list(owed)) if "R-FL-2" in kinds and owed else None
        twice = None
        if "R-FL-5" in kinds:
            twice = _choice(frng, [n for n in owed if owed[n] <= spare])
            spare -= owed[twice] if twice is not None else 0
        split = None
        if "fl_split_deal" in kinds:
            split = _choice(frng, [n for n in owed if n != twice])
        intruder, intrude_at = None, 0
        if "R-ACT-4" in kinds and owed:
            streets = [k for k, (size, _) in enumerate(self.streets, start=1) if size <= spare]
            if streets:
                intruder = frng.choice(list(owed))
                intrude_at = frng.choice(streets)
                spare -= self.streets[intrude_at - 1][0]
        # R-TIME-2: a placement while disconnected that is not the automatic one, by a player
        # no other fault strikes when there is one; else it disconnects after the streets
        # they strike (a line placed automatically carries no other fault), and when they
        # strike its last street it stays connected (R-ACT-3 and R-CARD-2 in a player's view).
        lost = None
        victims = {name for name, _ in strikes}
        struck = 0
        if "R-TIME-2" in kinds:
            bystanders = [n for n in hand.order if n not in victims] or hand.order
            lost = viewer if viewer is not None else frng.choice(bystanders)
            struck = max((k for n, k in strikes if n == lost), default=0)
            if struck >= last:
                lost = None
        down, up = self._connections(hand.order, owed, t.disconnected, victims, lost, struck)

        def offline(name: str, step: int) -> bool:
            return down.get(name, last + 2) <= step < up.get(name, last + 2)

        # Sat-out players come back with `returns` before their first deal (R-TIME-3);
        # now and then a player asks to sit out (it takes effect when the match ends).
        returning = {n for n in hand.order if n in t.sat_out and n != silent}
        leaving = {n for n in hand.order if n != viewer and mrng.random() < SIT_OUT_RATE}

        def after_last_placement(lines: list[_Line], name: str) -> None:
            if up.get(name) == last + 1:
                lines.append(_Line("event", name, event=EventKind.RECONNECTS))
            if name in leaving:
                lines.append(_Line("event", name, event=EventKind.SITS_OUT))

        # Fantasyland: each player dealt all its cards at once, then sets 13.
        for name in hand.order:
            if name not in owed:
                continue
            fl_lines = hand.fl_lines
            count = owed[name]
            if name == fl_victim:
                count = self._fault_fl_count(hand, name, count, spare)
                spare -= max(0, count - owed[name])
            cards = [deck.pop() for _ in range(count)]
            if name in returning:
                fl_lines.append(_Line("event", name, event=EventKind.RETURNS))
            if name == split:  # the same cards, written in packets
                packets = self._packets(cards)
                fl_lines.extend(_Line("deal", name, cards=packet) for packet in packets)
                sizes = " and ".join(str(len(packet)) for packet in packets)
                hand.add_fault("fl_split_deal", f"{name}'s Fantasyland deal of {count} cards is "
                                                f"written in {len(packets)} packets ({sizes}): "
                                                "one R-FL-5")
            else:
                fl_lines.append(_Line("deal", name, cards=cards))
            if name == twice:
                again = [deck.pop() for _ in range(owed[name])]
                fl_lines.append(_Line("deal", name, cards=again))
                hand.add_fault("R-FL-5", f"{name} is dealt a second Fantasyland hand of "
                                         f"{len(again)} cards")
            if down.get(name) == 0:
                fl_lines.append(_Line("event", name, event=EventKind.DISCONNECTS))
            if offline(name, 0):  # disconnected: the first 13 cards received are set
                rows, discards = automatic_placement([[], [], []], cards, 13)
                if name == lost:
                    chosen = policy.fantasyland(cards, t.chain.get(name))
                    if _differs(*chosen, rows, discards):
                        rows, discards = chosen
                        hand.add_fault("R-TIME-2", f"{name} is disconnected in Fantasyland and "
                                                  "is not set as R-TIME-1 places it")
            elif mrng.random() < FL_TIMEOUT_RATE:
                fl_lines.append(_Line("event", name, event=EventKind.TIMES_OUT))
                rows, discards = automatic_placement([[], [], []], cards, 13)
            else:
                rows, discards = policy.fantasyland(cards, t.chain.get(name))
            fl_lines.append(
                _Line("place", name, rows=rows, discards=discards if len(cards) > 13 else None)
            )
            after_last_placement(fl_lines, name)

        boards: dict[str, BotBoard] = {name: policy.board() for name in street_names}
        placed: dict[str, list[int]] = {name: [] for name in street_names}  # cards placed
        for k, (size, place) in enumerate(self.streets, start=1):
            lines: list[_Line] = []
            hand.streets.append(lines)
            for name in street_names:
                board = boards[name]
                if k == 1 and name in returning:
                    lines.append(_Line("event", name, event=EventKind.RETURNS))
                if up.get(name) == k:
                    lines.append(_Line("event", name, event=EventKind.RECONNECTS))
                cards = [deck.pop() for _ in range(size)]
                here = strikes.get((name, k))  # the in-play fault on this line
                if here == "R-DEAL-1":
                    cards.append(deck.pop())
                    hand.add_fault(here, f"{name} is dealt {len(cards)} cards on street {k}; "
                                         f"{self.variant.title} deals {size}")
                others = [c for n in street_names if n != name for c in placed[n]
                          if c < JOKER_INDEX] if here == "R-CARD-3" else []
                if others:  # R-CARD-3: a card another player placed
                    dup = frng.choice(others)
                    i = frng.randrange(len(cards))
                    deck.insert(0, cards[i])  # the card it replaces stays in the deck
                    cards[i] = dup
                    hand.add_fault("R-CARD-3", f"{name} is dealt {_text(dup)} on street {k}, "
                                               "a card already in the hand")
                joker = natural = -1
                if here == "R-CARD-2" and not offline(name, k):
                    # The bot plays the joker as the card it replaced (the bot of a 52-card
                    # game has no jokers); on the last street nothing is played after it.
                    i = frng.randrange(len(cards))
                    joker, natural = frng.choice([JOKER_INDEX, JOKER_INDEX + 1]), cards[i]
                    hand.add_fault(here, f"{name} is dealt {_text(joker)} on street {k}: "
                                         f"{self.variant.title} has no jokers")
                shown = [joker if c == natural else c for c in cards]
                lines.append(_Line("deal", name, cards=shown))
                if down.get(name) == k:
                    lines.append(_Line("event", name, event=EventKind.DISCONNECTS))
                if offline(name, k):  # placed automatically (R-TIME-2)
                    rows, discards = automatic_placement(board.rows, cards, place)
                    wrong = None
                    if name == lost and not hand.has_fault("R-TIME-2"):
                        wrong = self._wrong_auto(policy, board, cards, place)
                    if wrong is not None:
                        rows, discards = wrong
                        hand.add_fault("R-TIME-2", f"{name} is disconnected on street {k} and "
                                                  "is not placed as R-TIME-1 places it")
                    self._place(lines, policy, board, name, rows, discards, placed[name])
                    if k == last:
                        after_last_placement(lines, name)
                    continue
                # One fault a line: no time-out by chance where a fault strikes.
                timed_out = mrng.random() < TIMEOUT_RATE and here is None
                if here == "R-TIME-1":
                    rows_discards = self._wrong_auto(policy, board, cards, place)
                    if rows_discards is None and k < last:
                        # No other placement is possible here: the next street, if free.
                        strikes.setdefault((name, k + 1), here)
                    elif rows_discards is not None:
                        lines.append(_Line("event", name, event=EventKind.TIMES_OUT))
                        rows, discards = rows_discards
                        hand.add_fault(here, f"{name} times out on street {k} and is not placed "
                                             "as R-TIME-1 places it")
                        self._place(lines, policy, board, name, rows, discards, placed[name])
                        if k == last:
                            after_last_placement(lines, name)
                        continue
                if timed_out:
                    lines.append(_Line("event", name, event=EventKind.TIMES_OUT))
                    rows, discards = automatic_placement(board.rows, cards, place)
                else:
                    if mrng.random() < TIME_BANK_RATE:
                        lines.append(_Line("event", name, event=EventKind.USES_TIME_BANK))
                    rows, discards = policy.choose(board, cards, place)
                if here == "R-ACT-2" and deck:
                    row = frng.choice([r for r in range(3) if rows[r]])
                    i = frng.randrange(len(rows[row]))
                    fresh = deck.pop()
                    old = rows[row][i]
                    rows = [list(r) for r in rows]
                    rows[row][i] = fresh
                    hand.add_fault(here, f"{name} places {_text(fresh)} instead of {_text(old)} "
                                         f"on street {k}: it was not dealt to {name}")
                if here == "R-ACT-3":
                    moved = self._overflow(board, rows)
                    if moved is not None:
                        rows = moved[0]
                        hand.add_fault(here, f"{name} puts a card in its full {moved[1]} row on "
                                             f"street {k}")
                if joker >= 0:
                    rows = [[joker if c == natural else c for c in row] for row in rows]
                    discards = [joker if c == natural else c for c in discards]
                self._place(lines, policy, board, name, rows, discards, placed[name])
                if k == last:
                    after_last_placement(lines, name)
            if k == intrude_at and intruder is not None:
                # Its deal goes between two players' turns, where a deal could stand.
                cards = [deck.pop() for _ in range(size)]
                turns = [i for i in range(len(lines) + 1)
                         if i in (0, len(lines)) or lines[i - 1].player != lines[i].player]
                lines.insert(frng.choice(turns), _Line("deal", intruder, cards=cards))
                hand.add_fault("R-ACT-4", f"{intruder} is in Fantasyland and is dealt on street "
                                         f"{k}")

    @staticmethod
    def _place(
        lines: list[_Line],
        policy: Policy,
        board: BotBoard,
        name: str,
        rows: Rows,
        discards: list[int],
        placed: list[int],
    ) -> None:
        lines.append(_Line("place", name, rows=rows, discards=discards or None))
        policy.apply(board, rows)  # the bot's board follows what was written
        placed.extend(c for r in rows for c in r)

    def _wrong_auto(
        self, policy: Policy, board: BotBoard, cards: list[int], place: int
    ) -> tuple[Rows, list[int]] | None:
        """A legal placement of ``cards`` that is not R-TIME-1's automatic one, or None."""
        auto, auto_discards = automatic_placement(board.rows, cards, place)
        rows, discards = policy.choose(board, cards, place)
        if _differs(rows, discards, auto, auto_discards):
            return rows, discards
        room = [(3 if r == 0 else 5) - len(board.rows[r]) - len(auto[r]) for r in range(3)]
        for r in range(3):
            for c in auto[r]:
                for other in range(3):
                    if other != r and room[other] > 0:
                        moved = [list(x) for x in auto]
                        moved[r].remove(c)
                        moved[other].append(c)
                        return moved, list(auto_discards)
        if auto_discards:  # place the discarded card instead of the last one placed
            for r in range(3):
                if auto[r]:
                    swapped = [list(x) for x in auto]
                    out = swapped[r].pop()
                    swapped[r].append(auto_discards[0])
                    return swapped, [out] + list(auto_discards[1:])
        return None

    @staticmethod
    def _overflow(board: BotBoard, rows: Rows) -> tuple[Rows, str] | None:
        """Move one placed card into a row that is already full (R-ACT-3)."""
        full = [r for r in range(3) if len(board.rows[r]) + len(rows[r]) >= (3 if r == 0 else 5)]
        for target in full:
            for r in range(3):
                if r != target and rows[r]:
                    moved = [list(x) for x in rows]
                    moved[target].append(moved[r].pop())
                    return moved, ROWS[target].value
        return None

    def _fault_fl_count(self, hand: _Hand, name: str, count: int, spare: int) -> int:
        """R-FL-2: one card more or less than earned, or the seat line's count wrong."""
        options = []
        if count > 13:
            options.append(count - 1)
        if spare >= 1:
            options.append(count + 1)
        if not options:
            seat = hand.seat(name)
            seat.show_count = True
            seat.fl_cards = count + 1
            hand.add_fault("R-FL-2", f"{name}'s seat line says {count + 1} Fantasyland cards; it "
                                    f"earned {count}")
            return count
        dealt = self._fault_rng.choice(options)
        hand.add_fault("R-FL-2", f"{name} is dealt {dealt} Fantasyland cards; it earned {count}")
        return dealt

    def _packets(self, cards: list[int]) -> list[list[int]]:
        """A Fantasyland deal cut into two or three packets (fl_split_deal), in order."""
        frng = self._fault_rng
        packets = min(frng.choice((2, 2, 3)), len(cards))
        cuts = sorted(frng.sample(range(1, len(cards)), packets - 1))
        return [cards[a:b] for a, b in zip([0, *cuts], [*cuts, len(cards)], strict=True)]

    def _fault_out_of_turn(self, hand: _Hand, owed: dict[str, int]) -> None:
        """Swap two neighbours' turns on one street (R-ACT-1); a Fantasyland player dealt on
        the street (R-ACT-4) has no turn there."""
        frng = self._fault_rng
        k = frng.randrange(len(hand.streets))
        lines = hand.streets[k]
        players = list(dict.fromkeys(line.player for line in lines if line.player not in owed))
        if len(players) < 2:  # pragma: no cover - another fault left one street player
            return
        i = frng.randrange(len(players) - 1)
        first, second = players[i], players[i + 1]
        block_a = [line for line in lines if line.player == first]
        block_b = [line for line in lines if line.player == second]
        start = lines.index(block_a[0])
        rest = [line for line in lines if line.player not in (first, second)]
        before = [line for line in rest if lines.index(line) < start]
        after = [line for line in rest if lines.index(line) > start]
        hand.streets[k] = before + block_b + block_a + after
        hand.add_fault("R-ACT-1", f"{second} is dealt on street {k + 1} before {first}, who acts "
                                 "first")

    def _fault_summary(self, hand: _Hand) -> None:
        frng = self._fault_rng
        name = frng.choice(hand.order)
        which = frng.choice(["royalties", "points", "stack_after"])
        delta = frng.choice([-1, 1]) * frng.randint(1, 9)
        hand.summary_fault = (name, which, delta)
        what = which.replace("_", " ")
        hand.add_fault("SUMMARY", f"{name}'s {what} is recorded off by {delta:+d}")

    # -- results ---------------------------------------------------------------------------

    def _settle(self, hand: _Hand, t: _Table) -> None:
        """Final boards from the placements, results and settlement as the engine computes
        them (the hand's own ruleset), Fantasyland next and the chain entry counts."""
        boards: dict[str, Rows] = {name: [[], [], []] for name in hand.order}
        known: set[int] = set()
        fl_dealt: dict[str, int] = {}
        for fl, lines in ((True, hand.fl_lines), *((False, s) for s in hand.streets)):
            for line in lines:
                if line.kind == "deal":
                    known.update(line.cards)
                    if fl:
                        fl_dealt[line.player] = len(line.cards)
                elif line.kind == "place":
                    placed = boards[line.player]
                    for r in range(3):
                        placed[r].extend(line.rows[r])
                        known.update(line.rows[r])
                    known.update(line.discards or ())
        jokers = any(c >= JOKER_INDEX for c in known)
        # The cards the history shows (joker_excludes = known); only jokers need them.
        known_cards = [NATURAL_CARDS[c] for c in sorted(known) if c < JOKER_INDEX] if jokers else []
        results: dict[str, BoardResult] = {}
        for name in hand.order:
            rows = boards[name]
            board = Board(_cards(rows[0]), _cards(rows[1]), _cards(rows[2]))
            results[name] = evaluate_board(board, self.ruleset, known_cards)
        settlement = settle(
            [results[n] for n in hand.order], self.ruleset, [hand.seat(n).stack for n in hand.order]
        )
        after = settlement.stacks_after or ()
        hand.boards = boards
        for name, result in results.items():
            hand.fouled[name] = result.fouled
            hand.royalties[name] = result.royalties.total
        for i, name in enumerate(hand.order):
            points = settlement.points[i]
            stack = after[i]
            assert points is not None and stack is not None
            hand.points[name] = points
            hand.stacks_after[name] = stack
            seat = hand.seat(name)
            in_fl = seat.fl_cards is not None
            entry = t.chain.get(name) if in_fl else None
            if in_fl and entry is None:
                entry = fl_dealt.get(name) or seat.fl_cards
            nxt = next_fantasyland(results[name], self.variant, self.fl_type, in_fl, entry)
            if nxt is not None:
                hand.fl_next[name] = nxt
                hand.chain[name] = entry if in_fl and entry is not None else nxt

@dataclass(frozen=True)
class _Renderer:
    """Hands to records and text for one view; picklable, so a worker process can write."""

    viewer: str | None
    variant: Variant
    fl_type: FantasylandType
    stake: Stake

    def text(self, hand: _Hand) -> str:
        """The hand's text (the canonical writer's), a ``# fault:`` comment after its
        header line."""
        from ..history.writer import write_hand

        text = write_hand(self.record(hand))
        if hand.faults:
            head, _, rest = text.partition("\n")
            text = "\n".join((head, *hand.comments(), rest))
        return text

    def record(self, hand: _Hand) -> Hand:
        viewer = self.viewer

        def shown(owner: str, cards: Sequence[int]) -> tuple[Card, ...]:
            if viewer is not None and owner != viewer:
                return (HIDDEN,) * len(cards)
            return tuple(map(_CARDS.__getitem__, cards))

        def action(line: _Line, fantasyland: bool) -> Action:
            if line.kind == "deal":
                return Deal(line.player, shown(line.player, line.cards), 0)
            if line.kind == "event":
                assert line.event is not None
                return Event(line.player, line.event, 0)
            hide_rows = fantasyland and viewer is not None and line.player != viewer
            rows = tuple(
                (ROWS[r], shown(line.player, cards) if hide_rows else _cards(cards))
                for r, cards in enumerate(line.rows)
                if cards
            )
            discards = None if line.discards is None else shown(line.player, line.discards)
            return Placement(line.player, rows, discards, 0)

        sections: list[Section] = []
        if hand.fl_lines:
            sections.append(Section(
                SectionKind.FANTASYLAND, None,
                tuple(action(line, True) for line in hand.fl_lines), 0,
            ))
        for k, lines in enumerate(hand.streets, start=1):
            sections.append(
                Section(SectionKind.STREET, k, tuple(action(line, False) for line in lines), 0)
            )
        showdown = Showdown(
            tuple(
                ShowdownBoard(name, _cards(top), _cards(middle), _cards(bottom), 0)
                for name in hand.order
                for top, middle, bottom in (hand.boards[name],)
            ),
            0,
        )
        entries = []
        for name in hand.order:
            seat = hand.seat(name)
            values = {
                "royalties": hand.royalties[name],
                "points": hand.points[name],
                "stack_after": hand.stacks_after[name],
            }
            if hand.summary_fault is not None and hand.summary_fault[0] == name:
                values[hand.summary_fault[1]] += hand.summary_fault[2]
            entries.append(SummaryEntry(
                name,  # player
                hand.fouled[name],
                values["royalties"],
                values["points"],
                seat.stack,  # stack_before
                values["stack_after"],
                hand.fl_next.get(name),
                0,  # line
            ))
        return Hand(
            file="<simulated>",
            header=Header(hand.hand_id, self.variant, self.fl_type, self.stake, hand.timestamp, 0),
            match=MatchInfo(hand.match_id, hand.match_hand, 0),
            table=TableInfo(hand.table, hand.max_seats, hand.button, 0),
            seats=tuple(
                Seat(s.seat, s.name, s.stack, s.fl_cards is not None,
                     s.fl_cards if s.fl_cards is not None and s.show_count else None, 0)
                for s in hand.seats
            ),
            topups=tuple(TopUp(name, amount, 0) for name, amount in hand.topups),
            sections=tuple(sections),
            showdown=showdown,
            summary=Summary(tuple(entries), 0),
        )




_WORKER: list[_Renderer] = []  # the renderer of a writer process


def _start_worker(renderer: _Renderer) -> None:
    _WORKER[:] = [renderer]


def _work(hand: _Hand) -> str:
    return _WORKER[0].text(hand)


# -- helpers ----------------------------------------------------------------------------------


_CARDS: tuple[Card, ...] = NATURAL_CARDS + JOKERS  # by bot int

# The faults that strike one player's line on a street, in the order their lines are chosen,
# and those in cards only that player sees (in a player's view the viewer is their victim).
_IN_PLAY = ("R-CARD-3", "R-DEAL-1", "R-ACT-2", "R-ACT-3", "R-TIME-1", "R-CARD-2")
_PRIVATE = frozenset({"R-CARD-3", "R-ACT-2", "R-TIME-1", "R-CARD-2"})


def _choice(rng: random.Random, options: Sequence[str]) -> str | None:
    return rng.choice(options) if options else None




def _auto_jobs(hands: int) -> int:
    """A second process writes for a long run when a core is idle (it only competes for
    the processor otherwise); the output is the same either way."""
    cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - no load average on this platform
        load = float(cpus)
    return 2 if hands >= 2000 and cpus >= 2 and load <= cpus - 1 else 1


def _card(c: int) -> Card:
    return _CARDS[c]


def _cards(cards: Sequence[int]) -> tuple[Card, ...]:
    return tuple(map(_CARDS.__getitem__, cards))


def _text(c: int) -> str:
    return str(_card(c))


def _order(names: dict[int, str], button: int) -> list[str]:
    """Action order: left of the button first, the button last (R-ACT-1)."""
    return [names[s] for s in sorted(names, key=lambda s: (s <= button, s))]


def _next_seat(button: int | None, seats: Sequence[int]) -> int:
    """The first occupied seat clockwise after ``button`` (R-MATCH-2)."""
    later = [s for s in seats if button is not None and s > button]
    return later[0] if later else seats[0]


def _beyond_max_ways(t: _Table, seats: Sequence[int], button: int) -> list[str]:
    """How this hand's highest seat can stand beyond the table's K-max (R-DEAL-2) and break
    nothing else. "seat": the seat line says K-max + 1, which keeps the seat last in the action
    order only when it is not the button, and keeps the button's move (R-MATCH-2: the first seat
    clockwise after the previous button) only when the previous button is below it (otherwise
    the move wraps around to the lowest seat, and seat K-max + 1 would come first).
    "table": the table line says one seat less than the highest seat, at least 2."""
    high = max(seats)
    ways = []
    if high != button and (t.button is None or t.button < high):
        ways.append("seat")
    if high >= 3:
        ways.append("table")
    return ways


def _differs(rows: Rows, discards: list[int], auto: Rows, auto_discards: list[int]) -> bool:
    return any(sorted(rows[r]) != sorted(auto[r]) for r in range(3)) or sorted(
        discards
    ) != sorted(auto_discards)


def parse_view(view: str | None) -> str | None:
    """``operator`` (or None) is the operator's view; ``player:NAME`` a player's."""
    if view is None or view.strip() == "operator":
        return None
    kind, sep, name = view.partition(":")
    if kind.strip() != "player" or not sep or not name.strip():
        raise SimulationError(f"--view {view!r}: expected operator or player:NAME")
    return " ".join(name.split())


def parse_fault_kinds(kinds: str | None) -> tuple[str, ...] | None:
    """``R-ACT-2,fl_split_deal`` (comma-separated kinds of :data:`FAULT_KINDS`); None or an
    empty text is every kind. Unknown kinds are reported by :meth:`SimulationOptions.check`."""
    if kinds is None or not kinds.strip():
        return None
    return tuple(dict.fromkeys(k.strip() for k in kinds.split(",") if k.strip()))


def parse_stake(stake: str) -> str:
    """``0.10 EUR`` or ``1 points`` (docs/FORMAT.md), checked."""
    parts = stake.split()
    ok = len(parts) == 2 and (parts[1] == "points" or (len(parts[1]) == 3 and parts[1].isupper()))
    if ok:
        try:
            ok = Decimal(parts[0]) >= 0 and parts[0].replace(".", "", 1).isdigit()
        except ArithmeticError:
            ok = False
    if not ok:
        raise SimulationError(
            f"--stake {stake!r}: expected an amount and a 3-letter currency or 'points' "
            "(0.10 EUR, 1 points)"
        )
    return " ".join(parts)


def run(
    ruleset: Ruleset,
    out: str = "-",
    *,
    players: int = 3,
    hands: int = 100,
    seed: int = 0,
    view: str | None = None,
    faults: float = 0.0,
    stacks: int = 200,
    tables: int = 1,
    stake: str = "0.10 EUR",
    jobs: int = 0,
    fault_kinds: str | None = None,
    faults_per_hand: int = 1,
    progress: Callable[[int], None] | None = None,
) -> str:
    """The ``simulate`` command: check the options, play, write to the file ``out`` (``-``
    is standard output); returns the line of statistics for standard error. Raises
    :class:`SimulationError` for bad options and ``OSError`` when ``out`` cannot be written."""
    options = SimulationOptions(
        ruleset=ruleset, players=players, hands=hands, seed=seed, view=parse_view(view),
        faults=faults, stacks=stacks, tables=tables, stake=parse_stake(stake), jobs=jobs,
        fault_kinds=parse_fault_kinds(fault_kinds), faults_per_hand=faults_per_hand,
    )
    simulator = Simulator(options)
    start = time.perf_counter()
    if out == "-":
        simulator.written = simulator.write(sys.stdout, progress)
    else:
        with open(out, "w", encoding="utf-8", newline="\n") as stream:
            simulator.written = simulator.write(stream, progress)
    elapsed = time.perf_counter() - start
    rate = simulator.played / elapsed if elapsed > 0 else 0.0
    return (
        f"simulated {simulator.played} hand(s), wrote {simulator.written} to {out} in "
        f"{elapsed:.1f} s ({rate:.0f} hands/s); {simulator.faulty_hands} with a fault"
        + (f" ({sum(simulator.fault_counts.values())} faults)"
           if options.faults_per_hand > 1 else "")
    )


def simulate_text(options: SimulationOptions) -> str:
    """All hands of a simulation as one text (hands separated by blank lines)."""
    return "\n".join(Simulator(options).texts())


__all__ = [
    "FAULT_COMMENT",
    "FAULT_KINDS",
    "FAULT_RULES",
    "INCOMPATIBLE",
    "PLAYER_NAMES",
    "SimulationError",
    "SimulationOptions",
    "Simulator",
    "compatible",
    "expected_rules",
    "labelled_faults",
    "parse_fault_kinds",
    "parse_stake",
    "parse_view",
    "run",
    "simulate_text",
]

