"""The session report: everything ``ofc-audit session`` writes and prints (docs/CLI.md).

:func:`finish_session` takes the session tables (built by the one driver,
:func:`ofc_audit.audit.driver.session_tables`), summarises once, writes every table in every
format, the charts, a Markdown summary and one self-contained HTML page, then prints the
per-player table (or its JSON). Layout of ``--out``::

    report.html            the answer first (settled results, payments, problem hands), then
                           players, charts (PNG data URIs) and tables; one file, nothing
                           external (templates/report.html.j2)
    summary.md             the same, in Markdown (templates/summary.md.j2)
    session.json           the --json document plus head to head, matches, totals, rejected
    charts/*.png, *.svg    results per currency by hand and over time, royalties, rates,
                           points per hand, biggest hands
    hands/*.html           the dispute page of each problem hand (up to --hand-pages)
    csv/ parquet/ json/    every table and summary: hands, seats, pairs, violations,
                           mismatches, rejected, players, head_to_head, matches, royalties,
                           totals
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import json
import re
import shutil
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import quote

import jinja2
import pandas as pd
from markupsafe import Markup
from matplotlib import rc_context
from matplotlib.figure import Figure

from ..audit.filters import select_tables
from ..audit.inputs import Scope
from ..audit.progress import Progress
from ..audit.writer import copies_json, index_lines
from ..common.errors import CannotWrite, EngineError
from ..common.lifeline import forkserver_fits, lifeline, starting_workers
from ..common.textfmt import number, plural, quantity
from ..game.ruleset import Ruleset
from ..history.survey import HandIndex
from ..session import settle_up
from ..session.exports import (
    TableSource,
    dumps,
    md_escape,
    records,
    write_all,
    write_all_pieces,
    write_exact_csv_pieces,
    write_json_records,
    write_json_tables,
    write_money_csv,
)
from ..session.memory import release_memory
from ..session.out_folder import OwnedFolder
from ..session.summaries import SessionSummaries
from ..session.tables import SessionTables, plain_labels
from . import charts
from .hand_pages import DEFAULT_HAND_PAGES, HandPages, write_hand_pages
from .report_view import ChartView, ReportOptions, ReportView, report_view, totals_sentence
from .terminal import players_text, settle_text

if TYPE_CHECKING:
    from ..review.ledger import ReviewLedger
    from ..review.run import ReviewOptions

#: The keys docs/CLI.md promises in each ``--json`` player entry, in this order; the other columns
#: of the player summary follow them.
PLAYER_KEYS = ("name", "hands", "points", "money", "currency", "royalties", "fouls",
               "fantasylands")


@dataclass(frozen=True)
class Precomputed:
    """A session summarised where its hands are stored (an archive), not from whole
    tables: :func:`finish_session` is then given the report's slim tables (the problem
    hands, the seats' hand, name, currency, stake, transfer and points, no pairs, the
    findings and rejections) and takes the rest from here. Every file is the same as from
    the whole tables."""

    summaries: SessionSummaries
    #: Every hand's time indexed by ``hand`` (the results charts over time).
    times: pd.Series
    #: ``charts.points_histogram`` and ``charts.biggest_hands`` of the whole seat table.
    histogram: pd.DataFrame
    biggest: pd.DataFrame
    #: Each per-hand table (hands, seats, pairs, violations, mismatches, rejected).
    pieces: dict[str, TableSource]
    #: The hands in the session (the slim hands table holds only the problem ones).
    hands: int
    #: The slim seat table (hand, name, currency, stake, transfer, points), read when the
    #: charts need it: the slim tables come without it, so that it is not held while the
    #: per-hand files are written (about 100 MB at 1,000,000 hands).
    seats: Callable[[], pd.DataFrame] | None = None


#: Duplicates the report names one by one; past them, a count (a re-downloaded export
#: repeats every hand).
NAMED_DUPLICATES = 10


def index_warnings(index: HandIndex) -> list[str]:
    """The report's lines on the hands read once: every conflict (not scored, no dispute
    page), then the duplicates, the first :data:`NAMED_DUPLICATES` by name."""
    conflicts = [line + " (the copies differ: no dispute page)"
                 for line in index_lines(HandIndex([], index.conflicts))]
    named = index_lines(HandIndex(index.duplicates[:NAMED_DUPLICATES], []))
    rest = len(index.duplicates) - len(named)
    more = [f"{quantity(rest, 'more duplicate')} read and counted once"] if rest > 0 else []
    return conflicts + named + more


# -- the --json document and the text table ---------------------------------------------------


def players_document(players: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """``{"players": [...]}`` of docs/CLI.md: the promised keys first, then the rest."""
    return {"players": records(_player_entries(players))}


def _player_entries(players: pd.DataFrame) -> pd.DataFrame:
    """The player table with docs/CLI.md's keys first, in its order, then ``money_settled`` and
    ``transferred`` (docs/CLI.md's names for ``net_money`` and ``net``), then the rest."""
    named = players.assign(**{cli: players[column]
                              for column, cli in settle_up.CLI_NAMES.items()})
    first = [*PLAYER_KEYS, *settle_up.CLI_NAMES.values()]
    return named[first + [c for c in named.columns if c not in first]]


def session_document(s: SessionSummaries) -> dict[str, Any]:
    """The ``session --json`` document: docs/CLI.md's ``players``, then who owes whom and the
    fewest payments (amounts as JSON numbers, exact to the cent)."""
    return players_document(s.players) | {
        "owes": [dict(o, money=float(o["money"])) for o in records(s.owes)],
        "payments": [dict(p, amount=float(p["amount"])) for p in records(s.payments)],
    }


def write_session_json(path: Path, tables: SessionTables, s: SessionSummaries,
                       copies: Mapping[str, Sequence[Mapping[str, Any]]] | None = None
                       ) -> None:
    """``session.json``: the ``--json`` document plus head to head, matches, totals and
    rejected, as :func:`~ofc_audit.session.exports.dumps` would write it; the lists go straight to
    the file a piece at a time (the matches of a long session run to millions of rows).
    ``copies`` (:func:`~ofc_audit.audit.writer.copies_json`): the duplicates and conflicts,
    after them, and their counts in ``totals``."""
    copies = copies or {}
    lists: list[tuple[str, pd.DataFrame | TableSource]] = [
        ("players", _player_entries(s.players)), ("head_to_head", s.head_to_head),
        ("matches", s.matches), ("totals", s.totals), ("rejected", tables.rejected)]
    with open(path, "w", encoding="utf-8") as out:
        out.write("{")
        for i, (key, frame) in enumerate(lists):
            out.write(("," if i else "") + "\n  " + json.dumps(key) + ": ")
            if key == "totals":
                totals = records(s.totals)[0] | {name: len(entries)
                                                 for name, entries in copies.items()}
                # One object; its text one level in (JSON strings hold no raw line breaks).
                out.write(dumps(totals).replace("\n", "\n  "))
            else:
                write_json_records(out, frame, 1)
        for key, entries in copies.items():
            out.write(",\n  " + json.dumps(key) + ": "
                      + dumps(list(entries)).replace("\n", "\n  "))
        out.write("\n}\n")


# -- charts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chart:
    name: str
    title: str
    png: bytes
    svg: bytes = b""


def figure_bytes(figure: Figure, form: str = "png", dpi: int = 100) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # A name in a script the font lacks (CJK in DejaVu Sans) draws as boxes; the tables
        # carry the name itself, so one warning per glyph on stderr would only be noise.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        # A results chart over time of a few minutes (two hands) has too short a range for
        # matplotlib's date ticks; its fallback ticks are fine, its warning on stderr is
        # not for the user.
        warnings.filterwarnings("ignore", message="AutoDateLocator was unable to pick")
        # SVG: no creation date and fixed element ids, so a session gives the same file.
        metadata = {"Date": None} if form == "svg" else None
        with rc_context({"svg.hashsalt": "ofc-audit"}):
            figure.savefig(buffer, format=form, dpi=dpi, metadata=metadata)
    return buffer.getvalue()


def figure_png(figure: Figure, dpi: int = 100) -> bytes:
    return figure_bytes(figure, "png", dpi)


#: Pixels per inch of the charts' PNGs: 5.6 inches (charts.WIDTH) make 896 pixels, sharp on a
#: phone's screen of two or three pixels a CSS pixel at 420 px, and at 560 px on a desktop.
CHART_DPI = 160


def render_charts(tables: SessionTables, s: SessionSummaries,
                  options: ReportOptions | None = None,
                  precomputed: Precomputed | None = None) -> list[Chart]:
    """Every chart of :func:`ofc_audit.present.charts.session_charts` as PNG and SVG, one
    player->colour mapping for all."""
    options = options or ReportOptions()
    if precomputed is not None:
        times = precomputed.times
    else:
        times = pd.Series(tables.hands["time"].array, index=tables.hands["hand"].to_numpy())
    specs = charts.session_charts(
        tables.seats, times, royalties=s.royalties.set_index("category"), rates=s.rates,
        min_hands=options.min_hands, top=options.top,
        histogram=None if precomputed is None else precomputed.histogram,
        biggest=None if precomputed is None else precomputed.biggest,
    )
    out = []
    with rc_context(charts.STYLE):
        for spec in specs:
            figure = charts.chart_figure(spec)
            out.append(Chart(spec.name, spec.caption, figure_png(figure, CHART_DPI),
                             figure_bytes(figure, "svg")))
    return out


def chart_views(chart_list: Sequence[Chart]) -> list[ChartView]:
    return [ChartView(c.name, c.title,
                      "data:image/png;base64," + base64.b64encode(c.png).decode("ascii"),
                      [f"charts/{c.name}.png"] + ([f"charts/{c.name}.svg"] if c.svg else []))
            for c in chart_list]


# -- Markdown and HTML ------------------------------------------------------------------------


class Raw(str):
    """Text the Markdown template writes as it is (table rules, link targets)."""


def _md_finalize(value: object) -> str:
    if isinstance(value, Raw):
        return str(value)
    return md_escape("" if value is None else str(value))


def _md_url(href: str) -> Raw:
    return Raw(quote(href, safe="/#.-_~%"))


@functools.cache
def _environments() -> tuple[jinja2.Environment, jinja2.Environment]:
    loader = jinja2.PackageLoader("ofc_audit.present", "templates")
    page = jinja2.Environment(loader=loader, autoescape=True, trim_blocks=False,
                              undefined=jinja2.StrictUndefined)
    md = jinja2.Environment(loader=loader, autoescape=False, finalize=_md_finalize,
                            undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    md.filters["raw"] = Raw
    md.filters["url"] = _md_url
    for env in (page, md):
        # Counts in words as everywhere else (textfmt.quantity): "1 hand", "2,500 hands".
        env.filters["quantity"] = quantity
        env.filters["number"] = number
        env.filters["plural"] = plural
    return page, md


def _asset(name: str) -> str:
    loader = _environments()[0].loader
    assert loader is not None
    return loader.get_source(_environments()[0], name)[0]


def render_markdown(tables: SessionTables, s: SessionSummaries, chart_list: Sequence[Chart],
                    options: ReportOptions | None = None) -> str:
    """The Markdown summary, in the order of the HTML page (answer first)."""
    return markdown_of(report_view(tables, s, chart_views(chart_list),
                                   options or ReportOptions()))


def render_html(tables: SessionTables, s: SessionSummaries, chart_list: Sequence[Chart],
                options: ReportOptions | None = None) -> str:
    """One self-contained page (inline styles and script, charts as data URIs), rendered
    with autoescape. A Content-Security-Policy lets only its own script run (by hash) and
    no request leave the page."""
    return html_of(report_view(tables, s, chart_views(chart_list), options or ReportOptions()))


def markdown_of(view: ReportView) -> str:
    return markdown_page("summary.md.j2", view)


def html_of(view: ReportView) -> str:
    return html_page("report.html.j2", view)


def markdown_page(template: str, view: object) -> str:
    """A Markdown template rendered with ``v=view`` (every value escaped), blank lines
    folded."""
    text = _environments()[1].get_template(template).render(v=view)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def html_page(template: str, view: object) -> str:
    """A page template rendered with ``v=view``, the report's style and its sorting and
    filtering script inline (allowed by its hash, nothing else)."""
    script = _asset("report.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    return _environments()[0].get_template(template).render(
        v=view, css=Markup(_asset("report.css")), script=Markup(script),
        script_hash=f"sha256-{digest}",
    )


# -- writing ----------------------------------------------------------------------------------


def write_session(
    tables: SessionTables,
    s: SessionSummaries,
    out: Path,
    with_charts: bool = True,
    jobs: int = 1,
    options: ReportOptions | None = None,
    on_step: Callable[[str], None] | None = None,
    precomputed: Precomputed | None = None,
) -> list[Path]:
    """Write everything into ``out`` (created when missing); returns the files written.
    With ``jobs`` above 1 and whole tables, a helper process writes the session tables'
    JSON meanwhile.
    ``options``: the report's --min-hands, --top, dispute page links, filters and input
    warnings."""
    out.mkdir(parents=True, exist_ok=True)
    # The per-hand tables as sources: the whole tables' pieces, or an archive's.
    per_hand = (precomputed.pieces if precomputed is not None else
                {name: TableSource.of(frame) for name, frame in tables.items()})
    summaries = dict(s.items())
    rest: list[Path] = []
    step = on_step or (lambda text: None)
    step(f"writing the tables to {out}/ (csv, parquet, json)")
    # A session read back from the database (``precomputed``) writes its JSON here: the
    # helper would hold a Parquet row group's pages and pandas besides (about 230 MB at
    # 200,000 hands) while this process holds the report, and the session's memory is
    # to stay flat (issue 21; docs/PERFORMANCE.md, "Round 6").
    if not (jobs > 1 and _Helper.available() and precomputed is None):
        # Each per-hand table read once for its three files (an archive's, from Arrow);
        # the files listed a format at a time, the per-hand tables' then the summaries'.
        formats = ["csv", "parquet", "json"]
        files = write_all_pieces(per_hand, out, formats)
        written = []
        for i, suffix in enumerate(formats):
            written += files[i * len(per_hand):(i + 1) * len(per_hand)]
            written += _write_summaries(summaries, out, suffix)
        _write_rest(tables, s, out, with_charts, rest, options or ReportOptions(), step,
                    precomputed)
        return written + rest
    # Parquet first: the helper reads the tables back from those files.
    parquet = (write_all_pieces(per_hand, out, ["parquet"])
               + _write_summaries(summaries, out, "parquet"))
    release_memory()  # the Arrow copies, before the helper's memory adds to this one's
    helped = {name: source for name, source in per_hand.items() if source.rows}
    helper = _Helper([(out / "parquet" / f"{name}.parquet", out / "json" / f"{name}.json",
                       dict(plain_labels(source.empty).dtypes))
                      for name, source in helped.items()])
    try:
        csv = write_all_pieces(per_hand, out, ["csv"]) + _write_summaries(summaries, out, "csv")
        _write_rest(tables, s, out, with_charts, rest, options or ReportOptions(), step,
                    precomputed)
    except BaseException:
        helper.stop()
        raise
    helper.join()
    # The small tables' JSON once the helper has made the folder (and said why it could
    # not), in the order of the files of one process.
    write_all_pieces({n: t for n, t in per_hand.items() if n not in helped}, out, ["json"])
    _write_summaries(summaries, out, "json")
    return csv + parquet + [out / "json" / f"{name}.json"
                            for name in [*per_hand, *summaries]] + rest


def _write_summaries(summaries: dict[str, pd.DataFrame | TableSource], out: Path,
                     suffix: str) -> list[Path]:
    """The summaries in one format, in order: the frames whole, a source (the match
    summary read back from where the hands are stored) a piece at a time."""
    written: list[Path] = []
    for name, table in summaries.items():
        if isinstance(table, pd.DataFrame):
            written += (_write_exact_csv({name: table}, out) if suffix == "csv"
                        else write_all({name: table}, out, [suffix]))
        elif suffix == "csv":
            (out / "csv").mkdir(parents=True, exist_ok=True)
            written.append(write_exact_csv_pieces(table, out / "csv" / f"{name}.csv"))
        else:
            written += write_all_pieces({name: table}, out, [suffix])
    return written


def _write_exact_csv(summaries: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    """The summaries' CSV files, money as exact decimals at one scale per currency
    (:func:`~ofc_audit.session.exports.write_money_csv`: a column at a time, no Decimal per
    cell; the match summary has a row per match and player)."""
    written: list[Path] = []
    for name, frame in summaries.items():
        folder = out / "csv"
        folder.mkdir(parents=True, exist_ok=True)
        written.append(write_money_csv(frame, folder / f"{name}.csv"))
    return written


class _Helper:
    """A process that writes the session tables' JSON while this one writes the rest: the
    JSON takes as long as everything else together (pandas' encoder, about 300 ns a cell),
    and with ``--jobs`` the other cores are idle by then. It starts fresh (forkserver, or
    spawn), not forked, and reads each table back from its Parquet file a piece at a time
    (:func:`~ofc_audit.session.exports.write_json_from_parquet`): a forked child counts every page
    of this process's tables in its own RSS, which doubled a long session's summed peak.
    An error in it is raised here by :meth:`join`."""

    def __init__(self, tasks: list[tuple[Path, Path, dict[str, Any]]]) -> None:
        import multiprocessing
        from multiprocessing.context import ForkServerContext, SpawnContext

        context: ForkServerContext | SpawnContext = (
            multiprocessing.get_context("forkserver") if forkserver_fits()
            else multiprocessing.get_context("spawn"))
        with starting_workers("process that writes the session's JSON files"):
            self.receive, send = context.Pipe(duplex=False)
            self.process = context.Process(target=write_json_tables,
                                           args=(send, tasks, lifeline()),
                                           name="ofc-audit json writer", daemon=True)
            try:
                self.process.start()
            except BaseException:
                self.receive.close()
                raise
            finally:
                send.close()

    @staticmethod
    def available() -> bool:
        # Only where the helper is cheap to start (Linux); elsewhere one process writes all.
        return sys.platform.startswith("linux")

    def stop(self) -> None:
        self.process.terminate()
        self.process.join()
        self.receive.close()

    def join(self) -> None:
        try:
            outcome = self.receive.recv()
        except EOFError:
            outcome = None
        self.process.join()
        self.receive.close()
        if outcome is None:
            # Killed (kill -9, or by the system when memory runs out): no traceback of ours.
            code = self.process.exitcode
            how = f"ended by signal {-code}" if code is not None and code < 0 \
                else f"ended with status {code}"
            raise EngineError(f"the process writing the session's JSON files {how} before "
                              f"it had finished")
        if outcome[0] == "done":
            return
        _, errno, strerror, filename, message = outcome
        if errno is not None:
            raise OSError(errno, strerror, filename)
        raise RuntimeError(f"writing the session files failed: {message}")


def _write_rest(
    tables: SessionTables, s: SessionSummaries, out: Path, with_charts: bool,
    written: list[Path], options: ReportOptions,
    step: Callable[[str], None] = lambda text: None,
    precomputed: Precomputed | None = None,
) -> None:
    """The charts, session.json and the reports; appends their files to ``written``."""
    if precomputed is not None and precomputed.seats is not None:
        tables = replace(tables, seats=precomputed.seats())
    if with_charts:
        step("drawing the charts")
    chart_list = render_charts(tables, s, options, precomputed) if with_charts else []
    release_memory()  # the charts' per-seat frames
    chart_dir = out / "charts"
    if chart_list:
        chart_dir.mkdir(exist_ok=True)
    for chart in chart_list:
        for suffix, data in ((".png", chart.png), (".svg", chart.svg)):
            if data:
                path = chart_dir / f"{chart.name}{suffix}"
                path.write_bytes(data)
                written.append(path)
    step("writing session.json, summary.md and report.html")
    path = out / "session.json"
    write_session_json(path, tables, s, options.copies)
    release_memory()  # the match summary's pieces
    written.append(path)
    view = report_view(tables, s, chart_views(chart_list), options)  # once for both
    targets = {"summary.md": markdown_of(view), "report.html": html_of(view)}
    for name, text in targets.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)


# -- the command ------------------------------------------------------------------------------


def finish_session(
    tables: SessionTables,
    out: Path,
    as_json: bool = False,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    jobs: int = 1,
    options: ReportOptions | None = None,
    scope: Scope | None = None,
    progress: Progress | None = None,
    *,
    ruleset: Ruleset | None = None,
    hand_pages: int = DEFAULT_HAND_PAGES,
    review: ReviewOptions | None = None,
    review_ledger: ReviewLedger | None = None,
    index: HandIndex | None = None,
    precomputed: Precomputed | None = None,
) -> bool:
    """Everything ``ofc-audit session`` does once the tables are built, whichever runner
    built them: keep the hands of the filters, summarise, write ``out`` (``jobs`` > 1: with
    a helper process) with the dispute page of each problem hand (at most ``hand_pages``;
    they replay those hands' files again under ``ruleset``, no pages without it; with
    ``review``, each page's hand is reviewed and the page gains its play review; with
    ``review_ledger``, the session's play review, report.html gains its sections and ``out``
    its review.json, charts and the pages of its costliest decisions' hands), print,
    and say whether the session has findings (violations, mismatches, rejected or incomplete
    hands). ``index``: the duplicates and conflicts the tables left out, listed among the
    report's warnings (docs/RULINGS.md: a conflict has no dispute page). Raises
    :class:`~ofc_audit.audit.filters.FilterError` for a name no hand has and
    :class:`~ofc_audit.common.errors.CannotWrite`."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    scope = scope or Scope()
    # Filters need the whole tables: a precomputed session is the unfiltered one.
    assert precomputed is None or not scope.filters.active
    selected = select_tables(tables, scope.filters)
    tables = selected.tables
    for warning in selected.warnings:
        stderr.write(f"ofc-audit: warning: {warning}\n")
    if scope.filters.active and tables.hands.empty:
        stderr.write("ofc-audit: warning: no hand matches the filters\n")
    report_options = replace(
        options or ReportOptions(),
        filters=[d for d in [scope.filters.describe()] if d],
        warnings=[*(scope.inputs.warnings() if scope.inputs is not None else ()),
                  *selected.warnings, *(index_warnings(index) if index is not None else ())],
        copies=copies_json(index),
    )
    step = (progress or Progress(stderr)).step
    step("summarising the session")
    s = SessionSummaries.of(tables) if precomputed is None else precomputed.summaries
    release_memory()  # the summaries' work frames: each as long as the seat table
    if scope.filters.players:
        s = replace(s, payments=settle_up.pair_payments(s.owes))
    try:
        folder = OwnedFolder.claim(out)
        try:
            hands = len(tables.hands) if precomputed is None else precomputed.hands
            if ruleset is not None and hands:
                step("writing the dispute pages of the problem hands"
                     + (", each with its play review" if review is not None else ""))
            pages = (write_hand_pages(tables, ruleset, out, hand_pages, review, index,
                                      review_ledger.kept if review_ledger is not None
                                      else None)
                     if ruleset is not None
                     else HandPages(cap=hand_pages))
            review_view = None
            if review_ledger is not None and ruleset is not None:
                from .review_report import write_review_parts

                step("writing the play review: its charts, review.json and hand pages")
                review_view, _ = write_review_parts(out, review_ledger, ruleset, pages)
            write_session(tables, s, out, jobs=jobs,
                          options=replace(report_options, hand_pages=pages,
                                          review=review_view),
                          on_step=step, precomputed=precomputed)
        except BaseException:
            folder.abandon()
            raise
        folder.release()
    except OSError as error:
        raise CannotWrite.of(error, str(out)) from None
    if as_json:
        stdout.write(dumps(session_document(s) | copies_json(index)) + "\n")
    else:
        notes = "".join(note + "\n" for note in scope.notes())
        # Only a terminal has a width to fit; a pipe or file gets every column.
        width = shutil.get_terminal_size().columns if stdout.isatty() else None
        stdout.write(notes + players_text(s.players, width) + "\n\n"
                     + settle_text(s.owes, s.payments, scope.pairwise) + "\n\n"
                     + totals_sentence(s) + "\n"
                     f"Reports written to {out}/ (report.html, summary.md, session.json, "
                     "charts/, csv/, parquet/, json/)\n")
    findings = (
        s.total("with_violations") + s.total("with_mismatches") + s.total("rejected")
        + s.total("incomplete")
    )
    if findings:
        incomplete = (f", {number(s.total('incomplete'))} incomplete"
                      if s.total("incomplete") else "")
        stderr.write(
            f"ofc-audit: {quantity(s.total('with_violations'), 'hand')} with violations, "
            f"{number(s.total('with_mismatches'))} with recorded mismatches{incomplete}, "
            f"{number(s.total('rejected'))} rejected; details in {out / 'report.html'}\n"
        )
    return bool(findings)
