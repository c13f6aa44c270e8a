"""``ofc-audit score BOARD...``: finished boards scored directly, no history needed."""

from __future__ import annotations

from typing import Annotated

import typer

from ..common.errors import UsageError
from ..game.rulebook import cited
from ..game.ruleset import FantasylandType, Variant
from ..game.typed_board import parse_typed_boards
from ..present.scorecard import render_scorecard, score_table
from .app import app
from .errors import Command
from .options import JsonOption, RulesOption, load_ruleset, print_json


def _parse_int_list(values: list[str] | None) -> list[str]:
    """The items of a repeatable option whose values may also be comma-separated."""
    items: list[str] = []
    for value in values or []:
        items.extend(part.strip() for part in value.split(",") if part.strip())
    return items


@app.command(cls=Command, short_help="Score finished boards, no history needed.")
def score(
    boards: Annotated[
        list[str],
        typer.Argument(
            metavar="BOARD",
            help="Boards as 'TOP / MIDDLE / BOTTOM' in settlement order: first the seat left "
            "of the button, last the button.",
            show_default=False,
        ),
    ],
    rules: RulesOption = "standard",
    variant: Annotated[
        Variant | None, typer.Option("--variant", help="Override the ruleset's variant.")
    ] = None,
    fantasyland: Annotated[
        FantasylandType | None,
        typer.Option("--fantasyland", help="Override the ruleset's Fantasyland type."),
    ] = None,
    stacks: Annotated[
        str | None,
        typer.Option("--stacks", metavar="N,N,...",
                     help="Stacks in points, e.g. 250,180,300 (enables R-SETTLE-3)."),
    ] = None,
    in_fantasyland: Annotated[
        list[str] | None,
        typer.Option(
            "--in-fantasyland", metavar="POS[:N]",
            help="1-based board position already in Fantasyland (repeatable, or comma-"
            "separated); POS:N also gives the chain's entry count N (ultimate repeats).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Score finished boards directly, no history needed.

    Boards are given in settlement order; with --stacks the transfers are capped by the
    stacks (R-SETTLE-3), as in the second example (a fouled board with 12 points left).

    Examples:

    \b
      ofc-audit score "Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd" \\
                      "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"
      ofc-audit score --stacks 40,12 "Kh Kd 3c / As Ad 7h 7d 3h / 8s 8h 8c 4d 4c" \\
                      "Qs Qd 7c / Qh Qc 6d 5s 4h / 2s 2d 2h 9c 9d"
      ofc-audit score --json --stacks 250,180,300 --in-fantasyland 3 \\
                      "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d" \\
                      "Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd" \\
                      "As Ac Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h"
    """
    ruleset = load_ruleset(rules, variant=variant, fantasyland=fantasyland)
    parsed = parse_typed_boards(boards)
    for i, board in enumerate(parsed, start=1):
        if board.has_hidden:
            raise UsageError(f"board {i}: '??' (a hidden card) cannot be scored")
    stack_list: list[int] | None = None
    if stacks is not None:
        try:
            stack_list = [int(s) for s in _parse_int_list([stacks])]
        except ValueError:
            raise UsageError(f"--stacks: expected whole numbers separated by commas, got "
                             f"{stacks!r}") from None
        if len(stack_list) != len(parsed):
            raise UsageError(f"--stacks gives {len(stack_list)} stacks for {len(parsed)} boards")
    chain: dict[int, int | None] = {}
    for item in _parse_int_list(in_fantasyland):
        pos_text, _, count_text = item.partition(":")
        try:
            position = int(pos_text)
            count = int(count_text) if count_text else None
        except ValueError:
            raise UsageError(f"--in-fantasyland: expected a board position "
                             f"(1..{len(parsed)}), got {item!r}") from None
        if not 1 <= position <= len(parsed):
            raise UsageError(f"--in-fantasyland: position {position} is not a board "
                             f"(1..{len(parsed)})")
        chain[position - 1] = count
    has_jokers = any(card.is_joker for b in parsed for card in b.cards)
    if has_jokers and ruleset.variant is not Variant.JOKER_PINEAPPLE:
        typer.echo(
            f"ofc-audit: warning: jokers on a {ruleset.variant.title} board: only Joker "
            f"Pineapple has jokers ({cited('R-CARD-2')}); scored anyway",
            err=True,
        )
    card = score_table(parsed, ruleset, stack_list, chain)
    if as_json:
        print_json(card.to_json())
    else:
        typer.echo(render_scorecard(card))
