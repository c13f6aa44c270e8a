"""The audit: read histories, replay every hand, compare with what the site recorded.

Streams: hands are read, replayed and written out one at a time; only the rejections and the
totals are kept until the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from json.encoder import encode_basestring
from typing import IO, Any

from .board import BoardResult, RowResult, Royalties
from .cards import HIDDEN, JOKERS, NATURAL_CARDS, Card
from .hands import category_label
from .reader import HistoryParseError, read_hands
from .records import Hand
from .replay import Replayer
from .results import Finding, HandResult, Incomplete, Mismatch, PairResult, PlayerResult
from .rules import FantasylandType, Ruleset, Variant
from .scorecard import fantasyland_json, row_json


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
        "incomplete": result.incomplete.to_json() if result.incomplete else None,
    }


# -- JSON text -------------------------------------------------------------------------------
#
# hand_json_text() writes the text json.dumps(hand_json(result), ensure_ascii=False) would,
# byte for byte, without building the dictionaries first: the audit renders every hand, and
# the dictionaries and the generic encoder cost several times the text itself. Strings from
# the history (names, ids, the file, messages) go through the encoder's own string function;
# everything else is numbers, flags and fixed words. tests/test_cli_audit.py compares the two
# on every hand of the sample histories and of simulated histories with faults.

_CARD_JSON: dict[Card, str] = {card: f'"{card.text}"' for card in (*NATURAL_CARDS, *JOKERS, HIDDEN)}
_card_json = _CARD_JSON.__getitem__  # for map(): the look-up runs in C
# By row value: the start of a row's object, up to its cards (at most 7,462 values).
_ROW_JSON_HEAD: dict[int, str] = {}
_ROYALTIES_JSON: dict[tuple[int, int, int], str] = {}
# The variant and Fantasyland type as JSON strings (an Enum's .value is a Python call).
_ENUM_JSON: dict[StrEnum, str] = {
    member: encode_basestring(member.value) for member in (*Variant, *FantasylandType)
}
_PAIR_ROWS_JSON: dict[tuple[int, int, int], str] = {}


def _int_json(value: int | None) -> str:
    """A number or null, as json.dumps writes it."""
    return "null" if value is None else str(value)


def _row_json(row: RowResult) -> str:
    """One row of row_json() as text: its category and its cards."""
    head = _ROW_JSON_HEAD.get(row.value)
    if head is None:
        head = _ROW_JSON_HEAD[row.value] = (
            f'{{"category": "{category_label(row.value)}", "cards": ['
        )
    return head + ", ".join(map(_card_json, row.cards)) + "]}"


def _rows_json(result: BoardResult) -> str:
    """row_json(result) as text."""
    top, middle, bottom = result.rows
    return (
        f'{{"top": {_row_json(top)}, "middle": {_row_json(middle)}, '
        f'"bottom": {_row_json(bottom)}}}'
    )


def _royalties_json(royalties: Royalties) -> str:
    top, middle, bottom = royalties.top, royalties.middle, royalties.bottom
    text = _ROYALTIES_JSON.get((top, middle, bottom))
    if text is None:
        text = _ROYALTIES_JSON[(top, middle, bottom)] = (
            f'{{"top": {top}, "middle": {middle}, "bottom": {bottom}, '
            f'"total": {top + middle + bottom}}}'
        )
    return text


def _player_json_text(p: PlayerResult) -> str:
    """player_json(p) as text."""
    result = p.result
    if p.fantasyland_next_known:
        cards = p.fantasyland_next
        fl_next = (
            '{"qualifies": false, "cards": null}'
            if cards is None
            else f'{{"qualifies": true, "cards": {cards}}}'
        )
    else:
        fl_next = '{"qualifies": null, "cards": null}'
    if result is None:
        fouled, rows, royalties = "null", "null", "null"
    else:
        fouled = "true" if result.fouled else "false"
        rows = _rows_json(result)
        royalties = _royalties_json(result.royalties)
    # The numbers below are ints, or None where the type says so.
    points, after = p.points, p.stack_after
    return (
        f'{{"name": {encode_basestring(p.name)}, "seat": {p.seat}, '
        f'"position": {p.position + 1}, '
        f'"in_fantasyland": {"true" if p.in_fantasyland else "false"}, '
        f'"fouled": {fouled}, "rows": {rows}, "royalties": {royalties}, '
        f'"points": {"null" if points is None else points}, '
        f'"stack_before": {p.stack_before}, '
        f'"stack_after": {"null" if after is None else after}, "fantasyland_next": {fl_next}}}'
    )


def _pair_json_text(pair: PairResult) -> str:
    rows = pair.rows
    if rows:
        rows_text = _PAIR_ROWS_JSON.get(rows)
        if rows_text is None:
            rows_text = _PAIR_ROWS_JSON[rows] = json.dumps(list(rows))
    else:
        rows_text = "null"
    return (
        f'{{"a": {encode_basestring(pair.a)}, "b": {encode_basestring(pair.b)}, '
        f'"rows": {rows_text}, "scoop": {_int_json(pair.scoop)}, '
        f'"royalties": {_int_json(pair.royalties)}, '
        f'"points_a": {_int_json(pair.points_a)}, '
        f'"transfer_to_a": {_int_json(pair.transfer_to_a)}}}'
    )


def _records_json(records: Sequence[Finding | Mismatch]) -> str:
    """Findings or mismatches: usually none, and json.dumps is fine for the others."""
    return json.dumps([r.to_json() for r in records], ensure_ascii=False) if records else "[]"


def _sentences_json(sentences: Sequence[str]) -> str:
    return json.dumps(list(sentences), ensure_ascii=False) if sentences else "[]"


def hand_json_text(result: HandResult) -> str:
    """``json.dumps(hand_json(result), ensure_ascii=False)``, written directly."""
    match_id = result.match_id
    return (
        f'{{"hand_id": {encode_basestring(result.hand_id)}, '
        f'"file": {encode_basestring(result.file)}, "line": {result.line}, '
        f'"match_id": {"null" if match_id is None else encode_basestring(match_id)}, '
        f'"match_hand": {_int_json(result.match_hand)}, '
        f'"table": {encode_basestring(result.table)}, '
        f'"variant": {_ENUM_JSON[result.variant]}, '
        f'"fantasyland_type": {_ENUM_JSON[result.fantasyland_type]}, '
        f'"button_seat": {result.button_seat}, '
        f'"valid": {"false" if result.violations else "true"}, '
        f'"violations": {_records_json(result.violations)}, '
        f'"players": [{", ".join(map(_player_json_text, result.players))}], '
        f'"pairs": [{", ".join(map(_pair_json_text, result.pairs))}], '
        f'"recorded_mismatches": {_records_json(result.mismatches)}, '
        f'"unverifiable": {_sentences_json(result.unverifiable)}, '
        f'"incomplete": {_incomplete_json(result.incomplete)}}}'
    )


def _incomplete_json(incomplete: Incomplete | None) -> str:
    if incomplete is None:
        return "null"
    return json.dumps(incomplete.to_json(), ensure_ascii=False)


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
