"""The decisions of a replayed hand, each with exactly what its player knew (docs/REVIEW.md).

A decision is one player's placement on one street, or one Fantasyland setting. What the
player knew at it: its own cards dealt so far, where it placed them, its own discards, and
every card placed face up on any board on the lines above it. Nothing else: another
player's discards, Fantasyland cards (face down until showdown, R-FL-5) and anything written
later in the file are never part of it, even when an operator's history shows them all.

Automatic placements (R-TIME-1, R-TIME-2) are not decisions. A hand with a violation, a
rejected or incomplete hand, and a decision whose own cards are hidden (``??``) are not
reviewed; each is a :class:`Skip` with its reason.

Cards are the engine's ints: ``Card.index`` 0..51, the jokers 52 and 53.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from ..game.cards import HIDDEN, Card
from ..game.record import ROWS, Row
from ..game.ruleset import Ruleset
from ..history.records import Deal, Event, EventKind, Hand, Placement, SectionKind
from ..replay.results import HandResult

Ints = tuple[int, ...]
RowsOf = tuple[Ints, Ints, Ints]  # top, middle, bottom


class Kind(StrEnum):
    STREET = "street"
    FANTASYLAND = "fantasyland"


class SkipReason(StrEnum):
    VIOLATIONS = "violations"
    INCOMPLETE = "incomplete"
    REJECTED = "rejected"
    HIDDEN = "hidden cards"


@dataclass(frozen=True)
class Played:
    """The cards one decision placed, row by row, and the ones it discarded."""

    top: Ints
    middle: Ints
    bottom: Ints
    discard: Ints

    @property
    def rows(self) -> RowsOf:
        return (self.top, self.middle, self.bottom)


@dataclass(frozen=True)
class Decision:
    """One decision and the position its player saw. ``players`` are in action (and
    settlement) order, left of the button first; ``hero`` indexes them. ``rows`` holds each
    player's face-up cards placed before the decision (a Fantasyland player's are face
    down: none); ``known_dead`` the hero's own discards so far."""

    hand_id: str
    player: str
    kind: Kind
    street: int | None
    line: int
    ruleset: Ruleset
    players: tuple[str, ...]
    hero: int
    rows: tuple[RowsOf, ...]
    dealt: Ints
    played: Played
    known_dead: Ints
    fantasyland: tuple[bool, ...]
    fl_entries: tuple[int, ...]

    @property
    def label(self) -> str:
        """What seeds it, with the hand and the player: the street number or ``fantasyland``."""
        return str(self.street) if self.kind is Kind.STREET else "fantasyland"


@dataclass(frozen=True)
class Skip:
    """Something not reviewed and why: a whole hand (``player`` None), or one player's
    decisions in a hand (``decisions`` of them, hidden cards)."""

    hand_id: str | None
    reason: SkipReason
    file: str
    line: int
    player: str | None = None
    decisions: int = 0
    message: str | None = None


@dataclass(frozen=True)
class HandDecisions:
    """A hand's reviewable decisions in file order, what was left out of it, and each
    player's value of the hand as it happened (points before caps; ``fl_value`` is added by
    the review), None where hidden cards keep it unknown."""

    hand_id: str
    file: str
    line: int
    decisions: tuple[Decision, ...]
    skipped: tuple[Skip, ...]
    points: dict[str, int | None] = field(default_factory=dict)
    fantasyland_next: dict[str, bool | None] = field(default_factory=dict)
    currency: str = "points"  # the stake's (docs/FORMAT.md): points of two currencies part


def _ints(cards: Sequence[Card]) -> Ints:
    return tuple(card.index for card in cards)


def _hidden(cards: Sequence[Card]) -> bool:
    return any(card is HIDDEN for card in cards)


def hand_decisions(
    hand: Hand,
    result: HandResult,
    ruleset: Ruleset,
    disconnected: Collection[str] = (),
    wanted: Collection[str] | None = None,
) -> HandDecisions:
    """The decisions of ``hand`` (replayed as ``result``) by the players in ``wanted`` (all
    when None). ``ruleset`` is the run's; the hand's header overrides its variant and
    Fantasyland type. ``disconnected``: players still disconnected when the hand began
    (their placements are automatic until they reconnect, R-TIME-3)."""
    hand_id, file, line = hand.hand_id, hand.file, hand.line
    if result.violations:
        return HandDecisions(hand_id, file, line, (), (Skip(hand_id, SkipReason.VIOLATIONS,
                                                             file, line),))
    if result.incomplete is not None:
        return HandDecisions(hand_id, file, line, (), (Skip(hand_id, SkipReason.INCOMPLETE,
                                                             file, line,
                                                             message=result.incomplete.message),))
    header = hand.header
    hand_rules = ruleset.with_options(variant=header.variant, fantasyland=header.fantasyland)
    ordered = sorted(result.players, key=lambda p: p.position)
    names = tuple(p.name for p in ordered)
    index = {name: i for i, name in enumerate(names)}
    in_fl = tuple(p.in_fantasyland for p in ordered)
    entries = _fantasyland_entries(hand, names, in_fl)
    boards: dict[str, dict[Row, list[Card]]] = {n: {row: [] for row in ROWS} for n in names}
    discards: dict[str, list[Card]] = {n: [] for n in names}
    dealt: dict[str, list[Card]] = {n: [] for n in names}
    timed_out: set[str] = set()
    offline = set(disconnected)
    decisions: list[Decision] = []
    hidden: dict[str, int] = {}
    for section in hand.sections:
        fantasyland = section.kind is SectionKind.FANTASYLAND
        for action in section.actions:
            name = action.player
            if isinstance(action, Event):
                _event(action, timed_out, offline)
            elif isinstance(action, Deal):
                # A Fantasyland deal in packets is one deal (R-FL-5); a street deals anew.
                dealt[name] = dealt[name] + list(action.cards) if fantasyland else \
                    list(action.cards)
            else:
                automatic = name in offline or name in timed_out
                timed_out.discard(name)
                if not automatic and (wanted is None or name in wanted):
                    decision = _decision(
                        hand_id, hand_rules, names, index[name], section.number, fantasyland,
                        action, dealt[name], boards, discards[name], in_fl, entries)
                    if decision is None:
                        hidden[name] = hidden.get(name, 0) + 1
                    else:
                        decisions.append(decision)
                if not fantasyland:
                    # Face up for everyone from now on; a Fantasyland setting stays face down
                    # until showdown, so nobody's later decision sees it.
                    for row, cards in action.rows:
                        boards[name][row].extend(cards)
                discards[name].extend(action.discards or ())
    skipped = tuple(Skip(hand_id, SkipReason.HIDDEN, file, line, player=name, decisions=count)
                    for name, count in hidden.items())
    points = {p.name: p.points for p in ordered}
    fl_next = {p.name: (p.fantasyland_next is not None) if p.fantasyland_next_known else None
               for p in ordered}
    return HandDecisions(hand_id, file, line, tuple(decisions), skipped, points, fl_next,
                         header.stake.currency)


def _event(event: Event, timed_out: set[str], offline: set[str]) -> None:
    """The automatic placements' bookkeeping, as the replay's (R-TIME-1..3)."""
    if event.kind is EventKind.TIMES_OUT:
        timed_out.add(event.player)
    elif event.kind is EventKind.DISCONNECTS:
        offline.add(event.player)
    elif event.kind is EventKind.RECONNECTS:
        offline.discard(event.player)


def _decision(
    hand_id: str,
    ruleset: Ruleset,
    names: tuple[str, ...],
    hero: int,
    street: int | None,
    fantasyland: bool,
    placement: Placement,
    dealt: Sequence[Card],
    boards: dict[str, dict[Row, list[Card]]],
    own_discards: Sequence[Card],
    in_fl: tuple[bool, ...],
    entries: tuple[int, ...],
) -> Decision | None:
    """The decision of ``placement`` with what its player knew, or None when its own cards
    (dealt, placed, discarded, or its board so far) or a face-up card it saw is hidden."""
    name = names[hero]
    placed_discards = placement.discards or ()
    own_board = [card for row in ROWS for card in boards[name][row]]
    if (_hidden(dealt) or _hidden(placement.placed) or _hidden(placed_discards)
            or _hidden(own_board) or _hidden(own_discards)):
        return None
    rows: list[RowsOf] = []
    for other, fl in zip(names, in_fl, strict=True):
        board = boards[other]
        if fl or fantasyland:
            # A Fantasyland player's cards are face down; a Fantasyland setting is valued
            # without opponents (their boards are unknown when it is set).
            rows.append(((), (), ()))
            continue
        if _hidden([card for row in ROWS for card in board[row]]):
            return None
        rows.append((_ints(board[Row.TOP]), _ints(board[Row.MIDDLE]),
                     _ints(board[Row.BOTTOM])))
    played = Played(_ints(placement.cards_for(Row.TOP)), _ints(placement.cards_for(Row.MIDDLE)),
                    _ints(placement.cards_for(Row.BOTTOM)), _ints(placed_discards))
    return Decision(
        hand_id=hand_id, player=name,
        kind=Kind.FANTASYLAND if fantasyland else Kind.STREET,
        street=None if fantasyland else street, line=placement.line, ruleset=ruleset,
        players=names, hero=hero, rows=tuple(rows), dealt=_ints(dealt), played=played,
        known_dead=() if fantasyland else _ints(own_discards), fantasyland=in_fl,
        fl_entries=entries,
    )


def _fantasyland_entries(hand: Hand, names: tuple[str, ...], in_fl: tuple[bool, ...]) -> \
        tuple[int, ...]:
    """Each player's Fantasyland card count as its seat line gives it (``in Fantasyland (N
    cards)``: the chain's entry for ultimate repeats), else the cards it is dealt; 0 for a
    player on the streets."""
    counts: dict[str, int] = {}
    for section in hand.sections:
        if section.kind is SectionKind.FANTASYLAND:
            for action in section.actions:
                if isinstance(action, Deal):
                    counts[action.player] = counts.get(action.player, 0) + len(action.cards)
    for seat in hand.seats:
        if seat.fantasyland_cards is not None:
            counts[seat.name] = seat.fantasyland_cards
    return tuple(counts.get(name, 0) if fl else 0 for name, fl in zip(names, in_fl, strict=True))
