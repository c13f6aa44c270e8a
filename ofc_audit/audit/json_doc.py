"""The shape of a hand in ``ofc-audit audit --json`` (docs/CLI.md), defined once.

Each JSON object of a hand is a ``msgspec.Struct`` below whose fields are its keys, in
order; :func:`hand_document` builds them from a :class:`~ofc_audit.replay.results.HandResult`.
:func:`hand_json_text` is that document as the audit prints it (the layout of
``json.dumps(..., ensure_ascii=False)``: one line, ``", "`` and ``": "`` between items),
encoded by msgspec (compact; the blanks added after, see :func:`hand_json_text`);
:func:`hand_json` is the same document as Python objects (for ``--explain``, which adds a
key). Findings, mismatches and pairs are encoded from their own
records (:class:`~ofc_audit.replay.results.Finding`, :class:`~ofc_audit.replay.results.Mismatch`,
:class:`~ofc_audit.replay.results.Incomplete`, :class:`~ofc_audit.replay.results.PairResult`), whose
fields are their JSON keys.

msgspec writes what ``json.dumps(..., ensure_ascii=False)`` writes for these documents
(strings, ints, booleans, nulls: the same escapes of quotes, backslashes and control
characters, non-ASCII text as is); tests/test_fast_paths.py compares the two on every hand
of the sample histories and of simulated histories with faults. A string that cannot be
UTF-8 (a lone surrogate: a file name that is not UTF-8) is left to ``json.dumps``.
"""

from __future__ import annotations

import json
from operator import attrgetter
from typing import Any

import msgspec

from ..game.cards import HIDDEN, JOKERS, NATURAL_CARDS
from ..game.row_values import category_label
from ..game.ruleset import FantasylandType, Variant
from ..replay.results import Finding, HandResult, Incomplete, Mismatch, PairResult, PlayerResult

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
    pairs: tuple[PairResult, ...]
    recorded_mismatches: tuple[Mismatch, ...]
    unverifiable: tuple[str, ...]
    incomplete: Incomplete | None


# Card texts by card (map() over a dict's __getitem__ runs in C).
_CARD_TEXT = {card: card.text for card in (*NATURAL_CARDS, *JOKERS, HIDDEN)}.__getitem__
_NOT_QUALIFIED = FantasylandDocument(False, None)
_UNKNOWN = FantasylandDocument(None, None)
# Documents that repeat: one per distinct value (they are frozen).
_ROYALTIES: dict[tuple[int, int, int], RoyaltiesDocument] = {}
_FANTASYLAND: dict[int, FantasylandDocument] = {}


# Category labels by ``value >> 16`` of a row (its category and first rank, which is all the
# label depends on: royal_flush is the straight flush whose first rank is the ace), and the
# enums' texts: an Enum's .value is a Python-level property call.
_LABELS: dict[int, str] = {}
_ENUM_TEXT: dict[Variant | FantasylandType, str] = {
    member: member.value for member in (*Variant, *FantasylandType)
}


def _label(value: int) -> str:
    label = _LABELS[value >> 16] = category_label(value)
    return label


def _qualified(cards: int) -> FantasylandDocument:
    document = _FANTASYLAND[cards] = FantasylandDocument(True, cards)
    return document


def player_document(p: PlayerResult) -> PlayerDocument:
    # One function for the whole player (rows, royalties, Fantasyland): the audit builds
    # three per hand, and a Python call costs as much as building a small Struct.
    cards = p.fantasyland_next
    if not p.fantasyland_next_known:
        fantasyland = _UNKNOWN
    elif cards is None:
        fantasyland = _NOT_QUALIFIED
    else:
        fantasyland = _FANTASYLAND.get(cards) or _qualified(cards)
    result = p.result
    if result is None:
        return PlayerDocument(
            p.name, p.seat, p.position + 1, p.in_fantasyland, None, None, None, p.points,
            p.stack_before, p.stack_after, fantasyland,
        )  # fmt: skip
    labels, text = _LABELS, _CARD_TEXT
    top, middle, bottom = result.rows
    top_value, middle_value, bottom_value = top.value, middle.value, bottom.value
    rows = RowsDocument(
        RowDocument(labels.get(top_value >> 16) or _label(top_value), list(map(text, top.cards))),
        RowDocument(
            labels.get(middle_value >> 16) or _label(middle_value),
            list(map(text, middle.cards)),
        ),
        RowDocument(
            labels.get(bottom_value >> 16) or _label(bottom_value),
            list(map(text, bottom.cards)),
        ),
    )
    royalty = result.royalties
    key = (royalty.top, royalty.middle, royalty.bottom)
    royalties = _ROYALTIES.get(key)
    if royalties is None:
        royalties = _ROYALTIES[key] = RoyaltiesDocument(*key, sum(key))
    return PlayerDocument(
        p.name, p.seat, p.position + 1, p.in_fantasyland, result.fouled, rows, royalties,
        p.points, p.stack_before, p.stack_after, fantasyland,
    )  # fmt: skip


def hand_document(result: HandResult) -> HandDocument:
    return HandDocument(
        result.hand_id,
        result.file,
        result.line,
        result.match_id,
        result.match_hand,
        result.table,
        _ENUM_TEXT[result.variant],
        _ENUM_TEXT[result.fantasyland_type],
        result.button_seat,
        not result.violations,
        result.violations,
        list(map(player_document, result.players)),
        result.pairs,
        result.mismatches,
        result.unverifiable,
        result.incomplete,
    )


_encode = msgspec.json.Encoder().encode
_format = msgspec.json.format
_name_of = attrgetter("name")


def _no_separator_in_text(result: HandResult) -> bool:
    """No string of the hand's document holds a ',' or a ':'. The strings of a document are
    its keys, card texts, category labels and enum values (none holds either), the texts of
    the history (hand, file, match, table and player names: checked here), and prose
    (findings, mismatches, unverifiable sentences, the incomplete record: a hand with any of
    them answers False)."""
    if result.violations or result.mismatches or result.unverifiable:
        return False
    if result.incomplete is not None:
        return False
    texts = "".join(
        (result.hand_id, result.file, result.match_id or "", result.table,
         *map(_name_of, result.players))
    )  # fmt: skip
    return "," not in texts and ":" not in texts


def hand_json_text(result: HandResult) -> str:
    """The hand as the audit prints it in its ``hands`` list: one line."""
    document = hand_document(result)
    try:
        compact = _encode(document)
    except UnicodeEncodeError:
        return json.dumps(msgspec.to_builtins(document), ensure_ascii=False)
    # msgspec writes compact JSON; json.dumps' layout has a blank after each ',' and ':'
    # between items. When no string holds a ',' or ':' (escapes add neither), every ',' and
    # ':' of the text is between items, and a blank after each is the layout; otherwise
    # msgspec's format pass (indent=0) tells them apart.
    if _no_separator_in_text(result):
        return compact.replace(b",", b", ").replace(b":", b": ").decode()
    return _format(compact, indent=0).decode()


def hand_json(result: HandResult) -> dict[str, Any]:
    """The hand's document as Python objects (what ``json.loads`` of its text gives)."""
    document: dict[str, Any] = msgspec.to_builtins(hand_document(result))
    return document


def player_json(p: PlayerResult) -> dict[str, Any]:
    document: dict[str, Any] = msgspec.to_builtins(player_document(p))
    return document
