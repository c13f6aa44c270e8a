"""``ofc-audit session PATH...``: session results per player, who owes whom, and the
reports under ``--out``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from ..audit.progress import Progress, total_size
from ..common.errors import CannotWrite, UsageError
from ..engines import Engine
from ..history.reader import HistoryParseError
from .app import app
from .errors import EXIT_FINDINGS, EXIT_OK, Command, finish
from .options import (
    ArchivedPathsArgument,
    ArchiveReadOption,
    EngineOption,
    ExitZeroOption,
    JobsOption,
    JsonOption,
    PlayerOption,
    RulesOption,
    SchedulerOption,
    SinceOption,
    TableOption,
    UntilOption,
    check_runner,
    every_hand_once,
    load_ruleset,
    runner_for,
    survey,
)

if TYPE_CHECKING:
    from collections.abc import Sequence
    from contextlib import AbstractContextManager

    from ..audit.driver import Runner, StdinMode
    from ..audit.inputs import Scope
    from ..game.ruleset import Ruleset
    from ..present.report_view import ReportOptions
    from ..review.ledger import ReviewLedger
    from ..review.run import ReviewOptions
    from ..session.tables import SessionTables


@app.command(cls=Command, short_help="Session results, who owes whom, and reports.")
def session(
    paths: ArchivedPathsArgument = None,
    out: Annotated[
        Path, typer.Option("--out", metavar="DIR",
                           help="Folder for the tables, charts and reports.")
    ] = Path("reports"),
    rules: RulesOption = "standard",
    as_json: JsonOption = False,
    owes: Annotated[
        bool,
        typer.Option("--owes", help="Also print who owes whom pair by pair (the fewest "
                     "payments that settle the session are always printed)."),
    ] = False,
    player: PlayerOption = None,
    table: TableOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    engine: EngineOption = Engine.LOCAL,
    scheduler: SchedulerOption = None,
    exit_zero: ExitZeroOption = False,
    jobs: JobsOption = 1,
    min_hands: Annotated[
        int, typer.Option("--min-hands", min=1,
                          help="Hands a rate needs before the report shows or draws it.")
    ] = 10,
    top: Annotated[
        int, typer.Option("--top", min=1,
                          help="Players named on the results charts (at most 28, each in a look of "
                               "its own); the others are grey.")
    ] = 8,
    hand_pages: Annotated[
        int,
        typer.Option("--hand-pages", min=0, metavar="N",
                     help="Dispute pages written at most (OUT/hands/ID.html, one per hand "
                     "with a violation, a mismatch or something unverifiable); the rest "
                     "are listed without a page."),
    ] = 1000,
    archive: ArchiveReadOption = None,
    review: Annotated[
        bool,
        typer.Option("--review", help="Review every hand's play as ofc-audit review does "
                     "(its defaults, or --rollouts, --seed, --fl-value, --blunder): "
                     "report.html gains the review's sections, OUT its review.json and "
                     "charts, and each page under OUT/hands/ its hand's play review."),
    ] = False,
    rollouts: Annotated[
        int | None,
        typer.Option("--rollouts", min=1, metavar="N", show_default=False,
                     help="With --review: rollouts per candidate at most (default 1000)."),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, metavar="N", show_default=False,
                     help="With --review: the rollouts' seed (default 1; the same seed, the "
                     "same review, for any --jobs)."),
    ] = None,
    fl_value: Annotated[
        float | None,
        typer.Option("--fl-value", metavar="POINTS", show_default=False,
                     help="With --review: what entering or staying in Fantasyland is worth, "
                     "in points (default 15)."),
    ] = None,
    blunder: Annotated[
        float | None,
        typer.Option("--blunder", metavar="POINTS", min=0.0, show_default=False,
                     help="With --review: a decision that costs at least this is a blunder "
                     "(default 3)."),
    ] = None,
) -> None:
    """Session results per player, who owes whom, and reports under --out.

    Money is what moved after the stack caps, at each table's stake, per currency
    (currencies are never added together); "points" and "points money" are before the
    caps. Writes report.html, summary.md, session.json, charts/ and every table as CSV,
    Parquet and JSON (owes.csv, payments.csv among them).

    Examples:

    \b
      ofc-audit session sample_histories/
      ofc-audit session sample_histories/ --owes --out club_reports/
      ofc-audit session sample_histories/ --player alice --since "2026-11-29 21:00"
      ofc-audit session --json --table "Tashkent 3" sample_histories/
    """
    # The report's modules (pandas, matplotlib, jinja2) are imported by the command that
    # needs them, not by every start of ofc-audit.
    from ..audit.driver import open_sources, session_tables
    from ..present.hand_pages import paged_hands
    from ..present.report import finish_session
    from ..present.report_view import ReportOptions

    options = ReportOptions(min_hands=min_hands, top=top)
    settings = {"--rollouts": rollouts, "--seed": seed, "--fl-value": fl_value,
                "--blunder": blunder}
    if not review and any(value is not None for value in settings.values()):
        given = ", ".join(name for name, value in settings.items() if value is not None)
        raise UsageError(f"{given} set how the play is reviewed: add --review")
    review_options = (_review_options(rollouts, seed, fl_value, blunder) if review
                      else None)
    ruleset = load_ruleset(rules)
    if archive is not None and review:
        raise UsageError("--review reads the histories: give their paths, not --archive")
    if review and "-" in (paths or ()):
        raise UsageError("--review reads the histories a second time: give files, not "
                         "standard input")
    if archive is not None:
        from .archive_commands import archive_scope, check_archive_run, session_archive

        check_archive_run(paths, engine)
        session_archive(archive, ruleset, out, as_json,
                        archive_scope(player, table, since, until, pairwise=owes), options,
                        hand_pages, exit_zero)
    if not paths:
        from .archive_commands import no_paths

        no_paths()
    stdin = check_runner(engine, jobs, scheduler)
    scope = survey(paths, player, table, since, until, pairwise=owes)
    progress = Progress(sys.stderr, total_size(scope.inputs.files if scope.inputs else ()))
    rejections: list[HistoryParseError] = []
    if engine is Engine.LOCAL and not scope.filters.active and not review:
        _session_stored(paths, stdin, ruleset, engine, jobs, scheduler, out, as_json, options,
                        scope, progress, rejections, hand_pages, exit_zero)
    try:
        with open_sources(paths, stdin) as sources, \
                runner_for(engine, jobs, scheduler) as runner:
            index = every_hand_once(sources)
            tables = session_tables(sources, ruleset, runner, progress=progress,
                                    rejections=rejections, on_rejection=_say_rejected,
                                    index=index)
            if engine is Engine.DASK:
                _write_dataset(runner, tables, out)
    finally:
        progress.done()
    if scope.inputs is not None:
        scope.inputs.check_read(len(tables.hands), rejections, len(index.conflicts))
    ledger = (_review_ledger(scope.inputs.files, ruleset, runner_for(engine, jobs, scheduler),
                             player, review_options,
                             paged_hands(tables.hands, hand_pages) if not player
                             else frozenset())
              if review_options is not None and scope.inputs is not None else None)
    findings = finish_session(tables, out, as_json, sys.stdout, sys.stderr,
                              jobs if engine is Engine.LOCAL else 1, options, scope=scope,
                              progress=progress, ruleset=ruleset, hand_pages=hand_pages,
                              index=index, review=review_options, review_ledger=ledger)
    finish(EXIT_FINDINGS if findings or index.conflicts else EXIT_OK, exit_zero)


def _review_options(rollouts: int | None, seed: int | None, fl_value: float | None,
                    blunder: float | None) -> ReviewOptions:
    """``session --review``'s settings: those given, ``ofc-audit review``'s defaults for
    the others."""
    from ..review.run import ReviewOptions

    default = ReviewOptions()
    return ReviewOptions(
        rollouts=default.rollouts if rollouts is None else rollouts,
        seed=default.seed if seed is None else seed,
        fl_value=default.fl_value if fl_value is None else fl_value,
        blunder=default.blunder if blunder is None else blunder)


def _review_ledger(files: Sequence[str], ruleset: Ruleset,
                   runner: AbstractContextManager[Runner], players: list[str] | None,
                   options: ReviewOptions,
                   keep: frozenset[tuple[str, int]] = frozenset()) -> ReviewLedger:
    """``session --review``: every hand of the files reviewed (by ``players`` only, when
    given) as ``ofc-audit review`` does with ``options``, added up for the report; the
    whole reviews of the hands ``keep`` names are kept for their pages (only without
    ``players``: a page reviews every player of its hand)."""
    from ..audit.progress import metered_hands
    from ..review.ledger import ReviewLedger
    from ..review.run import review_hands, reviewable_hands

    reading = Progress(sys.stderr, total_size(files))
    try:
        hands = list(reviewable_hands(metered_hands(files, reading), ruleset,
                                      set(players) if players else None))
    finally:
        reading.done()
    ledger = ReviewLedger(options, keep)
    progress = Progress(sys.stderr, sum(1 for h in hands if h.decisions), every=1,
                        what="reviewing", unit="hands")
    try:
        with runner as valuing:
            for _ in ledger.watch(review_hands(hands, options, valuing, progress.tick)):
                pass
    finally:
        progress.done()
    return ledger


def _session_stored(paths: list[str], stdin: StdinMode, ruleset: Ruleset, engine: Engine,
                    jobs: int, scheduler: str | None, out: Path, as_json: bool,
                    options: ReportOptions, scope: Scope, progress: Progress,
                    rejections: list[HistoryParseError], hand_pages: int,
                    exit_zero: bool) -> NoReturn:
    """``session`` on files, unfiltered: the tables' pieces go to Parquet files in a
    temporary folder as the replay makes them, and the report is made from them as from an
    archive (``archive.spill``): the process never holds a whole per-hand table. (The
    filters and the Dask engine's datasets work on the whole tables.)"""
    from ..archive.spill import SpilledSession
    from ..audit.driver import open_sources, session_pieces
    from ..present.report import finish_session
    from .archive_commands import stored_report

    with SpilledSession() as spill:
        try:
            with open_sources(paths, stdin) as sources, \
                    runner_for(engine, jobs, scheduler) as runner:
                index = every_hand_once(sources)
                hands, rejected = session_pieces(
                    sources, ruleset, runner, spill.sink, progress=progress,
                    rejections=rejections, on_rejection=_say_rejected, index=index)
        finally:
            progress.done()
        if scope.inputs is not None:
            scope.inputs.check_read(hands, rejections, len(index.conflicts))
        clash = bool(index.conflicts)
        if not hands:  # nothing to store: the empty tables, with the rejected text
            from dataclasses import replace

            from ..session.tables import TableBuilder

            findings = finish_session(
                replace(TableBuilder().build(), rejected=rejected), out, as_json, sys.stdout,
                sys.stderr, jobs, options, scope=scope, progress=progress, ruleset=ruleset,
                hand_pages=hand_pages, index=index)
            finish(EXIT_FINDINGS if findings or clash else EXIT_OK, exit_zero)
        con = spill.connect(rejected)
        try:
            tables, precomputed = stored_report(con, spill.folder)
            findings = finish_session(tables, out, as_json, sys.stdout, sys.stderr, jobs,
                                      options, scope=scope, progress=progress,
                                      ruleset=ruleset, hand_pages=hand_pages,
                                      index=index, precomputed=precomputed)
        finally:
            con.close()
    finish(EXIT_FINDINGS if findings or clash else EXIT_OK, exit_zero)


def _say_rejected(error: HistoryParseError) -> None:
    """Each rejection on standard error as it comes (they are in the report too)."""
    sys.stderr.write(f"ofc-audit: rejected {error.file}:{error.line}:{error.column}: "
                     f"{error.message}\n")


def _write_dataset(runner: Runner, tables: SessionTables, out: Path) -> None:
    """``--engine dask``: the tables also as Parquet datasets under ``out/dataset/``,
    written by the workers (a remote cluster's workers have their own current folder)."""
    from ..engines.dask_engine import DaskRunner, write_dataset

    assert isinstance(runner, DaskRunner)
    dataset = out.absolute() / "dataset"
    try:
        write_dataset(runner.client, tables, dataset)
    except OSError as error:
        raise CannotWrite.of(error, str(dataset)) from None
    sys.stderr.write(f"ofc-audit: dask engine: Parquet datasets of the tables in {dataset}/\n")
