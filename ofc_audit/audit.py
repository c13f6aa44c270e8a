"""The audit: read histories, replay every hand, compare with what the site recorded.

Streams: hands are read, replayed and written out one at a time; only the rejections and the
totals are kept until the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from .reader import HistoryParseError, read_hands
from .records import Hand
from .replay import Replayer
from .results import HandResult, PlayerResult
from .rules import Ruleset
from .scorecard import fantasyland_json, row_json


@dataclass
class AuditTotals:
    hands: int = 0
    valid: int = 0
    with_violations: int = 0
    with_mismatches: int = 0
    rejected: int = 0
    rejections: list[HistoryParseError] = field(default_factory=list)

    def count(self, result: HandResult) -> None:
        self.hands += 1
        if result.valid:
            self.valid += 1
        else:
            self.with_violations += 1
        if result.mismatches:
            self.with_mismatches += 1

    @property
    def clean(self) -> bool:
        return not (self.with_violations or self.with_mismatches or self.rejected)

    def to_json(self) -> dict[str, int]:
        return {
            "hands": self.hands,
            "valid": self.valid,
            "with_violations": self.with_violations,
            "with_mismatches": self.with_mismatches,
            "rejected": self.rejected,
        }


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


def player_json(p: PlayerResult) -> dict[str, Any]:
    result = p.result
    return {
        "name": p.name,
        "seat": p.seat,
        "position": p.position + 1,
        "in_fantasyland": p.in_fantasyland,
        "fouled": p.fouled,
        "rows": row_json(result) if result else None,
        "royalties": (
            {
                "top": result.royalties.top,
                "middle": result.royalties.middle,
                "bottom": result.royalties.bottom,
                "total": result.royalties.total,
            }
            if result
            else None
        ),
        "points": p.points,
        "stack_before": p.stack_before,
        "stack_after": p.stack_after,
        "fantasyland_next": fantasyland_json(p.fantasyland_next)
        if p.fantasyland_next_known
        else {"qualifies": None, "cards": None},
    }


def hand_json(result: HandResult) -> dict[str, Any]:
    return {
        "hand_id": result.hand_id,
        "file": result.file,
        "line": result.line,
        "match_id": result.match_id,
        "match_hand": result.match_hand,
        "table": result.table,
        "variant": result.variant.value,
        "fantasyland_type": result.fantasyland_type.value,
        "button_seat": result.button_seat,
        "valid": result.valid,
        "violations": [v.to_json() for v in result.violations],
        "players": [player_json(p) for p in result.players],
        "pairs": [
            {
                "a": pair.a,
                "b": pair.b,
                "rows": list(pair.rows) if pair.rows else None,
                "scoop": pair.scoop,
                "royalties": pair.royalties,
                "points_a": pair.points_a,
                "transfer_to_a": pair.transfer_to_a,
            }
            for pair in result.pairs
        ],
        "recorded_mismatches": [m.to_json() for m in result.mismatches],
        "unverifiable": list(result.unverifiable),
    }


def rejection_json(error: HistoryParseError) -> dict[str, Any]:
    return {
        "file": error.file,
        "line": error.line,
        "column": error.column,
        "message": error.message,
    }


def write_audit_json(items: Iterable[HandResult | HistoryParseError], out: IO[str]) -> AuditTotals:
    """Stream the audit's JSON document (CLI.md) hand by hand; returns the totals."""
    totals = AuditTotals()
    out.write('{"hands": [')
    first = True
    for item in items:
        if isinstance(item, HistoryParseError):
            totals.rejected += 1
            totals.rejections.append(item)
            continue
        totals.count(item)
        out.write(("\n  " if first else ",\n  ") + json.dumps(hand_json(item), ensure_ascii=False))
        first = False
    out.write('\n ],\n "rejected": [')
    out.write(
        ",".join(
            "\n  " + json.dumps(rejection_json(e), ensure_ascii=False) for e in totals.rejections
        )
    )
    out.write('\n ],\n "totals": ' + json.dumps(totals.to_json()) + "\n}\n")
    return totals
