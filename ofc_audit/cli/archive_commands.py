"""The archive on the command line (docs/CLI.md, "ofc-audit import"):
``ofc-audit import``, ``ofc-audit watch``, and ``audit``/``session``/``review`` with
``--archive FILE`` (:func:`audit_archive`, :func:`session_archive`, :func:`review_archive`,
called by those commands)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, NoReturn

import typer

from ..audit.filters import FilterError, Filters
from ..audit.inputs import Inputs, Scope
from ..common.errors import UsageError
from ..engines import Engine
from ..game.ruleset import Ruleset
from .app import app
from .errors import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    Command,
    Terminated,
    fail,
    finish,
    interrupted,
)
from .options import (
    EngineOption,
    ExitZeroOption,
    JobsOption,
    RulesOption,
    SchedulerOption,
    check_runner,
    held,
    load_ruleset,
    runner_for,
)

if TYPE_CHECKING:
    import duckdb

    from ..archive.importer import ImportReport
    from ..history.survey import HandIndex
    from ..present.report import Precomputed
    from ..present.report_view import ReportOptions
    from ..review.run import Reviewable, Wanted
    from ..session.tables import SessionTables

#: The archive when no --archive is given: $OFC_AUDIT_ARCHIVE, else this file here.
DEFAULT_ARCHIVE = "ofc-archive.duckdb"
ENVIRONMENT = "OFC_AUDIT_ARCHIVE"

ArchiveOption = Annotated[
    str | None,
    typer.Option("--archive", metavar="FILE", show_default=False,
                 help=f"The archive (default ${ENVIRONMENT}, else ./{DEFAULT_ARCHIVE})."),
]


def archive_path(given: str | None) -> str:
    return given or os.environ.get(ENVIRONMENT) or DEFAULT_ARCHIVE


def _open(path: str, ruleset: Ruleset, create: bool = False,
          read_only: bool = False, wait_busy: bool = False) -> duckdb.DuckDBPyConnection:
    """The archive, or the command ends saying why; ``wait_busy``: an archive another
    process has open raises :class:`~ofc_audit.archive.schema.ArchiveBusy` (``watch``
    tries again)."""
    from ..archive.schema import ArchiveBusy, ArchiveError, open_archive

    try:
        return open_archive(path, ruleset, create=create, read_only=read_only)
    except ArchiveError as error:
        if wait_busy and isinstance(error, ArchiveBusy):
            raise
        fail(str(error))


def _render_text() -> Callable[..., str]:
    from ..present.audit_text import audit_hand_text

    return audit_hand_text


def _report(report: ImportReport) -> None:
    for line in report.lines():
        typer.echo(line)


@app.command("import", cls=Command, short_help="Store histories in an archive, once.")
def import_command(
    paths: Annotated[
        list[str],
        typer.Argument(metavar="PATH", show_default=False,
                       help="History files or folders (every history in them, any name)."),
    ],
    archive: ArchiveOption = None,
    rules: RulesOption = "standard",
    final: Annotated[
        bool,
        typer.Option("--final", help="The files are finished: a last hand that stops "
                     "before it is over is imported as it stands, not held back."),
    ] = False,
    engine: EngineOption = Engine.LOCAL,
    scheduler: SchedulerOption = None,
    jobs: JobsOption = 1,
    exit_zero: ExitZeroOption = False,
) -> None:
    """Read, replay and store every hand in an archive, once.

    A file already imported and unchanged is skipped; a file that grew is read from where
    the last import stopped (a last hand cut mid-way waits for the next import); a hand
    already in the archive is a duplicate (counted once) or, with other text, a conflict
    (neither copy scored). Each file is imported whole or not at all; with --jobs N or
    --engine dask a file read from its start is replayed by N workers (the archive holds
    the same rows whatever the runner). Then audit and
    session read the archive: --archive FILE instead of paths. Exit status 1 when an entry
    was rejected or a hand conflicts with another copy (both listed), 2 on a usage error.

    Examples:

    \b
      ofc-audit import sample_histories/
      ofc-audit import ~/histories/ --archive club.duckdb --jobs 2
      ofc-audit session --archive club.duckdb --player alice
    """
    import duckdb

    ruleset = load_ruleset(rules)
    for path in paths:
        if path == "-":
            fail("the archive imports files; save standard input to a file first")
        if not Path(path).exists():
            fail(f"{path}: no such file or folder")
    from ..archive.importer import Importer

    Inputs.survey(paths).check_survey()
    check_runner(engine, jobs, scheduler)
    where = archive_path(archive)
    con = _open(where, ruleset, create=True)
    try:
        with runner_for(engine, jobs, scheduler) as runner:
            importer = Importer(
                con, ruleset, _render_text(), final=final,
                on_file=lambda name: typer.echo(f"importing {name}", err=True),
                runner=None if engine is Engine.LOCAL and jobs == 1 else runner)
            report = importer.import_paths(paths)
    except OSError as error:
        fail(f"cannot read {error.filename or 'input'}: {error.strerror or error}")
    except duckdb.Error as error:
        fail(f"{where}: {error}")
    finally:
        con.close()
    _report(report)
    finish(EXIT_OK if report.clean else EXIT_FINDINGS, exit_zero)


@app.command("watch", cls=Command, short_help="Import new and growing files as they come.")
def watch_command(
    folder: Annotated[
        str, typer.Argument(metavar="DIR", show_default=False, help="The folder to watch.")
    ],
    archive: ArchiveOption = None,
    rules: RulesOption = "standard",
) -> None:
    """Import new and growing history files of DIR as they are written, until interrupted
    (Ctrl-C).

    Imports what is there first, then each change; a hand being written is imported once
    it is whole.

    Examples:

    \b
      ofc-audit watch ~/histories/ --archive club.duckdb
    """
    from ..archive.schema import ArchiveBusy
    from ..archive.watch import watch

    if not Path(folder).is_dir():
        fail(f"{folder}: no such folder")
    ruleset = load_ruleset(rules)
    where = archive_path(archive)
    try:
        try:
            _open(where, ruleset, create=True, wait_busy=True).close()
        except ArchiveBusy:
            pass  # another command has it open: watch says so and imports once it is free
        watch(folder, lambda: _open(where, ruleset, wait_busy=True), ruleset, _render_text(),
              _report,
              on_ready=lambda: typer.echo(f"watching {folder} (Ctrl-C to stop)", err=True),
              on_busy=lambda why: typer.echo(
                  f"ofc-audit: warning: {why}: watch does so by itself, every half second",
                  err=True))
    except (KeyboardInterrupt, Terminated):
        # How watch is stopped: Ctrl-C, or SIGTERM (a service being stopped), also while it
        # opens the archive (it ended with 130 then).
        pass
    except Exception as error:
        # Ctrl-C in the middle of an import's query: the file's import is rolled back, as
        # with any interruption; watch ends as Ctrl-C ends it.
        if not interrupted(error):
            raise
    raise typer.Exit(EXIT_OK)


def _warn_listed(con: duckdb.DuckDBPyConnection) -> HandIndex:
    """The archive's duplicates and conflicts, said on standard error as a plain run of the
    same files says them (:func:`.options.every_hand_once`)."""
    from ..archive.queries import stored_index
    from ..audit.writer import index_lines

    index = stored_index(con)
    for line in index_lines(index):
        typer.echo(f"ofc-audit: {line}", err=True)
    return index


def audit_archive(archive: str, ruleset: Ruleset, scope: Scope, as_json: bool,
                  exit_zero: bool) -> NoReturn:
    """``ofc-audit audit --archive FILE``: the stored hands, written as ``audit`` writes
    them from their files."""
    from ..archive.queries import StoredHand, audit_entries, stored_index
    from ..audit.filters import Selection
    from ..audit.work import INCOMPLETE, INVALID, MISMATCHED
    from ..audit.writer import AuditWriter
    from ..history.reader import HistoryParseError

    con = _open(archive, ruleset, read_only=True)
    filters = scope.filters
    selection = Selection(filters) if filters.active else None
    render: Literal["json", "text"] = "json" if as_json else "text"
    try:
        index = stored_index(con)  # listed by the writer, as audit lists them from files
        with held(filters) as out:
            writer = AuditWriter(out, render, selection, index=index)
            for entry in audit_entries(con, as_json):
                if isinstance(entry, StoredHand):
                    if writer.wanted(entry.facts):
                        flags = ((0 if entry.valid else INVALID)
                                 | (MISMATCHED if entry.mismatched else 0)
                                 | (INCOMPLETE if entry.incomplete else 0))
                        writer.hand(flags, entry.text, checked=True)
                else:
                    writer.rejection(HistoryParseError(entry.file, entry.line, entry.column,
                                                       entry.message, ""))
            if selection is not None and (unknown := selection.unknown()):
                raise FilterError(unknown)
            totals = writer.close()
            if not writer.read:
                fail(f"no hands in the archive {archive}", EXIT_USAGE)
            if selection is not None:
                for warning in selection.warnings():
                    typer.echo(f"ofc-audit: warning: {warning}", err=True)
                if not as_json:
                    out.write(filters.sentence() + "\n")
    finally:
        con.close()
    finish(EXIT_OK if totals.clean and not index.conflicts else EXIT_FINDINGS, exit_zero)


def session_archive(archive: str, ruleset: Ruleset, out: Path, as_json: bool, scope: Scope,
                    options: ReportOptions, hand_pages: int, exit_zero: bool) -> NoReturn:
    """``ofc-audit session --archive FILE``: the report of the stored hands, the same as
    ``session`` writes from their files. Unfiltered, the database summarises and the
    per-hand tables are written a piece at a time (:mod:`ofc_audit.archive.stored_session`);
    the filters work on the whole tables."""
    from ..archive.queries import hand_count, session_tables
    from ..present.report import finish_session

    con = _open(archive, ruleset, read_only=True)
    try:
        index = _warn_listed(con)
        precomputed: Precomputed | None = None
        if scope.filters.active:
            tables = session_tables(con)
            if tables.hands.empty:
                fail(f"no hands in the archive {archive}", EXIT_USAGE)
        else:
            if not hand_count(con)[0]:
                fail(f"no hands in the archive {archive}", EXIT_USAGE)
            tables, precomputed = stored_report(con)
        for row in tables.rejected.itertuples(index=False):
            sys.stderr.write(f"ofc-audit: rejected {row.file}:{row.line}:{row.column}: "
                             f"{row.message}\n")
        findings = finish_session(tables, out, as_json, scope=scope, options=options,
                                  ruleset=ruleset, hand_pages=hand_pages,
                                  precomputed=precomputed, index=index)
    finally:
        con.close()
    finish(EXIT_FINDINGS if findings or index.conflicts else EXIT_OK, exit_zero)


def review_archive(archive: str, wanted: Wanted) -> tuple[Reviewable, HandIndex]:
    """``ofc-audit review --archive FILE``: the stored hands read back from their text and
    replayed in order, as ``review`` reads them from their files (a conflict's first copy
    is replayed for its table's chain, not reviewed); the archive's duplicates and
    conflicts (said on standard error)."""
    from ..archive.queries import stored_items
    from ..archive.schema import ArchiveError
    from ..review.run import replayed_reviewable

    con = _open(archive, wanted.ruleset, read_only=True)
    try:
        index = _warn_listed(con)
        found = replayed_reviewable(stored_items(con), wanted)
    except ArchiveError as error:
        fail(f"{archive}: {error}")
    finally:
        con.close()
    return found, index


def stored_report(con: duckdb.DuckDBPyConnection, parent: Path | None = None
                  ) -> tuple[SessionTables, Precomputed]:
    """The report's slim tables and what the database computes for the report, of an
    archive or of a plain session's stored pieces (``archive.spill``): one report path.
    ``parent``: where the report's temporary files go (the system's folder when None)."""
    from ..archive.stored_session import StoredSession
    from ..present.charts import BIGGEST, biggest_hands, points_histogram_of
    from ..present.report import Precomputed

    stored = StoredSession(con, parent)
    # The slim seats (three rows a hand) read only for the charts, after the per-hand files.
    return stored.report_tables(with_seats=False), Precomputed(
        summaries=stored.summaries(), times=stored.times(),
        histogram=points_histogram_of(*stored.point_counts()),
        biggest=biggest_hands(stored.biggest_seats(BIGGEST)),
        pieces={name: stored.source(name) for name in
                ("hands", "seats", "pairs", "violations", "mismatches", "rejected")},
        hands=stored.hands, seats=stored.slim_seats)


def check_archive_run(paths: list[str] | None, engine: object, hand: str | None = None
                      ) -> None:
    """What --archive cannot go with: paths (the archive holds the hands), another engine
    (nothing is replayed), --hand (explaining a hand replays it from its file)."""
    from ..engines import Engine

    if paths:
        fail("--archive FILE reads the hands stored there: give no PATH with it "
             "(ofc-audit import PATH adds files to the archive)")
    if engine is not Engine.LOCAL:
        fail("--archive reads stored results: --engine does not apply")
    if hand is not None:
        fail("--hand explains a hand by replaying its file: give the file, not --archive")


def archive_scope(players: list[str] | None, tables: list[str] | None, since: str | None,
                  until: str | None, pairwise: bool = False) -> Scope:
    """The filters of a run on an archive (no paths to survey)."""
    return Scope(None, Filters.of(players, tables, since, until), pairwise)


def no_paths() -> NoReturn:
    raise UsageError("give the history files or folders to read (PATH...), or --archive FILE")
