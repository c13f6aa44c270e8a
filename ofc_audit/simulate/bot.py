"""A fast greedy OFC play policy for the simulator: avoids fouls, chases royalties and
Fantasyland.

Cards are ints here: 0..51 are the natural cards by :attr:`~ofc_audit.game.cards.Card.index`
(rank-major, suits s h d c), 52 and 53 the jokers. A row is valued through the rank-key tables
of :mod:`ofc_audit.game.row_values` (a row's rank multiset is a sum of per-card keys), so
placing a card
costs a few dictionary look-ups. A board's worth is ``(1 - p) * W - p * C``: ``W`` the rows'
expected royalties and strength (made hands, flush and straight draws, the Fantasyland bonus
of a queen-or-better pair on top), ``p`` an estimate that it ends fouled (rows compared by the
level they are expected to reach with the room they have left, and by the cards the weaker
row still needs), ``C`` what a foul costs against the table. Then:

- street 1: rules of thumb (made hands and draws at the bottom, a second pair in the middle);
- later streets but the last: each card valued alone in each row, the best one or two taken
  (two cards that work together in one row, a pair or suited, valued together);
- the last street: every way to fill the remaining slots is valued exactly (foul, royalties,
  Fantasyland next, row strength) and the best legal one is taken;
- Fantasyland: plans built from made hands (best bottom first, or trips or a pair of queens
  or better on top first, kickers from the lowest cards) are valued exactly.

Jokers (Joker Pineapple) take a slow path: rows holding one are valued by trying ranks for
the joker, and exact values use :func:`ofc_audit.game.board.evaluate_board`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement, product

from ..game.board import Board, evaluate_board
from ..game.cards import JOKERS, NATURAL_CARDS, Card
from ..game.fantasyland import next_fantasyland
from ..game.row_values import (
    CATEGORY_SHIFT,
    FIVE_TABLE,
    FLUSH_TABLE,
    LEADING_RANK_SHIFT,
    RANK_KEY,
    SUIT_BIT,
    THREE_TABLE,
    category_and_leading_rank,
    category_number,
    leading_rank,
    value_from_ranks,
)
from ..game.ruleset import FantasylandType, RoyaltiesMode, Ruleset, Variant

TOP, MIDDLE, BOTTOM = 0, 1, 2
SIZES = (3, 5, 5)
JOKER_INDEX = 52  # cards >= 52 are jokers

Rows = list[list[int]]

# Per-card look-ups (jokers get neutral entries; they never reach the fast path).
_RK: tuple[int, ...] = RANK_KEY + (0, 0)
_SB: tuple[int, ...] = SUIT_BIT + (0, 0)
_RANK: tuple[int, ...] = tuple(i // 4 + 2 for i in range(52)) + (0, 0)
_RBIT: tuple[int, ...] = tuple(1 << (i // 4 + 2) for i in range(52)) + (0, 0)
_ONE_SUIT: tuple[bool, ...] = tuple(bin(mask).count("1") <= 1 for mask in range(16))


def _build_made() -> dict[int, int]:
    """Value of every rank multiset of 0..5 cards (counts <= 4) keyed by its rank-key sum:
    the :mod:`ofc_audit.game.row_values` value (pairs, trips, ..., straights for five distinct
    ranks);
    flushes are looked up apart."""
    made = {0: 0}
    for size in range(1, 6):
        for ranks in combinations_with_replacement(range(2, 15), size):
            if max(Counter(ranks).values()) <= 4:
                made[sum(5 ** (r - 2) for r in ranks)] = value_from_ranks(ranks)
    return made


def _straight_live(mask: int) -> bool:
    """Whether distinct ranks (bit r for rank r, ace also as 1) fit in one 5-rank window."""
    ranks = [r for r in range(2, 15) if mask >> r & 1]
    if not ranks:
        return True
    if ranks[-1] - ranks[0] <= 4:
        return True
    if ranks[-1] == 14:  # the wheel: ace low
        low = [1] + ranks[:-1]
        return low[-1] - low[0] <= 4
    return False


_MADE = _build_made()
_STRAIGHT_LIVE: dict[int, bool] = {}


def _sl(mask: int) -> bool:
    found = _STRAIGHT_LIVE.get(mask)
    if found is None:
        found = _STRAIGHT_LIVE[mask] = _straight_live(mask)
    return found


# Expected gain in "level" (category + rank/16; a high card counts little until the row is
# full) of a row by room left, per current category, and the spread of the final level: a
# row with room can still improve, a full one cannot. Measured on the bot's own play.
_GAIN_MIDDLE = (
    (0.0, 0.55, 0.95, 1.2, 1.4, 1.55),  # high card
    (0.0, 0.40, 0.65, 0.85, 1.0, 1.0),  # pair
    (0.0, 0.30, 0.50, 0.6, 0.6, 0.6),  # two pair
    (0.0, 0.40, 0.65, 0.8, 0.8, 0.8),  # trips
) + ((0.0,) * 6,) * 5
_GAIN_BOTTOM = (
    (0.0, 0.60, 1.05, 1.5, 1.75, 1.9),
    (0.0, 0.75, 1.2, 1.7, 1.9, 1.9),
    (0.0, 0.9, 1.0, 1.0, 1.0, 1.0),
    (0.0, 0.9, 1.2, 1.2, 1.2, 1.2),
) + ((0.0,) * 6,) * 5
_GAIN3 = (0.0, 0.25, 0.40, 0.6)
_SPREAD5 = (0.0, 0.7, 1.0, 1.3, 1.5, 1.6)
# The bot steers its cards to keep the rows in order, so two rows expected level end out of
# order less often than half the time.
_STEER = 0.2
_SPREAD3 = (0.0, 0.27, 0.32, 0.35)
# Chance that a live flush (straight) draw of n suited cards (n + room = 5) gets there.
_FLUSH_P = (0.0, 0.0, 0.10, 0.28, 0.45, 0.0)
_STRAIGHT_P = (0.0, 0.0, 0.03, 0.10, 0.22, 0.0)
_NO_DRAW = (0.0, 0.0)
# A row's (value, expected final level without draws, (chance, level) of a draw, worth).
_RowState = tuple[int, float, tuple[float, float], float]
_WIN = 0.5  # value of one level of row strength (rows won against opponents)


class BotBoard:
    """One player's rows and what the heuristic reads from them, kept up to date as cards are
    added; make one per player and hand with :meth:`Policy.board`."""

    __slots__ = (
        "rows", "keys", "suits", "masks", "jokers", "values", "exp", "draw", "worth", "foul", "ev",
        "p1", "p2",
    )

    def __init__(self) -> None:
        self.rows: Rows = [[], [], []]
        self.keys = [0, 0, 0]
        self.suits = [0, 0, 0]
        self.masks = [0, 0, 0]
        self.jokers = [0, 0, 0]
        self.values = [0, 0, 0]
        self.exp = [0.0, 0.0, 0.0]  # expected final level, draws left out
        self.draw = [(0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]  # (chance, level) of a live draw
        self.worth = [0.0, 0.0, 0.0]
        self.foul = 0.0
        self.ev = 0.0
        self.p1 = 0.0  # chance that top ends above middle
        self.p2 = 0.0  # chance that middle ends above bottom

    def room(self, r: int) -> int:
        return SIZES[r] - len(self.rows[r])

    @property
    def free(self) -> int:
        return 13 - len(self.rows[0]) - len(self.rows[1]) - len(self.rows[2])


def _value(key: int, suits: int, jokers: int, n: int) -> int:
    if jokers:
        return _joker_value(key, suits, jokers, n)
    if n == 5 and suits and _ONE_SUIT[suits]:
        return FLUSH_TABLE[key]
    return _MADE[key]


_JOKER_CACHE: dict[tuple[int, int, int, int], int] = {}


def _joker_value(key: int, suits: int, jokers: int, n: int) -> int:
    """Best value of a row whose jokers may be any rank (a flush when the naturals are
    suited): the slow path of Joker Pineapple."""
    cache_key = (key, suits, jokers, n)
    found = _JOKER_CACHE.get(cache_key)
    if found is not None:
        return found
    best = 0
    flush = n == 5 and _ONE_SUIT[suits]
    for ranks in combinations_with_replacement(range(13), jokers):
        k = key + sum(5**x for x in ranks)
        value = _MADE.get(k)
        if value is None:
            continue
        if flush and k in FLUSH_TABLE:
            value = max(value, FLUSH_TABLE[k])
        best = max(best, value)
    _JOKER_CACHE[cache_key] = best
    return best


# Cards a row needs to go from one category to a higher one (high card, pair, two pair,
# trips, straight, flush, full house, quads): pairing routes only, draws are apart.
_STEPS = (
    (0, 1, 2, 2, 9, 9, 3, 3, 9),
    (0, 0, 1, 1, 9, 9, 2, 2, 9),
    (0, 0, 0, 9, 9, 9, 1, 9, 9),
    (0, 0, 0, 0, 9, 9, 1, 1, 9),
) + ((9,) * 9,) * 5
# Chance to make that many helping cards with the room left (the bot steers its best cards to
# the row that needs them), by steps and room.
_REACH = (
    (1.0,) * 6,
    (0.0, 0.40, 0.62, 0.76, 0.85, 0.9),
    (0.0, 0.0, 0.15, 0.32, 0.47, 0.57),
    (0.0, 0.0, 0.0, 0.06, 0.15, 0.25),
) + ((0.0,) * 6,) * 6


# Fewest helping cards to reach a category above cat_u from cat_l (by pairing).
_HIGHER = tuple(
    tuple(
        min(_STEPS[cat_l][c] for c in range(cat_u + 1, 9)) if cat_u < 8 else 9
        for cat_u in range(9)
    )
    for cat_l in range(9)
)


def _steps(vu: int, vl: int, mask_l: int) -> int:
    """Helping cards the lower row (value ``vl``, ranks ``mask_l``) needs to beat ``vu``."""
    cat_u = category_number(vu)
    cat_l = category_number(vl)
    steps = _HIGHER[cat_l][cat_u]
    if cat_u == 1:  # a pair above the upper's: one card on a higher single, else two
        same = 1 if mask_l >> (leading_rank(vu) + 1) else 2
        return same if same < steps else steps
    if cat_u == 3 and cat_l >= 1:  # trips above the upper's: from a higher pair, one card
        same = 1 if leading_rank(vl) > leading_rank(vu) else 2
        return same if same < steps else steps
    return steps


def _make_pair_foul(
    reach: tuple[tuple[float, ...], ...],
) -> Callable[[int, float, int, int, float, int, tuple[float, float], int, float], float]:
    """The foul estimate between two rows, for a table of chances to reach (by variant)."""
    steps_of = _steps
    size = len(reach)

    def pair_foul(
        vu: int,
        eu: float,
        ru: int,
        vl: int,
        el: float,
        rl: int,
        draw: tuple[float, float],
        mask_l: int,
        inv_spread: float,
    ) -> float:
        """Chance that the upper row ends stronger than the lower one (``draw``: the lower
        row's live draw, which saves it when it gets there)."""
        if rl == 0:
            if vu > vl:
                return 1.0
            if ru == 0:
                return 0.0
        p = 0.5 + (eu - el) * inv_spread - _STEER
        p = 0.0 if p < 0.0 else 1.0 if p > 1.0 else p
        # The upper row holds more (category_and_leading_rank(vu) > ...(vl), and vu is made):
        # the lower catches up. The accessors are inlined here, the bot's hottest line.
        if vu >> LEADING_RANK_SHIFT > vl >> LEADING_RANK_SHIFT and vu >> CATEGORY_SHIFT:
            steps = steps_of(vu, vl, mask_l)
            need = 1.0 - (reach[steps][rl] if steps < size else 0.0)
            if need > p:
                p = need
        if p and draw[0] and draw[1] > eu:
            p *= 1.0 - draw[0]
        return p

    return pair_foul


def _inverse_spreads(upper: tuple[float, ...]) -> tuple[tuple[float, ...], ...]:
    """1 / (3.4 * spread of the difference) by (upper room, lower room)."""
    return tuple(
        tuple(
            1.0 / (3.4 * (su * su + sl * sl) ** 0.5) if su or sl else 0.0
            for sl in _SPREAD5
        )
        for su in upper
    )


_INV_TOP = _inverse_spreads(_SPREAD3)
_INV_MIDDLE = _inverse_spreads(_SPREAD5)


class Policy:
    """The play policy for one ruleset (variant, Fantasyland type, royalty table)."""

    def __init__(
        self, ruleset: Ruleset, players: int = 2, fl_card_limit: int | None = None
    ) -> None:
        self.ruleset = ruleset
        self.variant = ruleset.variant
        self.fl_type = ruleset.fantasyland
        self.fl_card_limit = fl_card_limit
        self.jokers = self.variant.deck_size > 52
        self._cache: dict[tuple[int, int, int, int, int], _RowState] = {}
        # A foul loses 6 points to each opponent and pays their royalties.
        self.foul_cost = 10.0 * max(1, players - 1) + 4.0
        # Pineapple sees three cards a street and keeps two: rows improve and draws get there
        # more often than with one card a street (Classic), Turbo in between.
        improve = {Variant.CLASSIC: 0.6, Variant.TURBO: 0.75}.get(self.variant, 1.0)
        self.draw_factor = improve
        self._gain_middle = tuple(tuple(g * improve for g in row) for row in _GAIN_MIDDLE)
        self._gain_bottom = tuple(tuple(g * improve for g in row) for row in _GAIN_BOTTOM)
        self._pf = _make_pair_foul(
            tuple(tuple(p if s == 0 else p * improve for p in row) for s, row in enumerate(_REACH))
        )
        table = ruleset.royalty_values
        on = ruleset.royalties is RoyaltiesMode.ALL
        self._roy5 = [
            {name: (table["middle"].get(name, 0) if on else 0) for name in _LABELS},
            {name: (table["bottom"].get(name, 0) if on else 0) for name in _LABELS},
        ]
        # Royalty by category (index 8 is a straight flush, 9 the royal), for interpolation.
        self._roy_by_cat = [
            [float(self._roy5[i][name]) for name in _LABELS[:9]]
            + [float(self._roy5[i]["straight_flush"])]
            for i in range(2)
        ]
        self._top_roy: dict[tuple[int, int], int] = {}
        for cat, prefix in ((1, "pair"), (3, "trips")):
            for rank in range(2, 15):
                self._top_roy[(cat, rank)] = table["top"].get(f"{prefix}:{rank}", 0) if on else 0
        # Value of the top row by its category_and_leading_rank: royalties, the Fantasyland
        # bonus, and for a lone queen, king or ace the draw to the pair (scaled by room later).
        self._top_value: dict[int, float] = {}
        self._top_draw: dict[int, float] = {}
        for rank in range(0, 15):
            lone_card = [rank] if rank else []  # no card: an empty top row
            self._top_value[category_and_leading_rank(value_from_ranks(lone_card))] = 0.0
            if rank:
                pair_key = category_and_leading_rank(value_from_ranks([rank] * 2))
                trips_key = category_and_leading_rank(value_from_ranks([rank] * 3))
                self._top_value[pair_key] = (self._top_roy.get((1, rank), 0)
                                             + self._fl_bonus(1, rank))
                self._top_value[trips_key] = (self._top_roy.get((3, rank), 0)
                                              + self._fl_bonus(3, rank))
            pair = self._top_roy.get((1, rank), 0) + self._fl_bonus(1, rank)
            self._top_draw[rank] = max(0.0, pair) * 0.12 if rank >= 10 else 0.0

    # -- Fantasyland value -------------------------------------------------------------------

    def _fl_cards(self, cat: int, rank: int) -> int | None:
        fl = self.fl_type
        if fl is FantasylandType.NONE:
            return None
        if cat == 3:
            grade = 3
        elif cat == 1 and rank >= 12:
            grade = rank - 12
        else:
            return None
        if fl is FantasylandType.STANDARD:
            return 14 if self.variant.is_pineapple_family else 13
        base = 13 if fl is FantasylandType.TOURNAMENT else 14
        return base + grade

    def _fl_bonus(self, cat: int, rank: int) -> float:
        cards = self._fl_cards(cat, rank)
        if cards is None:
            return 0.0
        if self.fl_card_limit is not None and cards > self.fl_card_limit:
            return -4.0  # the deck could not deal it: not worth chasing
        return 14.0 + 3.0 * (cards - 13)

    # -- heuristic ---------------------------------------------------------------------------

    def board(self) -> BotBoard:
        b = BotBoard()
        for r in range(3):
            self._refresh(b, r)
        self._settle(b)
        return b

    def add(self, b: BotBoard, r: int, c: int) -> None:
        """Put card ``c`` in row ``r`` of the board (whatever chose it)."""
        self._put(b, r, c)
        self._refresh(b, r)
        self._settle(b)

    def apply(self, b: BotBoard, added: Rows) -> None:
        """Put the cards of one placement on the board (``added``: cards per row). A row
        pushed over its size (a simulated fault) is no longer valued."""
        over = False
        for r in range(3):
            if added[r]:
                for c in added[r]:
                    self._put(b, r, c)
                if len(b.rows[r]) <= SIZES[r]:
                    self._refresh(b, r)
                else:
                    over = True
        if not over:
            self._settle(b)

    @staticmethod
    def _put(b: BotBoard, r: int, c: int) -> None:
        b.rows[r].append(c)
        if c >= JOKER_INDEX:
            b.jokers[r] += 1
        else:
            b.keys[r] += _RK[c]
            b.suits[r] |= _SB[c]
            b.masks[r] |= _RBIT[c]

    def _refresh(self, b: BotBoard, r: int) -> None:
        state = self._state(r, b.keys[r], b.suits[r], b.masks[r], b.jokers[r], len(b.rows[r]))
        b.values[r], b.exp[r], b.draw[r], b.worth[r] = state

    def _settle(self, b: BotBoard) -> None:
        r0, r1, r2 = 3 - len(b.rows[0]), 5 - len(b.rows[1]), 5 - len(b.rows[2])
        v, e = b.values, b.exp
        b.p1 = self._pf(v[0], e[0], r0, v[1], e[1], r1, b.draw[1], b.masks[1], _INV_TOP[r0][r1])
        b.p2 = self._pf(
            v[1], e[1], r1, v[2], e[2], r2, b.draw[2], b.masks[2], _INV_MIDDLE[r1][r2]
        )
        b.foul = 1.0 - (1.0 - b.p1) * (1.0 - b.p2)
        b.ev = (1.0 - b.foul) * (b.worth[0] + b.worth[1] + b.worth[2]) - b.foul * self.foul_cost

    def _state(
        self, r: int, key: int, suits: int, mask: int, jokers: int, n: int
    ) -> tuple[int, float, tuple[float, float], float]:
        """(value, expected final level without draws, (chance, level) of a live draw, value
        in points) of a row, cached."""
        cache_key = (r, key, suits, jokers, n)
        found = self._cache.get(cache_key)
        if found is not None:
            return found
        value = _value(key, suits, jokers, n)
        cat = category_number(value)
        rank = leading_rank(value)
        room = (3 if r == TOP else 5) - n
        level = cat + rank * (0.0625 if cat or not room else 0.02)
        if r == TOP:
            worth = self._top_value[category_and_leading_rank(value)] + 0.3 * level
            if room and cat == 0:
                worth += self._top_draw[rank] * room
            state = (value, level + _GAIN3[room], _NO_DRAW, worth)
        else:
            exp = level + (self._gain_bottom if r == BOTTOM else self._gain_middle)[cat][room]
            draw = _NO_DRAW
            full = exp
            if room and n >= 2:
                if _ONE_SUIT[suits]:
                    draw = (_FLUSH_P[n] * self.draw_factor, 5.6)
                elif cat == 0 and _sl(mask):
                    draw = (_STRAIGHT_P[n] * self.draw_factor, 4.6)
                if draw[1] > exp:
                    full = exp + draw[0] * (draw[1] - exp)
            i = int(full)
            if i > 8:
                i = 8
            roys = self._roy_by_cat[r - 1]
            roy = roys[i] + (full - i) * (roys[i + 1] - roys[i])
            state = (value, exp, draw, roy + _WIN * full)
        self._cache[cache_key] = state
        return state

    def _gain(self, b: BotBoard, r: int, cards: Sequence[int]) -> float:
        """Heuristic gain of adding ``cards`` to row ``r`` (room already checked)."""
        key, suits, mask, jokers = b.keys[r], b.suits[r], b.masks[r], b.jokers[r]
        for c in cards:
            if c >= JOKER_INDEX:
                jokers += 1
            else:
                key += _RK[c]
                suits |= _SB[c]
                mask |= _RBIT[c]
        rows = b.rows
        n = len(rows[r]) + len(cards)
        value, exp, draw, worth = self._state(r, key, suits, mask, jokers, n)
        v, e = b.values, b.exp
        if r == TOP:
            r0, r1 = 3 - n, 5 - len(rows[1])
            p1 = self._pf(value, exp, r0, v[1], e[1], r1, b.draw[1], b.masks[1], _INV_TOP[r0][r1])
            p2 = b.p2
        elif r == MIDDLE:
            r0, r1, r2 = 3 - len(rows[0]), 5 - n, 5 - len(rows[2])
            p1 = self._pf(v[0], e[0], r0, value, exp, r1, draw, mask, _INV_TOP[r0][r1])
            p2 = self._pf(
                value, exp, r1, v[2], e[2], r2, b.draw[2], b.masks[2], _INV_MIDDLE[r1][r2]
            )
        else:
            r1, r2 = 5 - len(rows[1]), 5 - n
            p1 = b.p1
            p2 = self._pf(v[1], e[1], r1, value, exp, r2, draw, mask, _INV_MIDDLE[r1][r2])
        foul = 1.0 - (1.0 - p1) * (1.0 - p2)
        w = b.worth
        total = w[0] + w[1] + w[2] - w[r] + worth
        return (1.0 - foul) * total - foul * self.foul_cost - b.ev

    # -- streets -----------------------------------------------------------------------------

    def choose(self, b: BotBoard, dealt: Sequence[int], place: int) -> tuple[Rows, list[int]]:
        """Choose where ``place`` of the ``dealt`` cards go: (cards per row, discards). The
        board is left as it was; put the cards actually placed with :meth:`apply`."""
        if b.free <= place:
            return self._final(b, dealt, place)
        if b.free == 13 and len(dealt) == 5 == place:
            return self._opening(dealt), []
        if place == 1:
            return self._one(b, dealt)
        if place == 2:
            return self._two(b, dealt)
        return self._greedy(b, dealt, place)

    def _singles(self, b: BotBoard, dealt: Sequence[int]) -> list[tuple[float, int, int]]:
        """(gain, card, row) of each card alone in each row with room: :meth:`_gain`
        unrolled, the hot loop of the simulator."""
        rows = b.rows
        n0, n1, n2 = len(rows[0]), len(rows[1]), len(rows[2])
        m0, m1, m2 = 3 - n0, 5 - n1, 5 - n2
        keys, suits, masks, jokers = b.keys, b.suits, b.masks, b.jokers
        v0, v1, v2 = b.values
        e0, e1, e2 = b.exp
        d1, d2 = b.draw[1], b.draw[2]
        w0, w1, w2 = b.worth
        p1_now, p2_now, ev = b.p1, b.p2, b.ev
        pf, fc = self._pf, self.foul_cost
        cache = self._cache

        def state(
            r: int, key: int, suits: int, mask: int, jokers: int, n: int
        ) -> _RowState:
            found = cache.get((r, key, suits, jokers, n))
            return found if found is not None else self._state(r, key, suits, mask, jokers, n)

        out: list[tuple[float, int, int]] = []
        for c in dealt:
            if c >= JOKER_INDEX:
                out.extend(
                    (self._gain(b, r, (c,)), c, r) for r in range(3) if len(rows[r]) < SIZES[r]
                )
                continue
            rk, sb, rb = _RK[c], _SB[c], _RBIT[c]
            if m0:
                val, ex, _, wo = state(
                    0, keys[0] + rk, suits[0] | sb, masks[0] | rb, jokers[0], n0 + 1
                )
                p1 = pf(val, ex, m0 - 1, v1, e1, m1, d1, masks[1], _INV_TOP[m0 - 1][m1])
                foul = 1.0 - (1.0 - p1) * (1.0 - p2_now)
                out.append(((1.0 - foul) * (wo + w1 + w2) - foul * fc - ev, c, 0))
            if m1:
                mask = masks[1] | rb
                val, ex, dr, wo = state(1, keys[1] + rk, suits[1] | sb, mask, jokers[1], n1 + 1)
                p1 = pf(v0, e0, m0, val, ex, m1 - 1, dr, mask, _INV_TOP[m0][m1 - 1])
                p2 = pf(val, ex, m1 - 1, v2, e2, m2, d2, masks[2], _INV_MIDDLE[m1 - 1][m2])
                foul = 1.0 - (1.0 - p1) * (1.0 - p2)
                out.append(((1.0 - foul) * (w0 + wo + w2) - foul * fc - ev, c, 1))
            if m2:
                mask = masks[2] | rb
                val, ex, dr, wo = state(2, keys[2] + rk, suits[2] | sb, mask, jokers[2], n2 + 1)
                p2 = pf(v1, e1, m1, val, ex, m2 - 1, dr, mask, _INV_MIDDLE[m1][m2 - 1])
                foul = 1.0 - (1.0 - p1_now) * (1.0 - p2)
                out.append(((1.0 - foul) * (w0 + w1 + wo) - foul * fc - ev, c, 2))
        return out

    def _one(self, b: BotBoard, dealt: Sequence[int]) -> tuple[Rows, list[int]]:
        _, best_c, best_r = max(self._singles(b, dealt))
        added: Rows = [[], [], []]
        added[best_r].append(best_c)
        return added, [c for c in dealt if c != best_c]

    def _two(self, b: BotBoard, dealt: Sequence[int]) -> tuple[Rows, list[int]]:
        """Two cards placed (Pineapple): single placements valued alone and summed (the
        best first), two cards that work together in one row (a pair, or suited) valued
        together; rows keep their room."""
        rooms = [SIZES[r] - len(b.rows[r]) for r in range(3)]
        singles = sorted(self._singles(b, dealt), reverse=True)
        best_score = -1e9
        best: tuple[tuple[int, int], tuple[int, int]] | None = None
        count = len(singles)
        for i in range(count):
            gi, ci, ri = singles[i]
            if gi + singles[0][0] <= best_score:
                break
            for j in range(i + 1, count):
                gj, cj, rj = singles[j]
                if ci == cj or (ri == rj and rooms[ri] < 2):
                    continue
                if ri != rj or not _together(ci, cj):
                    if gi + gj > best_score:
                        best_score, best = gi + gj, ((ci, ri), (cj, rj))
                    break  # later j are worse
        # Cards that work together, valued together in each row with room for both.
        for i in range(len(dealt)):
            for j in range(i + 1, len(dealt)):
                ci, cj = dealt[i], dealt[j]
                if not _together(ci, cj):
                    continue
                pair = ci >> 2 == cj >> 2 or max(ci, cj) >= JOKER_INDEX
                for r in range(3):
                    # Suited cards only help a row that is still one suit (a flush draw).
                    if rooms[r] >= 2 and (
                        pair or (r and _ONE_SUIT[b.suits[r] | _SB[ci] | _SB[cj]])
                    ):
                        score = self._gain(b, r, (ci, cj))
                        if score > best_score:
                            best_score, best = score, ((ci, r), (cj, r))
        added: Rows = [[], [], []]
        if best is None:  # pragma: no cover - two cards always fit somewhere
            return self._greedy(b, dealt, 2)
        for c, r in best:
            added[r].append(c)
        placed = (best[0][0], best[1][0])
        return added, [c for c in dealt if c not in placed]

    def _greedy(self, b: BotBoard, dealt: Sequence[int], place: int) -> tuple[Rows, list[int]]:
        """One unit (a card, or a pair or trips together) at a time, the best gain first."""
        work = BotBoard()
        work.rows = [list(row) for row in b.rows]
        work.keys, work.suits, work.masks = list(b.keys), list(b.suits), list(b.masks)
        work.jokers, work.values = list(b.jokers), list(b.values)
        work.exp, work.draw, work.worth = list(b.exp), list(b.draw), list(b.worth)
        work.foul, work.ev, work.p1, work.p2 = b.foul, b.ev, b.p1, b.p2
        added: Rows = [[], [], []]
        left = list(dealt)
        to_place = place
        while to_place:
            units = _units(left, to_place)
            best_gain = -1e9
            best_r = -1
            best_unit: list[int] = units[0]
            for unit in units:
                size = len(unit)
                for r in range(3):
                    if SIZES[r] - len(work.rows[r]) < size:
                        continue
                    g = self._gain(work, r, unit)
                    if g > best_gain:
                        best_gain, best_r, best_unit = g, r, unit
            if best_r < 0:  # a unit too big for any row: its first card alone
                best_unit = units[0][:1]
                best_r = max(range(3), key=work.room)
            for c in best_unit:
                self.add(work, best_r, c)
                added[best_r].append(c)
                left.remove(c)
            to_place -= len(best_unit)
        return added, left

    def _opening(self, dealt: Sequence[int]) -> Rows:
        """Street 1, by the usual rules of thumb: made hands and draws at the bottom, a second
        pair in the middle, a lone queen, king or ace on top when Fantasyland is on."""
        jokers = [c for c in dealt if c >= JOKER_INDEX]
        cards = sorted((c for c in dealt if c < JOKER_INDEX), key=lambda c: -_RANK[c])
        by_rank: dict[int, list[int]] = {}
        by_suit: dict[int, list[int]] = {}
        for c in cards:
            by_rank.setdefault(_RANK[c], []).append(c)
            by_suit.setdefault(c & 3, []).append(c)
        groups = sorted(
            (g for g in by_rank.values() if len(g) >= 2), key=lambda g: (len(g), _RANK[g[0]]),
            reverse=True,
        )
        suited = max(by_suit.values(), key=len) if by_suit else []
        fl = self.fl_type is not FantasylandType.NONE
        # One card a street (Classic) or four placed at once (Turbo) make draws worth less:
        # only four to a flush or an open-ended straight go to the bottom there.
        pineapple = self.variant.is_pineapple_family
        top: list[int] = []
        middle: list[int] = []
        bottom: list[int] = list(jokers)
        rest: list[int]
        if groups and len(groups[0]) >= 3:
            bottom += groups[0]
            rest = [c for c in cards if c not in groups[0]]
            if len(groups) > 1:  # a full house
                bottom += groups[1]
                rest = []
        elif len(groups) >= 2:
            bottom += groups[0]
            middle += groups[1]
            rest = [c for c in cards if c not in groups[0] and c not in groups[1]]
        elif groups:
            pair = groups[0]
            others = [c for c in cards if c not in pair]
            if pineapple and len(suited) >= 3 and all(c in suited for c in others):
                bottom += others
                if fl and _RANK[pair[0]] >= 12 and not jokers:
                    top += pair
                else:
                    middle += pair
                rest = []
            else:
                bottom += pair
                rest = others
        elif len(suited) >= (3 if pineapple else 4):
            bottom += suited
            rest = [c for c in cards if c not in suited]
        else:
            straight = _straight_draw(cards, open_only=not pineapple)
            if straight:
                bottom += straight
                rest = [c for c in cards if c not in straight]
            else:
                bottom += cards[:2]
                rest = cards[2:]
        # What is left: a queen or better on top when Fantasyland is on (a draw to QQ+),
        # a low card on top otherwise; the rest in the middle, then the bottom.
        for c in rest:
            rank = _RANK[c]
            if not top and len(middle) + 1 >= len(rest) and (
                (fl and rank >= 12) or rank <= 7
            ):
                top.append(c)
            elif len(middle) < 3 and len(middle) < len(bottom):
                middle.append(c)
            elif len(bottom) < 5:
                bottom.append(c)
            elif len(middle) < 5:
                middle.append(c)
            else:
                top.append(c)
        return [top, middle, bottom]

    def _final(self, b: BotBoard, dealt: Sequence[int], place: int) -> tuple[Rows, list[int]]:
        """The last placement: every way to fill the free slots, valued exactly."""
        rooms = [SIZES[r] - len(b.rows[r]) for r in range(3)]
        slots = rooms[0] + rooms[1] + rooms[2]
        best_score = -1e9
        best: tuple[Rows, list[int]] = ([[], [], []], list(dealt))
        top, middle, bottom = b.rows
        score_of = self.exact_score
        for chosen in combinations(dealt, slots):
            for added in _spread(chosen, rooms):
                score = score_of(
                    [top + added[0], middle + added[1], bottom + added[2]], False, None
                )
                if score > best_score:
                    best_score = score
                    best = (added, [c for c in dealt if c not in chosen])
        return best

    # -- exact values ------------------------------------------------------------------------

    def exact_score(self, rows: Rows, in_fantasyland: bool, chain_entry: int | None) -> float:
        """Value of a finished board: a foul is worst; then royalties, Fantasyland next (a stay
        when already in Fantasyland) and the strength of the rows."""
        if self.jokers and any(c >= JOKER_INDEX for row in rows for c in row):
            return self._exact_engine(rows, in_fantasyland, chain_entry)
        t, m, bo = rows
        tv = THREE_TABLE[_RK[t[0]] + _RK[t[1]] + _RK[t[2]]]
        mv = _five(m)
        bv = _five(bo)
        if tv > mv or mv > bv:
            return -1000.0 + category_number(bv) + category_number(mv) * 0.5
        cat_t, rank_t = category_number(tv), leading_rank(tv)
        roy = self._top_roy.get((cat_t, rank_t), 0)
        roy += self._roy5[0][_label(mv)] + self._roy5[1][_label(bv)]
        fl = 0.0
        if self.fl_type is not FantasylandType.NONE:
            if in_fantasyland:
                if self._stays(cat_t, mv, bv):
                    fl = 12.0 + 3.0 * ((chain_entry or 14) - 13)
            else:
                fl = max(0.0, self._fl_bonus(cat_t, rank_t)) if cat_t else 0.0
        strength = (
            category_and_leading_rank(tv) / 50.0
            + category_and_leading_rank(mv) / 60.0
            + category_and_leading_rank(bv) / 70.0
        )
        return roy + fl + strength

    def _stays(self, cat_top: int, mv: int, bv: int) -> bool:
        if self.fl_type is FantasylandType.TOURNAMENT:
            return False
        if cat_top == 3 or category_number(bv) >= 7:
            return True
        return not self.variant.is_pineapple_family and category_number(mv) >= 6

    def _exact_engine(self, rows: Rows, in_fantasyland: bool, chain_entry: int | None) -> float:
        board = Board(*(tuple(_card(c) for c in row) for row in rows))
        result = evaluate_board(board, self.ruleset)
        if result.fouled:
            return -1000.0
        fl = 0.0
        nxt = next_fantasyland(result, self.variant, self.fl_type, in_fantasyland, chain_entry)
        if nxt is not None:
            fl = 7.0 + 3.0 * (nxt - 13)
        strength = sum(category_and_leading_rank(r.value) for r in result.rows) / 60.0
        return result.royalties.total + fl + strength

    # -- Fantasyland -------------------------------------------------------------------------

    def fantasyland(
        self, dealt: Sequence[int], chain_entry: int | None = None
    ) -> tuple[Rows, list[int]]:
        """Set 13 of the Fantasyland cards: ([top, middle, bottom], discards)."""
        jokers = [c for c in dealt if c >= JOKER_INDEX]
        naturals = sorted((c for c in dealt if c < JOKER_INDEX), reverse=True)
        need = 13 - len(jokers)
        plans: list[Rows] = []
        for plan in _fl_plans(naturals, need):
            if not jokers:
                plans.append(plan)
                continue
            # Each joker goes where it helps most: try every row with room made for it.
            for where in product(range(3), repeat=len(jokers)):
                rows = [list(r) for r in plan]
                for j, r in zip(jokers, where, strict=True):
                    rows[r].append(j)
                if _fit(rows, [c for c in naturals if all(c not in r for r in rows)]):
                    plans.append(rows)
        best: tuple[float, Rows] | None = None
        for rows in plans:
            if [len(r) for r in rows] != [3, 5, 5]:
                continue
            score = self.exact_score(rows, True, chain_entry)
            if best is None or score > best[0]:
                best = (score, rows)
        if best is None:  # pragma: no cover - a plan always fills 3/5/5
            top, mid, bot = list(dealt[:3]), list(dealt[3:8]), list(dealt[8:13])
            return [top, mid, bot], list(dealt[13:])
        used = {c for row in best[1] for c in row}
        return best[1], [c for c in dealt if c not in used]


_LABELS = (
    "high_card", "pair", "two_pair", "trips", "straight", "flush", "full_house", "quads",
    "straight_flush", "royal_flush",
)
_CAT_LABELS = _LABELS[:9]


def _label(value: int) -> str:
    cat = category_number(value)
    if cat == 8 and leading_rank(value) == 14:
        return "royal_flush"
    return _CAT_LABELS[cat]


def _five(cards: Sequence[int]) -> int:
    a, b, c, d, e = cards
    key = _RK[a] + _RK[b] + _RK[c] + _RK[d] + _RK[e]
    if _SB[a] & _SB[b] & _SB[c] & _SB[d] & _SB[e]:
        return FLUSH_TABLE[key]
    return FIVE_TABLE[key]


def _card(c: int) -> Card:
    return JOKERS[c - JOKER_INDEX] if c >= JOKER_INDEX else NATURAL_CARDS[c]


def _units(cards: Sequence[int], limit: int) -> list[list[int]]:
    """Cards grouped by rank (a pair or trips is one unit, jokers alone), biggest groups first,
    then by suit-group size and rank; units never exceed ``limit`` cards."""
    groups: dict[int, list[int]] = {}
    suit_count = [0, 0, 0, 0]
    for c in cards:
        groups.setdefault(_RANK[c] if c < JOKER_INDEX else -c, []).append(c)
        if c < JOKER_INDEX:
            suit_count[c & 3] += 1
    units: list[list[int]] = []
    for rank, group in groups.items():
        if rank < 0 or len(group) == 1:
            units.append(group)
        else:
            units.append(group[:limit])
            units.extend([c] for c in group[limit:])
    units.sort(
        key=lambda u: (
            len(u),
            u[0] >= JOKER_INDEX,
            suit_count[u[0] & 3] if u[0] < JOKER_INDEX else 0,
            _RANK[u[0]],
        ),
        reverse=True,
    )
    return units


def _straight_draw(cards: Sequence[int], open_only: bool = False) -> list[int]:
    """Four (or five) cards of distinct ranks within one 5-rank window, or []; with
    ``open_only``, four in a row that a card at either end completes."""
    by_rank: dict[int, int] = {}
    for c in cards:
        by_rank.setdefault(_RANK[c], c)
    best: list[int] = []
    for low in range(1, 11):
        ranks = [14 if r == 1 else r for r in range(low, low + 5)]
        window = [by_rank[r] for r in ranks if r in by_rank]
        if open_only:
            inner = ranks[:4] if low < 10 else []
            if low > 1 and all(r in by_rank for r in inner):
                return [by_rank[r] for r in inner]
            continue
        if len(window) >= 4 and len(window) >= len(best):
            best = window
    return best


def _spread(cards: Sequence[int], rooms: Sequence[int]) -> list[Rows]:
    """Every way to put ``cards`` (as many as the rooms add up to) into the rows' rooms
    (distinct as sets per row)."""
    n_top, n_mid, n_bot = rooms
    if n_top + n_mid == 0:
        return [[[], [], list(cards)]]
    if n_mid + n_bot == 0:
        return [[list(cards), [], []]]
    if n_top + n_bot == 0:
        return [[[], list(cards), []]]
    out: list[Rows] = []
    for top in combinations(cards, n_top):
        rest = [c for c in cards if c not in top]
        for mid in combinations(rest, n_mid):
            out.append([list(top), list(mid), [c for c in rest if c not in mid]])
    return out


def _together(a: int, b: int) -> bool:
    """Two cards that are worth more in one row than apart: a pair, suited, or a joker."""
    return a >= JOKER_INDEX or b >= JOKER_INDEX or a >> 2 == b >> 2 or a & 3 == b & 3


def _fit(rows: Rows, spare: list[int]) -> bool:
    """Trim rows over their size into ``spare`` (their lowest cards) and refill short rows
    from the lowest spare cards; False when that cannot give 3/5/5."""
    for r in range(3):
        while len(rows[r]) > SIZES[r]:
            naturals = [c for c in rows[r] if c < JOKER_INDEX]
            if not naturals:
                return False
            low = min(naturals, key=lambda c: _RANK[c])
            rows[r].remove(low)
            spare.append(low)
    spare.sort(key=lambda c: _RANK[c])
    for r in range(3):
        while len(rows[r]) < SIZES[r]:
            if not spare:
                return False
            rows[r].append(spare.pop(0))
    return True


# -- Fantasyland plans ------------------------------------------------------------------------


def _core(cards: list[int]) -> list[int]:
    """The cards that make the best 5-card hand available in ``cards`` (sorted high first),
    without kickers: a straight flush, quads, a full house, a flush, a straight, trips, two
    pair, a pair, or nothing."""
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for c in cards:
        by_rank.setdefault(_RANK[c], []).append(c)
        by_suit.setdefault(c & 3, []).append(c)
    for suited in by_suit.values():
        if len(suited) >= 5:
            straight = _straight_in(suited)
            if straight:
                return straight
    quads = [g for g in by_rank.values() if len(g) == 4]
    if quads:
        return quads[0]
    trips = [g for g in by_rank.values() if len(g) == 3]
    pairs = [g for g in by_rank.values() if len(g) == 2]
    if trips and (len(trips) > 1 or pairs):
        rest = [g[:2] for g in trips[1:]] + pairs
        low_pair = min(rest, key=lambda g: _RANK[g[0]])  # the cheapest pair completes it
        return trips[0] + low_pair
    flushes = [s for s in by_suit.values() if len(s) >= 5]
    if flushes:
        best = max(flushes, key=lambda s: [_RANK[c] for c in s[:5]])
        return best[:5]
    straight = _straight_in(cards)
    if straight:
        return straight
    if trips:
        return trips[0]
    if len(pairs) >= 2:
        return pairs[0] + pairs[1]
    if pairs:
        return pairs[0]
    return []


def _straight_in(cards: list[int]) -> list[int]:
    """The highest straight among ``cards`` (one card per rank), or []."""
    by_rank: dict[int, int] = {}
    for c in cards:
        by_rank.setdefault(_RANK[c], c)
    for high in range(14, 4, -1):
        ranks = [high - i for i in range(5)]
        ranks = [14 if r == 1 else r for r in ranks]
        if all(r in by_rank for r in ranks):
            return [by_rank[r] for r in ranks]
    return []


def _without(pool: Sequence[int], cards: Sequence[int]) -> list[int]:
    return [c for c in pool if c not in cards]


def _lowest(pool: Sequence[int], count: int) -> list[int]:
    """The ``count`` lowest cards, singletons first (pairs are worth more elsewhere)."""
    ranks = Counter(_RANK[c] for c in pool)
    return sorted(pool, key=lambda c: (ranks[_RANK[c]] > 1, _RANK[c]))[:count]


def _cores(pool: list[int]) -> list[list[int]]:
    """The best made hand of ``pool`` and, for a full house or two pair, its smaller part
    alone (the rest can make the row above)."""
    core = _core(pool)
    out = [core]
    if len(core) == 5 and _RANK[core[0]] == _RANK[core[2]] != _RANK[core[3]]:
        out.append(core[:3])  # trips of a full house
    elif len(core) == 4 and _RANK[core[0]] != _RANK[core[2]]:
        out.append(core[:2])  # the higher pair of two pair
    return out


def _top_options(pool: list[int]) -> list[list[int]]:
    """Top rows from ``pool``: the best trips, the best pair with the lowest kicker, the
    three lowest cards, the three highest."""
    options: list[list[int]] = []
    by_rank: dict[int, list[int]] = {}
    for c in pool:
        by_rank.setdefault(_RANK[c], []).append(c)
    low = sorted(pool, key=lambda c: _RANK[c])
    trips = [g for g in by_rank.values() if len(g) >= 3]
    if trips:
        options.append(max(trips, key=lambda g: _RANK[g[0]])[:3])
    pairs = [g for g in by_rank.values() if len(g) >= 2]
    if pairs:
        pair = max(pairs, key=lambda g: _RANK[g[0]])[:2]
        options.append(pair + [c for c in low if c not in pair][:1])
    options.append(low[:3])
    options.append(low[::-1][:3])
    return [o for o in options if len(o) == 3]


def _fl_plans(cards: list[int], need: int) -> list[Rows]:
    """Candidate settings of ``need`` cards (13 less the jokers) from ``cards``: made hands
    for the bottom and the middle, a top from what is left (or a top made first: trips, a
    pair of queens or better), kickers from the lowest cards."""
    sizes = [3, 5, 5]
    for _ in range(13 - need):  # the jokers' slots: out of the top first, then the bottom
        sizes[TOP if sizes[TOP] > 1 else BOTTOM] -= 1
    plans: list[Rows] = []

    def finish(top: list[int], middle: list[int], bottom: list[int], pool: list[int]) -> None:
        top, middle, bottom = top[: sizes[0]], middle[: sizes[1]], bottom[: sizes[2]]
        pool = list(pool)
        fill_bottom = _lowest(pool, sizes[2] - len(bottom))
        pool = _without(pool, fill_bottom)
        fill_top = _lowest(pool, sizes[0] - len(top))
        pool = _without(pool, fill_top)
        high = sorted(pool, key=lambda c: -_RANK[c])
        fill_middle = high[: sizes[1] - len(middle)]
        rows = [top + fill_top, middle + fill_middle, bottom + fill_bottom]
        if [len(r) for r in rows] == sizes:
            plans.append(rows)

    for bottom in _cores(cards):
        rest = _without(cards, bottom)
        for middle in _cores(rest):
            pool = _without(rest, middle)
            for top in _top_options(pool):
                finish(top, middle, bottom, _without(pool, top))
    # A top made first (trips, each pair of queens or better), then bottom and middle.
    by_rank: dict[int, list[int]] = {}
    for c in cards:
        by_rank.setdefault(_RANK[c], []).append(c)
    for rank, group in sorted(by_rank.items(), reverse=True):
        tops = ([group[:3]] if len(group) >= 3 else []) + (
            [group[:2]] if len(group) >= 2 and rank >= 12 else []
        )
        for top in tops:
            rest = _without(cards, top)
            bottom = _core(rest)
            rest = _without(rest, bottom)
            middle = _core(rest)
            finish(top, middle, bottom, _without(rest, middle))
    return plans


__all__ = ["BotBoard", "JOKER_INDEX", "Policy", "Rows"]
