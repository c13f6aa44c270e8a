"""Fantasyland (R-FL): who plays it and for how many cards (R-FL-1/2/3), its deal in one
packet (R-FL-5) and its placement.
"""

from __future__ import annotations

from ..game.fantasyland import standard_count
from ..game.ruleset import FantasylandType, Variant
from ..history.records import Deal, Event, Section
from .placements import PlacementChecks
from .state import _FL_WHERE, FL_PLACED, _cards


def allowed_fantasyland_counts(variant: Variant, fl_type: FantasylandType) -> frozenset[int]:
    """Every count a Fantasyland deal can have under a type (entries and repeats)."""
    if fl_type is FantasylandType.NONE:
        return frozenset()
    counts = {standard_count(variant)}
    if fl_type in (FantasylandType.PROGRESSIVE, FantasylandType.ULTIMATE):
        counts |= {14, 15, 16, 17}
    elif fl_type is FantasylandType.TOURNAMENT:
        counts = {13, 14, 15, 16}
    return frozenset(counts)


class FantasylandChecks(PlacementChecks):
    """The Fantasyland rules (R-FL-1, R-FL-2, R-FL-3, R-FL-5)."""

    def _fantasyland(self, section: Section) -> None:
        self.note(section.line, "*** FANTASYLAND ***")
        # A deal written in several packets is one deal, their union (docs/RULES.md, "Which rule a
        # finding cites"): one R-FL-5, and the union is checked for its count (R-FL-2), its
        # placement (R-ACT-2) and its cards (R-CARD-3, each packet's cards seen once).
        packets: dict[str, list[Deal]] = {}
        for action in section.actions:
            if isinstance(action, Deal):
                packets.setdefault(action.player, []).append(action)
        for action in section.actions:
            name = action.player
            if isinstance(action, Event):
                self._event(action)
                continue
            if isinstance(action, Deal):
                mine = packets[name]
                complete = self._complete_fl_packets(name, mine)
                if action is mine[0]:
                    union = tuple(card for packet in mine for card in packet.cards)
                    self.fl_dealt[name] = union
                    if complete is None:
                        self._check_fl_deal(name, len(union), action.line)
                    else:
                        # A whole deal, then more: a second deal (R-FL-5 alone), not a wrong
                        # count; the placement is held to the cards dealt, not to their number,
                        # and an automatic placement to the first deal (the site sets the first
                        # 13 cards received and discards the rest of that deal).
                        self.wrong_size.add((name, _FL_WHERE))
                        self.fl_first_deal[name] = union[:complete]
                elif action is mine[1]:
                    lines = ", ".join(str(packet.line) for packet in mine)
                    total = len(self.fl_dealt[name])
                    self.violation(
                        "R-FL-5",
                        action.line,
                        name,
                        f"{name}'s Fantasyland cards are dealt in {len(mine)} packets (lines "
                        f"{lines}, {total} cards in all); all its cards come at once"
                        if complete is None
                        else f"{name} is dealt again in Fantasyland (lines {lines}, {total} "
                        f"cards in all) after a whole deal of {complete} cards; all its cards "
                        "come at once, in one deal",
                    )
                self._see(action.cards, action.line, name, "dealt to")
                if self.explain:
                    self.note(action.line, f"{name} is dealt {_cards(action.cards)} (Fantasyland)")
                continue
            dealt_cards = self.fl_dealt.get(name)
            if name in self.fl_placed:
                self.violation(
                    "R-FL-5",
                    action.line,
                    name,
                    f"{name} places twice in Fantasyland; the whole hand is set in one action",
                )
                self._apply(action, report_overflow=False)  # one fault: no R-ACT-3 besides
                continue
            elif dealt_cards is None:
                self.violation(
                    "R-ACT-2",
                    action.line,
                    name,
                    f"{name} places Fantasyland cards without a Fantasyland deal",
                )
                self._see(action.placed + (action.discards or ()), action.line, name, "placed by")
            else:
                # Not 13 placed is R-FL-2 ("Which rule a finding cites"), once; a row over its
                # size with 13 placed is R-ACT-3, from _apply.
                self._check_placement(
                    action, dealt_cards, FL_PLACED, _FL_WHERE, "R-FL-2",
                    self.fl_first_deal.get(name),
                )
            self.fl_placed.add(name)
            self._apply(action, report_overflow=dealt_cards is not None)

    def _fl_count_ok(self, name: str, count: int) -> bool:
        expected = self._expected_fl_count(name)
        if expected is not None:
            return count == expected
        allowed = allowed_fantasyland_counts(self.variant, self.fl_type)
        return not allowed or count in allowed

    def _complete_fl_packets(self, name: str, packets: list[Deal]) -> int | None:
        """When the packets' union has a wrong count but is two whole deals, each of a right
        count (the first packets, then the rest), the first deal's count: the player was
        dealt twice (R-FL-5), which says all there is; the union's count is no second fault
        (R-FL-2). None otherwise: one packet, a union of the right count, or packets that
        are not two whole deals (a whole deal and a few cards more is a deal of the wrong
        count, in packets: R-FL-2 on the union, and R-FL-5)."""
        if len(packets) < 2:
            return None
        total = sum(len(packet.cards) for packet in packets)
        if self._fl_count_ok(name, total):
            return None
        count = 0
        for packet in packets[:-1]:
            count += len(packet.cards)
            if self._fl_count_ok(name, count) and self._fl_count_ok(name, total - count):
                return count
        return None

    def _check_fl_deal(self, name: str, count: int, line: int) -> None:
        """R-FL-2: the count of a player's whole Fantasyland deal (all its packets)."""
        expected = self._expected_fl_count(name)
        if expected is not None:
            wrong, rule_count = count != expected, f"gives it {expected}"
        else:
            allowed = allowed_fantasyland_counts(self.variant, self.fl_type)
            wrong = bool(allowed) and count not in allowed
            rule_count = f"deals {', '.join(str(c) for c in sorted(allowed))}"
        if wrong:
            self.wrong_size.add((name, _FL_WHERE))
            self.violation(
                "R-FL-2",
                line,
                name,
                f"{name} is dealt {count} Fantasyland cards; {self.fl_type.value} Fantasyland "
                f"{rule_count}",
            )

    def _check_fantasyland_players_dealt(self) -> None:
        incomplete = self.incomplete
        for name in self.fl_players:
            if name not in self.fl_dealt:
                if incomplete is not None and (
                    "FANTASYLAND" in incomplete.missing or (Deal, name) in self.cut
                ):
                    continue  # the text stops before its deal: missing, not a fault
                self.violation(
                    "R-ACT-1",
                    self.seats[name].line,
                    name,
                    f"{name} is in Fantasyland but is never dealt its Fantasyland cards",
                )

    def _check_fantasyland_seats(self) -> None:
        if not self.fl_players:
            return
        fl_rule_for = self._fl_rule_for
        for name in sorted(self.fl_players, key=lambda n: self.seats[n].seat):
            seat = self.seats[name]
            if self.fl_type is FantasylandType.NONE:
                self.violation(
                    "R-FL-1",
                    seat.line,
                    name,
                    f"{name} is in Fantasyland but the game is played without Fantasyland",
                )
                continue
            expected = self.expected_fl
            if expected is None:
                if self.previous is None:
                    self.cannot_verify(
                        f"whether {name} qualified for Fantasyland: the previous hand of the "
                        "match is not in the input"
                    )
                continue
            if name not in expected:
                self.violation(
                    fl_rule_for(name),
                    seat.line,
                    name,
                    f"{name} plays Fantasyland without having qualified in hand "
                    f"#{self.previous.hand_id if self.previous else '?'}",
                )
            elif seat.fantasyland_cards is not None and seat.fantasyland_cards != expected[name]:
                self.violation(
                    "R-FL-2",
                    seat.line,
                    name,
                    f"{name}'s seat says {seat.fantasyland_cards} Fantasyland cards; it earned "
                    f"{expected[name]} ({self.fl_type.value} Fantasyland)",
                )

    def _expected_fl_count(self, name: str) -> int | None:
        if self.expected_fl is not None and name in self.expected_fl:
            return self.expected_fl[name]
        return self.seats[name].fantasyland_cards

    def _fl_rule_for(self, name: str) -> str:
        """R-FL-3 for a player who was already in Fantasyland, else R-FL-1."""
        prev = self.previous
        return "R-FL-3" if prev is not None and name in prev.fl_players else "R-FL-1"
