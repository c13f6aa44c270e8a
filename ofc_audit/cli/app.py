"""The ``ofc-audit`` command: a thin typer shell over the library (docs/CLI.md).

Exit status: 0 all good; 1 the input has violations, mismatches or rejected hands; 2 usage
error or unreadable file.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, Literal, NoReturn

import typer
import typer.core

from ..audit.inputs import Scope
from ..engines import Engine, EngineError, require_dask
from ..game.ruleset import FantasylandType, Ruleset, RulesetError, Variant
from ..game.typed_board import TypedBoardError, parse_typed_boards
from ..present.scorecard import render_scorecard, score_table

if TYPE_CHECKING:
    from ..audit.filters import Filters, Selection

app = typer.Typer(
    name="ofc-audit",
    help="Audit, replay, score and settle Open Face Chinese Poker hand histories.",
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help, laid out like a manual page: flags read as flags (--json, not
    # "--json <bool>"), and the Examples blocks keep their lines.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _PlainArgument(typer.core.TyperArgument):
    """An argument shown as a manual page shows it: ``PATH...`` in the usage line and in
    the Arguments list (typer's own is ``{PATH}...`` and ``PATH <list[str]>``, the Python
    type, which means nothing to someone typing a command)."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    def _rich_display_name(self) -> str:
        return self.display_name_raw + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


class _Command(typer.core.TyperCommand):
    """A command whose arguments are :class:`_PlainArgument` (typer builds its own
    argument class and has no option to choose another)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is typer.core.TyperArgument:
                param.__class__ = _PlainArgument

GETTING_STARTED = (
    "Getting started: ofc-audit session sample_histories/  (who won, who owes whom, and "
    "reports/report.html)"
)


def package_version() -> str:
    """The installed distribution's version, or the source tree's when not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ofc_audit")
    except PackageNotFoundError:
        from .. import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"ofc-audit {package_version()}")
        raise typer.Exit(EXIT_OK)


@app.callback(invoke_without_command=True, epilog=GETTING_STARTED)
def root(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True,
                     help="Print the version (ofc-audit X.Y.Z) and exit."),
    ] = False,
) -> None:
    """Audit, replay, score and settle Open Face Chinese Poker hand histories.

    Every command has its own --help with examples, e.g. ofc-audit session --help.
    """
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(EXIT_OK)


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
                   help="History files or folders (every *.txt under them); - is stdin."),
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


def finish(code: int, exit_zero: bool) -> NoReturn:
    """Leave with docs/CLI.md's exit status; --exit-zero turns 'findings' (1) into 0."""
    raise typer.Exit(EXIT_OK if exit_zero and code == EXIT_FINDINGS else code)


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


@app.command(cls=_Command)
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
    try:
        parsed = parse_typed_boards(boards)
    except TypedBoardError as error:
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
    from ..game.rulebook import cited

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


def _use_dask(engine: Engine, scheduler: str | None) -> bool:
    """Whether to run on Dask; fails (status 2) when it is asked for but not installed."""
    if engine is Engine.LOCAL:
        if scheduler is not None:
            fail("--scheduler needs --engine dask")
        return False
    try:
        require_dask()
    except EngineError as error:
        fail(str(error))
    return True


def _check_jobs(jobs: int, engine: Engine) -> None:
    if jobs > 1 and engine is not Engine.LOCAL:
        fail("--jobs is for the local engine (the dask engine has its own workers)")


def _check_paths(paths: list[str]) -> None:
    for path in paths:
        if path != "-" and not Path(path).exists():
            fail(f"{path}: no such file or folder")


def _scope(paths: list[str], players: list[str] | None, tables: list[str] | None,
           since: str | None, until: str | None, pairwise: bool = False) -> Scope:
    """What the run reads and reports; fails (status 2) on a bad date or when there is
    nothing to read, and warns of each empty file."""
    from ..audit.filters import FilterError, Filters
    from ..audit.inputs import Inputs

    _check_paths(paths)
    try:
        filters = Filters.of(players, tables, since, until)
    except FilterError as error:
        fail(str(error))
    inputs = Inputs.survey(paths)
    if (nothing := inputs.nothing_to_read()) is not None:
        fail(nothing)
    for warning in inputs.warnings():
        typer.echo(f"ofc-audit: warning: {warning}", err=True)
    return Scope(inputs, filters, pairwise)


@contextlib.contextmanager
def _held(filters: Filters) -> Iterator[IO[str]]:
    """Standard output, or with --player/--table a spool of it, written out at the end: an
    unknown name is known only once every hand is read, and then nothing may be printed."""
    if not (filters.players or filters.tables):
        yield sys.stdout
        return
    with tempfile.SpooledTemporaryFile(max_size=1 << 24, mode="w+", encoding="utf-8") as spool:
        yield spool
        spool.seek(0)
        shutil.copyfileobj(spool, sys.stdout)


class _Unknown(Exception):
    """A --player or --table in no hand: the spooled output is dropped."""


def _after_audit(code: int, scope: Scope, selection: Selection | None, as_json: bool,
                 out: IO[str], rejected: int | None = None) -> int:
    """The exit status once an engine has written the audit: an unknown name fails (the
    spooled output is dropped), no hand read at all fails, a filter note ends the text."""
    if selection is not None and (unknown := selection.unknown()):
        raise _Unknown(unknown)
    if code == -1:
        assert scope.inputs is not None
        typer.echo(f"ofc-audit: error: {scope.inputs.no_hands_read(rejected)}", err=True)
        return EXIT_USAGE
    if selection is not None:
        for warning in selection.warnings():
            typer.echo(f"ofc-audit: warning: {warning}", err=True)
        if not as_json:
            out.write(scope.filters.sentence() + "\n")
    return code


@app.command(cls=_Command)
def audit(
    paths: PathsArgument,
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
    from ..audit.driver import audit_items
    from ..audit.filters import Selection, hand_facts
    from ..audit.progress import Progress, metered_hands, total_size
    from ..engines.groups import AuditWriter, hand_flags, render_hand
    from ..history.reader import HistoryParseError

    ruleset = load_ruleset(rules)
    _check_jobs(jobs, engine)
    scope = _scope(paths, player, table, since, until)
    assert scope.inputs is not None
    wanted = hand.lstrip("#") if hand else None
    if wanted is not None and scope.filters.active:
        fail("--hand explains one hand: --player, --table, --since and --until do not apply")
    if html is not None:
        if wanted is None:
            fail("--html needs --hand ID (the page is one hand's)")
        if as_json:
            fail("--html and --json: choose one")
        from ..present.dispute import write_dispute_page

        code, message = write_dispute_page(paths, wanted, ruleset, html)
        if message:
            fail(message, code)
        finish(code, exit_zero)
    if wanted is not None:
        _explain(paths, ruleset, wanted, as_json, engine, scheduler, exit_zero)
    filters = scope.filters
    selection = Selection(filters) if filters.active else None
    render: Literal["json", "text"] = "json" if as_json else "text"
    try:
        with _held(filters) as out:
            if _use_dask(engine, scheduler):
                from ..engines.dask_engine import run_audit

                code = run_audit(paths, ruleset, scheduler=scheduler, as_json=as_json,
                                 stdout=out, selection=selection)
                code = _after_audit(code, scope, selection, as_json, out)
            elif jobs > 1:
                from ..engines import processes

                code = processes.run_audit(paths, ruleset, jobs, as_json=as_json, stdout=out,
                                           selection=selection)
                code = _after_audit(code, scope, selection, as_json, out)
            else:
                progress = Progress(sys.stderr, total_size(scope.inputs.files))
                writer = AuditWriter(out, render, selection, progress)
                try:
                    for item in audit_items(metered_hands(scope.inputs.files, progress),
                                            ruleset):
                        if isinstance(item, HistoryParseError):
                            writer.rejection(item)
                        elif writer.wanted(hand_facts(item)):
                            writer.hand(hand_flags(item), render_hand(item, render),
                                        checked=True)
                finally:
                    progress.done()
                totals = writer.close()
                code = EXIT_OK if totals.clean else EXIT_FINDINGS
                code = _after_audit(code if writer.read else -1, scope, selection, as_json,
                                    out, totals.rejected)
    except _Unknown as unknown:
        fail(str(unknown))
    except OSError as error:
        fail(f"cannot read {error.filename or 'input'}: {error.strerror or error}")
    finish(code, exit_zero)


def _explain(paths: list[str], ruleset: Ruleset, wanted: str, as_json: bool, engine: Engine,
             scheduler: str | None, exit_zero: bool) -> NoReturn:
    """``audit --hand ID``: one hand explained step by step (filters do not apply)."""
    from ..audit.driver import audit_paths, hand_json
    from ..history.reader import HistoryParseError
    from ..present.explain import explain_hand

    if _use_dask(engine, scheduler):
        from ..engines.dask_engine import run_audit

        finish(run_audit(paths, ruleset, scheduler=scheduler, as_json=as_json, hand=wanted),
               exit_zero)
    try:
        found = [r for r in audit_paths(paths, ruleset, explain=True)
                 if not isinstance(r, HistoryParseError) and r.hand_id == wanted]
    except OSError as error:
        fail(f"cannot read {error.filename or 'input'}: {error.strerror or error}")
    if not found:
        fail(f"no hand #{wanted} in {', '.join(paths)}")
    if as_json:
        print_json({"hands": [dict(hand_json(r), explanation=[
            {"line": s.line, "text": s.text} for s in r.log]) for r in found]})
    else:
        typer.echo("\n\n".join(explain_hand(r) for r in found))
    bad = any(not r.clean for r in found)
    finish(EXIT_FINDINGS if bad else EXIT_OK, exit_zero)


@app.command(cls=_Command)
def session(
    paths: PathsArgument,
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
                          help="Players named on the results charts; the others are grey.")
    ] = 8,
    hand_pages: Annotated[
        int,
        typer.Option("--hand-pages", min=0, metavar="N",
                     help="Dispute pages written at most (OUT/hands/ID.html, one per hand "
                     "with a violation, a mismatch or something unverifiable); the rest "
                     "are listed without a page."),
    ] = 1000,
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
    from ..present.report import run_session
    from ..present.report_view import ReportOptions

    options = ReportOptions(min_hands=min_hands, top=top)

    ruleset = load_ruleset(rules)
    _check_jobs(jobs, engine)
    scope = _scope(paths, player, table, since, until, pairwise=owes)
    if _use_dask(engine, scheduler):
        from ..engines import dask_engine

        finish(dask_engine.run_session(paths, ruleset, out, scheduler=scheduler,
                                       as_json=as_json, scope=scope, options=options,
                                       hand_pages=hand_pages), exit_zero)
    if jobs > 1:
        from ..engines import processes

        finish(processes.run_session(paths, ruleset, out, jobs, as_json=as_json, scope=scope,
                                     options=options, hand_pages=hand_pages), exit_zero)
    finish(run_session(paths, ruleset, out, as_json=as_json, scope=scope, options=options,
                       hand_pages=hand_pages), exit_zero)


@app.command(cls=_Command)
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
    from ..audit.progress import Progress
    from ..simulate.simulator import SimulationError, run

    ruleset = load_ruleset(rules, variant=variant, fantasyland=fantasyland)
    progress = Progress(sys.stderr, hands, every=max(1, min(1000, hands // 100)),
                        what="simulating", unit="hands")
    try:
        stats = run(ruleset, out, players=players, hands=hands, seed=seed, view=view,
                    faults=faults, stacks=stacks, tables=tables, stake=stake, jobs=jobs,
                    fault_kinds=fault_kinds, faults_per_hand=faults_per_hand,
                    progress=progress.tick)
    except SimulationError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror or error}")
    finally:
        progress.done()
    typer.echo(stats, err=True)


@app.command("rules", cls=_Command)
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
    from ..common.textfmt import rule_block, text_table
    from ..game.rulebook import RuleText, all_rules, closest_ids, rule_text

    wanted: list[RuleText] = []
    for rule_id in ids or []:
        try:
            wanted.append(rule_text(rule_id))
        except KeyError:
            fail(f"no rule {rule_id!r}; the closest ids are {', '.join(closest_ids(rule_id))} "
                 "(ofc-audit rules lists them all)")
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


def main() -> None:
    # One name in every usage line, however it was started (console script or python -m).
    app(prog_name="ofc-audit")


from . import review_command  # noqa: E402,F401  (registers ``review`` on the app)
