"""Stacks and settlement (R-SETTLE): stacks carried (R-SETTLE-5), busted players (R-SETTLE-4),
the hand's result and the table state it leaves for the next hand.
"""

from __future__ import annotations

from collections import Counter

from ..game.board import Board, BoardResult, evaluate_board, evaluate_natural_board
from ..game.cards import HIDDEN
from ..game.fantasyland import next_fantasyland
from ..game.scoring import settle_rows
from .results import HandResult, PairResult, PlayerResult
from .state import (
    _NO_TOPUPS,
    TableState,
    _name_of,
    _seat_of,
    _stack_of,
)
from .summary import SummaryComparison
from .timing import TimeChecks


class SettlementChecks(SummaryComparison, TimeChecks):
    """The stack and settlement rules (R-SETTLE-4, R-SETTLE-5) and the hand's result."""

    def _check_stacks(self, prev: TableState) -> None:
        # Most hands have no top-up: they share one empty Counter (only ever read).
        topups = Counter[str]() if self.hand.topups else _NO_TOPUPS
        for topup in self.hand.topups:
            topups[topup.player] += topup.amount
        stacks, sat_out = prev.stacks, prev.sat_out
        for seat in self.hand.seats:
            name = seat.name
            if name in sat_out:
                self._check_sat_out(seat, prev)
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

    def _results(self, boards: dict[str, Board]) -> tuple[HandResult, TableState]:
        hand, prev = self.hand, self.previous
        ruleset, variant, fl_type = self.ruleset, self.variant, self.fl_type
        known = self.seen.keys()  # read only when jokers are assigned under `known`
        order = self.order
        # Per player in settlement order: its final board and result (None: not fully known).
        names = [*map(_name_of, order)]
        ordered_boards = [*map(boards.__getitem__, names)]
        ordered: list[BoardResult | None] = []
        for seat, board in zip(order, ordered_boards, strict=True):
            if self.incomplete is not None:
                ordered.append(None)  # the boards are unfinished because the text stops
                continue
            # Most boards are 3/5/5 natural cards: evaluated at once, without a scan for
            # hidden cards or jokers.
            result = evaluate_natural_board(board, ruleset)
            if result is not None:
                ordered.append(result)
            elif HIDDEN in board.top or HIDDEN in board.middle or HIDDEN in board.bottom:
                ordered.append(None)
                self.cannot_verify(
                    f"{seat.name}'s board is not fully known ({board}): its foul, royalties, "
                    "points and stack after the hand could not be computed"
                )
            else:
                ordered.append(evaluate_board(board, ruleset, known))
        points, settled_pairs, stacks_after = settle_rows(
            ordered, ruleset, [*map(_stack_of, order)]
        )
        chain_entry = prev.chain_entry if prev else {}
        fl_players, fl_dealt = self.fl_players, self.fl_dealt
        players: list[PlayerResult] = []
        qualifiers: dict[str, int] = {}
        qualifiers_known = True
        new_chain: dict[str, int] = {}
        new_player = PlayerResult
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
        new_pair = PairResult
        pairs = tuple(
            new_pair(names[a], names[b], rows, scoop, royalties, points_a, transfer)
            for a, b, rows, scoop, royalties, points_a, transfer in settled_pairs
        )
        mismatches = self._compare_summary(players)
        by_seat = tuple(sorted(players, key=_seat_of))
        match = hand.match
        header = hand.header
        result_record = HandResult(
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
            round_players=self.round_players,
            round_matches=self.round_matches,
        )
