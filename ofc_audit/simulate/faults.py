"""The rule violations the simulator injects on request, one class per kind, in a registry.

A kind says what it is (its rule id, or a name, and the rule ids the audit cites for it),
where it can apply (:meth:`Fault.can_apply`, on the plan of a hand before its deal) and what
it changes, through the hooks the table loop calls as it writes a hand (in this order):

- :meth:`Fault.before_deal`: who is dealt in, who is in Fantasyland, the button, the stacks,
  the Match line (a :class:`~ofc_audit.simulate.hand.HandPlan`);
- :meth:`Fault.on_seat_lines`: the table and seat lines, once written;
- :meth:`Fault.plan_deal`: before the first card, what the fault takes from the cards to
  spare and which line it strikes (a :class:`~ofc_audit.simulate.hand.Dealing`);
- in the Fantasyland section: :meth:`Fault.fantasyland_count`,
  :meth:`Fault.fantasyland_deal_lines`, :meth:`Fault.after_fantasyland_deal`,
  :meth:`Fault.offline_fantasyland`;
- on the streets: :meth:`Fault.offline_placement` for a player placed automatically, and on
  the one line a :class:`LineFault` strikes, :meth:`LineFault.deal_line`,
  :meth:`LineFault.placement`, :meth:`LineFault.alter_placement`; after each street
  :meth:`Fault.after_street`;
- :meth:`Fault.after_play`: the hand played, before it is settled.

A hand that carries faults gets one instance of each of its kinds (its choices for the hand
live on it), made in :data:`REGISTRY` order, which is the order the hooks run in: a fault
works on what the ones before it wrote. Every choice a fault makes comes from the simulator's
fault generator, in a fixed order, so a seed writes the same history.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar

from ..game.automatic import automatic_placement
from ..game.fantasyland import standard_count
from ..game.record import ROWS
from ..game.ruleset import FantasylandType
from ..history.records import EventKind
from .bot import JOKER_INDEX, BotBoard, Policy, Rows
from .hand import (
    FAULT_COMMENT,
    Dealing,
    HandDraft,
    HandPlan,
    Line,
    Table,
    TablePlayer,
    Turn,
    action_order,
    card_text,
    next_seat,
)

# The fault kinds, by the rule each breaks (SUMMARY is a recorded mismatch); the order of the
# ``--fault-kinds`` error message.
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


# -- the kinds --------------------------------------------------------------------------------


class Fault:
    """One kind of fault. ``kind`` is its rule id or name, ``cites`` the rule ids the audit
    cites for it (docs/RULES.md, "Which rule a finding cites"); the hooks do nothing unless the
    kind changes that part of the hand."""

    kind: ClassVar[str]
    cites: ClassVar[frozenset[str]]  # its own rule, unless the kind says otherwise

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        if "kind" in vars(cls) and "cites" not in vars(cls):
            cls.cites = frozenset({cls.kind})

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        """Whether the planned hand can break this rule (and nothing else)."""
        return True

    def before_deal(self, plan: HandPlan) -> None:
        pass

    def on_seat_lines(self, hand: HandDraft, plan: HandPlan) -> None:
        pass

    def plan_deal(self, deal: Dealing) -> None:
        pass

    def fantasyland_count(self, deal: Dealing, name: str, count: int) -> int:
        """How many cards ``name`` is dealt in Fantasyland (it earned ``count``)."""
        return count

    def fantasyland_deal_lines(
        self, deal: Dealing, name: str, cards: list[int]
    ) -> list[Line] | None:
        """The lines ``name``'s Fantasyland deal is written in (None: one deal line)."""
        return None

    def after_fantasyland_deal(self, deal: Dealing, name: str) -> None:
        pass

    def offline_fantasyland(
        self, deal: Dealing, name: str, cards: list[int], rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        """The setting written for a disconnected Fantasyland player (given: R-TIME-1's)."""
        return rows, discards

    def offline_placement(
        self, deal: Dealing, turn: Turn, rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        """The placement written for a disconnected street player (given: R-TIME-1's)."""
        return rows, discards

    def after_street(self, deal: Dealing, street: int, lines: list[Line]) -> None:
        pass

    def after_play(self, hand: HandDraft, plan: HandPlan) -> None:
        pass


class LineFault(Fault):
    """A fault in one street player's line: planned on a line of its own (no two in-play
    faults strike the same line), and acted on when that line is written."""

    private: ClassVar[bool] = False  # in cards only the victim sees (the viewer, in its view)
    takes_spare_card: ClassVar[bool] = False
    from_street: ClassVar[int] = 1  # the first street it can strike (0: the last one only)

    def plan_deal(self, deal: Dealing) -> None:
        frng = self.rng
        viewer, last = deal.game.viewer, deal.last
        if self.takes_spare_card and deal.spare < 1:
            return
        if self.private and viewer is not None:
            pool = [viewer]
        else:
            pool = [n for n in deal.street_names if n not in deal.table.disconnected]
        if not pool:
            return
        first = self.from_street or last
        victim = frng.choice(pool)
        strike = last if first == last else frng.randint(first, last)
        if (victim, strike) in deal.strikes:
            free = [(n, k) for n in pool for k in range(first, last + 1)
                    if (n, k) not in deal.strikes]
            if not free:
                return
            victim, strike = frng.choice(free)
        deal.strikes[victim, strike] = self
        if self.takes_spare_card:
            deal.spare -= 1

    def deal_line(self, deal: Dealing, turn: Turn) -> None:
        """Change the cards dealt on the struck line (``turn.cards``, ``turn.shown``)."""

    def placement(self, deal: Dealing, turn: Turn) -> tuple[Rows, list[int]] | None:
        """The placement written instead of the player's own, or None."""
        return None

    def alter_placement(
        self, deal: Dealing, turn: Turn, rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        """Change the player's placement on the struck line."""
        return rows, discards


# -- before the deal: who is dealt in, Fantasyland, the button, the stacks, the Match line ----


def _opens_match_after_hands(plan: HandPlan) -> bool:
    return plan.table.hands > 0 and not plan.continuation


class BustedDealtIn(Fault):
    """A player who busted in the table's previous hand dealt in again after a top-up
    (R-SETTLE-4; a rebuy does not lift it); it leaves the table again after the hand."""

    kind = "R-SETTLE-4"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        # One more street player fits: the table's seats are within the variant's.
        return _opens_match_after_hands(plan) and bool(plan.table.busted)

    def before_deal(self, plan: HandPlan) -> None:
        t = plan.table
        seat = self.rng.choice(sorted(t.busted))
        busted = t.busted[seat]
        amount = plan.game.stacks - busted.stack
        plan.topups.append((busted.name, amount))
        t.players[seat] = TablePlayer(busted.name, busted.stack + amount)
        plan.leaves_after = plan.names[seat] = busted.name
        plan.seats = sorted([*plan.seats, seat])
        plan.button = next_seat(t.button, plan.seats)
        plan.note(self.kind, f"{busted.name} busted in the table's previous hand and is dealt in "
                             f"again after a top-up of {amount}")


class SatOutDealtIn(Fault):
    """A sat-out player dealt in without its ``returns`` line (R-TIME-3), coming back or
    not."""

    kind = "R-TIME-3"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return _opens_match_after_hands(plan) and bool(plan.sat_out)

    def before_deal(self, plan: HandPlan) -> None:
        seat = self.rng.choice(plan.sat_out)
        silent = plan.unannounced = plan.names[seat] = plan.table.players[seat].name
        if seat not in plan.seats:
            plan.seats = sorted([*plan.seats, seat])
            plan.button = next_seat(plan.table.button, plan.seats)
        plan.note(self.kind, f"{silent} sat out and is dealt in without a 'returns' line")


def fantasyland_entries(plan: HandPlan) -> dict[str, list[tuple[str, int | None]]]:
    """The Fantasyland entry faults a hand can carry, by rule: (player, None) for a qualifier
    who plays the streets, (player, count) for a player dealt a Fantasyland it did not earn.
    R-FL-3 when the player was in Fantasyland in the previous hand (a stay decision), R-FL-1
    otherwise; each within the deck (R-DEAL-2)."""
    game, spare = plan.game, plan.spare
    faults: dict[str, list[tuple[str, int | None]]] = {"R-FL-1": [], "R-FL-3": []}
    count = standard_count(game.variant)  # a count every Fantasyland type deals
    # A game without Fantasyland has no stay decision: any Fantasyland seat is R-FL-1.
    stays = plan.table.fl_last if game.fl_type is not FantasylandType.NONE else frozenset()
    for name, earned in plan.owed.items():
        if spare + earned >= game.street_cards:
            faults["R-FL-3" if name in stays else "R-FL-1"].append((name, None))
    for name in plan.street_names:
        if spare + game.street_cards >= count:
            faults["R-FL-3" if name in stays else "R-FL-1"].append((name, count))
    return faults


class FantasylandEntry(Fault):
    """A player in Fantasyland who did not qualify, or a qualifier on the streets (R-FL-1)."""

    kind = "R-FL-1"

    @classmethod
    def can_apply(cls, plan: HandPlan) -> bool:
        return bool(fantasyland_entries(plan)[cls.kind])

    def before_deal(self, plan: HandPlan) -> None:
        fault = self.kind
        name, count = self.rng.choice(fantasyland_entries(plan)[fault])
        if count is None:  # a qualifier plays the streets
            earned = plan.owed.pop(name)
            if not plan.owed:  # nobody is left in Fantasyland: the site opened a new match
                plan.new_match = True
                plan.button = next_seat(plan.table.button, plan.seats)
            plan.note(fault, f"{name} earned a {earned}-card Fantasyland "
                             + ("again " if fault == "R-FL-3" else "")
                             + "but plays the streets")
        else:  # a player who did not qualify is dealt Fantasyland
            plan.owed[name] = count
            plan.note(fault, (f"{name} did not qualify to stay in Fantasyland and is dealt a "
                              f"{count}-card Fantasyland again"
                              if fault == "R-FL-3" else
                              f"{name} is dealt a {count}-card Fantasyland it did not qualify "
                              "for"))


class FantasylandStay(FantasylandEntry):
    """The same as R-FL-1 for a player who was in Fantasyland in the previous hand: a stay
    decision (R-FL-3)."""

    kind = "R-FL-3"


class ButtonElsewhere(Fault):
    """The button put on another seat at a match's start (R-MATCH-2)."""

    kind = "R-MATCH-2"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return _opens_match_after_hands(plan) and len(plan.seats) >= 2

    def before_deal(self, plan: HandPlan) -> None:
        expected = plan.button
        plan.button = self.rng.choice([s for s in plan.seats if s != expected])
        plan.note(self.kind, f"the button is put on seat {plan.button}; it belongs on seat "
                             f"{expected} (one occupied seat clockwise)")


class FantasylandButton(Fault):
    """The button moved or kept wrongly on a Fantasyland hand (R-FL-4)."""

    kind = "R-FL-4"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        # With the button kept, the faulty one is another seat; with the button moving, it
        # stays where it was, which must be an occupied seat.
        moves = plan.game.ruleset.button_moves_on_fantasyland
        return bool(plan.owed) and (not moves or plan.table.button in plan.seats)

    def before_deal(self, plan: HandPlan) -> None:
        moves = plan.game.ruleset.button_moves_on_fantasyland
        expected = plan.button
        if moves:  # the ruleset moves it, the site kept it
            assert plan.table.button is not None  # a Fantasyland hand follows its qualifier
            plan.button = plan.table.button
        else:
            plan.button = self.rng.choice([s for s in plan.seats if s != expected])
        plan.note(self.kind, f"the button of a Fantasyland hand is put on seat {plan.button}; "
                             f"it belongs on seat {expected} ("
                             + ("it moves" if moves else "it stays") + " for Fantasyland)")


class StackNotCarried(Fault):
    """A stack written other than the one carried from the previous hand (R-SETTLE-5)."""

    kind = "R-SETTLE-5"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        t = plan.table
        return t.hands > 0 and any(plan.names[s] in t.last_names for s in plan.seats)

    def before_deal(self, plan: HandPlan) -> None:
        candidates = [n for n in action_order(plan.names, plan.button)
                      if n in plan.table.last_names and n != plan.leaves_after]
        if not candidates:
            return
        frng = self.rng
        victim = frng.choice(candidates)
        carried = plan.carried_stack(victim)
        delta = frng.choice([-1, 1]) * frng.randint(1, 25)
        if carried + delta < 1:
            delta = abs(delta)
        plan.note(self.kind, f"{victim}'s stack is written {carried + delta}, not the "
                             f"{carried} carried from the previous hand")
        plan.stacks_written[victim] = carried + delta


class MatchLineSkips(Fault):
    """A Match line that claims a continuation nobody qualified for, or skips a hand
    (R-MATCH-1)."""

    kind = "R-MATCH-1"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return plan.table.hands > 0

    def before_deal(self, plan: HandPlan) -> None:
        t = plan.table
        match_hand = t.match_hand + (1 if plan.new_match else 2)
        plan.match_line = (t.match_id, match_hand)
        plan.note(self.kind, f"the Match line says hand {match_hand} of match {t.match_id}, "
                             "but " + ("nobody qualified for Fantasyland in its previous hand"
                                       if plan.new_match else
                                       f"the match's previous hand is hand {t.match_hand}"))


# -- the table and seat lines -----------------------------------------------------------------


def beyond_max_ways(t: Table, seats: Sequence[int], button: int) -> list[str]:
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


class SeatBeyondMax(Fault):
    """The highest seat written beyond the table's K-max, or the table line's K-max written
    below the highest seat (R-DEAL-2)."""

    kind = "R-DEAL-2"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(beyond_max_ways(plan.table, plan.seats, plan.button))

    def on_seat_lines(self, hand: HandDraft, plan: HandPlan) -> None:
        t, seats = plan.table, plan.seats
        high = max(seats)
        name = next(s.name for s in hand.seats if s.seat == high)
        ways = beyond_max_ways(t, seats, plan.button)  # another fault may have moved the button
        if not ways:
            return
        if self.rng.choice(ways) == "seat":
            hand.seat(name).seat = t.max_seats + 1
            hand.add_fault(self.kind, f"{name} sits at seat {t.max_seats + 1} of a "
                                      f"{t.max_seats}-max table")
        else:
            hand.max_seats = high - 1
            hand.add_fault(self.kind, f"the table line says {high - 1}-max, but {name} sits at "
                                      f"seat {high}")


# -- one street player's line -----------------------------------------------------------------


def _playable(plan: HandPlan) -> list[str]:
    """Street players a fault in play can strike: not placed automatically for a
    disconnection carried from the match's previous hand."""
    return [n for n in plan.street_names if n not in plan.table.disconnected]


def _private_ok(plan: HandPlan) -> bool:
    """Faults in cards only the victim sees need the viewer as victim in a player's view."""
    viewer = plan.game.viewer
    return viewer is None or viewer in _playable(plan)


class SeenTwice(LineFault):
    """A card dealt that another player already placed (R-CARD-3)."""

    kind = "R-CARD-3"
    private = True
    from_street = 2

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return len(plan.street_names) >= 2 and bool(_playable(plan)) and _private_ok(plan)

    def deal_line(self, deal: Dealing, turn: Turn) -> None:
        frng = self.rng
        others = [c for n in deal.street_names if n != turn.name for c in deal.placed[n]
                  if c < JOKER_INDEX]
        if others:
            dup = frng.choice(others)
            i = frng.randrange(len(turn.cards))
            deal.deck.insert(0, turn.cards[i])  # the card it replaces stays in the deck
            turn.cards[i] = dup
            deal.hand.add_fault(self.kind, f"{turn.name} is dealt {card_text(dup)} on street "
                                           f"{turn.street}, a card already in the hand")


class WrongDealSize(LineFault):
    """A street deal of one card more (R-DEAL-1)."""

    kind = "R-DEAL-1"
    takes_spare_card = True

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(_playable(plan)) and plan.spare >= 1

    def deal_line(self, deal: Dealing, turn: Turn) -> None:
        size = len(turn.cards)
        turn.cards.append(deal.deck.pop())
        deal.hand.add_fault(self.kind, f"{turn.name} is dealt {len(turn.cards)} cards on street "
                                       f"{turn.street}; {deal.game.variant.title} deals {size}")


class NotDealt(LineFault):
    """A card placed that was not dealt to the player (R-ACT-2)."""

    kind = "R-ACT-2"
    private = True
    takes_spare_card = True

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(_playable(plan)) and plan.spare >= 1 and _private_ok(plan)

    def alter_placement(
        self, deal: Dealing, turn: Turn, rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        if not deal.deck:
            return rows, discards
        frng = self.rng
        row = frng.choice([r for r in range(3) if rows[r]])
        i = frng.randrange(len(rows[row]))
        fresh = deal.deck.pop()
        old = rows[row][i]
        rows = [list(r) for r in rows]
        rows[row][i] = fresh
        deal.hand.add_fault(self.kind, f"{turn.name} places {card_text(fresh)} instead of "
                                       f"{card_text(old)} on street {turn.street}: it was not "
                                       f"dealt to {turn.name}")
        return rows, discards


class IntoFullRow(LineFault):
    """A card put in a row that is already full (R-ACT-3), on the last street: the board is
    complete after it, nothing is played on it."""

    kind = "R-ACT-3"
    from_street = 0

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(_playable(plan))

    def alter_placement(
        self, deal: Dealing, turn: Turn, rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        board = turn.board
        full = [r for r in range(3) if len(board.rows[r]) + len(rows[r]) >= (3 if r == 0 else 5)]
        for target in full:
            for r in range(3):
                if r != target and rows[r]:
                    moved = [list(x) for x in rows]
                    moved[target].append(moved[r].pop())
                    deal.hand.add_fault(self.kind, f"{turn.name} puts a card in its full "
                                                   f"{ROWS[target].value} row on street "
                                                   f"{turn.street}")
                    return moved, discards
        return rows, discards


def wrong_automatic_placement(
    policy: Policy, board: BotBoard, cards: list[int], place: int
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


def _differs(rows: Rows, discards: list[int], auto: Rows, auto_discards: list[int]) -> bool:
    return any(sorted(rows[r]) != sorted(auto[r]) for r in range(3)) or sorted(
        discards
    ) != sorted(auto_discards)


class WrongAfterTimeOut(LineFault):
    """``times out`` and a placement that is not the automatic one (R-TIME-1)."""

    kind = "R-TIME-1"
    private = True

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(_playable(plan)) and _private_ok(plan)

    def placement(self, deal: Dealing, turn: Turn) -> tuple[Rows, list[int]] | None:
        wrong = wrong_automatic_placement(deal.policy, turn.board, turn.cards, turn.place)
        if wrong is None:
            if turn.street < deal.last:
                # No other placement is possible here: the next street, if free.
                deal.strikes.setdefault((turn.name, turn.street + 1), self)
            return None
        turn.lines.append(Line("event", turn.name, event=EventKind.TIMES_OUT))
        deal.hand.add_fault(self.kind, f"{turn.name} times out on street {turn.street} and is "
                                       "not placed as R-TIME-1 places it")
        return wrong


class JokerInNaturalDeck(LineFault):
    """A joker dealt in a 52-card game (R-CARD-2), on the last street. The bot plays it as
    the card it replaced (the bot of a 52-card game has no jokers)."""

    kind = "R-CARD-2"
    private = True
    from_street = 0

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.joker = self.natural = -1

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(_playable(plan)) and _private_ok(plan) and plan.game.deck_size == 52

    def deal_line(self, deal: Dealing, turn: Turn) -> None:
        if turn.offline:
            return
        frng = self.rng
        i = frng.randrange(len(turn.cards))
        self.joker, self.natural = frng.choice([JOKER_INDEX, JOKER_INDEX + 1]), turn.cards[i]
        turn.shown = [self.joker if c == self.natural else c for c in turn.cards]
        deal.hand.add_fault(self.kind, f"{turn.name} is dealt {card_text(self.joker)} on street "
                                       f"{turn.street}: {deal.game.variant.title} has no jokers")

    def alter_placement(
        self, deal: Dealing, turn: Turn, rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        if self.joker < 0:
            return rows, discards
        joker, natural = self.joker, self.natural
        return ([[joker if c == natural else c for c in row] for row in rows],
                [joker if c == natural else c for c in discards])


# -- the Fantasyland deals --------------------------------------------------------------------


class WrongFantasylandCount(Fault):
    """One Fantasyland card more or less than earned, or the seat line's count wrong
    (R-FL-2)."""

    kind = "R-FL-2"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.victim: str | None = None

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(plan.owed)

    def plan_deal(self, deal: Dealing) -> None:
        if deal.owed:
            self.victim = self.rng.choice(list(deal.owed))

    def fantasyland_count(self, deal: Dealing, name: str, count: int) -> int:
        if name != self.victim:
            return count
        options = []
        if count > 13:
            options.append(count - 1)
        if deal.spare >= 1:
            options.append(count + 1)
        if not options:
            seat = deal.hand.seat(name)
            seat.show_count = True
            seat.fl_cards = count + 1
            deal.hand.add_fault(self.kind, f"{name}'s seat line says {count + 1} Fantasyland "
                                           f"cards; it earned {count}")
            return count
        dealt: int = self.rng.choice(options)
        deal.hand.add_fault(self.kind, f"{name} is dealt {dealt} Fantasyland cards; it earned "
                                       f"{count}")
        deal.spare -= max(0, dealt - count)
        return dealt


class SecondFantasylandDeal(Fault):
    """A second Fantasyland deal to the same player (R-FL-5)."""

    kind = "R-FL-5"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(plan.owed) and any(count <= plan.spare for count in plan.owed.values())

    def plan_deal(self, deal: Dealing) -> None:
        twice = _choice(self.rng, [n for n in deal.owed if deal.owed[n] <= deal.spare])
        deal.dealt_twice = twice
        deal.spare -= deal.owed[twice] if twice is not None else 0

    def after_fantasyland_deal(self, deal: Dealing, name: str) -> None:
        if name != deal.dealt_twice:
            return
        again = deal.draw(deal.owed[name])
        deal.hand.fl_lines.append(Line("deal", name, cards=again))
        deal.hand.add_fault(self.kind, f"{name} is dealt a second Fantasyland hand of "
                                       f"{len(again)} cards")


class SplitFantasylandDeal(Fault):
    """A Fantasyland deal written in two or three packets whose union is the right deal,
    placed once: one R-FL-5 (the packets together are the deal)."""

    kind = "fl_split_deal"
    cites = frozenset({"R-FL-5"})

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.victim: str | None = None

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return bool(plan.owed)

    def plan_deal(self, deal: Dealing) -> None:
        self.victim = _choice(self.rng, [n for n in deal.owed if n != deal.dealt_twice])

    def fantasyland_deal_lines(
        self, deal: Dealing, name: str, cards: list[int]
    ) -> list[Line] | None:
        if name != self.victim:
            return None
        frng = self.rng
        count = min(frng.choice((2, 2, 3)), len(cards))
        cuts = sorted(frng.sample(range(1, len(cards)), count - 1))
        packets = [cards[a:b] for a, b in zip([0, *cuts], [*cuts, len(cards)], strict=True)]
        sizes = " and ".join(str(len(packet)) for packet in packets)
        deal.hand.add_fault(self.kind, f"{name}'s Fantasyland deal of {len(cards)} cards is "
                                       f"written in {len(packets)} packets ({sizes}): one R-FL-5")
        return [Line("deal", name, cards=packet) for packet in packets]


class DealtOnStreet(Fault):
    """A Fantasyland player dealt on a street (R-ACT-4): its deal goes between two players'
    turns, where a deal could stand."""

    kind = "R-ACT-4"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.intruder: str | None = None
        self.street = 0

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return (bool(plan.owed) and bool(plan.street_names)
                and any(size <= plan.spare for size, _ in plan.game.streets))

    def plan_deal(self, deal: Dealing) -> None:
        streets = deal.game.streets
        if not deal.owed:
            return
        fitting = [k for k, (size, _) in enumerate(streets, start=1) if size <= deal.spare]
        if fitting:
            self.intruder = self.rng.choice(list(deal.owed))
            self.street = self.rng.choice(fitting)
            deal.spare -= streets[self.street - 1][0]

    def after_street(self, deal: Dealing, street: int, lines: list[Line]) -> None:
        if street != self.street or self.intruder is None:
            return
        cards = deal.draw(deal.game.streets[street - 1][0])
        turns = [i for i in range(len(lines) + 1)
                 if i in (0, len(lines)) or lines[i - 1].player != lines[i].player]
        lines.insert(self.rng.choice(turns), Line("deal", self.intruder, cards=cards))
        deal.hand.add_fault(self.kind, f"{self.intruder} is in Fantasyland and is dealt on "
                                       f"street {street}")


# -- a disconnected player --------------------------------------------------------------------


class WrongWhileDisconnected(Fault):
    """A placement while disconnected that is not the automatic one (R-TIME-2), by a player
    no other fault strikes when there is one; else it disconnects after the streets they
    strike (a line placed automatically carries no other fault), and when they strike its
    last street it stays connected (R-ACT-3 and R-CARD-2 in a player's view)."""

    kind = "R-TIME-2"

    def __init__(self, rng: random.Random) -> None:
        super().__init__(rng)
        self.lost: str | None = None

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        viewer = plan.game.viewer
        return viewer is None or viewer in plan.names.values()

    def plan_deal(self, deal: Dealing) -> None:
        order, viewer, last = deal.hand.order, deal.game.viewer, deal.last
        victims = {name for name, _ in deal.strikes}
        bystanders = [n for n in order if n not in victims] or order
        lost = viewer if viewer is not None else self.rng.choice(bystanders)
        struck = max((k for n, k in deal.strikes if n == lost), default=0)
        if struck >= last:
            return
        self.lost = deal.kept_offline = lost
        if lost not in deal.table.disconnected:  # else it still is, from the previous hand
            deal.kept_offline_from = 0 if lost in deal.owed else self.rng.randint(struck + 1,
                                                                                 last)

    def offline_fantasyland(
        self, deal: Dealing, name: str, cards: list[int], rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        if name != self.lost:
            return rows, discards
        chosen = deal.policy.fantasyland(cards, deal.table.chain.get(name))
        if not _differs(*chosen, rows, discards):
            return rows, discards
        deal.hand.add_fault(self.kind, f"{name} is disconnected in Fantasyland and is not set "
                                       "as R-TIME-1 places it")
        return chosen

    def offline_placement(
        self, deal: Dealing, turn: Turn, rows: Rows, discards: list[int]
    ) -> tuple[Rows, list[int]]:
        if turn.name != self.lost or deal.hand.has_fault(self.kind):
            return rows, discards
        wrong = wrong_automatic_placement(deal.policy, turn.board, turn.cards, turn.place)
        if wrong is None:
            return rows, discards
        deal.hand.add_fault(self.kind, f"{turn.name} is disconnected on street {turn.street} and "
                                       "is not placed as R-TIME-1 places it")
        return wrong


# -- after the play ---------------------------------------------------------------------------


class OutOfTurn(Fault):
    """Two neighbours' turns swapped on one street (R-ACT-1); a Fantasyland player dealt on
    the street (R-ACT-4) has no turn there."""

    kind = "R-ACT-1"

    @staticmethod
    def can_apply(plan: HandPlan) -> bool:
        return len(plan.street_names) >= 2

    def after_play(self, hand: HandDraft, plan: HandPlan) -> None:
        frng = self.rng
        k = frng.randrange(len(hand.streets))
        lines = hand.streets[k]
        players = list(dict.fromkeys(line.player for line in lines
                                     if line.player not in plan.owed))
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
        hand.add_fault(self.kind, f"{second} is dealt on street {k + 1} before {first}, who "
                                  "acts first")


class SummaryMismatch(Fault):
    """A SUMMARY value the site recorded wrongly: a recorded mismatch, no rule."""

    kind = "SUMMARY"
    cites = frozenset()

    def after_play(self, hand: HandDraft, plan: HandPlan) -> None:
        frng = self.rng
        name = frng.choice(hand.order)
        which = frng.choice(["royalties", "points", "stack_after"])
        delta = frng.choice([-1, 1]) * frng.randint(1, 9)
        hand.summary_fault = (name, which, delta)
        what = which.replace("_", " ")
        hand.add_fault(self.kind, f"{name}'s {what} is recorded off by {delta:+d}")


# -- the registry -----------------------------------------------------------------------------

# Every kind, in the order its hooks run: the order a hand is written in, from who is dealt
# in to the summary (the in-play faults in the order their lines are chosen).
REGISTRY: dict[str, type[Fault]] = {
    cls.kind: cls
    for cls in (
        BustedDealtIn, SatOutDealtIn, FantasylandEntry, FantasylandStay, ButtonElsewhere,
        FantasylandButton, StackNotCarried, MatchLineSkips, SeatBeyondMax,
        SeenTwice, WrongDealSize, NotDealt, IntoFullRow, WrongAfterTimeOut, JokerInNaturalDeck,
        WrongFantasylandCount, SecondFantasylandDeal, SplitFantasylandDeal, DealtOnStreet,
        WrongWhileDisconnected, OutOfTurn, SummaryMismatch,
    )
}

# The order a hand lists the kinds it can break before one is drawn among them by position:
# part of what a seed means, so kept as the simulator has always listed them.
_CANDIDATE_ORDER = (
    "SUMMARY", "R-ACT-3", "R-TIME-1", "R-CARD-2", "R-DEAL-1", "R-ACT-2", "R-ACT-1", "R-CARD-3",
    "R-TIME-2", "R-FL-2", "R-ACT-4", "R-FL-5", "fl_split_deal", "R-FL-4", "R-FL-1", "R-FL-3",
    "R-DEAL-2", "R-MATCH-1", "R-MATCH-2", "R-SETTLE-5", "R-SETTLE-4", "R-TIME-3",
)

# The rule ids the audit cites for each kind (docs/RULES.md, "Which rule a finding cites").
FAULT_RULES: dict[str, frozenset[str]] = {
    kind: REGISTRY[kind].cites for kind in FAULT_KINDS
}


def expected_rules(kinds: Sequence[str]) -> frozenset[str]:
    """The rule ids a hand carrying these fault kinds cites: the union of theirs."""
    return frozenset().union(*(FAULT_RULES[kind] for kind in kinds))


def pick_faults(
    plan: HandPlan, rng: random.Random, rate: float, wanted: tuple[str, ...] | None,
    per_hand: int,
) -> list[Fault]:
    """The faults this hand carries, one of each kind, in :data:`REGISTRY` order: with chance
    ``rate``, up to ``per_hand`` different kinds among those it can break (only ``wanted``
    ones when given), no two of :data:`INCOMPATIBLE`; else none."""
    if rate <= 0.0 or rng.random() >= rate:
        return []
    kinds = [kind for kind in _CANDIDATE_ORDER if REGISTRY[kind].can_apply(plan)]
    if wanted is not None:
        kinds = [kind for kind in kinds if kind in wanted]
    chosen: list[str] = []
    while kinds and len(chosen) < per_hand:
        kind = rng.choice(kinds)
        chosen.append(kind)
        kinds = [k for k in kinds if k != kind and _pair(k, kind) not in INCOMPATIBLE]
    return [cls(rng) for kind, cls in REGISTRY.items() if kind in chosen]


def _choice(rng: random.Random, options: Sequence[str]) -> str | None:
    return rng.choice(options) if options else None


__all__ = [
    "FAULT_COMMENT",
    "FAULT_KINDS",
    "FAULT_RULES",
    "INCOMPATIBLE",
    "REGISTRY",
    "Fault",
    "LineFault",
    "compatible",
    "expected_rules",
    "labelled_faults",
    "pick_faults",
]
