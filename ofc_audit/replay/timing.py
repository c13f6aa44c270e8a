"""Time, disconnections and sit-outs (R-TIME): events, the automatic placement of a player
who timed out (R-TIME-1) or is disconnected (R-TIME-2), and sat-out players dealt in
(R-TIME-3).
"""

from __future__ import annotations

from collections import Counter

from ..game.automatic import automatic_placement
from ..game.cards import HIDDEN
from ..game.record import ROWS, Cards
from ..history.records import Deal, Event, EventKind, Placement, Seat
from .state import HandState, TableState, _cards


class TimeChecks(HandState):
    """The time rules: R-TIME-1/2 (automatic placements) and R-TIME-3 (sit-outs)."""

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

    def _check_automatic(
        self, placement: Placement, dealt: Cards, place: int, where: str, auto_dealt: Cards | None
    ) -> None:
        """R-TIME-1 (timed out) and R-TIME-2 (disconnected): the placement is the automatic
        one, taken from ``auto_dealt`` when given (see ``_check_placement``), else the deal."""
        name = placement.player
        discards = placement.discards or ()
        auto_rule = None
        if name in self.disconnected:
            auto_rule = "R-TIME-2"
        elif name in self.timed_out:
            auto_rule = "R-TIME-1"
        self.timed_out.discard(name)
        if auto_rule is None:
            return
        if HIDDEN in dealt:
            self.cannot_verify(
                f"{name}'s automatic placement on {where}: the deal is hidden, so it could not "
                "be checked against R-TIME-1"
            )
            return
        board = self.boards[name]
        added, auto_discards = automatic_placement(
            [board[row] for row in ROWS], dealt if auto_dealt is None else auto_dealt, place
        )
        rows = dict(zip(ROWS, added, strict=True))
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

    def _check_sat_out(self, seat: Seat, prev: TableState) -> None:
        """R-TIME-3: a player who sat out is dealt in only after a 'returns' line of its own."""
        name = seat.name
        if not self._returns_before_deal(name):
            self.violation(
                "R-TIME-3",
                seat.line,
                name,
                f"{name} sat out after hand #{prev.sat_out[name]} and is dealt in without a "
                "'returns' line",
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
