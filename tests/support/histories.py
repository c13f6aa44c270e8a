"""Builders of small, valid Pineapple histories for replay tests.

A player is given by its final board and its four discards; the builder deals street 1 as
the first top card, two middle and two bottom cards, then two placed cards plus one discard
per street, in action order from the left of the button.
"""

from __future__ import annotations

from dataclasses import dataclass

from typer.testing import CliRunner

from ofc_audit.game.board import Board

WORKED_EXAMPLE = """\
OFC Hand #PD-1001: Pineapple, progressive Fantasyland - 0.10 EUR/point - 2026-11-29 21:04:11 UTC
Match #M-77, hand 2
Table 'Tashkent 3' 3-max - Seat #3 is the button
Seat 1: alice (250)
Seat 2: bob (180)
Seat 3: carol (300) in Fantasyland
*** FANTASYLAND ***
carol is dealt [As Ac Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc]
carol places top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h 3h], discards [Kc]
*** STREET 1 ***
alice is dealt [Ah Kd 7c 7s 2h]
alice places top [Ah] middle [Kd 2h] bottom [7c 7s]
bob is dealt [Qs Qd 4c 9h 9d]
bob places top [Qs Qd] middle [9h 9d] bottom [4c]
*** STREET 2 ***
alice is dealt [3c 3d Js]
alice places middle [3c] bottom [3d], discards [Js]
bob is dealt [4d 4s 2s]
bob places bottom [4d 4s], discards [2s]
*** STREET 3 ***
alice is dealt [7h 6c Ts]
alice places top [6c] bottom [7h], discards [Ts]
bob is dealt [5d 5s Qh]
bob places middle [5d 5s], discards [Qh]
*** STREET 4 ***
alice is dealt [Ks 7d 9s]
alice places middle [Ks] bottom [7d], discards [9s]
bob is dealt [Jc Jd Tc]
bob places bottom [Jc Jd], discards [Tc]
*** STREET 5 ***
alice is dealt [6d 3s 6s]
alice places top [6d] middle [3s], discards [6s]
bob is dealt [5c 2d Ad]
bob places top [5c] middle [2d], discards [Ad]
*** SHOWDOWN ***
carol: top [As Ac Kh] middle [8s 8c 8d 6h 5h] bottom [Jh Th 8h 4h 3h]
alice: top [Ah 6c 6d] middle [Kd 2h 3c Ks 3s] bottom [7c 7s 3d 7h 7d]
bob: top [Qs Qd 5c] middle [9h 9d 5d 5s 2d] bottom [4c 4d 4s Jc Jd]
*** SUMMARY ***
alice: royalties 11, points -6, stack 250 -> 244
bob: royalties 13, points -2, stack 180 -> 178, Fantasyland next (14 cards)
carol: royalties 15, points +8, stack 300 -> 308
"""


@dataclass(frozen=True)
class Player:
    seat: int
    name: str
    stack: int
    board: str  # "TOP / MIDDLE / BOTTOM"
    discards: str = ""  # four cards for the four later streets
    fantasyland: str | None = None  # extra cards dealt in Fantasyland (discarded)


def _fmt(cards: object) -> str:
    return "[" + " ".join(str(c) for c in cards) + "]"  # type: ignore[attr-defined]


def pineapple_hand(
    hand_id: str,
    players: list[Player],
    button: int,
    *,
    header_extra: str = "",
    match: str | None = None,
    table: str = "T1",
    stake: str = "1 points",
    summary: list[str] | None = None,
    max_seats: int = 3,
    timestamp: str = "2026-11-29 21:04:11 UTC",
) -> str:
    lines = [f"OFC Hand #{hand_id}: Pineapple{header_extra} - {stake}/point - {timestamp}"]
    if match:
        lines.append(match)
    lines.append(f"Table '{table}' {max_seats}-max - Seat #{button} is the button")
    order = sorted(players, key=lambda p: (p.seat <= button, p.seat))
    for p in sorted(players, key=lambda p: p.seat):
        fl = " in Fantasyland" if p.fantasyland is not None else ""
        lines.append(f"Seat {p.seat}: {p.name} ({p.stack}){fl}")
    boards = {p.name: Board.parse(p.board) for p in players}
    fl_players = [p for p in order if p.fantasyland is not None]
    if fl_players:
        lines.append("*** FANTASYLAND ***")
        for p in fl_players:
            b = boards[p.name]
            extra = p.fantasyland.split() if p.fantasyland else []
            dealt = [*map(str, b.cards), *extra]
            lines.append(f"{p.name} is dealt [{' '.join(dealt)}]")
            tail = f", discards [{' '.join(extra)}]" if extra else ""
            lines.append(
                f"{p.name} places top {_fmt(b.top)} middle {_fmt(b.middle)} "
                f"bottom {_fmt(b.bottom)}{tail}"
            )
    street_players = [p for p in order if p.fantasyland is None]
    plans = {}
    for p in street_players:
        b = boards[p.name]
        first = [("top", b.top[:1]), ("middle", b.middle[:2]), ("bottom", b.bottom[:2])]
        rest = (
            [("top", c) for c in b.top[1:]]
            + [("middle", c) for c in b.middle[2:]]
            + [("bottom", c) for c in b.bottom[2:]]
        )
        plans[p.name] = (first, rest, p.discards.split())
    if street_players:
        for k in range(1, 6):
            lines.append(f"*** STREET {k} ***")
            for p in street_players:
                first, rest, discards = plans[p.name]
                if k == 1:
                    dealt = [c for _, cards in first for c in cards]
                    lines.append(f"{p.name} is dealt {_fmt(dealt)}")
                    lines.append(
                        f"{p.name} places "
                        + " ".join(f"{row} {_fmt(cards)}" for row, cards in first if cards)
                    )
                    continue
                pair = rest[2 * (k - 2): 2 * (k - 1)]
                dealt = [c for _, c in pair] + [discards[k - 2]]
                lines.append(f"{p.name} is dealt {_fmt(dealt)}")
                by_row: dict[str, list[object]] = {}
                for row, c in pair:
                    by_row.setdefault(row, []).append(c)
                lines.append(
                    f"{p.name} places "
                    + " ".join(f"{row} {_fmt(cards)}" for row, cards in by_row.items())
                    + f", discards [{discards[k - 2]}]"
                )
    if summary:
        lines.append("*** SUMMARY ***")
        lines.extend(summary)
    return "\n".join(lines) + "\n"


def worked_example_hand(hand_id: str, table: str, button: int = 3) -> str:
    """The worked example of FORMAT.md with another hand id, table name and button seat."""
    return (WORKED_EXAMPLE.replace("PD-1001", hand_id).replace("Tashkent 3", table)
            .replace("Seat #3 is the button", f"Seat #{button} is the button"))


def cli_runner() -> CliRunner:
    """A CliRunner that keeps standard error apart from standard output."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:  # click >= 8.2 keeps stderr apart by itself
        return CliRunner()
