"""The options several commands share, and what they turn into: the ruleset, the scope of a
run (paths, filters), the runner (``--engine``, ``--jobs``, ``--scheduler``), JSON output."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from ..audit.filters import Filters
from ..audit.inputs import Inputs, Scope
from ..common.errors import UsageError
from ..engines import Engine, require_dask
from ..game.ruleset import Ruleset

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..audit.driver import Runner, StdinMode
    from ..history.sources import Source
    from ..history.survey import HandIndex

RulesOption = Annotated[
    str,
    typer.Option("--rules", metavar="PRESET|FILE",
                 help="A preset (standard, pokerdom, tonybet) or a ruleset TOML file."),
]
JsonOption = Annotated[
    bool,
    typer.Option("--json",
                 help="Print one JSON document (its keys: docs/CLI.md) and nothing else."),
]
EngineOption = Annotated[
    Engine,
    typer.Option("--engine", help="local: this machine; dask: a Dask cluster (a local one "
                 "of 2 workers, or --scheduler); needs the 'dask' extra of ofc_audit."),
]
ExitZeroOption = Annotated[
    bool,
    typer.Option(
        "--exit-zero",
        help="Exit 0 even when the input has violations, mismatches or rejected hands "
        "(they are still reported); usage errors still exit 2.",
    ),
]
PathsArgument = Annotated[
    list[str],
    typer.Argument(metavar="PATH", show_default=False,
                   help="History files or folders (every history in them, any name); - is stdin."),
]
ArchivedPathsArgument = Annotated[
    list[str] | None,
    typer.Argument(metavar="PATH", show_default=False,
                   help="History files or folders (every history in them, any name); - is stdin. "
                   "None with --archive."),
]
ArchiveReadOption = Annotated[
    str | None,
    typer.Option("--archive", metavar="FILE", show_default=False,
                 help="Read the hands stored in this archive (ofc-audit import) instead of "
                 "files: the same output as on the files themselves."),
]
PlayerOption = Annotated[
    list[str] | None,
    typer.Option("--player", metavar="NAME", show_default=False,
                 help="Only this player's hands: their results, opponents and hands "
                 "(repeatable: any of them). Every hand is still replayed."),
]
TableOption = Annotated[
    list[str] | None,
    typer.Option("--table", metavar="NAME", show_default=False,
                 help="Only the hands of this table (repeatable: any of them)."),
]
SinceOption = Annotated[
    str | None,
    typer.Option("--since", metavar="WHEN",
                 help="Only hands at or after WHEN: 2026-11-29 (from midnight) or "
                 "'2026-11-29 21:00' (seconds and a zone such as +05:00 optional; UTC when "
                 "none). Hands are compared in UTC."),
]
UntilOption = Annotated[
    str | None,
    typer.Option("--until", metavar="WHEN",
                 help="Only hands up to the end of WHEN, inclusive: 2026-11-30 keeps that "
                 "whole day, '2026-11-30 06:00' keeps 06:00:59. UTC when no zone."),
]
JobsOption = Annotated[
    int,
    typer.Option("--jobs", min=1, metavar="N", help="Worker processes for the local engine "
                 "(1: this process only); the results are the same for any number."),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option("--scheduler", metavar="ADDRESS",
                 help="With --engine dask: the Dask scheduler to use, e.g. tcp://host:8786."),
]


def print_json(document: Any) -> None:
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def load_ruleset(rules: str | None, **overrides: Any) -> Ruleset:
    """The ruleset of ``--rules`` with the command's overrides (a bad one raises
    :class:`~ofc_audit.game.ruleset.RulesetError`)."""
    return Ruleset.load(rules).with_options(**overrides)


def survey(paths: list[str], players: list[str] | None, tables: list[str] | None,
           since: str | None, until: str | None, pairwise: bool = False) -> Scope:
    """What the run reads and reports: raises for a path that does not exist, a bad date,
    or nothing to read; warns of each empty file."""
    for path in paths:
        if path != "-" and not Path(path).exists():
            raise UsageError(f"{path}: no such file or folder")
    filters = Filters.of(players, tables, since, until)
    inputs = Inputs.survey(paths)
    if inputs.files or len(inputs.not_histories) > 1:
        for error in inputs.errors():
            typer.echo(f"ofc-audit: error: {error}", err=True)
    inputs.check_survey()
    if inputs.skipped_line is not None:
        typer.echo(f"ofc-audit: {inputs.skipped_line}", err=True)
    for warning in inputs.warnings():
        typer.echo(f"ofc-audit: warning: {warning}", err=True)
    return Scope(inputs, filters, pairwise)


@contextlib.contextmanager
def held(filters: Filters) -> Iterator[IO[str]]:
    """Standard output, or with --player/--table a spool of it, written out at the end: an
    unknown name is known only once every hand is read, and then nothing may be printed
    (an error raised inside drops the spool)."""
    if not (filters.players or filters.tables):
        yield sys.stdout
        return
    with tempfile.SpooledTemporaryFile(max_size=1 << 24, mode="w+", encoding="utf-8") as spool:
        yield spool
        spool.seek(0)
        shutil.copyfileobj(spool, sys.stdout)


# -- the runner ------------------------------------------------------------------------------


def check_runner(engine: Engine, jobs: int, scheduler: str | None) -> StdinMode:
    """Raise for options that do not go together; how the runner takes standard input."""
    if jobs > 1 and engine is not Engine.LOCAL:
        raise UsageError("--jobs is for the local engine (the dask engine has its own workers)")
    if engine is Engine.LOCAL:
        if scheduler is not None:
            raise UsageError("--scheduler needs --engine dask")
        return "file" if jobs > 1 else "stream"
    require_dask()
    return "memory"


@contextlib.contextmanager
def runner_for(engine: Engine, jobs: int, scheduler: str | None) -> Iterator[Runner]:
    """The runner the options ask for (:func:`check_runner` first): this process, ``jobs``
    worker processes, or a Dask cluster, connected for the run's time."""
    from ..audit.driver import InProcess

    if engine is Engine.LOCAL:
        if jobs > 1:
            from ..engines.processes import ProcessPool

            yield ProcessPool(jobs)
        else:
            yield InProcess()
        return
    from ..engines.dask_engine import DaskRunner, connect, describe

    with connect(scheduler) as client:
        typer.echo(f"ofc-audit: {describe(client, scheduler)}", err=True)
        yield DaskRunner(client)


def every_hand_once(sources: Sequence[Source]) -> HandIndex:
    """The sources' hand index (docs/CLI.md: every hand once), its duplicates and conflicts
    said on standard error before any hand is read."""
    from ..audit.driver import hand_index
    from ..audit.writer import index_lines

    index = hand_index(sources)
    for line in index_lines(index):
        typer.echo(f"ofc-audit: {line}", err=True)
    return index
