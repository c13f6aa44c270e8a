"""A history cut off (issue 11): what the text never got to is missing, not a fault."""

from __future__ import annotations

from ..history.records import Deal, Event, Placement, Section
from .results import Incomplete
from .state import _FANTASYLAND, _STREET, HandState


class IncompleteHand(HandState):
    """A history cut off (issue 11): what the text never got to is missing, not a fault."""

    def _find_incomplete(self) -> Incomplete | None:
        """A hand with no SHOWDOWN and no SUMMARY whose text stops before the play is over:
        the section it stops in lacks its last turns, later streets are absent, or a
        Fantasyland player's section is absent. What is missing lies after the last line, so
        it is reported once, as missing, and blames nobody. A turn missing before a later one
        that is present (a gap) is no cut: R-ACT-1 or R-ACT-2 as on any hand."""
        sections = self.hand.sections
        missing: list[str] = []
        details = ""
        last = sections[-1] if sections else None
        if last is not None:
            cut = self._cut_turns(last)
            if cut:
                self.cut_section, self.cut = last, set(cut)
                where = "FANTASYLAND" if last.kind is _FANTASYLAND else f"street {last.number}"
                missing.append(f"rest of {where}")
                details = f" (the rest of {where}: {self._describe_turns(cut)})"
        if self.street_players:
            numbers = [s.number or 0 for s in sections if s.kind is _STREET]
            first_absent = max(numbers, default=0) + 1
            missing += [f"street {k}" for k in range(first_absent, len(self.streets) + 1)]
        if self.fl_players and all(s.kind is not _FANTASYLAND for s in sections):
            missing.append("FANTASYLAND")
        if not missing:
            return None
        missing += ["SHOWDOWN", "SUMMARY"]
        line = self._last_line()
        message = (
            f"the history stops at line {line}; missing: {', '.join(missing)}{details}. "
            "Nobody is at fault for what the text does not hold: no result is computed for "
            "this hand, and nothing is checked across it"
        )
        return Incomplete(line, tuple(missing), message)

    def _cut_turns(self, section: Section) -> list[tuple[type, str]]:
        """The turns of the section the text stops in that come after its last line."""
        actions = [a for a in section.actions if not isinstance(a, Event)]
        if section.kind is _FANTASYLAND:
            # Fantasyland players act in no order: whoever has not finished was cut off.
            fl_order = [s.name for s in self.order if s.name in self.fl_players]
            done = {(type(a), a.player) for a in actions}
            return [
                (kind, name)
                for name in fl_order
                for kind in (Deal, Placement)
                if (kind, name) not in done
            ]
        turns: list[tuple[type, str]] = [
            (kind, name) for name in self.street_players for kind in (Deal, Placement)
        ]
        position = {turn: i for i, turn in enumerate(turns)}
        last = max((position.get((type(a), a.player), -1) for a in actions), default=-1)
        return turns[last + 1:]

    @staticmethod
    def _describe_turns(turns: list[tuple[type, str]]) -> str:
        by_player: dict[str, list[str]] = {}
        for kind, name in turns:
            by_player.setdefault(name, []).append("deal" if kind is Deal else "placement")
        return "; ".join(f"{name}'s {' and '.join(kinds)}" for name, kinds in by_player.items())

    def _last_line(self) -> int:
        """The last line of the hand's text (comments and blank lines aside)."""
        hand = self.hand
        lines = [hand.line, hand.table.line]
        lines += [s.line for s in hand.seats] + [t.line for t in hand.topups]
        for section in hand.sections:
            lines.append(section.line)
            lines += [a.line for a in section.actions]
        return max(lines)
