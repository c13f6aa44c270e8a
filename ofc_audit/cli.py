"""The ``ofc-audit`` command: a thin typer shell over the library (CLI.md).

Exit status: 0 all good; 1 the input has violations, mismatches or rejected hands; 2 usage
error or unreadable file.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any, NoReturn

import typer

from .board import Board
from .cards import CardError
from .rules import FantasylandType, Ruleset, RulesetError, Variant
from .scorecard import render_scorecard, score_table

app = typer.Typer(
    name="ofc-audit",
    help="Audit, replay, score and settle Open Face Chinese Poker hand histories.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


@app.callback()
def root() -> None:
    """Audit, replay, score and settle Open Face Chinese Poker hand histories."""

RulesOption = Annotated[
    str | None,
    typer.Option("--rules", help="A preset (standard, pokerdom, tonybet) or a ruleset TOML file."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document instead.")]


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    typer.echo(f"ofc-audit: error: {message}", err=True)
    raise typer.Exit(code)


def print_json(document: Any) -> None:
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def load_ruleset(rules: str | None, **overrides: Any) -> Ruleset:
    try:
        return Ruleset.load(rules).with_options(**overrides)
    except RulesetError as error:
        fail(str(error))


def _parse_int_list(values: list[str] | None, option: str) -> list[str]:
    items: list[str] = []
    for value in values or []:
        items.extend(part.strip() for part in value.split(",") if part.strip())
    return items


@app.command()
def score(
    boards: Annotated[
        list[str],
        typer.Argument(
            help="Boards as 'TOP / MIDDLE / BOTTOM' in settlement order: first the seat left "
            "of the button, last the button.",
            show_default=False,
        ),
    ],
    rules: RulesOption = None,
    variant: Annotated[
        Variant | None, typer.Option("--variant", help="Override the ruleset's variant.")
    ] = None,
    fantasyland: Annotated[
        FantasylandType | None,
        typer.Option("--fantasyland", help="Override the ruleset's Fantasyland type."),
    ] = None,
    stacks: Annotated[
        str | None,
        typer.Option("--stacks", help="Stacks in points, e.g. 250,180,300 (enables R-SETTLE-3)."),
    ] = None,
    in_fantasyland: Annotated[
        list[str] | None,
        typer.Option(
            "--in-fantasyland",
            help="1-based board position already in Fantasyland (repeatable, or comma-"
            "separated); POS:N also gives the chain's entry count N (ultimate repeats).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Score finished boards directly, no history needed."""
    ruleset = load_ruleset(rules, variant=variant, fantasyland=fantasyland)
    try:
        parsed = [Board.parse(text) for text in boards]
    except CardError as error:
        fail(str(error))
    for i, board in enumerate(parsed, start=1):
        if board.has_hidden:
            fail(f"board {i}: '??' (a hidden card) cannot be scored")
    stack_list: list[int] | None = None
    if stacks is not None:
        try:
            stack_list = [int(s) for s in _parse_int_list([stacks], "--stacks")]
        except ValueError:
            fail(f"--stacks: expected whole numbers separated by commas, got {stacks!r}")
        if len(stack_list) != len(parsed):
            fail(f"--stacks gives {len(stack_list)} stacks for {len(parsed)} boards")
    chain: dict[int, int | None] = {}
    for item in _parse_int_list(in_fantasyland, "--in-fantasyland"):
        pos_text, _, count_text = item.partition(":")
        try:
            position = int(pos_text)
            count = int(count_text) if count_text else None
        except ValueError:
            fail(f"--in-fantasyland: expected a board position (1..{len(parsed)}), got {item!r}")
        if not 1 <= position <= len(parsed):
            fail(f"--in-fantasyland: position {position} is not a board (1..{len(parsed)})")
        chain[position - 1] = count
    if any(card.is_joker for b in parsed for card in b.cards) and not (
        ruleset.variant is Variant.JOKER_PINEAPPLE
    ):
        typer.echo(
            f"ofc-audit: warning: jokers on a {ruleset.variant.title} board "
            "(R-CARD-2: only Joker Pineapple has jokers); scored anyway",
            err=True,
        )
    card = score_table(parsed, ruleset, stack_list, chain)
    for duplicate in card.duplicates():
        typer.echo(
            f"ofc-audit: warning: R-CARD-3: {duplicate} appears more than once across the "
            "boards; scored anyway",
            err=True,
        )
    if as_json:
        print_json(card.to_json())
    else:
        typer.echo(render_scorecard(card))


def main() -> None:
    app()
