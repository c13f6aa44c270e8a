"""``ofc-audit review``: what each placement cost, in points (docs/CLI.md)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .app import app
from .errors import EXIT_FINDINGS, EXIT_OK, Command, fail
from .options import JobsOption, JsonOption, PathsArgument, RulesOption, load_ruleset, survey


@app.command("review", cls=Command, short_help="Grade every placement: what each one cost.")
def review(
    paths: PathsArgument,
    player: Annotated[
        list[str] | None,
        typer.Option("--player", metavar="NAME", show_default=False,
                     help="Review this player's decisions (repeatable; default every "
                     "player's)."),
    ] = None,
    hand: Annotated[
        str | None,
        typer.Option("--hand", metavar="ID", help="Review one hand (its ID, without '#')."),
    ] = None,
    rollouts: Annotated[
        int,
        typer.Option("--rollouts", min=1, metavar="N",
                     help="Rollouts per candidate at most (fewer once the best is clear)."),
    ] = 1000,
    seed: Annotated[
        int, typer.Option("--seed", min=0, metavar="N",
                          help="Same seed, same output, for any --jobs.")
    ] = 1,
    fl_value: Annotated[
        float,
        typer.Option("--fl-value", metavar="POINTS",
                     help="What entering or staying in Fantasyland is worth, in points."),
    ] = 15.0,
    blunder: Annotated[
        float,
        typer.Option("--blunder", metavar="POINTS", min=0.0,
                     help="A decision that costs at least this is a blunder."),
    ] = 3.0,
    rules: RulesOption = "standard",
    jobs: JobsOption = 1,
    as_json: JsonOption = False,
) -> None:
    """Grade every decision in the histories: what each placement cost, in points.

    Each street placement is valued against every legal alternative by rollouts from what
    the player knew then (exactly when nothing is left to chance), each Fantasyland setting
    against the best setting. Prints per player the decisions reviewed, the points given
    away, blunders and luck, then the costliest decisions and what was left out (hands with
    violations, rejected or incomplete hands, decisions whose cards are hidden). Exit
    status: 0 reviewable input, 1 some hands rejected, with violations or incomplete, 2
    usage error or nothing to read.

    Examples:

    \b
      ofc-audit review sample_histories/pineapple_3p_review.txt
      ofc-audit review sample_histories/ --player alice --rollouts 2000
      ofc-audit review --json --jobs 2 --seed 7 session.txt > review.json
    """
    from ..audit.filters import Filters, Selection
    from ..audit.progress import Progress, metered_hands, total_size
    from ..audit.writer import index_lines
    from ..history.sources import STDIN
    from ..history.survey import HandIndex
    from ..review.decisions import SkipReason
    from ..review.json_doc import ReviewTotals, write_review_json
    from ..review.run import ReviewOptions, review_hands, reviewable_hands
    from ..review.terminal import render_review

    ruleset = load_ruleset(rules)
    inputs = survey(paths, None, None, None, None).inputs
    assert inputs is not None
    wanted_hand = hand.lstrip("#") if hand else None
    names = set(player) if player else None
    seen: set[str] = set()
    reading = Progress(sys.stderr, total_size(inputs.files))
    try:
        # Every hand once, as the audit reads the files: a duplicate's first copy, no copy of
        # a conflict (docs/CLI.md).
        index = HandIndex.of(file for file in inputs.files if file != STDIN)
        hands = list(reviewable_hands(index.keep(metered_hands(inputs.files, reading)),
                                      ruleset, names, wanted_hand, seen))
    except OSError as error:
        fail(f"cannot read {error.filename or 'input'}: {error.strerror or error}")
    finally:
        reading.done()
    for line in index_lines(index):
        typer.echo(f"ofc-audit: {line}", err=True)
    if not hands and not seen and not index.conflicts:
        # Not even a rejected entry: nothing here is a hand history (docs/CLI.md). A file whose
        # hands are all rejected is one (exit 1, the rejections listed).
        inputs.check_read(0, [])
    selection = Selection(Filters.of(player), players_seen=seen)
    if (unknown := selection.unknown()) is not None:
        fail(unknown)
    if wanted_hand is not None and not any(h.hand_id == wanted_hand for h in hands):
        fail(f"no hand #{wanted_hand} in {inputs.where()}")
    options = ReviewOptions(rollouts=rollouts, seed=seed, fl_value=fl_value, blunder=blunder)
    progress = Progress(sys.stderr, sum(1 for h in hands if h.decisions), every=1,
                        what="reviewing", unit="hands")
    reviews = review_hands(hands, options, jobs, progress.tick)
    totals = ReviewTotals(options)
    try:
        if as_json:
            write_review_json(reviews, totals, sys.stdout)
        else:
            for item in reviews:
                totals.add(item)
    finally:
        progress.done()
    if not as_json:
        typer.echo(render_review(totals))
    # Review findings are not violations; input the review had to leave out for what it
    # is (rejected, with violations, incomplete) is, as in the audit.
    faulty = any(s.reason is not SkipReason.HIDDEN for s in totals.skipped) or bool(
        index.conflicts)
    raise typer.Exit(EXIT_FINDINGS if faulty else EXIT_OK)
