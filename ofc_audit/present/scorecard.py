"""One table of finished boards scored together: the engine behind ``ofc-audit score``.

>>> from ofc_audit.game.board import Board
>>> card = score_table([Board.parse("Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"),
...                     Board.parse("Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd")], Ruleset())
>>> card.settlement.points
(-1, 1)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..game.board import Board, BoardResult, evaluate_board
from ..game.fantasyland import next_fantasyland
from ..game.record import ROWS
from ..game.ruleset import Ruleset
from ..game.scoring import Settlement, settle
from .explain import foul_text


@dataclass(frozen=True, slots=True)
class Scorecard:
    ruleset: Ruleset
    results: tuple[BoardResult, ...]
    settlement: Settlement
    fantasyland_next: tuple[int | None, ...]
    in_fantasyland: frozenset[int]  # 0-based positions

    def to_json(self) -> dict[str, Any]:
        s = self.settlement
        players = []
        for i, result in enumerate(self.results):
            players.append(
                {
                    "position": i + 1,
                    "fouled": result.fouled,
                    "rows": row_json(result),
                    "royalties": royalties_json(result),
                    "points": s.points[i],
                    "stack_before": s.stacks_before[i] if s.stacks_before else None,
                    "stack_after": s.stacks_after[i] if s.stacks_after else None,
                    "in_fantasyland": i in self.in_fantasyland,
                    "fantasyland_next": fantasyland_json(self.fantasyland_next[i]),
                }
            )
        return {
            "ruleset": {
                "name": self.ruleset.name,
                "variant": self.ruleset.variant.value,
                "fantasyland": self.ruleset.fantasyland.value,
            },
            "players": players,
            "pairs": [pair_json(p) for p in s.pairs],
        }


def row_json(result: BoardResult) -> dict[str, Any]:
    return {
        row.value: {"category": r.category, "cards": [str(c) for c in r.cards]}
        for row, r in zip(ROWS, result.rows, strict=True)
    }


def royalties_json(result: BoardResult) -> dict[str, int]:
    roy = result.royalties
    return {"top": roy.top, "middle": roy.middle, "bottom": roy.bottom, "total": roy.total}


def fantasyland_json(cards: int | None) -> dict[str, Any]:
    return {"qualifies": cards is not None, "cards": cards}


def pair_json(pair: Any, positions: Sequence[int] | None = None) -> dict[str, Any]:
    a = positions[pair.a] if positions else pair.a + 1
    b = positions[pair.b] if positions else pair.b + 1
    return {
        "a": a,
        "b": b,
        "rows": list(pair.rows),
        "scoop": pair.scoop,
        "royalties": pair.royalties,
        "points_a": pair.points_a,
        "transfer_to_a": pair.transfer_to_a,
    }


def score_table(
    boards: Sequence[Board],
    ruleset: Ruleset,
    stacks: Sequence[int] | None = None,
    in_fantasyland: Mapping[int, int | None] | Collection[int] = (),
) -> Scorecard:
    """Score boards given in settlement order. ``in_fantasyland`` holds 0-based positions
    already in Fantasyland, optionally mapped to the chain's entry count (ultimate)."""
    chain: Mapping[int, int | None] = (
        in_fantasyland if isinstance(in_fantasyland, Mapping) else dict.fromkeys(in_fantasyland)
    )
    known = [card for board in boards for card in board.cards if card.is_natural]
    results = tuple(evaluate_board(board, ruleset, known) for board in boards)
    settlement = settle(results, ruleset, stacks)
    fl_next = tuple(
        next_fantasyland(r, ruleset.variant, ruleset.fantasyland, i in chain, chain.get(i))
        for i, r in enumerate(results)
    )
    return Scorecard(ruleset, results, settlement, fl_next, frozenset(chain))


def render_scorecard(card: Scorecard) -> str:
    """The readable form of ``ofc-audit score``: boards, pairwise matrix, settlement."""
    from ..common.textfmt import signed, text_table

    out: list[str] = []
    r = card.ruleset
    out.append(
        f"Ruleset {r.name}: {r.variant.title}, Fantasyland {r.fantasyland.value}, "
        f"scoop bonus {r.scoop_bonus}, royalties {r.royalties.value}, "
        f"stack cap {'on' if r.stack_cap else 'off'}"
    )
    n = len(card.results)
    for i, result in enumerate(card.results):
        label = f"P{i + 1}" + (" (button)" if i == n - 1 and n > 1 else "")
        if i in card.in_fantasyland:
            label += " in Fantasyland"
        verdict = foul_text(result) if result.fouled else "legal"
        out.append("")
        out.append(f"Board {i + 1}, {label}: {verdict}")
        rows = [
            [
                row.row.value,
                " ".join(str(c) for c in row.cards),
                row.category.replace("_", " "),
                result.royalties.of(row.row),
            ]
            for row in result.rows
        ]
        rows.append(["total", "", "", result.royalties.total])
        out.append(text_table(["row", "cards", "hand", "royalties"], rows, indent="  "))
        if result.jokers:
            out.append("  jokers: " + ", ".join(f"{j} = {c}" for j, c in result.jokers))
    s = card.settlement
    if s.pairs:
        out.append("")
        out.append("Pairs (points of the first player of the pair; R-SCORE-1..4)")
        out.append(
            text_table(
                ["pair", "top", "middle", "bottom", "scoop", "royalties", "points", "transfer"],
                [
                    [
                        f"P{p.a + 1} v P{p.b + 1}",
                        *(signed(x) for x in p.rows or (None,) * 3),
                        signed(p.scoop),
                        signed(p.royalties),
                        signed(p.points_a),
                        signed(p.transfer_to_a) + (" (capped)" if p.capped else "")
                        if p.transfer_to_a is not None
                        else "-",
                    ]
                    for p in s.pairs
                ],
                indent="  ",
            )
        )
    out.append("")
    out.append("Settlement (R-SETTLE-2 order)")
    rows2 = []
    for i in range(n):
        fl = card.fantasyland_next[i]
        rows2.append(
            [
                f"P{i + 1}",
                "yes" if card.results[i].fouled else "no",
                card.results[i].royalties.total,
                signed(s.points[i]),
                s.stacks_before[i] if s.stacks_before else None,
                s.stacks_after[i] if s.stacks_after else None,
                f"yes ({fl} cards)" if fl is not None else "no",
            ]
        )
    out.append(
        text_table(
            [
                "player",
                "fouled",
                "royalties",
                "points",
                "stack before",
                "stack after",
                "Fantasyland next",
            ],
            rows2,
            indent="  ",
        )
    )
    return "\n".join(out)
