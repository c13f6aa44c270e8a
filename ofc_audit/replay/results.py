"""What a replay yields: findings, per-player results, pairs, and the hand's verdict.

These frozen records are what the audit's JSON, the explanations and the pandas tables are
built from; none of them refers to parse trees.
"""

from __future__ import annotations

from typing import Any

from ..game.board import Board, BoardResult
from ..game.record import Record
from ..game.ruleset import FantasylandType, Variant
from ..history.records import Stake


class Finding(Record, frozen=True):
    """A rule the history breaks: the rule id of docs/RULES.md, the file line, the player."""

    rule: str
    line: int
    player: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "line": self.line,
            "player": self.player,
            "message": self.message,
        }


class Mismatch(Record, frozen=True):
    """A SUMMARY field that differs from the auditor's own result."""

    player: str
    field: str  # fouled, royalties, points, stack_before, stack_after, fantasyland_next
    recorded: int | bool | None
    computed: int | bool | None
    line: int

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "field": self.field,
            "recorded": self.recorded,
            "computed": self.computed,
            "line": self.line,
        }


class Incomplete(Record, frozen=True):
    """A hand whose text stops before its play is over (no SHOWDOWN, no SUMMARY, and streets
    or actions missing at the end, as in an export cut off): reported once, accusing nobody.
    ``line`` is the last line of the hand's text; ``missing`` names what would follow it, in
    order (``rest of street 3``, ``street 4``, ``FANTASYLAND``, ``SHOWDOWN``, ``SUMMARY``)."""

    line: int
    missing: tuple[str, ...]
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"line": self.line, "missing": list(self.missing), "message": self.message}


class Step(Record, frozen=True):
    """One entry of a replay's log: what happened at a line, for explanations."""

    line: int
    text: str


class PlayerResult(Record, frozen=True):
    name: str
    seat: int
    position: int  # 0-based settlement position (left of the button first)
    in_fantasyland: bool
    board: Board  # as placed (hidden cards where the history hides them)
    result: BoardResult | None  # None when hidden cards keep the board from being scored
    points: int | None
    stack_before: int
    stack_after: int | None
    fantasyland_next: int | None
    fantasyland_next_known: bool

    @property
    def fouled(self) -> bool | None:
        return None if self.result is None else self.result.fouled

    @property
    def transfer(self) -> int | None:
        return None if self.stack_after is None else self.stack_after - self.stack_before


class PairResult(Record, frozen=True):
    """Points between two players, seen from ``a`` (the earlier in settlement order). Its
    fields are the keys of a pair in the audit JSON, in order (audit_json encodes it)."""

    a: str
    b: str
    rows: tuple[int, int, int] | None
    scoop: int | None
    royalties: int | None
    points_a: int | None
    transfer_to_a: int | None

    @property
    def capped(self) -> bool:
        return (
            self.transfer_to_a is not None
            and self.points_a is not None
            and self.transfer_to_a != self.points_a
        )


class HandResult(Record, frozen=True):
    file: str
    line: int
    hand_id: str
    match_id: str | None
    match_hand: int | None
    table: str
    variant: Variant
    fantasyland_type: FantasylandType
    stake: Stake
    timestamp: str
    button_seat: int
    players: tuple[PlayerResult, ...]  # by seat
    pairs: tuple[PairResult, ...]  # in settlement order
    violations: tuple[Finding, ...]
    mismatches: tuple[Mismatch, ...]
    unverifiable: tuple[str, ...]
    log: tuple[Step, ...]  # filled when the replay was asked to explain
    # The line of the hand's SUMMARY, None without one: then nothing the site paid could be
    # compared (explanations say so). Not part of the audit JSON.
    summary_line: int | None = None
    # Not None when the text stops before the hand's play is over: then no player's result
    # is computed, and the table's chain is broken after it (nothing is checked across it).
    incomplete: Incomplete | None = None

    @property
    def valid(self) -> bool:
        """No rule is broken by what the text holds (an incomplete hand accuses nobody of
        what is missing, so it may be valid: see ``incomplete``)."""
        return not self.violations

    @property
    def clean(self) -> bool:
        """Nothing to report: valid, complete, and agreeing with the recorded SUMMARY."""
        return not (self.violations or self.mismatches or self.incomplete)

    def player(self, name: str) -> PlayerResult | None:
        for p in self.players:
            if p.name == name:
                return p
        return None
