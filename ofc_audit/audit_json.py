"""The shape of a hand in ``ofc-audit audit --json`` (CLI.md), defined once.

Each JSON object of a hand is a ``msgspec.Struct`` below whose fields are its keys, in
order; :func:`hand_document` builds them from a :class:`~ofc_audit.results.HandResult`.
:func:`hand_json_text` is that document as the audit prints it (the layout of
``json.dumps(..., ensure_ascii=False)``: one line, ``", "`` and ``": "`` between items),
encoded by msgspec; :func:`hand_json` is the same document as Python objects (for
``--explain``, which adds a key). Findings and mismatches are encoded from their own records
(:class:`~ofc_audit.results.Finding`, :class:`~ofc_audit.results.Mismatch`), whose fields
are their JSON keys.

msgspec writes what ``json.dumps(..., ensure_ascii=False)`` writes for these documents
(strings, ints, booleans, nulls: the same escapes of quotes, backslashes and control
characters, non-ASCII text as is); tests/test_fast_paths.py compares the two on every hand
of the sample histories and of simulated histories with faults. A string that cannot be
UTF-8 (a lone surrogate: a file name that is not UTF-8) is left to ``json.dumps``.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from .board import BoardResult, RowResult
from .cards import HIDDEN, JOKERS, NATURAL_CARDS
from .hands import category_label
from .results import Finding, HandResult, Mismatch, PairResult, PlayerResult

__all__ = [
    "HandDocument", "hand_document", "hand_json", "hand_json_text", "player_document",
    "player_json",
]


class _Shape(msgspec.Struct, frozen=True, gc=False):
    """A JSON object: its fields are its keys, in order."""


class RowDocument(_Shape, frozen=True):
    category: str
    cards: list[str]


class RowsDocument(_Shape, frozen=True):
    top: RowDocument
    middle: RowDocument
    bottom: RowDocument


class RoyaltiesDocument(_Shape, frozen=True):
    top: int
    middle: int
    bottom: int
    total: int


class FantasylandDocument(_Shape, frozen=True):
    qualifies: bool | None
    cards: int | None


class PlayerDocument(_Shape, frozen=True):
    name: str
    seat: int
    position: int  # 1-based
    in_fantasyland: bool
    fouled: bool | None
    rows: RowsDocument | None
    royalties: RoyaltiesDocument | None
    points: int | None
    stack_before: int
    stack_after: int | None
    fantasyland_next: FantasylandDocument


class PairDocument(_Shape, frozen=True):
    a: str
    b: str
    rows: tuple[int, int, int] | None
    scoop: int | None
    royalties: int | None
    points_a: int | None
    transfer_to_a: int | None


class HandDocument(_Shape, frozen=True):
    hand_id: str
    file: str
    line: int
    match_id: str | None
    match_hand: int | None
    table: str
    variant: str
    fantasyland_type: str
    button_seat: int
    valid: bool
    violations: tuple[Finding, ...]
    players: list[PlayerDocument]
    pairs: list[PairDocument]
    recorded_mismatches: tuple[Mismatch, ...]
    unverifiable: tuple[str, ...]


# Card texts by card (map() over a dict's __getitem__ runs in C).
_CARD_TEXT = {card: card.text for card in (*NATURAL_CARDS, *JOKERS, HIDDEN)}.__getitem__
_NOT_QUALIFIED = FantasylandDocument(False, None)
_UNKNOWN = FantasylandDocument(None, None)
# Documents that repeat: one per distinct value (they are frozen).
_ROYALTIES: dict[tuple[int, int, int], RoyaltiesDocument] = {}
_FANTASYLAND: dict[int, FantasylandDocument] = {}


# Category labels by row value (at most 7,462 values).
_LABELS: dict[int, str] = {}


def _row(row: RowResult) -> RowDocument:
    label = _LABELS.get(row.value)
    if label is None:
        label = _LABELS[row.value] = category_label(row.value)
    return RowDocument(label, list(map(_CARD_TEXT, row.cards)))


def _royalties(result: BoardResult) -> RoyaltiesDocument:
    royalties = result.royalties
    key = (royalties.top, royalties.middle, royalties.bottom)
    document = _ROYALTIES.get(key)
    if document is None:
        document = _ROYALTIES[key] = RoyaltiesDocument(*key, sum(key))
    return document


def _fantasyland(p: PlayerResult) -> FantasylandDocument:
    if not p.fantasyland_next_known:
        return _UNKNOWN
    cards = p.fantasyland_next
    if cards is None:
        return _NOT_QUALIFIED
    document = _FANTASYLAND.get(cards)
    if document is None:
        document = _FANTASYLAND[cards] = FantasylandDocument(True, cards)
    return document


def player_document(p: PlayerResult) -> PlayerDocument:
    result = p.result
    if result is None:
        return PlayerDocument(
            p.name, p.seat, p.position + 1, p.in_fantasyland, None, None, None, p.points,
            p.stack_before, p.stack_after, _fantasyland(p),
        )  # fmt: skip
    return PlayerDocument(
        p.name, p.seat, p.position + 1, p.in_fantasyland, result.fouled,
        RowsDocument(*map(_row, result.rows)),
        _royalties(result), p.points, p.stack_before, p.stack_after, _fantasyland(p),
    )  # fmt: skip


def _pair(pair: PairResult) -> PairDocument:
    return PairDocument(
        pair.a, pair.b, pair.rows or None, pair.scoop, pair.royalties, pair.points_a,
        pair.transfer_to_a,
    )  # fmt: skip


def hand_document(result: HandResult) -> HandDocument:
    return HandDocument(
        result.hand_id,
        result.file,
        result.line,
        result.match_id,
        result.match_hand,
        result.table,
        result.variant.value,
        result.fantasyland_type.value,
        result.button_seat,
        not result.violations,
        result.violations,
        list(map(player_document, result.players)),
        list(map(_pair, result.pairs)),
        result.mismatches,
        result.unverifiable,
    )


_encode = msgspec.json.Encoder().encode
_format = msgspec.json.format


def hand_json_text(result: HandResult) -> str:
    """The hand as the audit prints it in its ``hands`` list: one line."""
    document = hand_document(result)
    try:
        # msgspec writes compact JSON; indent=0 puts json.dumps' blanks after ',' and ':'.
        return _format(_encode(document), indent=0).decode()
    except UnicodeEncodeError:
        return json.dumps(msgspec.to_builtins(document), ensure_ascii=False)


def hand_json(result: HandResult) -> dict[str, Any]:
    """The hand's document as Python objects (what ``json.loads`` of its text gives)."""
    document: dict[str, Any] = msgspec.to_builtins(hand_document(result))
    return document


def player_json(p: PlayerResult) -> dict[str, Any]:
    document: dict[str, Any] = msgspec.to_builtins(player_document(p))
    return document
