"""``ofc-audit rules [ID...]``: the rules the auditor enforces."""

from __future__ import annotations

from typing import Annotated

import typer

from ..common.errors import UsageError
from ..common.textfmt import rule_block, text_table
from ..game.rulebook import RuleText, all_rules, closest_ids, rule_text
from .app import app
from .errors import Command
from .options import JsonOption, print_json


@app.command("rules", cls=Command, short_help="The rules the auditor enforces.")
def rules_command(
    ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="ID", show_default=False,
                       help="Rule ids to print in full, e.g. R-FL-4 (any case)."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """The rules the auditor enforces: every id with its title, or the full text of some
    (their options, and which presets change them).

    Examples:

    \b
      ofc-audit rules                       every rule id with its title
      ofc-audit rules R-FL-4 r-settle-3     two rules in full
      ofc-audit rules --json R-SCORE-2      the same as JSON
    """
    wanted: list[RuleText] = []
    for rule_id in ids or []:
        try:
            wanted.append(rule_text(rule_id))
        except KeyError:
            raise UsageError(f"no rule {rule_id!r}; the closest ids are "
                             f"{', '.join(closest_ids(rule_id))} (ofc-audit rules lists them "
                             "all)") from None
    chosen = wanted or all_rules()
    if as_json:
        print_json([{"id": r.id, "title": r.title, "text": r.text, "options": list(r.options),
                     "presets": list(r.presets)} for r in chosen])
    elif wanted:
        typer.echo("\n\n".join(rule_block(r.id, r.title, r.text, r.options, r.presets)
                               for r in wanted))
    else:
        typer.echo(text_table(["rule", "title"], [[r.id, r.title] for r in chosen]))
        typer.echo("\nFull text: ofc-audit rules ID [ID ...]")
