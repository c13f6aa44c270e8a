"""The audit's hand text (``hand_json_text``) is ``json.dumps(..., ensure_ascii=False)`` of
the hand's document also when the history's own texts (player, table, file names) hold the
characters the layout is made of (',' and ':' between items) or escapes ('"', '\\'). A hand
whose texts hold neither ',' nor ':' takes the short way (a blank after every ',' and ':' of
msgspec's compact text); any other hand is laid out by msgspec's format pass."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.audit.driver import hand_json, hand_json_text
from ofc_audit.audit.json_doc import _no_separator_in_text
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import read_text
from ofc_audit.history.records import Hand
from ofc_audit.replay import replay_hands

# A hand 1 of a match, nobody in Fantasyland, stacks carried: clean, no unverifiable sentence.
CLEAN = """\
OFC Hand #H-1: Pineapple, standard Fantasyland - 0.10 EUR/point - 2026-01-05 18:02:01 UTC
Match #M1-1, hand 1
Table 'Tashkent 1' 3-max - Seat #1 is the button
Seat 1: AAA (10000)
Seat 2: BBB (10000)
Seat 3: CCC (10000)
*** STREET 1 ***
BBB is dealt [Js As 3s 6s 3c]
BBB places middle [3s 3c] bottom [As Js 6s]
CCC is dealt [9c 9s 9d Qh 8s]
CCC places middle [Qh 8s] bottom [9c 9s 9d]
AAA is dealt [5h 3d Kd 2h Qd]
AAA places top [2h] middle [5h] bottom [Kd Qd 3d]
*** STREET 2 ***
BBB is dealt [8c 2s Kh]
BBB places top [Kh] middle [8c], discards [2s]
CCC is dealt [6h 5d Qs]
CCC places top [Qs 5d], discards [6h]
AAA is dealt [Td 4d Tc]
AAA places bottom [Td 4d], discards [Tc]
*** STREET 3 ***
BBB is dealt [Ks Ac 7s]
BBB places bottom [Ks 7s], discards [Ac]
CCC is dealt [Th 8d 5s]
CCC places middle [8d Th], discards [5s]
AAA is dealt [7h Jc Qc]
AAA places top [Qc 7h], discards [Jc]
*** STREET 4 ***
BBB is dealt [7c Ad Kc]
BBB places middle [Ad Kc], discards [7c]
CCC is dealt [Ts Jh 4s]
CCC places middle [Ts] bottom [Jh], discards [4s]
AAA is dealt [2c 3h 7d]
AAA places middle [3h 7d], discards [2c]
*** STREET 5 ***
BBB is dealt [9h 5c Ah]
BBB places top [9h Ah], discards [5c]
CCC is dealt [6d 4h 6c]
CCC places top [6d] bottom [4h], discards [6c]
AAA is dealt [8h 4c Jd]
AAA places middle [8h 4c], discards [Jd]
"""


def replay_one(text: str, file: str) -> object:
    items = list(read_text(text, file))
    assert len(items) == 1 and isinstance(items[0], Hand), items
    (result,) = replay_hands(items, Ruleset())
    return result


def test_a_plain_clean_hand_takes_the_short_way() -> None:
    result = replay_one(CLEAN, "plain.txt")
    assert _no_separator_in_text(result)  # type: ignore[arg-type]
    assert hand_json_text(result) == json.dumps(hand_json(result), ensure_ascii=False)  # type: ignore[arg-type]


# Names: no '(', ')', '[', ']', ':' nor spaces at either end (FORMAT.md); table names: no "'".
_NAME = st.text(alphabet='ab,"\\', min_size=1, max_size=6)
_TABLE = st.text(alphabet="ab ,:\"\\", min_size=1, max_size=6).map(str.strip).filter(bool)
_FILE = st.text(alphabet="ab,:\"\\/", min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(_NAME, min_size=3, max_size=3, unique=True), _TABLE, _FILE)
def test_texts_holding_the_layouts_characters(names: list[str], table: str, file: str) -> None:
    text = CLEAN.replace("Tashkent 1", table)
    for placeholder, name in zip(("AAA", "BBB", "CCC"), names, strict=True):
        text = text.replace(placeholder, name)
    result = replay_one(text, file)
    assert hand_json_text(result) == json.dumps(hand_json(result), ensure_ascii=False)  # type: ignore[arg-type]


def test_the_documents_own_strings_hold_no_separator() -> None:
    """What ``_no_separator_in_text`` leaves unchecked: keys, card texts, category labels,
    the variants' and Fantasyland types' texts."""
    from ofc_audit.audit import json_doc as audit_json
    from ofc_audit.game.cards import HIDDEN, JOKERS, NATURAL_CARDS
    from ofc_audit.game.row_values import Category
    from ofc_audit.replay.results import Finding, Incomplete, Mismatch, PairResult

    shapes = [
        audit_json.RowDocument, audit_json.RowsDocument, audit_json.RoyaltiesDocument,
        audit_json.FantasylandDocument, audit_json.PlayerDocument, audit_json.HandDocument,
        Finding, Mismatch, Incomplete, PairResult,
    ]  # fmt: skip
    keys = [field for shape in shapes for field in shape.__struct_fields__]
    cards = [card.text for card in (*NATURAL_CARDS, *JOKERS, HIDDEN)]
    labels = [category.label for category in Category] + ["royal_flush"]
    enums = list(audit_json._ENUM_TEXT.values())
    for text in keys + cards + labels + enums:
        assert "," not in text and ":" not in text, text
