"""Deal and action order (R-DEAL, R-ACT-1, R-ACT-4): the table and the deck, each street's
deals and placements in turn, and the fast path for clean streets (which shares its rule
checks with the full path: ``is_the_deal``, ``rows_fit``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..game.cards import Card
from ..history.records import Action, Deal, Event, Placement, Section
from .fantasyland import FantasylandChecks
from .state import (
    _NOT_DEALT_FROM,
    _USES_TIME_BANK,
    FL_PLACED,
    _cards,
    _OffTheFastPath,
    is_the_deal,
    rows_fit,
)


class StreetChecks(FantasylandChecks):
    """The deal and action-order rules (R-DEAL-1/2, R-ACT-1, R-ACT-4) on the streets."""

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
        needed = self.street_cards * len(self.street_players)
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

    def _street_fast(self, section: Section) -> None:
        """A clean street, or _OffTheFastPath. Clean: each street player in turn (left of the
        button first) is dealt the street's count of cards, none seen before in the hand, then
        places exactly that deal (the street's count placed, the rest discarded); only "uses
        time bank" events come between; nobody has timed out or is disconnected. That is every
        check of ``_street`` passing, with the same effects. Two checks wait until the streets
        are over (``_check_rows_fast``): the rows' room (R-ACT-3), and that no card dealt was
        hidden or a joker outside its deck.

        A street with a time event (a player timed out or disconnected, or an event other than
        "uses time bank" in it: the automatic placements of R-TIME-1/2 and their effects) is
        replayed by ``_street`` itself, on the hand's state as the clean streets before it
        left it, which is the state the full path leaves; nothing of it has been applied yet.
        Any other irregularity leaves the fast path: work done before it is found is dropped
        with the whole attempt, which lets effects come before checks."""
        k = section.number or 0
        streets = self.streets
        if not 0 < k <= len(streets):
            raise _OffTheFastPath
        if self.timed_out or self.disconnected:
            self._street(section)
            return
        size, place = streets[k - 1]
        actions: Sequence[Action] = section.actions
        if len(actions) != self.street_actions:
            # "uses time bank" is the only event a clean street has, and it changes nothing.
            if any(isinstance(a, Event) and a.kind is not _USES_TIME_BANK for a in actions):
                self._street(section)
                return
            actions = [a for a in actions if not isinstance(a, Event)]
            if len(actions) != self.street_actions:
                raise _OffTheFastPath
        seen, boards = self.seen, self.boards
        known_before = len(seen)
        # Deal, placement, deal, placement... each player in turn, twice in a row (the pairs
        # of one iterator; checked as they come: no lists built for it).
        turns = iter(actions)
        for name, deal, placement in zip(self.street_players, turns, turns, strict=True):
            if not (
                isinstance(deal, Deal)
                and isinstance(placement, Placement)
                and deal.player == name == placement.player
            ):
                raise _OffTheFastPath
            dealt = deal.cards
            if len(dealt) != size:
                raise _OffTheFastPath
            # Each card seen at its deal's line: a loop over 3 to 5 cards costs less than a
            # dictionary built for dict.update.
            line = deal.line
            for card in dealt:
                seen[card] = line
            board = boards[name]
            used: list[Card] = []  # placed, then discarded
            for row, row_cards in placement.rows:
                board[row].extend(row_cards)
                used += row_cards
            if len(used) != place:
                raise _OffTheFastPath  # not the street's count placed
            used += placement.discards or ()
            # The full path's check (R-ACT-2): placed + discarded is the deal.
            if not is_the_deal(len(used), set(used), dealt):
                raise _OffTheFastPath
        # R-CARD-3: every card dealt on the street is new to the hand, and dealt once.
        if len(seen) != known_before + size * len(self.street_players):
            raise _OffTheFastPath

    def _check_rows_fast(self) -> None:
        """The fast path's last checks, once the streets are over. R-ACT-3: rows only grow, so
        a row that ever held too many cards still does at the end. R-CARD-2 and hidden deals:
        every card seen stays in ``seen``."""
        if not _NOT_DEALT_FROM[self.deck_size].isdisjoint(self.seen):
            raise _OffTheFastPath
        for rows in self.boards.values():
            if not rows_fit(rows):
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
