"""Button and match (R-MATCH, R-FL-4): the hand against the table's previous one (match
continuation, Fantasyland qualification, button, stacks, busted players).
"""

from __future__ import annotations

from bisect import bisect_right

from .fantasyland import FantasylandChecks
from .settlement import SettlementChecks
from .state import TableState, _seat_of


class MatchChecks(SettlementChecks, FantasylandChecks):
    """The rules across hands of a match: R-MATCH-1, the button (R-MATCH-2, R-FL-4)."""

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
            self._check_round(prev)
        self._check_busted(prev)
        if match is not None and match.hand_number == 1:
            self.expected_fl = {}  # hand 1 opens a match: nobody can have qualified into it
        self._check_fantasyland_seats()

    def _check_button(self, prev: TableState) -> None:
        table = self.hand.table
        fl_hand = self.continuation and bool(self.fl_players)
        seats = sorted(map(_seat_of, self.hand.seats))
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
            later = bisect_right(seats, prev.button_seat)  # the first seat after it
            expected = seats[later] if later < len(seats) else seats[0]
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

    def _check_round(self, prev: TableState) -> None:
        """R-MATCH-3: a round is a run of matches at one table with the same seated players;
        the first match past ``round_hand_cap`` with them still seated is cited, once, at its
        header. A Fantasyland hand belongs to the match that earned it, so only a hand that
        opens a match counts. A history that starts in the middle of a round counts from its
        first hand: it can cite a round late, never early."""
        if self.continuation:
            self.round_players, self.round_matches = prev.round_players, prev.round_matches
            return
        if self.round_players != prev.round_players:
            return  # someone joined, left, busted or sat out: a new round (1 match so far)
        self.round_matches = prev.round_matches + 1
        cap = self.ruleset.round_hand_cap
        if cap is not None and self.round_matches == cap + 1:
            header = self.hand.header
            self.violation(
                "R-MATCH-3",
                header.line,
                None,
                f"hand #{header.hand_id} opens match {self.round_matches} of a round with the "
                f"same {len(self.round_players)} players: a round has at most {cap} hands "
                "(a Fantasyland hand counts with the hand that earned it), so a new round "
                "should have started",
            )
