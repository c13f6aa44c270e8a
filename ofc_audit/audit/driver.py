"""The audit: read histories, replay every hand, compare with what the site recorded.

Streams: hands are read, replayed and written out one at a time; only the rejections and the
totals are kept until the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError, read_hands
from ..history.records import Hand
from ..replay import Replayer
from ..replay.results import HandResult
from .json_doc import hand_json, hand_json_text, player_json

__all__ = [
    "AuditTotals", "audit_items", "audit_paths", "hand_json", "hand_json_text", "player_json",
    "rejection_json", "write_audit_json",
]


@dataclass
class AuditTotals:
    hands: int = 0
    valid: int = 0
    with_violations: int = 0
    with_mismatches: int = 0
    rejected: int = 0
    incomplete: int = 0  # hands whose text stops before the play is over (docs/CLI-EXTENSIONS)
    rejections: list[HistoryParseError] = field(default_factory=list)

    def count(self, result: HandResult) -> None:
        self.hands += 1
        if result.valid:
            self.valid += 1
        else:
            self.with_violations += 1
        if result.mismatches:
            self.with_mismatches += 1
        if result.incomplete is not None:
            self.incomplete += 1

    @property
    def clean(self) -> bool:
        return not (
            self.with_violations or self.with_mismatches or self.rejected or self.incomplete
        )

    def to_json(self) -> dict[str, int]:
        return {
            "hands": self.hands,
            "valid": self.valid,
            "with_violations": self.with_violations,
            "with_mismatches": self.with_mismatches,
            "rejected": self.rejected,
            "incomplete": self.incomplete,
        }

    def summary_line(self) -> str:
        """The last line ``ofc-audit audit`` prints for people (after a blank line)."""
        incomplete = f", {self.incomplete} incomplete" if self.incomplete else ""
        return (
            f"{self.hands} hand(s): {self.valid} valid, {self.with_violations} with "
            f"violations, {self.with_mismatches} with recorded mismatches{incomplete}; "
            f"{self.rejected} rejected"
        )


def audit_items(
    items: Iterable[Hand | HistoryParseError], ruleset: Ruleset, explain: bool = False
) -> Iterator[HandResult | HistoryParseError]:
    """Replay every hand; a rejection passes through and breaks its file's table chains."""
    replayer = Replayer(ruleset, explain)
    for item in items:
        if isinstance(item, HistoryParseError):
            replayer.break_chains(item.file)
            yield item
        else:
            yield replayer.replay(item)


def audit_paths(
    paths: Iterable[str], ruleset: Ruleset, explain: bool = False
) -> Iterator[HandResult | HistoryParseError]:
    return audit_items(read_hands(paths), ruleset, explain)


# -- JSON ------------------------------------------------------------------------------------
# A hand's document (hand_json, hand_json_text) is defined once, in audit_json.


def rejection_json(error: HistoryParseError) -> dict[str, Any]:
    return {
        "file": error.file,
        "line": error.line,
        "column": error.column,
        "message": error.message,
    }


def write_audit_json(items: Iterable[HandResult | HistoryParseError], out: IO[str]) -> AuditTotals:
    """Stream the audit's JSON document (docs/CLI.md) hand by hand; returns the totals."""
    totals = AuditTotals()
    out.write('{"hands": [')
    first = True
    for item in items:
        if isinstance(item, HistoryParseError):
            totals.rejected += 1
            totals.rejections.append(item)
            continue
        totals.count(item)
        out.write(("\n  " if first else ",\n  ") + hand_json_text(item))
        first = False
    out.write('\n ],\n "rejected": [')
    out.write(
        ",".join(
            "\n  " + json.dumps(rejection_json(e), ensure_ascii=False) for e in totals.rejections
        )
    )
    out.write('\n ],\n "totals": ' + json.dumps(totals.to_json()) + "\n}\n")
    return totals
