"""Simulated hand histories (format v1): plausible play, stacks carried, Fantasyland chains,
and on request injected rule violations, each labelled with a ``# fault:`` comment.

:class:`Simulator` plays tables hand after hand with the bot of :mod:`ofc_audit.bot` and
settles every hand with the engine (:func:`~ofc_audit.board.evaluate_board`,
:func:`~ofc_audit.scoring.settle`, :func:`~ofc_audit.fantasyland.next_fantasyland`), so the
SUMMARY lines are what the auditor computes. The hands are built as the typed records of
:mod:`ofc_audit.records` and written with :mod:`ofc_audit.writer`.

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
  (R-TIME-1).

Faults (``faults`` > 0): with that probability a hand breaks ONE rule, chosen among those the
hand can break (:data:`FAULT_KINDS`); the hand is otherwise played and settled as written, so
nothing else is broken, and the following hands go on from what the history now says (the
button it recorded, the stacks it settled).

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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import IO

from .board import Board, BoardResult, evaluate_board
from .bot import JOKER_INDEX, BotBoard, Policy, Rows, automatic_placement
from .cards import HIDDEN, JOKERS, NATURAL_CARDS, Card
from .fantasyland import next_fantasyland
from .records import (
    ROWS,
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
    fast_constructor,
)
from .rules import FantasylandType, Ruleset, Variant
from .scoring import settle

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
)

TIMEOUT_RATE = 0.003  # per placement on a street
TIME_BANK_RATE = 0.01
FL_TIMEOUT_RATE = 0.003
TOP_UP_RATE = 0.3  # chance that a short stack tops up before a match


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
    fault: tuple[str, str] | None = None  # (rule, what was done)
    summary_fault: tuple[str, str, int] | None = None  # (player, field, delta)
    # Results, filled in by _settle:
    boards: dict[str, Rows] = field(default_factory=dict)
    fouled: dict[str, bool] = field(default_factory=dict)
    royalties: dict[str, int] = field(default_factory=dict)
    points: dict[str, int] = field(default_factory=dict)
    stacks_after: dict[str, int] = field(default_factory=dict)
    fl_next: dict[str, int] = field(default_factory=dict)
    chain: dict[str, int] = field(default_factory=dict)

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
        self.fault_counts: dict[str, int] = {}
        self.played = 0  # hands played (every table, whatever the view)
        self._renderer = _Renderer(self.viewer, self.variant, self.fl_type, self._stake)
        self.jobs = options.jobs if options.jobs > 0 else _auto_jobs(options.hands)
        self.written = 0  # hands written (the view's)

    # -- public ----------------------------------------------------------------------------

    def hands(self) -> Iterator[tuple[Hand, tuple[str, ...]]]:
        """Every hand of the chosen view as records, with its comment lines
        (``# fault: ...``)."""
        for hand in self._view():
            comments: tuple[str, ...] = ()
            if hand.fault is not None:
                comments = (f"# fault: {hand.fault[0]} {hand.fault[1]}",)
            yield self._renderer.record(hand), comments

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

    def write(self, out: IO[str]) -> int:
        """Write every hand to ``out`` (hands separated by a blank line); returns the count."""
        count = 0
        for text in self.texts():
            if count:
                out.write("\n")
            out.write(text if text.endswith("\n") else text + "\n")
            count += 1
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
        seats = sorted(s for s, p in t.players.items() if p.stack > 0)
        if len(seats) < 2:
            return None
        names = {s: t.players[s].name for s in seats}
        owed = {name: n for name, n in t.owed.items() if name in names.values()}
        continuation = bool(owed)
        fresh = t.hands == 0
        cap = self.ruleset.round_hand_cap
        if not continuation and cap is not None and t.hands >= cap:
            return None
        moves = self.ruleset.button_moves_on_fantasyland
        if continuation:
            if not moves and t.button not in seats:
                return None  # the button's player left: the Fantasyland hand cannot keep it
            button = t.button if not moves else _next_seat(t.button, seats)
            match_id, match_hand = t.match_id, t.match_hand + 1
        else:
            button = (
                _next_seat(t.button, seats) if t.button is not None
                else self._deck_rng.choice(seats)
            )
            self._match_seq += 1
            match_id, match_hand = f"M{options.seed}-{self._match_seq}", 1
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

        # The fault of this hand, if any, and the ones decided before the deal.
        fault = self._pick_fault(t, seats, names, button, owed, street_names, continuation)
        note: tuple[str, str] | None = None
        if fault == "R-MATCH-2":
            expected = button
            others = [s for s in seats if s != expected]
            button = self._fault_rng.choice(others)
            note = (fault, f"the button is put on seat {button}; it belongs on seat {expected} "
                           "(one occupied seat clockwise)")
            street_names = [n for n in _order(names, button) if n not in owed]
        stacks = {names[s]: t.players[s].stack for s in seats}
        if fault == "R-SETTLE-5":
            candidates = [n for n in _order(names, button) if n in t.last_names]
            victim = self._fault_rng.choice(candidates)
            delta = self._fault_rng.choice([-1, 1]) * self._fault_rng.randint(1, 25)
            if stacks[victim] + delta < 1:
                delta = abs(delta)
            note = (fault, f"{victim}'s stack is written {stacks[victim] + delta}, not the "
                           f"{stacks[victim]} carried from the previous hand")
            stacks[victim] += delta

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
            fault=note,
        )
        self._deal(hand, t, owed, fault)
        if fault == "R-ACT-1":
            self._fault_out_of_turn(hand)
        if fault == "SUMMARY":
            self._fault_summary(hand)
        self._settle(hand, t)
        if hand.fault is not None:
            rule = hand.fault[0]
            self.fault_counts[rule] = self.fault_counts.get(rule, 0) + 1

        # The table goes on from what the history says.
        t.button = hand.button
        t.match_id, t.match_hand = match_id, match_hand
        t.hands += 1
        t.last_names = frozenset(order)
        for s in seats:
            t.players[s].stack = hand.stacks_after[names[s]]
        for s in seats:
            if t.players[s].stack <= 0:
                del t.players[s]  # busted: leaves the table (R-SETTLE-4)
        t.owed = dict(hand.fl_next)
        t.chain = dict(hand.chain)
        return hand

    def _pick_fault(
        self,
        t: _Table,
        seats: list[int],
        names: dict[int, str],
        button: int,
        owed: dict[str, int],
        street_names: list[str],
        continuation: bool,
    ) -> str | None:
        rate = self.options.faults
        if rate <= 0.0 or self._fault_rng.random() >= rate:
            return None
        viewer = self.viewer
        spare = self.deck_size - len(street_names) * self.street_cards - sum(owed.values())
        # Faults in cards only the victim sees need the viewer as victim in a player's view.
        private_ok = viewer is None or viewer in street_names
        kinds: list[str] = ["SUMMARY"]
        if street_names:
            kinds.append("R-ACT-3")
            if private_ok:
                kinds.append("R-TIME-1")
            if spare >= 1:
                kinds.append("R-DEAL-1")
                if private_ok:
                    kinds.append("R-ACT-2")
        if len(street_names) >= 2:
            kinds.append("R-ACT-1")
            if private_ok:
                kinds.append("R-CARD-3")
        if owed:
            kinds.append("R-FL-2")
        if t.hands > 0:
            if not continuation and len(seats) >= 2:
                kinds.append("R-MATCH-2")
            if any(names[s] in t.last_names for s in seats):
                kinds.append("R-SETTLE-5")
        return self._fault_rng.choice(kinds)

    # -- dealing and playing -----------------------------------------------------------------

    def _deal(self, hand: _Hand, t: _Table, owed: dict[str, int], fault: str | None) -> None:
        deck = list(range(self.deck_size))
        self._deck_rng.shuffle(deck)
        policy = self._policy(len(hand.order))
        frng = self._fault_rng
        mrng = self._misc_rng
        viewer = self.viewer
        street_names = [n for n in hand.order if n not in owed]

        # Where an in-play fault strikes: (player, street).
        victim: str | None = None
        strike = 0
        if fault in ("R-CARD-3", "R-DEAL-1", "R-ACT-2", "R-ACT-3", "R-TIME-1"):
            private = fault in ("R-CARD-3", "R-ACT-2", "R-TIME-1")
            if private and viewer is not None:
                pool = [viewer]
            else:
                pool = street_names
            victim = frng.choice(pool)
            last = len(self.streets)
            if fault == "R-ACT-3":
                strike = last
            elif fault == "R-CARD-3":
                strike = frng.randint(2, last)
            else:
                strike = frng.randint(1, last)

        # Fantasyland: each player dealt all its cards at once, then sets 13.
        fl_victim = frng.choice(list(owed)) if fault == "R-FL-2" and owed else None
        for name in hand.order:
            if name not in owed:
                continue
            count = owed[name]
            if name == fl_victim:
                spare = self.deck_size - len(street_names) * self.street_cards - sum(owed.values())
                count = self._fault_fl_count(hand, name, count, spare)
            cards = [deck.pop() for _ in range(count)]
            hand.fl_lines.append(_Line("deal", name, cards=cards))
            if mrng.random() < FL_TIMEOUT_RATE:
                hand.fl_lines.append(_Line("event", name, event=EventKind.TIMES_OUT))
                rows, discards = automatic_placement([[], [], []], cards, 13)
            else:
                rows, discards = policy.fantasyland(cards, t.chain.get(name))
            hand.fl_lines.append(
                _Line("place", name, rows=rows, discards=discards if len(cards) > 13 else None)
            )

        boards: dict[str, BotBoard] = {name: policy.board() for name in street_names}
        placed: dict[str, list[int]] = {name: [] for name in street_names}  # cards placed
        for k, (size, place) in enumerate(self.streets, start=1):
            lines: list[_Line] = []
            hand.streets.append(lines)
            for name in street_names:
                board = boards[name]
                cards = [deck.pop() for _ in range(size)]
                struck = name == victim and k == strike
                if struck and fault == "R-DEAL-1":
                    cards.append(deck.pop())
                    hand.fault = (fault, f"{name} is dealt {len(cards)} cards on street {k}; "
                                         f"{self.variant.title} deals {size}")
                if struck and fault == "R-CARD-3":
                    others = [c for n in street_names if n != name for c in placed[n]
                              if c < JOKER_INDEX]
                    dup = frng.choice(others)
                    i = frng.randrange(len(cards))
                    deck.insert(0, cards[i])  # the card it replaces stays in the deck
                    cards[i] = dup
                    hand.fault = (fault, f"{name} is dealt {_text(dup)} on street {k}, a card "
                                         "already in the hand")
                lines.append(_Line("deal", name, cards=cards))
                timed_out = mrng.random() < TIMEOUT_RATE and not struck  # one fault only
                if struck and fault == "R-TIME-1":
                    rows_discards = self._wrong_auto(policy, board, cards, place)
                    if rows_discards is None and k < len(self.streets):
                        strike += 1  # no other placement is possible here: the next street
                    elif rows_discards is not None:
                        lines.append(_Line("event", name, event=EventKind.TIMES_OUT))
                        rows, discards = rows_discards
                        hand.fault = (fault, f"{name} times out on street {k} and is not placed "
                                             "as R-TIME-1 places it")
                        self._place(lines, policy, board, name, rows, discards, placed[name])
                        continue
                if timed_out:
                    lines.append(_Line("event", name, event=EventKind.TIMES_OUT))
                    rows, discards = automatic_placement(board.rows, cards, place)
                else:
                    if mrng.random() < TIME_BANK_RATE:
                        lines.append(_Line("event", name, event=EventKind.USES_TIME_BANK))
                    rows, discards = policy.choose(board, cards, place)
                if struck and fault == "R-ACT-2" and deck:
                    row = frng.choice([r for r in range(3) if rows[r]])
                    i = frng.randrange(len(rows[row]))
                    fresh = deck.pop()
                    old = rows[row][i]
                    rows = [list(r) for r in rows]
                    rows[row][i] = fresh
                    hand.fault = (fault, f"{name} places {_text(fresh)} instead of {_text(old)} "
                                         f"on street {k}: it was not dealt to {name}")
                if struck and fault == "R-ACT-3":
                    moved = self._overflow(board, rows)
                    if moved is not None:
                        rows = moved[0]
                        hand.fault = (fault, f"{name} puts a card in its full {moved[1]} row on "
                                             f"street {k}")
                self._place(lines, policy, board, name, rows, discards, placed[name])

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
            hand.fault = ("R-FL-2", f"{name}'s seat line says {count + 1} Fantasyland cards; it "
                                    f"earned {count}")
            return count
        dealt = self._fault_rng.choice(options)
        hand.fault = ("R-FL-2", f"{name} is dealt {dealt} Fantasyland cards; it earned {count}")
        return dealt

    def _fault_out_of_turn(self, hand: _Hand) -> None:
        """Swap two neighbours' turns on one street (R-ACT-1)."""
        frng = self._fault_rng
        k = frng.randrange(len(hand.streets))
        lines = hand.streets[k]
        players = list(dict.fromkeys(line.player for line in lines))
        i = frng.randrange(len(players) - 1)
        first, second = players[i], players[i + 1]
        block_a = [line for line in lines if line.player == first]
        block_b = [line for line in lines if line.player == second]
        start = lines.index(block_a[0])
        rest = [line for line in lines if line.player not in (first, second)]
        before = [line for line in rest if lines.index(line) < start]
        after = [line for line in rest if lines.index(line) > start]
        hand.streets[k] = before + block_b + block_a + after
        hand.fault = ("R-ACT-1", f"{second} is dealt on street {k + 1} before {first}, who acts "
                                 "first")

    def _fault_summary(self, hand: _Hand) -> None:
        frng = self._fault_rng
        name = frng.choice(hand.order)
        which = frng.choice(["royalties", "points", "stack_after"])
        delta = frng.choice([-1, 1]) * frng.randint(1, 9)
        hand.summary_fault = (name, which, delta)
        what = which.replace("_", " ")
        hand.fault = ("SUMMARY", f"{name}'s {what} is recorded off by {delta:+d}")

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
        from .writer import write_hand

        text = write_hand(self.record(hand))
        if hand.fault is not None:
            head, _, rest = text.partition("\n")
            text = f"{head}\n# fault: {hand.fault[0]} {hand.fault[1]}\n{rest}"
        return text

    def record(self, hand: _Hand) -> Hand:
        viewer = self.viewer

        def shown(owner: str, cards: Sequence[int]) -> tuple[Card, ...]:
            if viewer is not None and owner != viewer:
                return (HIDDEN,) * len(cards)
            return tuple(map(_CARDS.__getitem__, cards))

        def action(line: _Line, fantasyland: bool) -> Action:
            if line.kind == "deal":
                return _deal(line.player, shown(line.player, line.cards), 0)
            if line.kind == "event":
                assert line.event is not None
                return _event(line.player, line.event, 0)
            hide_rows = fantasyland and viewer is not None and line.player != viewer
            rows = tuple(
                (ROWS[r], shown(line.player, cards) if hide_rows else _cards(cards))
                for r, cards in enumerate(line.rows)
                if cards
            )
            discards = None if line.discards is None else shown(line.player, line.discards)
            return _placement(line.player, rows, discards, 0)

        sections: list[Section] = []
        if hand.fl_lines:
            sections.append(_section(
                SectionKind.FANTASYLAND, None,
                tuple(action(line, True) for line in hand.fl_lines), 0,
            ))
        for k, lines in enumerate(hand.streets, start=1):
            sections.append(
                _section(SectionKind.STREET, k, tuple(action(line, False) for line in lines), 0)
            )
        showdown = Showdown(
            tuple(
                _board(name, *map(_cards, hand.boards[name]), 0) for name in hand.order
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
            entries.append(_entry(
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
                _seat(s.seat, s.name, s.stack, s.fl_cards is not None,
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


_deal = fast_constructor(Deal)
_placement = fast_constructor(Placement)
_event = fast_constructor(Event)
_section = fast_constructor(Section)
_board = fast_constructor(ShowdownBoard)
_entry = fast_constructor(SummaryEntry)
_seat = fast_constructor(Seat)


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


def parse_stake(stake: str) -> str:
    """``0.10 EUR`` or ``1 points`` (FORMAT.md), checked."""
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
) -> str:
    """The ``simulate`` command: check the options, play, write to the file ``out`` (``-``
    is standard output); returns the line of statistics for standard error. Raises
    :class:`SimulationError` for bad options and ``OSError`` when ``out`` cannot be written."""
    options = SimulationOptions(
        ruleset=ruleset, players=players, hands=hands, seed=seed, view=parse_view(view),
        faults=faults, stacks=stacks, tables=tables, stake=parse_stake(stake), jobs=jobs,
    )
    simulator = Simulator(options)
    start = time.perf_counter()
    if out == "-":
        simulator.written = simulator.write(sys.stdout)
    else:
        with open(out, "w", encoding="utf-8", newline="\n") as stream:
            simulator.written = simulator.write(stream)
    elapsed = time.perf_counter() - start
    rate = simulator.played / elapsed if elapsed > 0 else 0.0
    return (
        f"simulated {simulator.played} hand(s), wrote {simulator.written} to {out} in "
        f"{elapsed:.1f} s ({rate:.0f} hands/s); {sum(simulator.fault_counts.values())} with "
        "a fault"
    )


def simulate_text(options: SimulationOptions) -> str:
    """All hands of a simulation as one text (hands separated by blank lines)."""
    return "\n".join(Simulator(options).texts())


__all__ = [
    "FAULT_KINDS",
    "PLAYER_NAMES",
    "SimulationError",
    "SimulationOptions",
    "Simulator",
    "parse_stake",
    "parse_view",
    "run",
    "simulate_text",
]

