"""The settlement of one hand told pair by pair (R-SETTLE-2, R-SETTLE-3): the steps the
terminal explanation, the dispute page and the verdict all tell it from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ..game.rulebook import cited
from ..replay.results import HandResult


@dataclass(frozen=True, slots=True)
class SettlementStep:
    """One pair of the settlement with the stacks it met (R-SETTLE-2, R-SETTLE-3); the
    stacks are None after a pair whose result is unknown (a board not fully known). The
    terminal explanation and the dispute page both tell the settlement from these."""

    a: str
    b: str
    known: bool
    winner: str = ""
    loser: str = ""
    due: int = 0
    moved: int = 0
    capped: bool = False
    winner_stack: int | None = None  # before this pair
    loser_stack: int | None = None
    a_before: int | None = None
    a_after: int | None = None
    b_before: int | None = None
    b_after: int | None = None

    @property
    def cut(self) -> str:
        """Whose stack cut the transfer (``capped by bob's stack of 12``); empty when the
        transfer was not capped."""
        if not self.capped:
            return ""
        limits = [(self.winner_stack, self.winner), (self.loser_stack, self.loser)]
        cut = [f"{name}'s stack of {stack}" for stack, name in limits if stack == self.moved]
        return "capped by " + " and ".join(cut or ["a stack"])

    @property
    def cap(self) -> str:
        """:attr:`cut` with the rule (``capped by bob's stack of 12, R-SETTLE-3 "..."``)."""
        return f"{self.cut}, {cited('R-SETTLE-3')}" if self.capped else ""

    def named(self, show: Callable[[str], str]) -> SettlementStep:
        """The step with every player's name as ``show`` gives it (the dispute page makes
        invisible characters visible)."""
        return replace(self, a=show(self.a), b=show(self.b), winner=show(self.winner),
                       loser=show(self.loser))


def settlement_steps(result: HandResult) -> list[SettlementStep]:
    """Each pair's transfer with the stacks it met, in settlement order."""
    stacks: dict[str, int | None] = {p.name: p.stack_before for p in result.players}
    out = []
    for pair in result.pairs:
        a, b = stacks.get(pair.a), stacks.get(pair.b)
        moved = pair.transfer_to_a
        if pair.points_a is None or moved is None:
            out.append(SettlementStep(pair.a, pair.b, False, a_before=a, b_before=b))
            stacks[pair.a] = stacks[pair.b] = None
            continue
        winner, loser = (pair.a, pair.b) if pair.points_a >= 0 else (pair.b, pair.a)
        new_a = None if a is None else a + moved
        new_b = None if b is None else b - moved
        out.append(SettlementStep(pair.a, pair.b, True, winner, loser, abs(pair.points_a),
                                  abs(moved), pair.capped, stacks.get(winner),
                                  stacks.get(loser), a, new_a, b, new_b))
        stacks[pair.a], stacks[pair.b] = new_a, new_b
    return out
