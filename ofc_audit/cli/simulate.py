"""``ofc-audit simulate``: simulated hand histories of plausible play."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..audit.progress import Progress
from ..common.errors import CannotWrite
from ..game.ruleset import FantasylandType, Variant
from .app import app
from .errors import Command, StandardOutputFull
from .options import RulesOption, load_ruleset


@app.command(cls=Command, short_help="Write simulated hand histories.")
def simulate(
    variant: Annotated[
        Variant | None, typer.Option("--variant", help="Override the ruleset's variant.")
    ] = None,
    players: Annotated[int, typer.Option("--players", metavar="N", help="Players per table.")] = 3,
    hands: Annotated[
        int, typer.Option("--hands", metavar="N", help="Hands to play (all tables).")
    ] = 100,
    fantasyland: Annotated[
        FantasylandType | None,
        typer.Option("--fantasyland", help="Override the ruleset's Fantasyland type."),
    ] = None,
    rules: RulesOption = "standard",
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Same seed, same output.")] = 0,
    view: Annotated[
        str, typer.Option("--view", help="operator, or player:NAME (only what NAME saw).")
    ] = "operator",
    out: Annotated[
        str, typer.Option("--out", metavar="FILE", help="File to write; - is stdout.")
    ] = "-",
    faults: Annotated[
        float,
        typer.Option("--faults", help="Chance per hand of labelled rule violations (# fault:)."),
    ] = 0.0,
    faults_per_hand: Annotated[
        int,
        typer.Option(
            "--faults-per-hand",
            help="Up to N faults of different kinds in a hand that has faults.",
        ),
    ] = 1,
    fault_kinds: Annotated[
        str | None,
        typer.Option(
            "--fault-kinds",
            help="Only these fault kinds, comma-separated (R-ACT-2,fl_split_deal; "
            "SUMMARY: a value the site recorded wrongly).",
        ),
    ] = None,
    stacks: Annotated[
        int, typer.Option("--stacks", metavar="N", help="Starting stack in points.")
    ] = 200,
    tables: Annotated[
        int, typer.Option("--tables", metavar="N", help="Tables played side by side.")
    ] = 1,
    stake: Annotated[
        str, typer.Option("--stake", metavar="STAKE", help="Stake per point.")
    ] = "0.10 EUR",
    jobs: Annotated[
        int, typer.Option("--jobs", help="Processes (0: a writer process for long runs).")
    ] = 0,
) -> None:
    """Write simulated hand histories (format v1) of plausible play.

    Examples:

    \b
      ofc-audit simulate --hands 200 --seed 7 --out sim.txt
      ofc-audit simulate --players 2 --hands 20000 --tables 8 --stake "1 USD" --out big.txt
      ofc-audit simulate --faults 0.1 --view player:alice | ofc-audit audit -
    """
    from ..simulate.simulator import run

    ruleset = load_ruleset(rules, variant=variant, fantasyland=fantasyland)
    progress = Progress(sys.stderr, hands, every=max(1, min(1000, hands // 100)),
                        what="simulating", unit="hands")
    try:
        stats = run(ruleset, out, players=players, hands=hands, seed=seed, view=view,
                    faults=faults, stacks=stacks, tables=tables, stake=stake, jobs=jobs,
                    fault_kinds=fault_kinds, faults_per_hand=faults_per_hand,
                    progress=progress.tick)
    except (BrokenPipeError, StandardOutputFull):
        raise  # standard output's: the boundary says so (or, for a closed pipe, ends quietly)
    except OSError as error:
        raise CannotWrite.of(error, "standard output" if out == "-" else out) from None
    finally:
        progress.done()
    typer.echo(stats, err=True)
