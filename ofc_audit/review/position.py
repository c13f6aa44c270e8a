"""What one decision is: the position a player faced, its candidates, and their values.

Cards are ints as in :attr:`ofc_audit.game.cards.Card.index`: 0..51 rank-major with suits
in s h d c order, 52 and 53 the jokers (docs/REVIEW.md "Decisions", "What the player knew").

>>> from ofc_audit.game.ruleset import Ruleset
>>> empty = ((), (), ())
>>> opening = Position(Ruleset(), 3, 0, (empty,) * 3, (0, 5, 10, 15, 20), 1, (),
...                    (False,) * 3, (False,) * 3)
>>> len(candidates(opening))
232
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from ..game.ruleset import Ruleset, Variant

ROW_SIZES = (3, 5, 5)
JOKER_CARDS = (52, 53)

RowCards = tuple[int, ...]
BoardRows = tuple[RowCards, RowCards, RowCards]


class PositionError(ValueError):
    """A position that cannot occur under its ruleset; the message says what is wrong."""


@dataclass(frozen=True)
class Placement:
    """The cards ONE decision placed (a candidate), each row in the order dealt."""

    top: tuple[int, ...]
    middle: tuple[int, ...]
    bottom: tuple[int, ...]
    discard: tuple[int, ...]

    @property
    def rows(self) -> BoardRows:
        return (self.top, self.middle, self.bottom)

    @property
    def cards(self) -> tuple[int, ...]:
        return self.top + self.middle + self.bottom + self.discard


@dataclass(frozen=True)
class Position:
    """What the deciding player knew (docs/REVIEW.md "What the player knew").

    ``players`` seats in settlement order (left of the button first, button last); ``rows``
    every player's cards already on the board face up; ``dealt`` the hero's cards of this
    street; ``known_dead`` the hero's own discards. A Fantasyland player's board is unseen
    (its rows are empty here). ``fantasyland_cards`` (optional) says how many cards each
    Fantasyland player was dealt; by default the count of R-FL-2 for a standard entry.
    """

    ruleset: Ruleset
    players: int
    hero: int
    rows: tuple[BoardRows, ...]
    dealt: tuple[int, ...]
    street: int
    known_dead: tuple[int, ...]
    fantasyland: tuple[bool, ...]
    in_fantasyland_before: tuple[bool, ...]
    fl_entries: tuple[int, ...] = ()
    fantasyland_cards: tuple[int, ...] = ()

    @property
    def variant(self) -> Variant:
        return self.ruleset.variant

    def seen(self) -> set[int]:
        """Every card the hero has seen: the boards, its deal and its own discards."""
        cards = {c for board in self.rows for row in board for c in row}
        cards.update(self.dealt)
        cards.update(self.known_dead)
        return cards

    def unseen(self) -> list[int]:
        """The cards the hero has not seen, in index order (the rollouts deal from these)."""
        seen = self.seen()
        return [c for c in range(self.variant.deck_size) if c not in seen]

    def check(self) -> None:
        """Raise :class:`PositionError` unless the position is one the rules allow."""
        variant = self.variant
        streets = variant.streets
        if not 1 <= self.street <= len(streets):
            raise PositionError(
                f"street {self.street}: {variant.value} has streets 1..{len(streets)}"
            )
        if not 0 <= self.hero < self.players:
            raise PositionError(f"hero {self.hero} is not one of {self.players} players")
        for name, seq in (
            ("rows", self.rows),
            ("fantasyland", self.fantasyland),
            ("in_fantasyland_before", self.in_fantasyland_before),
        ):
            if len(seq) != self.players:
                raise PositionError(f"{name}: {len(seq)} entries for {self.players} players")
        if self.fantasyland[self.hero]:
            raise PositionError("the hero is in Fantasyland: its decision is a setting")
        dealt_count = streets[self.street - 1][0]
        if len(self.dealt) != dealt_count:
            raise PositionError(
                f"street {self.street} of {variant.value} deals {dealt_count} cards, "
                f"not {len(self.dealt)}"
            )
        cards = [c for board in self.rows for row in board for c in row]
        cards += list(self.dealt) + list(self.known_dead)
        if any(not 0 <= c < variant.deck_size for c in cards):
            raise PositionError(f"a card outside the {variant.deck_size}-card deck")
        if len(set(cards)) != len(cards):
            raise PositionError("a card appears twice (R-CARD-3)")
        for p, board in enumerate(self.rows):
            for row, size in zip(board, ROW_SIZES, strict=True):
                if len(row) > size:
                    raise PositionError(f"player {p} has a row over its size (R-ACT-3)")
        hero_placed = sum(len(row) for row in self.rows[self.hero])
        if hero_placed != placed_before(variant, self.street):
            raise PositionError(
                f"the hero has {hero_placed} cards on its board before street {self.street}, "
                f"not {placed_before(variant, self.street)}"
            )


@dataclass(frozen=True)
class CandidateValue:
    """One candidate's expected value and its 95% half-width (0 when exact); ``foul`` and
    ``fantasyland`` are the probabilities that the hero's board ends fouled / enters or stays
    in Fantasyland."""

    placement: Placement
    ev: float
    ci95: float
    foul: float
    fantasyland: float
    rollouts: int


@dataclass(frozen=True)
class Evaluation:
    """Every legal candidate of a decision in the fixed order of :func:`candidates`."""

    candidates: tuple[CandidateValue, ...]
    best: int
    exact: bool

    def cost(self, played: int) -> tuple[float, float]:
        """(EV(best) - EV(played), its 95% half-width from the paired differences).

        The half-width is stored per candidate as the paired one against the best
        (see :func:`ofc_audit.review.rollout.evaluate`); when the best was played, it is the
        runner-up's."""
        if self.exact:
            return max(0.0, self.candidates[self.best].ev - self.candidates[played].ev), 0.0
        best, mine = self.candidates[self.best], self.candidates[played]
        if played != self.best:
            return max(0.0, best.ev - mine.ev), mine.ci95
        # The best was played: how sure that is, is the paired half-width to the runner-up.
        others = [c for i, c in enumerate(self.candidates) if i != self.best]
        if not others:
            return 0.0, 0.0
        return 0.0, max(others, key=lambda c: c.ev).ci95


def placed_before(variant: Variant, street: int) -> int:
    """Cards a street player has on its board before ``street`` (R-DEAL-1, R-ACT-2)."""
    return sum(placed for _, placed in variant.streets[: street - 1])


def _assignments(
    cards: Sequence[int], rooms: Sequence[int]
) -> Iterator[tuple[list[int], list[int], list[int]]]:
    """Every assignment of ``cards`` to rows with room, rows in the order top, middle, bottom
    and the first card's row varying slowest."""
    for where in product(range(3), repeat=len(cards)):
        counts = [0, 0, 0]
        for r in where:
            counts[r] += 1
        if any(counts[r] > rooms[r] for r in range(3)):
            continue
        rows: tuple[list[int], list[int], list[int]] = ([], [], [])
        for card, r in zip(cards, where, strict=True):
            rows[r].append(card)
        yield rows


def candidates(position: Position) -> list[Placement]:
    """Every legal placement of the cards dealt (docs/REVIEW.md "Decisions"), in a fixed order:
    the discard (as dealt, street 2 on) varies slowest, then the row of each kept card, the
    first card's row slowest, rows in the order top, middle, bottom.

    Pineapple street 1 has 232 (3^5 less the 11 with more than 3 cards on top)."""
    position.check()
    variant = position.variant
    place = variant.streets[position.street - 1][1]
    board = position.rows[position.hero]
    rooms = [size - len(row) for size, row in zip(ROW_SIZES, board, strict=True)]
    dealt = position.dealt
    out: list[Placement] = []
    discards = combinations(range(len(dealt)), len(dealt) - place)
    for thrown in discards:
        kept = [c for i, c in enumerate(dealt) if i not in thrown]
        discard = tuple(dealt[i] for i in thrown)
        for top, middle, bottom in _assignments(kept, rooms):
            out.append(Placement(tuple(top), tuple(middle), tuple(bottom), discard))
    return out
