"""``ofc-audit review``: what each placement cost, in points (docs/CLI.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..engines import Engine
from .app import app
from .errors import EXIT_FINDINGS, EXIT_OK, Command, fail
from .options import (
    ArchivedPathsArgument,
    ArchiveReadOption,
    EngineOption,
    JobsOption,
    JsonOption,
    RulesOption,
    SchedulerOption,
    check_runner,
    every_hand_once,
    load_ruleset,
    runner_for,
    survey,
)

if TYPE_CHECKING:
    from ..audit.driver import Runner, StdinMode
    from ..audit.inputs import Inputs
    from ..game.ruleset import Ruleset
    from ..history.survey import HandIndex
    from ..review.run import HandReview, Reviewable, ReviewOptions, Wanted


@app.command("review", cls=Command, short_help="Grade every placement: what each one cost.")
def review(
    paths: ArchivedPathsArgument = None,
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
    engine: EngineOption = Engine.LOCAL,
    scheduler: SchedulerOption = None,
    as_json: JsonOption = False,
    archive: ArchiveReadOption = None,
    html: Annotated[
        str | None,
        typer.Option("--html", metavar="PAGE.html",
                     help="With --hand: write the hand's page (its dispute page with the play "
                     "review, one self-contained HTML file) there; - is standard output."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", metavar="DIR", show_default=False,
                     help="Also write a report of the review into DIR: review.html, "
                     "summary.md, review.json, charts/, hands/."),
    ] = None,
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
      ofc-audit review sample_histories/pineapple_3p_progressive_fl_worked_example.txt
      ofc-audit review sample_histories/ --player alice --rollouts 2000
      ofc-audit review --json --jobs 2 --seed 7 session.txt > review.json
      ofc-audit review --archive club.duckdb --player alice --engine dask
      ofc-audit review sample_histories/ --hand PD-1001 --html PD-1001.html
      ofc-audit review sample_histories/ --player alice --out review_report/
    """
    from ..audit.progress import Progress
    from ..audit.writer import copies_json
    from ..review.decisions import SkipReason
    from ..review.json_doc import ReviewTotals, write_review_json
    from ..review.ledger import ReviewLedger
    from ..review.run import ReviewOptions, Wanted, review_hands
    from ..review.terminal import render_review

    if html is not None and hand is None:
        fail("--html needs --hand ID (the page is one hand's)")
    if html is not None and as_json:
        fail("--html and --json: choose one")
    if html is not None and (archive is not None or "-" in (paths or [])):
        fail("--html reads the history twice (the review, then the page): give a file, "
             "not standard input or an archive")
    ruleset = load_ruleset(rules)
    if archive is not None and paths:
        fail("--archive FILE reads the hands stored there: give no PATH with it "
             "(ofc-audit import PATH adds files to the archive)")
    if archive is None and not paths:
        from .archive_commands import no_paths

        no_paths()
    stdin = check_runner(engine, jobs, scheduler)
    wanted = Wanted(ruleset, frozenset(player) if player else None,
                    hand.lstrip("#") if hand else None)
    options = ReviewOptions(rollouts=rollouts, seed=seed, fl_value=fl_value, blunder=blunder)
    # The paths are looked at before any worker starts.
    inputs = survey(paths, None, None, None, None).inputs if paths else None
    with runner_for(engine, jobs, scheduler) as runner:
        found, index = _reviewable(inputs, archive, wanted, player, runner, stdin)
        clashes = bool(index.conflicts)
        progress = Progress(sys.stderr, sum(1 for h in found.hands if h.decisions), every=1,
                            what="reviewing", unit="hands")
        reviews = review_hands(found.hands, options, runner, progress.tick)
        ledger = ReviewLedger(options) if out is not None else None
        if ledger is not None:
            reviews = ledger.watch(reviews)
        totals = ReviewTotals(options)
        kept: list[HandReview] = []
        try:
            if as_json:
                write_review_json(reviews, totals, sys.stdout, copies_json(index))
            else:
                for item in reviews:
                    totals.add(item)
                    if html is not None:
                        kept.append(item)
        finally:
            progress.done()
    if html is not None and wanted.hand_id is not None and paths:
        _hand_page(paths, wanted.hand_id, ruleset, html, options, kept)
    if ledger is not None and out is not None:
        from ..present.review_report import write_review_report

        write_review_report(out, ledger, ruleset)
    if not as_json and html != "-":
        typer.echo(render_review(totals))
        if out is not None:
            typer.echo(f"\nReview report written to {out}/ (review.html, summary.md, "
                       "review.json, charts/, hands/)")
    # Review findings are not violations; input the review had to leave out for what it
    # is (rejected, with violations, incomplete) is, as in the audit; so is a conflict in
    # an archive.
    faulty = clashes or any(s.reason is not SkipReason.HIDDEN for s in totals.skipped)
    raise typer.Exit(EXIT_FINDINGS if faulty else EXIT_OK)


def _reviewable(inputs: Inputs | None, archive: str | None, wanted: Wanted,
                player: list[str] | None, runner: Runner, stdin: StdinMode
                ) -> tuple[Reviewable, HandIndex]:
    """The hands to review: read and replayed from the files of ``inputs`` by ``runner``
    (the one driver), or from the archive; the input's duplicates and conflicts. Fails
    (exit 2) for nothing to read, an unknown --player or --hand; exits 1 when --hand names
    a hand whose copies differ."""
    from ..audit.driver import open_sources
    from ..audit.filters import Filters, Selection
    from ..audit.progress import Progress, total_size
    from ..review.run import read_reviewable

    conflicted: set[str] = set()  # the ids whose copies differ (files only)
    if archive is not None:
        from .archive_commands import review_archive

        found, index = review_archive(archive, wanted)
        clashes = bool(index.conflicts)
        where = f"the archive {archive}"
        if not found.hands and not found.seen:
            fail(f"no hands in {where}")
    else:
        assert inputs is not None
        where = inputs.where()
        reading = Progress(sys.stderr, total_size(inputs.files))
        try:
            with open_sources(inputs.paths, stdin) as sources:
                # Every hand once, as the audit reads the files: a duplicate's first copy,
                # no copy of a conflict (docs/CLI.md).
                index = every_hand_once(sources)
                found = read_reviewable(sources, wanted, runner, reading, index)
        finally:
            reading.done()
        clashes = bool(index.conflicts)
        conflicted = {conflict.hand_id for conflict in index.conflicts}
        if not found.hands and not found.seen and not clashes:
            # Not even a rejected entry: nothing here is a hand history (docs/CLI.md). A file
            # whose hands are all rejected is one (exit 1, the rejections listed).
            inputs.check_read(0, [])
    selection = Selection(Filters.of(player), players_seen=found.seen)
    if (unknown := selection.unknown()) is not None:
        fail(unknown)
    if wanted.hand_id is not None and not any(h.hand_id == wanted.hand_id
                                              for h in found.hands):
        if wanted.hand_id in conflicted:
            # As audit --hand: the hand is there, but its copies differ, so it is listed
            # (above) and neither copy is scored or reviewed: a finding, not a usage error.
            typer.echo(f"ofc-audit: no review of #{wanted.hand_id}: its copies differ, so "
                       "neither is scored", err=True)
            raise typer.Exit(EXIT_FINDINGS)
        fail(f"no hand #{wanted.hand_id} in {where}")
    return found, index


def _hand_page(paths: list[str], wanted: str, ruleset: Ruleset, target: str,
               options: ReviewOptions, reviews: list[HandReview]) -> None:
    """``review --hand ID --html PAGE``: the hand's dispute page with its play review."""
    from ..present.review_page import write_reviewed_hand_page

    write_reviewed_hand_page(paths, wanted, ruleset, target, options, reviews)
    if target != "-":
        typer.echo(f"ofc-audit: wrote the reviewed page of #{wanted} to {target}", err=True)
