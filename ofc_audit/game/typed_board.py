"""Boards typed by a person at ``ofc-audit score``: cards as the pages print them, and the
typos a typed board can hold.

A history is what a site wrote, so a short row there is a foul (R-ROW-3) and a card seen twice
is a violation (R-CARD-3). A board typed on the command line is what a person copied, and the
same two things are typos: scoring them would turn a slip of the keyboard into a result. So
here they are input errors that name the board and the place.

Cards are read as the pages and the terminal print them as well as in the history format:
``10h`` for ``Th``, and the suit symbols ``♠ ♥ ♦ ♣`` (the outline forms ``♤ ♡ ♢ ♧`` too,
and either followed by the emoji variation selector some keyboards add).

>>> [str(card) for card in typed_cards("10h Q♠ 10♣ as")]
['Th', 'Qs', 'Tc', 'As']
>>> try:
...     parse_typed_boards(["Qs Qd / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd"])
... except TypedBoardError as error:
...     print(error)
board 1: the top row has 2 cards; a board's rows hold 3, 5 and 5
"""

from __future__ import annotations

from collections.abc import Sequence

from .board import Board
from .cards import Card, CardError
from .record import ROWS, Row

_SUIT_SYMBOLS = {
    "♠": "s", "♤": "s",
    "♥": "h", "♡": "h",
    "♦": "d", "♢": "d",
    "♣": "c", "♧": "c",
}
_VARIATION_SELECTOR = "\ufe0f"


class TypedBoardError(ValueError):
    """A typed board that cannot be scored as typed: the message names the board (1-based,
    in the order given) and, where there is one, the row and the card's place in it."""


def typed_card(token: str) -> Card:
    """One card as a person may type it: ``Th``, ``10h``, ``T♥``, ``10♥``, ``JK1``, ``??``."""
    text = token.replace(_VARIATION_SELECTOR, "")
    if text[:2] == "10" and len(text) == 3:
        text = "T" + text[2]
    if len(text) == 2 and text[1] in _SUIT_SYMBOLS:
        text = text[0] + _SUIT_SYMBOLS[text[1]]
    try:
        return Card.parse(text)
    except CardError:
        raise CardError(_typed_explanation(token)) from None


def _typed_explanation(token: str) -> str:
    try:
        Card.parse(token)
    except CardError as error:
        return f"{error} (also read: 10 for T, and the suits ♠ ♥ ♦ ♣)"
    raise AssertionError("unreachable: a token Card.parse reads is always typed_card's")


def typed_cards(text: str) -> tuple[Card, ...]:
    return tuple(typed_card(token) for token in text.split())


def _place(board: int, row: Row, position: int) -> str:
    return f"board {board}, {row.value} row, card {position}"


def parse_typed_boards(texts: Sequence[str]) -> list[Board]:
    """The boards, each ``TOP / MIDDLE / BOTTOM``; raises :class:`TypedBoardError` for a card
    that is not a card, rows that are not 3, 5 and 5 cards, or a card typed twice (the
    two jokers are two cards; hidden ``??`` cards are left to the caller, which cannot score
    them)."""
    boards: list[Board] = []
    seen: dict[Card, str] = {}
    for number, text in enumerate(texts, start=1):
        parts = text.split("/")
        if len(parts) != 3:
            raise TypedBoardError(
                f"board {number}: {text!r} is not a board: expected TOP / MIDDLE / BOTTOM "
                f"(three rows separated by '/'), found {len(parts)} "
                f"{'part' if len(parts) == 1 else 'parts'}"
            )
        rows: list[tuple[Card, ...]] = []
        for row, part in zip(ROWS, parts, strict=True):
            cards: list[Card] = []
            for position, token in enumerate(part.split(), start=1):
                try:
                    card = typed_card(token)
                except CardError as error:
                    raise TypedBoardError(f"{_place(number, row, position)}: {error}") from None
                if not card.is_hidden:
                    where = _place(number, row, position)
                    if card in seen:
                        raise TypedBoardError(
                            f"{where}: {card} is typed twice (also {seen[card]}); every card "
                            "is in the deck once"
                        )
                    seen[card] = where
                cards.append(card)
            rows.append(tuple(cards))
        for row, cards_of_row in zip(ROWS, rows, strict=True):
            if len(cards_of_row) != row.size:
                count = len(cards_of_row)
                raise TypedBoardError(
                    f"board {number}: the {row.value} row has {count} "
                    f"{'card' if count == 1 else 'cards'}; a board's rows hold 3, 5 and 5"
                )
        boards.append(Board(*rows))
    return boards
