"""Placements and rows (R-ACT-2, R-ACT-3): a placement against its deal, the cards applied to
the board, and the SHOWDOWN boards against the placements.
"""

from __future__ import annotations

from ..game.board import Board
from ..game.cards import HIDDEN, format_cards
from ..game.record import ROWS, Cards
from ..history.records import Placement
from .state import BOTTOM, MIDDLE, TOP, _cards, _same_cards, fits, is_the_deal
from .timing import TimeChecks


class PlacementChecks(TimeChecks):
    """The placement rules: R-ACT-2 (a placement is its deal) and R-ACT-3 (rows)."""

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
        if deal_known and is_the_deal(len(both), set(both), dealt):
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
        self._check_automatic(placement, dealt, place, where, auto_dealt)

    def _apply(self, placement: Placement, report_overflow: bool = True) -> None:
        board = self.boards[placement.player]
        for row, cards in placement.rows:
            have = board[row]
            if not fits(row, len(have) + len(cards)):
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

    def _final_boards(self) -> dict[str, Board]:
        """The placements, with hidden cards revealed by a matching SHOWDOWN line."""
        new_board = Board
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
