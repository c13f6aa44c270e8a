"""Hands in file order: each table's hands carry a :class:`TableState` from one to the next."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError
from ..history.records import Hand
from .hand import HandReplay
from .results import HandResult
from .state import TableState


class Replayer:
    """Replays hands in file order; each table's hands carry state from one to the next."""

    def __init__(self, ruleset: Ruleset, explain: bool = False) -> None:
        self.ruleset = ruleset
        self.explain = explain
        self.states: dict[tuple[str, str], TableState] = {}

    def replay(self, hand: Hand) -> HandResult:
        key = (hand.file, hand.table.name)
        result, state = HandReplay(hand, self.ruleset, self.states.get(key), self.explain).run()
        if result.incomplete is None:
            self.states[key] = state
        else:
            # An incomplete hand breaks its table's chain like a rejected hand: what it would
            # leave (stacks, button, Fantasyland) is unknown, so nothing is checked across it.
            self.states.pop(key, None)
        return result

    def reject(self, error: HistoryParseError) -> None:
        """A rejected hand breaks its table's chain: nothing is checked across it. When its
        table line cannot be read (``error.table`` is None), its table is not known, and
        every chain of its file is broken."""
        self.break_chains(error.file, error.table)

    def break_chains(self, file: str, table: str | None = None) -> None:
        """Break the chain of ``table`` in ``file``, or (None) every chain of the file."""
        if table is not None:
            self.states.pop((file, table), None)
            return
        for key in [key for key in self.states if key[0] == file]:
            del self.states[key]


def replay_hands(
    hands: Iterable[Hand], ruleset: Ruleset, explain: bool = False
) -> Iterator[HandResult]:
    replayer = Replayer(ruleset, explain)
    for hand in hands:
        yield replayer.replay(hand)
