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

This module is the table loop, which plays honestly; the fault kinds are the classes of
:mod:`ofc_audit.simulate.faults`, a registry whose hooks the loop calls as it writes a hand;
:mod:`ofc_audit.simulate.hand` holds the hand and the table they share,
:mod:`ofc_audit.simulate.render` turns hands into records and text for a view, and
:mod:`ofc_audit.simulate.bot` is the play policy.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from itertools import islice
from typing import IO

from ..common.lifeline import lifeline, starting_workers
from ..common.textfmt import number, plural, quantity
from ..game.automatic import automatic_placement
from ..game.board import Board, BoardResult, evaluate_board
from ..game.cards import NATURAL_CARDS
from ..game.fantasyland import next_fantasyland
from ..game.ruleset import FantasylandType, Ruleset, Variant
from ..game.scoring import settle
from ..history.records import EventKind, Hand, Stake
from .bot import JOKER_INDEX, BotBoard, Policy, Rows
from .faults import FAULT_KINDS, Fault, pick_faults
from .hand import (
    Dealing,
    Game,
    HandDraft,
    HandPlan,
    Line,
    SeatLine,
    Table,
    TablePlayer,
    Turn,
    action_order,
    cards_of,
    next_seat,
)
from .render import Renderer, start_writer, write_in_writer

#: Hands a writer process writes at a time.
WRITER_PIECE = 32
PLAYER_NAMES = (
    "alice", "bob", "carol", "Big Al", "dilnoza", "emil", "farrukh", "greta", "hasan",
    "ieva", "jonas", "kamila", "lukas", "malika", "nodir", "olga", "paulius", "rustam",
    "sofia", "timur", "ugne", "viktor", "zarina", "Mr. Pink",
)
TABLE_NAMES = (
    "Tashkent", "Vilnius", "Kazan", "Samarkand", "Kaunas", "Bukhara", "Riga", "Almaty",
)

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
                f"unknown {plural(len(unknown), 'fault kind')} {', '.join(unknown)}: "
                "expected some of "
                f"{', '.join(FAULT_KINDS)}"
            )


# -- the simulator ----------------------------------------------------------------------------


class Simulator:
    """Plays hands and yields them as records (operator or player view) or text."""

    def __init__(self, options: SimulationOptions) -> None:
        options.check()
        self.options = options
        self.ruleset = options.ruleset
        self.variant: Variant = options.ruleset.variant
        self.fl_type: FantasylandType = options.ruleset.fantasyland
        self.game = Game(options.ruleset, options.stacks, options.view)
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
        self._renderer = Renderer(self.viewer, self.variant, self.fl_type, self._stake)
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
        writers = self.jobs - 1
        # A pool of the standard library's futures, not ``multiprocessing.Pool``: a writer
        # killed while it waited for work (SIGTERM to the process group, as ``timeout``
        # sends it) left the Pool's queue locked, and its clean-up waited for the lock for
        # good; here the others are stopped and the command ends.
        with starting_workers():
            pool = ProcessPoolExecutor(writers, mp_context=context, initializer=start_writer,
                                       initargs=(self._renderer, lifeline()))
        with pool:
            hands = self._view()
            pending: deque[Future[list[str]]] = deque()
            try:
                while True:
                    # A few pieces per writer in flight: memory stays flat in the hands.
                    while len(pending) < 4 * writers:
                        piece = list(islice(hands, WRITER_PIECE))
                        if not piece:
                            break
                        # The first pieces start the writers.
                        with starting_workers(pool=pool):
                            pending.append(pool.submit(write_in_writer, piece))
                    if not pending:
                        return
                    yield from pending.popleft().result()
            finally:
                for future in pending:
                    future.cancel()

    def _view(self) -> Iterator[HandDraft]:
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

    def _play_all(self) -> Iterator[HandDraft]:
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

    def _new_table(self) -> Table:
        self._table_seq += 1
        k = self._table_seq
        base = TABLE_NAMES[(k - 1) % len(TABLE_NAMES)]
        name = f"{base} {k}"
        players: dict[int, TablePlayer] = {}
        taken: set[str] = set()
        seat = 1
        while len(players) < self.options.players:
            player = self._names[self._name_next % len(self._names)]
            self._name_next += 1
            if player in taken:
                continue
            taken.add(player)
            players[seat] = TablePlayer(player, self.options.stacks)
            seat += 1
        return Table(name, self.variant.max_players, players)

    def _policy(self, players: int) -> Policy:
        policy = self._policies.get(players)
        if policy is None:
            limit = self.deck_size - (players - 1) * self.street_cards
            policy = self._policies[players] = Policy(self.ruleset, players, limit)
        return policy

    # -- one hand --------------------------------------------------------------------------

    def _play(self, t: Table) -> HandDraft | None:
        """The table's next hand, played and settled, or None when the table closes."""
        plan = self._plan(t)
        if plan is None:
            return None
        options = self.options
        faults = pick_faults(plan, self._fault_rng, options.faults, options.fault_kinds,
                             options.faults_per_hand)
        for fault in faults:
            fault.before_deal(plan)
        seats, names, button, owed = plan.seats, plan.names, plan.button, plan.owed
        if plan.match_line is not None:
            match_id, match_hand = plan.match_line
        elif plan.new_match:
            self._match_seq += 1
            match_id, match_hand = f"M{options.seed}-{self._match_seq}", 1
        else:
            match_id, match_hand = t.match_id, t.match_hand + 1

        self._hand_seq += 1
        self._clock += timedelta(seconds=self._misc_rng.randint(25, 140))
        order = action_order(names, button)
        hand = HandDraft(
            hand_id=f"SIM{options.seed}-{self._hand_seq}",
            timestamp=self._clock.strftime("%Y-%m-%d %H:%M:%S") + " UTC",
            match_id=match_id,
            match_hand=match_hand,
            table=t.name,
            max_seats=t.max_seats,
            button=button,
            seats=[
                SeatLine(s, names[s], plan.stacks_written.get(names[s], t.players[s].stack),
                         owed.get(names[s]), self.fl_type is not FantasylandType.STANDARD)
                for s in seats
            ],
            order=order,
            topups=plan.topups,
            fl_lines=[],
            streets=[],
            faults=plan.notes,
        )
        for fault in faults:
            fault.on_seat_lines(hand, plan)
        self._deal(hand, t, owed, plan.unannounced, faults)
        for fault in faults:
            fault.after_play(hand, plan)
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
            elif names[s] == plan.leaves_after:
                del t.players[s]  # dealt in after busting: it leaves again
        t.owed = dict(hand.fl_next)
        t.chain = dict(hand.chain)
        self._sit_outs(hand, t)
        return hand

    def _plan(self, t: Table) -> HandPlan | None:
        """Who the table's next hand deals in, the button, who is in Fantasyland and the
        top-ups before it; None when the table closes."""
        options = self.options
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
            button = t.button if not moves else next_seat(t.button, seats)
        else:
            button = (
                next_seat(t.button, seats) if t.button is not None
                else self._deck_rng.choice(seats)
            )
        assert button is not None
        street_names = [n for n in action_order(names, button) if n not in owed]
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
        return HandPlan(
            game=self.game, table=t, seats=seats, names=names, button=button, owed=owed,
            topups=topups, continuation=continuation, sat_out=out,
            spare=self.deck_size - needed, new_match=not continuation,
        )

    @staticmethod
    def _sit_outs(hand: HandDraft, t: Table) -> None:
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

    # -- dealing and playing -----------------------------------------------------------------

    def _connections(
        self, order: list[str], owed: dict[str, int], carried: set[str], protected: set[str],
        kept: str | None, kept_from: int | None,
    ) -> tuple[dict[str, int], dict[str, int]]:
        """Who disconnects and reconnects, by step (0 is the Fantasyland section, 1.. the
        streets): ``down`` the step after whose deal a player disconnects (-1: it still is from
        the match's previous hand), ``up`` the step before whose deal it reconnects (one past
        the last street: after its last placement). The viewer always reconnects within the
        hand, so a player's view never skips a hand it sat out. ``protected`` players (a fault
        strikes their lines) stay connected; ``kept`` (a fault's) disconnects after step
        ``kept_from`` and stays disconnected to the end of the hand."""
        mrng = self._misc_rng
        last = len(self.streets)
        down: dict[str, int] = {}
        up: dict[str, int] = {}
        for name in order:
            fl = name in owed
            if name in carried:
                down[name] = -1
            elif name == kept and kept_from is not None:
                down[name] = kept_from
            elif name not in protected and mrng.random() < DISCONNECT_RATE:
                down[name] = 0 if fl else mrng.randint(1, last)
            else:
                continue
            if name == self.viewer or mrng.random() < RECONNECT_RATE:
                first = max(down[name], 0) + 1
                up[name] = last + 1 if fl or name == kept else mrng.randint(first, last + 1)
        return down, up

    def _deal(
        self, hand: HandDraft, t: Table, owed: dict[str, int], unannounced: str | None,
        faults: Sequence[Fault],
    ) -> None:
        """Deal and play the hand: the Fantasyland section, then the streets."""
        deck = list(range(self.deck_size))
        self._deck_rng.shuffle(deck)
        policy = self._policy(len(hand.order))
        mrng = self._misc_rng
        viewer = self.viewer
        last = len(self.streets)
        street_names = [n for n in hand.order if n not in owed]
        placed: dict[str, list[int]] = {name: [] for name in street_names}  # cards placed
        deal = Dealing(
            self.game, hand, t, owed, deck, street_names,
            self.deck_size - len(street_names) * self.street_cards - sum(owed.values()),
            policy, placed,
        )
        for fault in faults:
            fault.plan_deal(deal)
        down, up = self._connections(
            hand.order, owed, t.disconnected, {name for name, _ in deal.strikes},
            deal.kept_offline, deal.kept_offline_from,
        )

        def offline(name: str, step: int) -> bool:
            return down.get(name, last + 2) <= step < up.get(name, last + 2)

        # Sat-out players come back with `returns` before their first deal (R-TIME-3);
        # now and then a player asks to sit out (it takes effect when the match ends).
        returning = {n for n in hand.order if n in t.sat_out and n != unannounced}
        leaving = {n for n in hand.order if n != viewer and mrng.random() < SIT_OUT_RATE}

        def after_last_placement(lines: list[Line], name: str) -> None:
            if up.get(name) == last + 1:
                lines.append(Line("event", name, event=EventKind.RECONNECTS))
            if name in leaving:
                lines.append(Line("event", name, event=EventKind.SITS_OUT))

        # Fantasyland: each player dealt all its cards at once, then sets 13.
        fl_lines = hand.fl_lines
        for name in hand.order:
            if name not in owed:
                continue
            count = owed[name]
            for fault in faults:
                count = fault.fantasyland_count(deal, name, count)
            cards = deal.draw(count)
            if name in returning:
                fl_lines.append(Line("event", name, event=EventKind.RETURNS))
            deal_lines = None
            for fault in faults:
                deal_lines = deal_lines or fault.fantasyland_deal_lines(deal, name, cards)
            fl_lines.extend(deal_lines or (Line("deal", name, cards=cards),))
            for fault in faults:
                fault.after_fantasyland_deal(deal, name)
            if down.get(name) == 0:
                fl_lines.append(Line("event", name, event=EventKind.DISCONNECTS))
            if offline(name, 0):  # disconnected: the first 13 cards received are set
                rows, discards = automatic_placement([[], [], []], cards, 13)
                for fault in faults:
                    rows, discards = fault.offline_fantasyland(deal, name, cards, rows, discards)
            elif mrng.random() < FL_TIMEOUT_RATE:
                fl_lines.append(Line("event", name, event=EventKind.TIMES_OUT))
                rows, discards = automatic_placement([[], [], []], cards, 13)
            else:
                rows, discards = policy.fantasyland(cards, t.chain.get(name))
            fl_lines.append(
                Line("place", name, rows=rows, discards=discards if len(cards) > 13 else None)
            )
            after_last_placement(fl_lines, name)

        boards: dict[str, BotBoard] = {name: policy.board() for name in street_names}
        for k, (size, place) in enumerate(self.streets, start=1):
            lines: list[Line] = []
            hand.streets.append(lines)
            for name in street_names:
                board = boards[name]
                if k == 1 and name in returning:
                    lines.append(Line("event", name, event=EventKind.RETURNS))
                if up.get(name) == k:
                    lines.append(Line("event", name, event=EventKind.RECONNECTS))
                turn = Turn(name, k, board, deal.draw(size), place, offline(name, k), lines)
                struck = deal.strikes.get((name, k))  # the in-play fault on this line
                if struck is not None:
                    struck.deal_line(deal, turn)
                cards = turn.cards
                lines.append(Line("deal", name, cards=list(turn.shown or cards)))
                if down.get(name) == k:
                    lines.append(Line("event", name, event=EventKind.DISCONNECTS))
                if turn.offline:  # placed automatically (R-TIME-2)
                    rows, discards = automatic_placement(board.rows, cards, place)
                    for fault in faults:
                        rows, discards = fault.offline_placement(deal, turn, rows, discards)
                    self._place(lines, policy, board, name, rows, discards, placed[name])
                    if k == last:
                        after_last_placement(lines, name)
                    continue
                # One fault a line: no time-out by chance where a fault strikes.
                timed_out = mrng.random() < TIMEOUT_RATE and struck is None
                chosen = struck.placement(deal, turn) if struck is not None else None
                if chosen is not None:
                    rows, discards = chosen
                elif timed_out:
                    lines.append(Line("event", name, event=EventKind.TIMES_OUT))
                    rows, discards = automatic_placement(board.rows, cards, place)
                else:
                    if mrng.random() < TIME_BANK_RATE:
                        lines.append(Line("event", name, event=EventKind.USES_TIME_BANK))
                    rows, discards = policy.choose(board, cards, place)
                    if struck is not None:
                        rows, discards = struck.alter_placement(deal, turn, rows, discards)
                self._place(lines, policy, board, name, rows, discards, placed[name])
                if k == last:
                    after_last_placement(lines, name)
            for fault in faults:
                fault.after_street(deal, k, lines)

    @staticmethod
    def _place(
        lines: list[Line],
        policy: Policy,
        board: BotBoard,
        name: str,
        rows: Rows,
        discards: list[int],
        placed: list[int],
    ) -> None:
        lines.append(Line("place", name, rows=rows, discards=discards or None))
        policy.apply(board, rows)  # the bot's board follows what was written
        placed.extend(c for r in rows for c in r)

    # -- results ---------------------------------------------------------------------------

    def _settle(self, hand: HandDraft, t: Table) -> None:
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
            board = Board(cards_of(rows[0]), cards_of(rows[1]), cards_of(rows[2]))
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


# -- helpers ----------------------------------------------------------------------------------


def _auto_jobs(hands: int) -> int:
    """A second process writes for a long run when a core is idle (it only competes for
    the processor otherwise); the output is the same either way."""
    cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - no load average on this platform
        load = float(cpus)
    return 2 if hands >= 2000 and cpus >= 2 and load <= cpus - 1 else 1


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
        f"simulated {quantity(simulator.played, 'hand')}, wrote {number(simulator.written)} "
        f"to {out} in {elapsed:,.1f} s ({rate:,.0f} hands/s); "
        f"{number(simulator.faulty_hands)} with a fault"
        + (f" ({quantity(sum(simulator.fault_counts.values()), 'fault')})"
           if options.faults_per_hand > 1 else "")
    )


def simulate_text(options: SimulationOptions) -> str:
    """All hands of a simulation as one text (hands separated by blank lines)."""
    return "\n".join(Simulator(options).texts())


__all__ = [
    "PLAYER_NAMES",
    "SimulationError",
    "SimulationOptions",
    "Simulator",
    "parse_fault_kinds",
    "parse_stake",
    "parse_view",
    "run",
    "simulate_text",
]
