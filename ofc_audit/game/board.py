"""Finished boards: fouls (R-ROW-3, R-ORDER-1/2), royalties (R-ROY-1..4) and jokers
(R-JOKER-1..3).

>>> result = evaluate_board(Board.parse("Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"))
>>> result.fouled, result.royalties.total, [r.category for r in result.rows]
(False, 11, ['pair', 'two_pair', 'quads'])
>>> evaluate_board(Board.parse("Qs Qd 7c / Qh Qc 6d 5s 4h / 2s 2d 2h 9c 9d")).foul_rule
'R-ORDER-2'
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from itertools import combinations, product

from .cards import NATURAL_CARDS, Card, CardError, parse_cards
from .record import ROWS, Cards, Record, Row
from .row_values import (
    FIVE_TABLE,
    FLUSH_TABLE,
    RANK_KEY,
    RANK_NUMBER,
    SUIT_BIT,
    THREE_TABLE,
    Category,
    category_label,
    category_of,
    evaluate3,
    evaluate5,
    ranks_of,
    value_from_ranks,
)
from .ruleset import JokerExcludes, RoyaltiesMode, Ruleset


class Board(Record, frozen=True):
    """Three rows of cards as placed (jokers unresolved, input order kept)."""

    top: Cards
    middle: Cards
    bottom: Cards

    @classmethod
    def parse(cls, text: str) -> Board:
        """``TOP / MIDDLE / BOTTOM``, cards separated by spaces (docs/CLI.md ``score``)."""
        parts = text.split("/")
        if len(parts) != 3:
            raise CardError(
                f"{text!r} is not a board: expected TOP / MIDDLE / BOTTOM (three rows separated "
                f"by '/'), found {len(parts)} part(s)"
            )
        top, middle, bottom = (parse_cards(part) for part in parts)
        return cls(top, middle, bottom)

    @classmethod
    def from_rows(cls, rows: dict[Row, Cards]) -> Board:
        return cls(rows.get(Row.TOP, ()), rows.get(Row.MIDDLE, ()), rows.get(Row.BOTTOM, ()))

    def row(self, row: Row) -> Cards:
        return (self.top, self.middle, self.bottom)[ROWS.index(row)]

    @property
    def rows(self) -> tuple[Cards, Cards, Cards]:
        return (self.top, self.middle, self.bottom)

    @property
    def cards(self) -> Cards:
        return self.top + self.middle + self.bottom

    @property
    def has_hidden(self) -> bool:
        return any(card.is_hidden for card in self.cards)

    def __str__(self) -> str:
        return " / ".join(" ".join(str(c) for c in row) for row in self.rows)


class Royalties(Record, frozen=True):
    top: int = 0
    middle: int = 0
    bottom: int = 0

    @property
    def total(self) -> int:
        return self.top + self.middle + self.bottom

    def of(self, row: Row) -> int:
        return (self.top, self.middle, self.bottom)[ROWS.index(row)]


NO_ROYALTIES = Royalties()


class RowResult(Record, frozen=True):
    row: Row
    cards: Cards  # input order, each joker replaced by the card it stands for
    value: int
    complete: bool

    @property
    def category(self) -> str:
        return category_label(self.value)

    @property
    def category_enum(self) -> Category:
        return category_of(self.value)


class BoardResult(Record, frozen=True):
    board: Board
    rows: tuple[RowResult, RowResult, RowResult]
    fouled: bool
    foul_rule: str | None  # R-ROW-3, R-ORDER-1 or R-ORDER-2
    foul_reason: str | None
    royalties: Royalties
    jokers: tuple[tuple[Card, Card], ...]  # (joker, card it stands for), JK1 first

    @property
    def top(self) -> RowResult:
        return self.rows[0]

    @property
    def middle(self) -> RowResult:
        return self.rows[1]

    @property
    def bottom(self) -> RowResult:
        return self.rows[2]


def _row_value(indices: Sequence[int]) -> int:
    if len(indices) == 5:
        return evaluate5(*indices)
    if len(indices) == 3:
        return evaluate3(*indices)
    return value_from_ranks([RANK_NUMBER[i] for i in indices])


_ROYALTY_CACHE: dict[tuple[str, Row, int], int] = {}


def royalty_for(row: Row, value: int, ruleset: Ruleset) -> int:
    """Royalty of one row of a legal board (R-ROY-1..3), memoised per table, row and value."""
    key = (ruleset.royalty_table, row, value)
    cached = _ROYALTY_CACHE.get(key)
    if cached is not None:
        return cached
    table = ruleset.royalty_values[row.value]
    if row is Row.TOP:
        category = category_of(value)
        royalty = 0
        if category is Category.PAIR:
            royalty = table.get(f"pair:{ranks_of(value)[0]}", 0)
        elif category is Category.TRIPS:
            royalty = table.get(f"trips:{ranks_of(value)[0]}", 0)
    else:
        royalty = table.get(category_label(value), 0)
    _ROYALTY_CACHE[key] = royalty
    return royalty


_MIDDLE_FOUL = ("R-ORDER-1", "middle is stronger than bottom")
_TOP_FOUL = ("R-ORDER-2", "top is stronger than middle")


def _order_foul(top: int, middle: int, bottom: int) -> tuple[str, str] | None:
    if middle > bottom:
        return _MIDDLE_FOUL
    if top > middle:
        return _TOP_FOUL
    return None


# Candidates in the tie-break order of R-JOKER-2: higher rank first, then s, h, d, c.
_BY_PREFERENCE: tuple[Card, ...] = tuple(
    sorted(NATURAL_CARDS, key=lambda c: (-(c.index // 4), c.index % 4))
)
_PREFERENCE = {card: len(_BY_PREFERENCE) - i for i, card in enumerate(_BY_PREFERENCE)}

Assignment = tuple[tuple[Card, Card], ...]  # (joker, the card it stands for), JK1 first


def _joker_candidates(
    board: Board, row_index: int, excludes: JokerExcludes, known: Collection[Card]
) -> list[Card]:
    if excludes is JokerExcludes.ROW:
        taken = set(board.rows[row_index])
    else:
        taken = set(board.cards)
        if excludes is JokerExcludes.KNOWN:
            taken.update(known)
    return [card for card in _BY_PREFERENCE if card not in taken]


def _row_options(
    naturals: list[int], jokers: list[Card], candidates: list[Card]
) -> dict[int, list[Assignment]]:
    """Every value the row can take, with the joker assignments that give it, best first."""
    options: dict[int, list[Assignment]] = {}
    # The row's rank key and common suit bits are sums/ands over its cards, so the naturals'
    # part is computed once and each candidate adds its own: the hot loop of two jokers.
    base_key = sum(RANK_KEY[i] for i in naturals)
    base_suits = 0b1111
    for i in naturals:
        base_suits &= SUIT_BIT[i]
    five = len(naturals) + len(jokers) == 5
    # Candidates come best first, so each list is in R-JOKER-2's preference order and, with
    # two jokers in one row, JK1 takes the better card of each pair (the value is symmetric).
    for chosen in combinations(candidates, len(jokers)):
        key = base_key
        suits = base_suits
        for card in chosen:
            key += RANK_KEY[card.index]
            suits &= SUIT_BIT[card.index]
        if five:
            value = FLUSH_TABLE[key] if suits else FIVE_TABLE[key]
        else:
            value = THREE_TABLE[key]
        entry = (
            ((jokers[0], chosen[0]),)
            if len(chosen) == 1
            else tuple(zip(jokers, chosen, strict=True))
        )
        found = options.get(value)
        if found is None:
            options[value] = [entry]
        else:
            found.append(entry)
    return options


def _resolve_jokers(
    board: Board, ruleset: Ruleset, known: Collection[Card]
) -> tuple[tuple[Cards, Cards, Cards], Assignment]:
    """Assign every joker of a complete board at once (R-JOKER-2).

    A row's value depends on its own cards only, so each row is enumerated alone and grouped
    by value; the best combination of values is (legal, bottom, middle, top); then, among the
    assignments giving those values, JK1 takes the most preferred card and JK2 the most
    preferred card left (two jokers never stand for the same card, R-JOKER-1).
    """
    rows = board.rows
    per_row: list[dict[int, list[Assignment]]] = []
    for r, row in enumerate(rows):
        naturals = [card.index for card in row if not card.is_joker]
        jokers = sorted((card for card in row if card.is_joker), key=lambda c: c.joker)
        if not jokers:
            per_row.append({_row_value(naturals): [()]})
            continue
        candidates = _joker_candidates(board, r, ruleset.joker_excludes, known)
        per_row.append(_row_options(naturals, jokers, candidates))

    ranked = sorted(
        product(*(options.keys() for options in per_row)),
        key=lambda v: (v[0] <= v[1] <= v[2], v[2], v[1], v[0]),
        reverse=True,
    )
    for top, middle, bottom in ranked:
        best: Assignment | None = None
        best_key: tuple[int, ...] = ()
        choices = (per_row[0][top], per_row[1][middle], per_row[2][bottom])
        for parts in product(*choices):
            assignment = tuple(
                sorted((p for part in parts for p in part), key=lambda p: p[0].joker)
            )
            cards = [card for _, card in assignment]
            if len(set(cards)) != len(cards):
                continue
            key = tuple(_PREFERENCE[card] for card in cards)
            if best is None or key > best_key:
                best, best_key = assignment, key
        if best is not None:
            mapping = dict(best)
            resolved = tuple(tuple(mapping.get(card, card) for card in row) for row in rows)
            return (resolved[0], resolved[1], resolved[2]), best
    raise ValueError("no joker assignment exists")  # pragma: no cover - 52 cards always suffice


# A row's royalty depends on its category and, on top, the rank of its pair or trips: both are
# in the bits of its value above the last four ranks (``value >> 16``: the category, then the
# first rank; royal_flush is a straight flush whose first rank is the ace). Per royalty table:
# for top, middle and bottom, ``value >> 16`` -> royalty (at most 144 keys each).
_ROYALTY_MEMO: dict[str, tuple[dict[int, int], dict[int, int], dict[int, int]]] = {}
# One Royalties record per distinct (top, middle, bottom): records are frozen, so boards
# with the same royalties share one instead of each building its own.
_ROYALTIES: dict[tuple[int, int, int], Royalties] = {}
# Enum members read as module constants: `Row.TOP` is an attribute look-up on the enum class,
# which costs as much as the evaluation of a row.
_TOP, _MIDDLE, _BOTTOM = ROWS
_ALL_ROYALTIES = RoyaltiesMode.ALL
# A natural card's index (0..51), for map(): jokers and the hidden card are not in it.
_NATURAL_INDEX = {card: card.index for card in NATURAL_CARDS}.__getitem__


def _royalties(top: int, middle: int, bottom: int, ruleset: Ruleset) -> Royalties:
    """Royalties of a legal board from its row values, memoised per royalty table."""
    memo = _ROYALTY_MEMO.get(ruleset.royalty_table)
    if memo is None:
        memo = _ROYALTY_MEMO[ruleset.royalty_table] = ({}, {}, {})
    top_roy = memo[0].get(top >> 16)
    if top_roy is None:
        top_roy = memo[0][top >> 16] = royalty_for(_TOP, top, ruleset)
    mid_roy = memo[1].get(middle >> 16)
    if mid_roy is None:
        mid_roy = memo[1][middle >> 16] = royalty_for(_MIDDLE, middle, ruleset)
    bot_roy = memo[2].get(bottom >> 16)
    if bot_roy is None:
        bot_roy = memo[2][bottom >> 16] = royalty_for(_BOTTOM, bottom, ruleset)
    key = (top_roy, mid_roy, bot_roy)
    royalties = _ROYALTIES.get(key)
    if royalties is None:
        royalties = _ROYALTIES[key] = Royalties(top_roy, mid_roy, bot_roy)
    return royalties


def evaluate_natural_board(board: Board, ruleset: Ruleset) -> BoardResult | None:
    """The hot path of :func:`evaluate_board`: a 3/5/5 board of natural cards; None for any
    other board (jokers, hidden cards, rows of other sizes)."""
    top_cards, middle_cards, bottom_cards = board.top, board.middle, board.bottom
    if len(top_cards) != 3 or len(middle_cards) != 5 or len(bottom_cards) != 5:
        return None
    try:
        # The 13 indices: top t, middle m and bottom b (one look-up per card, in C); a joker
        # or a hidden card has none here.
        t1, t2, t3, m1, m2, m3, m4, m5, b1, b2, b3, b4, b5 = map(
            _NATURAL_INDEX, top_cards + middle_cards + bottom_cards
        )
    except KeyError:
        return None
    # hands.evaluate3/evaluate5 inlined: a row's rank key is a sum, its suits an AND.
    key, suit = RANK_KEY, SUIT_BIT
    top = THREE_TABLE[key[t1] + key[t2] + key[t3]]
    table = FLUSH_TABLE if suit[m1] & suit[m2] & suit[m3] & suit[m4] & suit[m5] else FIVE_TABLE
    middle = table[key[m1] + key[m2] + key[m3] + key[m4] + key[m5]]
    table = FLUSH_TABLE if suit[b1] & suit[b2] & suit[b3] & suit[b4] & suit[b5] else FIVE_TABLE
    bottom = table[key[b1] + key[b2] + key[b3] + key[b4] + key[b5]]
    foul = _MIDDLE_FOUL if middle > bottom else _TOP_FOUL if top > middle else None
    if foul is None and ruleset.royalties is _ALL_ROYALTIES:
        royalties = _royalties(top, middle, bottom, ruleset)
    else:
        royalties = NO_ROYALTIES
    # Positional fast constructors: this runs for every board of every hand audited.
    return BoardResult(
        board,
        (
            RowResult(_TOP, top_cards, top, True),
            RowResult(_MIDDLE, middle_cards, middle, True),
            RowResult(_BOTTOM, bottom_cards, bottom, True),
        ),
        foul is not None,
        foul[0] if foul else None,
        foul[1] if foul else None,
        royalties,
        (),
    )


def evaluate_board(
    board: Board, ruleset: Ruleset | None = None, known: Iterable[Card] = ()
) -> BoardResult:
    """Fouls, row values and royalties of a board whose cards are all known.

    ``known`` are the cards the history shows anywhere in the hand (``joker_excludes`` =
    ``known``). A board that is not 3/5/5 is fouled (R-ROW-3); its jokers stay unresolved and
    its rows are valued on their natural cards.
    """
    ruleset = ruleset or Ruleset()
    fast = evaluate_natural_board(board, ruleset)
    if fast is not None:
        return fast
    top, middle, bottom = board.top, board.middle, board.bottom
    cards = top + middle + bottom
    if any(card.index < 0 for card in cards):
        raise ValueError("a board with hidden cards cannot be evaluated")
    complete = len(top) == 3 and len(middle) == 5 and len(bottom) == 5
    jokers: tuple[tuple[Card, Card], ...] = ()
    rows = board.rows
    if complete and any(card.index > 51 for card in cards):
        rows, jokers = _resolve_jokers(board, ruleset, frozenset(c for c in known if c.index >= 0))
    values = [_row_value([c.index for c in row if c.index < 52]) for row in rows]
    results = (
        RowResult(Row.TOP, rows[0], values[0], len(rows[0]) == 3),
        RowResult(Row.MIDDLE, rows[1], values[1], len(rows[1]) == 5),
        RowResult(Row.BOTTOM, rows[2], values[2], len(rows[2]) == 5),
    )
    foul: tuple[str, str] | None
    if not complete:
        sizes = f"{len(top)}/{len(middle)}/{len(bottom)}"
        foul = "R-ROW-3", f"the board has {sizes} cards, not 3/5/5"
    else:
        foul = _order_foul(*values)
    royalties = NO_ROYALTIES
    if foul is None and ruleset.royalties is RoyaltiesMode.ALL:
        royalties = Royalties(
            royalty_for(Row.TOP, values[0], ruleset),
            royalty_for(Row.MIDDLE, values[1], ruleset),
            royalty_for(Row.BOTTOM, values[2], ruleset),
        )
    return BoardResult(
        board=board,
        rows=results,
        fouled=foul is not None,
        foul_rule=foul[0] if foul else None,
        foul_reason=foul[1] if foul else None,
        royalties=royalties,
        jokers=jokers,
    )
