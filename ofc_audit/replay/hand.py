"""One hand replayed: :class:`HandReplay` runs the rule families in the hand's order."""

from __future__ import annotations

from .incomplete import IncompleteHand
from .match import MatchChecks
from .results import HandResult
from .state import _STREET, TableState, _join, _OffTheFastPath
from .streets import StreetChecks


class HandReplay(MatchChecks, StreetChecks, IncompleteHand):
    """Replays one hand; ``run()`` returns its :class:`HandResult`."""

    def run(self) -> tuple[HandResult, TableState]:
        """Replay the hand. Most hands are clean: their streets take the fast path, which
        checks the same rules for the one pattern a clean street has (a street with a time
        event is replayed by the full path's ``_street`` in place, see ``_street_fast``). At
        the first other thing that pattern does not cover, the hand is replayed again from
        the start on the full path, which finds and words every finding (nothing of the first
        attempt is kept; the previous table state is only read)."""
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
