"""Known answers for cards (R-CARD-1..3), written by hand from RULES.md."""

from __future__ import annotations

import pytest

from ofc_audit.game.board import Board
from ofc_audit.game.cards import (
    HIDDEN,
    JOKERS,
    NATURAL_CARDS,
    Card,
    CardError,
    Rank,
    Suit,
    deck,
    format_cards,
    parse_cards,
)
from ofc_audit.game.typed_board import TypedBoardError, parse_typed_boards

RANK_LETTERS = "23456789TJQKA"
SUIT_LETTERS = "shdc"


# --- R-CARD-1: rank and suit, either case, canonical output -------------------------------


@pytest.mark.parametrize("token", ["Ah", "ah", "AH", "aH"])
def test_r_card_1_ace_of_hearts_in_any_case(token: str) -> None:
    """R-CARD-1: `ah`, `AH` are `Ah`."""
    card = Card.parse(token)
    assert str(card) == "Ah"
    assert card == Card.parse("Ah")
    assert card.rank is Rank.ACE and card.suit is Suit.HEARTS


@pytest.mark.parametrize("rank", list(RANK_LETTERS))
@pytest.mark.parametrize("suit", list(SUIT_LETTERS))
def test_r_card_1_every_card_every_case_is_canonical(rank: str, suit: str) -> None:
    """R-CARD-1: all 52 cards, each spelled in every case, print canonically."""
    canonical = rank + suit
    spellings = {rank + suit, rank.lower() + suit, rank + suit.upper(), rank.lower() + suit.upper()}
    for spelling in spellings:
        assert str(Card.parse(spelling)) == canonical


def test_r_card_1_ten_is_t() -> None:
    """R-CARD-1: the ten is written `T` (`Td`), output canonical from `td`."""
    assert str(Card.parse("td")) == "Td"
    assert Card.parse("td").rank is Rank.TEN


@pytest.mark.parametrize(
    ("token", "fragment"),
    [
        ("Ax", "suit must be one of s h d c"),
        ("1h", "ten is T"),
        ("JK3", "the jokers are JK1 and JK2"),
        ("", "empty card"),
        ("10h", "expected two characters"),
        ("A", "expected two characters"),
        ("Ahh", "expected two characters"),
        ("Xh", "rank must be one of 23456789TJQKA"),
        ("hA", "rank must be one of 23456789TJQKA"),
    ],
)
def test_r_card_1_bad_tokens_have_precise_errors(token: str, fragment: str) -> None:
    """R-CARD-1: a bad token raises CardError (a ValueError) saying what is wrong."""
    with pytest.raises(CardError) as info:
        Card.parse(token)
    message = str(info.value)
    assert fragment in message
    assert isinstance(info.value, ValueError)
    if token:
        assert repr(token) in message  # the message quotes the offending token


def test_r_card_1_parse_cards_and_format_are_canonical() -> None:
    """R-CARD-1: parsing a row in mixed case gives canonical output."""
    cards = parse_cards("as KD tc 2H")
    assert [str(c) for c in cards] == ["As", "Kd", "Tc", "2h"]
    assert format_cards(cards) == "As Kd Tc 2h"
    assert parse_cards(["qs", "JK2"]) == (Card.parse("Qs"), JOKERS[1])


def test_r_card_1_bad_token_in_a_row_raises() -> None:
    """R-CARD-1: one bad token spoils the row and the error names it."""
    with pytest.raises(CardError, match="'1h'"):
        parse_cards("As 1h Kd")
    with pytest.raises(CardError, match="'Ax'"):
        Board.parse("Ax Kd Qc / 2s 3s 4s 5s 7d / 8h 8d 8c 9s 9d")


def test_r_card_1_card_of_rank_and_suit() -> None:
    """R-CARD-1: Card.of builds the same interned card as the parser."""
    assert Card.of(Rank.TEN, Suit.DIAMONDS) is Card.parse("Td")
    assert Card.of(Rank.TWO, Suit.CLUBS) is Card.parse("2c")


# --- R-CARD-2: 52 cards, or 54 with JK1 and JK2 -------------------------------------------


def test_r_card_2_standard_deck_has_52_distinct_cards() -> None:
    """R-CARD-2: 13 ranks x 4 suits, no jokers."""
    cards = deck()
    assert len(cards) == 52
    assert len(set(cards)) == 52
    assert {str(c) for c in cards} == {r + s for r in RANK_LETTERS for s in SUIT_LETTERS}
    assert not any(c.is_joker or c.is_hidden for c in cards)
    assert sorted(c.index for c in cards) == list(range(52))


def test_r_card_2_joker_deck_has_54_cards() -> None:
    """R-CARD-2: Joker Pineapple adds JK1 and JK2."""
    cards = deck(with_jokers=True)
    assert len(cards) == 54
    assert len(set(cards)) == 54
    jokers = [str(c) for c in cards if c.is_joker]
    assert jokers == ["JK1", "JK2"]
    assert set(cards) - set(NATURAL_CARDS) == set(JOKERS)


@pytest.mark.parametrize("token", ["JK1", "JK2"])
def test_r_card_2_jokers_parse(token: str) -> None:
    """R-CARD-2: `JK1`, `JK2` are the two jokers; they print unchanged."""
    card = Card.parse(token)
    assert card.is_joker
    assert not card.is_natural and not card.is_hidden
    assert str(card) == token
    assert Card.parse("JK1") != Card.parse("JK2")


# --- R-CARD-3: no card twice; `??` is hidden and never a duplicate -------------------------


def test_r_card_3_hidden_card() -> None:
    """R-CARD-3: `??` is a card hidden from the writer, neither natural nor a joker."""
    card = Card.parse("??")
    assert card is HIDDEN
    assert card.is_hidden
    assert not card.is_natural and not card.is_joker
    assert str(card) == "??"


def test_r_card_3_same_token_is_the_same_card() -> None:
    """R-CARD-3: `Ah` and `ah` are the same card, so a duplicate is found whatever the case."""
    assert Card.parse("ah") == Card.parse("AH")
    assert len({Card.parse("ah"), Card.parse("AH"), Card.parse("Ah")}) == 1


def test_r_card_3_duplicate_across_typed_boards_is_an_input_error() -> None:
    """R-CARD-3: a card typed on two boards (whatever its case) is a typo at `score`."""
    with pytest.raises(TypedBoardError, match="board 2, top row, card 1: Ah is typed twice"):
        parse_typed_boards([
            "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d",
            "ah Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd",
        ])


def test_r_card_3_no_duplicates_on_distinct_boards() -> None:
    """R-CARD-3: the worked example of the score command has 39 distinct cards."""
    boards = parse_typed_boards([
        "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d",
        "Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd",
        "As Ac Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h",
    ])
    assert len({card for board in boards for card in board.cards}) == 39
