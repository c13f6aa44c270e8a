"""Cards, ranks and suits (R-CARD-1..3).

Every card is an interned, immutable :class:`Card`; parsing is a dictionary look-up, so the
reader can afford one per token.

>>> Card.parse("ah")
Card('Ah')
>>> str(Card.parse("JK2")), Card.parse("??").is_hidden
('JK2', True)
>>> Card.parse("Ax")
Traceback (most recent call last):
...
ofc_audit.game.cards.CardError: 'Ax' is not a card: the suit must be one of s h d c (either case)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum


class CardError(ValueError):
    """A token that is not a card; the message says what is wrong with it."""


class Rank(StrEnum):
    TWO = "2"
    THREE = "3"
    FOUR = "4"
    FIVE = "5"
    SIX = "6"
    SEVEN = "7"
    EIGHT = "8"
    NINE = "9"
    TEN = "T"
    JACK = "J"
    QUEEN = "Q"
    KING = "K"
    ACE = "A"

    @property
    def number(self) -> int:
        """2 for a deuce ... 14 for an ace."""
        return _RANK_NUMBER[self]

    @classmethod
    def from_number(cls, number: int) -> Rank:
        return _NUMBER_RANK[number]


class Suit(StrEnum):
    # Declared in the tie-break order of R-JOKER-2: s, h, d, c.
    SPADES = "s"
    HEARTS = "h"
    DIAMONDS = "d"
    CLUBS = "c"


RANKS: tuple[Rank, ...] = tuple(Rank)
SUITS: tuple[Suit, ...] = tuple(Suit)
_RANK_NUMBER = {rank: number for number, rank in enumerate(RANKS, start=2)}
_NUMBER_RANK = {number: rank for rank, number in _RANK_NUMBER.items()}

HIDDEN_TOKEN = "??"
JOKER_TOKENS = ("JK1", "JK2")


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """A natural card (rank and suit), a joker (``JK1``/``JK2``) or a hidden card (``??``).

    ``index`` is 0..51 for natural cards (rank-major, suits in s h d c order), 52 and 53 for
    the jokers and -1 for a hidden card; evaluators use it to index look-up tables.

    Every card is interned (one object per card, made here), so equality and hashing are by
    identity: the replay hashes millions of cards and a field-wise hash would dominate it.
    """

    rank: Rank | None
    suit: Suit | None
    joker: int = 0
    index: int = -1
    text: str = field(default="??", repr=False)

    @staticmethod
    def parse(token: str) -> Card:
        card = _BY_TOKEN.get(token)
        if card is None:
            raise CardError(_explain(token))
        return card

    @staticmethod
    def of(rank: Rank, suit: Suit) -> Card:
        return NATURAL_CARDS[(rank.number - 2) * 4 + SUITS.index(suit)]

    @property
    def is_joker(self) -> bool:
        return self.joker != 0

    @property
    def is_hidden(self) -> bool:
        return self.rank is None and self.joker == 0

    @property
    def is_natural(self) -> bool:
        return self.rank is not None

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        # Copies and pickles (multiprocessing, Dask) come back as the interned card.
        return (Card.parse, (self.text,))


NATURAL_CARDS: tuple[Card, ...] = tuple(
    Card(rank, suit, 0, (rank.number - 2) * 4 + s, rank.value + suit.value)
    for rank in RANKS
    for s, suit in enumerate(SUITS)
)
JOKERS: tuple[Card, ...] = (Card(None, None, 1, 52, "JK1"), Card(None, None, 2, 53, "JK2"))
HIDDEN = Card(None, None, 0, -1, HIDDEN_TOKEN)


def _token_table() -> dict[str, Card]:
    table: dict[str, Card] = {}
    for card in NATURAL_CARDS:
        text = str(card)
        for r in {text[0], text[0].lower()}:
            for s in {text[1], text[1].upper()}:
                table[r + s] = card
    for joker in JOKERS:
        # docs/FORMAT.md: cards are not case-sensitive; that covers the jokers' letters too.
        for j in "Jj":
            for k in "Kk":
                table[f"{j}{k}{str(joker)[2]}"] = joker
    table[HIDDEN_TOKEN] = HIDDEN
    return table


_BY_TOKEN = _token_table()


def _explain(token: str) -> str:
    if not token:
        return "empty card: expected a rank 23456789TJQKA and a suit shdc, JK1, JK2 or ??"
    upper = token.upper()
    if upper.startswith("JK"):
        return f"{token!r} is not a card: the jokers are JK1 and JK2"
    if len(token) != 2:
        return (
            f"{token!r} is not a card: expected two characters, a rank 23456789TJQKA and a "
            "suit shdc (or JK1, JK2, ??)"
        )
    rank, suit = token[0].upper(), token[1].lower()
    if rank not in "23456789TJQKA":
        if token[0] == "1":
            return f"{token!r} is not a card: the rank must be one of 23456789TJQKA (ten is T)"
        return f"{token!r} is not a card: the rank must be one of 23456789TJQKA (either case)"
    if suit not in "shdc":
        return f"{token!r} is not a card: the suit must be one of s h d c (either case)"
    return f"{token!r} is not a card"  # pragma: no cover - every valid pair is in the table


def parse_cards(text: str | Iterable[str]) -> tuple[Card, ...]:
    """Parse cards separated by white space (or an iterable of tokens).

    >>> [str(c) for c in parse_cards("as KD ??")]
    ['As', 'Kd', '??']
    """
    tokens = text.split() if isinstance(text, str) else text
    return tuple(Card.parse(token) for token in tokens)


def deck(with_jokers: bool = False) -> tuple[Card, ...]:
    """The 52-card deck, or the 54-card deck of Joker Pineapple (R-CARD-2)."""
    return NATURAL_CARDS + JOKERS if with_jokers else NATURAL_CARDS


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(str(card) for card in cards)
