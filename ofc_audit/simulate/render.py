"""The simulator's hands as records of :mod:`ofc_audit.history.records` and as text (the
canonical writer's), for the operator's view or a player's (what it could not see hidden).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection

from ..common.lifeline import start_worker
from ..game.cards import HIDDEN, Card
from ..game.record import ROWS
from ..game.ruleset import FantasylandType, Variant
from ..history.records import (
    Action,
    Deal,
    Event,
    Hand,
    Header,
    MatchInfo,
    Placement,
    Seat,
    Section,
    SectionKind,
    Showdown,
    ShowdownBoard,
    Stake,
    Summary,
    SummaryEntry,
    TableInfo,
    TopUp,
)
from .hand import CARDS, HandDraft, Line, cards_of


@dataclass(frozen=True)
class Renderer:
    """Hands to records and text for one view; picklable, so a worker process can write."""

    viewer: str | None
    variant: Variant
    fl_type: FantasylandType
    stake: Stake

    def text(self, hand: HandDraft) -> str:
        """The hand's text (the canonical writer's), a ``# fault:`` comment after its
        header line."""
        from ..history.writer import write_hand

        text = write_hand(self.record(hand))
        if hand.faults:
            head, _, rest = text.partition("\n")
            text = "\n".join((head, *hand.comments(), rest))
        return text

    def record(self, hand: HandDraft) -> Hand:
        viewer = self.viewer

        def shown(owner: str, cards: Sequence[int]) -> tuple[Card, ...]:
            if viewer is not None and owner != viewer:
                return (HIDDEN,) * len(cards)
            return tuple(map(CARDS.__getitem__, cards))

        def action(line: Line, fantasyland: bool) -> Action:
            if line.kind == "deal":
                return Deal(line.player, shown(line.player, line.cards), 0)
            if line.kind == "event":
                assert line.event is not None
                return Event(line.player, line.event, 0)
            hide_rows = fantasyland and viewer is not None and line.player != viewer
            rows = tuple(
                (ROWS[r], shown(line.player, cards) if hide_rows else cards_of(cards))
                for r, cards in enumerate(line.rows)
                if cards
            )
            discards = None if line.discards is None else shown(line.player, line.discards)
            return Placement(line.player, rows, discards, 0)

        sections: list[Section] = []
        if hand.fl_lines:
            sections.append(Section(
                SectionKind.FANTASYLAND, None,
                tuple(action(line, True) for line in hand.fl_lines), 0,
            ))
        for k, lines in enumerate(hand.streets, start=1):
            sections.append(
                Section(SectionKind.STREET, k, tuple(action(line, False) for line in lines), 0)
            )
        showdown = Showdown(
            tuple(
                ShowdownBoard(name, cards_of(top), cards_of(middle), cards_of(bottom), 0)
                for name in hand.order
                for top, middle, bottom in (hand.boards[name],)
            ),
            0,
        )
        entries = []
        for name in hand.order:
            seat = hand.seat(name)
            values = {
                "royalties": hand.royalties[name],
                "points": hand.points[name],
                "stack_after": hand.stacks_after[name],
            }
            if hand.summary_fault is not None and hand.summary_fault[0] == name:
                values[hand.summary_fault[1]] += hand.summary_fault[2]
            entries.append(SummaryEntry(
                name,  # player
                hand.fouled[name],
                values["royalties"],
                values["points"],
                seat.stack,  # stack_before
                values["stack_after"],
                hand.fl_next.get(name),
                0,  # line
            ))
        return Hand(
            file="<simulated>",
            header=Header(hand.hand_id, self.variant, self.fl_type, self.stake, hand.timestamp, 0),
            match=MatchInfo(hand.match_id, hand.match_hand, 0),
            table=TableInfo(hand.table, hand.max_seats, hand.button, 0),
            seats=tuple(
                Seat(s.seat, s.name, s.stack, s.fl_cards is not None,
                     s.fl_cards if s.fl_cards is not None and s.show_count else None, 0)
                for s in hand.seats
            ),
            topups=tuple(TopUp(name, amount, 0) for name, amount in hand.topups),
            sections=tuple(sections),
            showdown=showdown,
            summary=Summary(tuple(entries), 0),
        )


_WORKER: list[Renderer] = []  # the renderer of a writer process


def start_writer(renderer: Renderer, parent: Connection) -> None:
    """Set up a writer process (a pool's initializer): Ctrl-C left to the command, and it
    leaves by itself when the command has gone (``parent``: the command's
    :func:`~ofc_audit.common.lifeline.lifeline`)."""
    _WORKER[:] = [renderer]
    start_worker(parent)


def write_in_writer(hands: list[HandDraft]) -> list[str]:
    """Hands' texts, in a writer process."""
    return list(map(_WORKER[0].text, hands))
