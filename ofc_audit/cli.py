"""The ``ofc-audit`` command: a thin typer shell over the library (CLI.md).

Exit status: 0 all good; 1 the input has violations, mismatches or rejected hands; 2 usage
error or unreadable file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from .board import Board
from .cards import CardError
from .engines import Engine, EngineError, require_dask
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
EngineOption = Annotated[
    Engine,
    typer.Option("--engine", help="local: this process; dask: a Dask cluster (a local one "
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


def finish(code: int, exit_zero: bool) -> NoReturn:
    """Leave with CLI.md's exit status; --exit-zero turns 'findings' (1) into 0."""
    raise typer.Exit(EXIT_OK if exit_zero and code == EXIT_FINDINGS else code)


JobsOption = Annotated[
    int,
    typer.Option("--jobs", min=1, help="Worker processes for the local engine (1: this "
                 "process only); the results are the same for any number."),
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
    from .rulebook import cited

    has_jokers = any(card.is_joker for b in parsed for card in b.cards)
    if has_jokers and ruleset.variant is not Variant.JOKER_PINEAPPLE:
        typer.echo(
            f"ofc-audit: warning: jokers on a {ruleset.variant.title} board: only Joker "
            f"Pineapple has jokers ({cited('R-CARD-2')}); scored anyway",
            err=True,
        )
    card = score_table(parsed, ruleset, stack_list, chain)
    for duplicate in card.duplicates():
        typer.echo(
            f"ofc-audit: warning: {cited('R-CARD-3')}: {duplicate} appears more than once "
            "across the boards; scored anyway",
            err=True,
        )
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


@app.command()
def audit(
    paths: Annotated[
        list[str],
        typer.Argument(help="History files or folders (every *.txt under them); - is stdin.",
                       show_default=False),
    ],
    rules: RulesOption = None,
    as_json: JsonOption = False,
    hand: Annotated[
        str | None,
        typer.Option("--hand", help="Explain one hand step by step (its ID, without '#')."),
    ] = None,
    engine: EngineOption = Engine.LOCAL,
    scheduler: SchedulerOption = None,
    exit_zero: ExitZeroOption = False,
    jobs: JobsOption = 1,
) -> None:
    """Replay every hand, check every rule, compare with the recorded SUMMARY."""
    from .audit import audit_paths, hand_json, rejection_json, write_audit_json
    from .explain import explain_hand, hand_findings, hand_line
    from .reader import HistoryParseError

    ruleset = load_ruleset(rules)
    _check_paths(paths)
    _check_jobs(jobs, engine)
    wanted = hand.lstrip("#") if hand else None
    if _use_dask(engine, scheduler):
        from .engines.dask_engine import run_audit

        finish(run_audit(paths, ruleset, scheduler=scheduler, as_json=as_json, hand=wanted),
               exit_zero)
    if jobs > 1 and wanted is None:  # --hand explains one hand: this process reads for it
        from .engines import processes

        finish(processes.run_audit(paths, ruleset, jobs, as_json=as_json), exit_zero)
    items = audit_paths(paths, ruleset, explain=wanted is not None)
    try:
        if wanted is not None:
            found = [
                r for r in items if not isinstance(r, HistoryParseError) and r.hand_id == wanted
            ]
            if not found:
                fail(f"no hand #{wanted} in {', '.join(paths)}")
            if as_json:
                print_json({"hands": [dict(hand_json(r), explanation=[
                    {"line": s.line, "text": s.text} for s in r.log]) for r in found]})
            else:
                typer.echo("\n\n".join(explain_hand(r) for r in found))
            bad = any(not r.clean for r in found)
            finish(EXIT_FINDINGS if bad else EXIT_OK, exit_zero)
        if as_json:
            totals = write_audit_json(items, sys.stdout)
        else:
            from .audit import AuditTotals

            totals = AuditTotals()
            for item in items:
                if isinstance(item, HistoryParseError):
                    totals.rejected += 1
                    typer.echo(f"REJECTED {item.file}:{item.line}:{item.column}: {item.message}")
                    continue
                totals.count(item)
                typer.echo(hand_line(item))
                for line in hand_findings(item):
                    typer.echo(line)
            typer.echo("\n" + totals.summary_line())
    except OSError as error:
        fail(f"cannot read {error.filename or 'input'}: {error.strerror or error}")
    _ = rejection_json
    finish(EXIT_OK if totals.clean else EXIT_FINDINGS, exit_zero)


@app.command()
def session(
    paths: Annotated[
        list[str],
        typer.Argument(help="History files or folders (every *.txt under them); - is stdin.",
                       show_default=False),
    ],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the tables, charts and reports.")
    ] = Path("reports"),
    rules: RulesOption = None,
    as_json: JsonOption = False,
    engine: EngineOption = Engine.LOCAL,
    scheduler: SchedulerOption = None,
    exit_zero: ExitZeroOption = False,
    jobs: JobsOption = 1,
) -> None:
    """Session results per player; tables, charts, Markdown and HTML reports under --out."""
    from .report import run_session

    ruleset = load_ruleset(rules)
    _check_paths(paths)
    _check_jobs(jobs, engine)
    if _use_dask(engine, scheduler):
        from .engines import dask_engine

        finish(dask_engine.run_session(paths, ruleset, out, scheduler=scheduler,
                                       as_json=as_json), exit_zero)
    if jobs > 1:
        from .engines import processes

        finish(processes.run_session(paths, ruleset, out, jobs, as_json=as_json), exit_zero)
    finish(run_session(paths, ruleset, out, as_json=as_json), exit_zero)


@app.command()
def simulate(
    variant: Annotated[
        Variant | None, typer.Option("--variant", help="Override the ruleset's variant.")
    ] = None,
    players: Annotated[int, typer.Option("--players", help="Players per table.")] = 3,
    hands: Annotated[int, typer.Option("--hands", help="Hands to play (all tables).")] = 100,
    fantasyland: Annotated[
        FantasylandType | None,
        typer.Option("--fantasyland", help="Override the ruleset's Fantasyland type."),
    ] = None,
    rules: RulesOption = None,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same output.")] = 0,
    view: Annotated[
        str, typer.Option("--view", help="operator, or player:NAME (only what NAME saw).")
    ] = "operator",
    out: Annotated[str, typer.Option("--out", help="File to write; - is stdout.")] = "-",
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
    stacks: Annotated[int, typer.Option("--stacks", help="Starting stack in points.")] = 200,
    tables: Annotated[int, typer.Option("--tables", help="Tables played side by side.")] = 1,
    stake: Annotated[str, typer.Option("--stake", help="Stake per point.")] = "0.10 EUR",
    jobs: Annotated[
        int, typer.Option("--jobs", help="Processes (0: a writer process for long runs).")
    ] = 0,
) -> None:
    """Write simulated hand histories (format v1) of plausible play."""
    from .simulate import SimulationError, run

    ruleset = load_ruleset(rules, variant=variant, fantasyland=fantasyland)
    try:
        stats = run(ruleset, out, players=players, hands=hands, seed=seed, view=view,
                    faults=faults, stacks=stacks, tables=tables, stake=stake, jobs=jobs,
                    fault_kinds=fault_kinds, faults_per_hand=faults_per_hand)
    except SimulationError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {out}: {error.strerror or error}")
    typer.echo(stats, err=True)


@app.command("rules")
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

      ofc-audit rules                       every rule id with its title

      ofc-audit rules R-FL-4 r-settle-3     two rules in full

      ofc-audit rules --json R-SCORE-2      the same as JSON
    """
    from .rulebook import RuleText, all_rules, closest_ids, rule_text
    from .textfmt import rule_block, text_table

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
    app()
