"""``ofc-audit audit PATH...``: every hand replayed and checked, compared with what the
site recorded; ``--hand ID`` explains one hand (``--html PAGE``: its dispute page)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Literal, NoReturn

import typer

from ..audit.filters import FilterError, Selection
from ..audit.inputs import Scope
from ..audit.progress import Progress, total_size
from ..common.errors import UsageError
from ..engines import Engine
from ..game.ruleset import Ruleset
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
    held,
    load_ruleset,
    print_json,
    runner_for,
    survey,
)

if TYPE_CHECKING:
    from ..audit.driver import Runner
    from ..audit.writer import AuditWriter
    from ..history.sources import Source
    from ..history.survey import HandIndex
    from ..replay.results import HandResult


@app.command(cls=Command, short_help="Replay and check every hand of histories.")
def audit(
    paths: ArchivedPathsArgument = None,
    rules: RulesOption = "standard",
    as_json: JsonOption = False,
    hand: Annotated[
        str | None,
        typer.Option("--hand", metavar="ID",
                     help="Explain one hand step by step (its ID, without '#')."),
    ] = None,
    player: PlayerOption = None,
    table: TableOption = None,
    since: SinceOption = None,
    until: UntilOption = None,
    engine: EngineOption = Engine.LOCAL,
    scheduler: SchedulerOption = None,
    exit_zero: ExitZeroOption = False,
    jobs: JobsOption = 1,
    html: Annotated[
        str | None,
        typer.Option("--html", metavar="PAGE.html",
                     help="With --hand: write the hand's dispute page (one self-contained "
                     "HTML file) there; - is standard output."),
    ] = None,
    archive: ArchiveReadOption = None,
) -> None:
    """Replay every hand, check every rule, compare with the recorded SUMMARY.

    Prints one line per hand (and its findings), then the totals. Exit status: 0 all good,
    1 violations, mismatches or rejected hands, 2 usage error, unreadable input or no hand
    history found.

    Examples:

    \b
      ofc-audit audit sample_histories/
      ofc-audit audit sample_histories/ --player alice --since 2026-11-29
      ofc-audit audit sample_histories/ --hand PD-1001
      ofc-audit audit --json --jobs 2 big_folder/ > audit.json
    """
    # The reader and the replay are imported by the commands that read histories, not by
    # every start of ofc-audit.
    from ..audit.driver import find_hand, hand_index, open_sources

    ruleset = load_ruleset(rules)
    if archive is not None:
        from .archive_commands import archive_scope, audit_archive, check_archive_run

        check_archive_run(paths, engine, hand=hand)
        audit_archive(archive, ruleset, archive_scope(player, table, since, until), as_json,
                      exit_zero)
    if not paths:
        from .archive_commands import no_paths

        no_paths()
    stdin = check_runner(engine, jobs, scheduler)
    scope = survey(paths, player, table, since, until)
    wanted = hand.lstrip("#") if hand else None
    if wanted is not None and scope.filters.active:
        raise UsageError("--hand explains one hand: --player, --table, --since and --until "
                         "do not apply")
    if html is not None:
        if wanted is None:
            raise UsageError("--html needs --hand ID (the page is one hand's)")
        if as_json:
            raise UsageError("--html and --json: choose one")
        _dispute_page(paths, wanted, ruleset, html, exit_zero)
    with open_sources(paths, stdin) as sources, runner_for(engine, jobs, scheduler) as runner:
        if wanted is not None:
            index = hand_index(sources)
            found = find_hand(sources, ruleset, wanted, runner, index)
        else:
            clean = _audit(sources, ruleset, runner, scope, as_json)
    if wanted is not None:
        _explained(found, wanted, paths, as_json, exit_zero, index.about(wanted))
    finish(EXIT_OK if clean else EXIT_FINDINGS, exit_zero)


def _audit(sources: list[Source], ruleset: Ruleset, runner: Runner, scope: Scope,
           as_json: bool) -> bool:
    """The audit written to standard output; whether it found nothing wrong."""
    from ..audit.driver import write_audit
    from ..present.audit_text import audit_hand_text

    selection = Selection(scope.filters) if scope.filters.active else None
    render: Literal["json", "text"] = "json" if as_json else "text"
    progress = Progress(sys.stderr, total_size(scope.inputs.files if scope.inputs else ()))
    try:
        with held(scope.filters) as out:
            writer = write_audit(sources, ruleset, out, render, runner,
                                 render_hand=audit_hand_text, selection=selection,
                                 progress=progress)
            _after_audit(writer, scope, selection, as_json)
    finally:
        progress.done()
    return writer.totals.clean


def _after_audit(writer: AuditWriter, scope: Scope, selection: Selection | None,
                 as_json: bool) -> None:
    """Once the audit is written: an unknown name fails (the spooled output is dropped), no
    hand history at all fails, a filter note ends the text."""
    if selection is not None and (unknown := selection.unknown()):
        raise FilterError(unknown)
    if scope.inputs is not None:
        scope.inputs.check_read(writer.read, writer.totals.rejections,
                                writer.totals.conflicts)
    if selection is not None:
        for warning in selection.warnings():
            typer.echo(f"ofc-audit: warning: {warning}", err=True)
        if not as_json:
            writer.out.write(scope.filters.sentence() + "\n")


def _explained(found: list[HandResult], wanted: str, paths: list[str], as_json: bool,
               exit_zero: bool, index: HandIndex) -> NoReturn:
    """``audit --hand ID``: the hand with that id explained step by step (its first copy;
    ``index``: the id's duplicates, listed after it, or its conflict: no copy explained)."""
    from ..audit.json_doc import hand_json
    from ..audit.writer import conflict_json, duplicate_json, index_lines
    from ..present.explain import explain_hand

    if not found and not index.conflicts:
        raise UsageError(f"no hand #{wanted} in {', '.join(paths)}")
    if as_json:
        document: dict[str, object] = {"hands": [dict(hand_json(r), explanation=[
            {"line": s.line, "text": s.text} for s in r.log]) for r in found]}
        # Only when there are some: the document of a hand read once is as it always was.
        if index.duplicates:
            document["duplicates"] = [duplicate_json(d) for d in index.duplicates]
        if index.conflicts:
            document["conflicts"] = [conflict_json(c) for c in index.conflicts]
        print_json(document)
    else:
        typer.echo("\n\n".join([explain_hand(r) for r in found] + (
            ["\n".join(index_lines(index))] if not index.clean else [])))
    bad = any(not r.clean for r in found) or bool(index.conflicts)
    finish(EXIT_FINDINGS if bad else EXIT_OK, exit_zero)


def _dispute_page(paths: list[str], wanted: str, ruleset: Ruleset, target: str,
                  exit_zero: bool) -> NoReturn:
    """``audit --hand ID --html PAGE``: the hand's dispute page, and where it went."""
    from ..audit.writer import index_lines
    from ..present.dispute import write_dispute_page

    done = write_dispute_page(paths, wanted, ruleset, target)
    for line in index_lines(done.index):
        typer.echo(f"ofc-audit: {line}", err=True)
    if not done.written:
        typer.echo(f"ofc-audit: no dispute page of #{wanted}: its copies differ, so neither "
                   "is scored", err=True)
    elif target != "-":
        typer.echo(f"ofc-audit: wrote the dispute page of #{wanted} to {target}", err=True)
    finish(EXIT_FINDINGS if done.bad else EXIT_OK, exit_zero)
