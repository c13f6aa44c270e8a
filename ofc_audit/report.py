"""The session report: everything ``ofc-audit session`` writes and prints (CLI.md).

:func:`run_session` streams the audit into a :class:`~ofc_audit.tables.TableBuilder`,
summarises once, writes every table in every format, the charts, a Markdown summary and one
self-contained HTML page, then prints the per-player table (or its JSON). Layout of ``--out``::

    report.html            tables and charts (PNG, base64) in one file, nothing external
    summary.md             totals, players, head to head, problems; links the charts
    session.json           the --json document plus head to head, matches, totals, rejected
    charts/*.png           cumulative_points, royalties, rates, waterfall, session (all four)
    csv/ parquet/ json/    every table and summary: hands, seats, pairs, violations,
                           mismatches, rejected, players, head_to_head, matches, royalties,
                           totals
"""

from __future__ import annotations

import base64
import html
import io
import json
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO, Any

import pandas as pd
from matplotlib.figure import Figure

from . import charts, summaries
from .exports import (
    MISSING,
    WRITERS,
    dumps,
    html_table,
    markdown_table,
    md_escape,
    records,
    text_cells,
    write_all,
    write_json_records,
)
from .results import HandResult
from .rules import Ruleset
from .tables import Rejection, SessionTables, TableBuilder
from .textfmt import text_table

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2

#: The keys CLI.md promises in each ``--json`` player entry, in this order; the other columns
#: of the player summary follow them.
PLAYER_KEYS = ("name", "hands", "points", "money", "currency", "royalties", "fouls",
               "fantasylands")

#: Rows shown per table in the HTML and Markdown reports; the CSV/Parquet/JSON files hold all.
MAX_ROWS = 500


@dataclass(frozen=True)
class SessionSummaries:
    players: pd.DataFrame
    rates: pd.DataFrame
    head_to_head: pd.DataFrame
    matches: pd.DataFrame
    royalties: pd.DataFrame
    totals: pd.DataFrame

    @classmethod
    def of(cls, tables: SessionTables) -> SessionSummaries:
        return cls(
            players=summaries.player_summary(tables.seats),
            rates=summaries.player_rates(tables.seats),
            head_to_head=summaries.head_to_head(tables.pairs),
            matches=summaries.match_summary(tables.seats),
            royalties=summaries.royalties_by_category(tables.seats).reset_index(),
            totals=summaries.session_totals(tables.hands, tables.seats, tables.rejected),
        )

    def items(self) -> list[tuple[str, pd.DataFrame]]:
        """The exported summaries. ``rates`` only feeds a chart: the player table already has
        the rates, per currency."""
        return [(f.name, getattr(self, f.name)) for f in fields(self) if f.name != "rates"]

    def total(self, column: str) -> int:
        return int(self.totals[column].iloc[0])


# -- the --json document and the text table ---------------------------------------------------


def players_document(players: pd.DataFrame) -> dict[str, list[dict[str, Any]]]:
    """``{"players": [...]}`` of CLI.md: the promised keys first, then the rest."""
    return {"players": records(_player_entries(players))}


def _player_entries(players: pd.DataFrame) -> pd.DataFrame:
    """The player table with CLI.md's keys first, in its order, then the other columns."""
    return players[list(PLAYER_KEYS) + [c for c in players.columns if c not in PLAYER_KEYS]]


def write_session_json(path: Path, tables: SessionTables, s: SessionSummaries) -> None:
    """``session.json``: the ``--json`` document plus head to head, matches, totals and
    rejected, as :func:`~ofc_audit.exports.dumps` would write it; the lists go straight to
    the file a piece at a time (the matches of a long session run to millions of rows)."""
    lists = [("players", _player_entries(s.players)), ("head_to_head", s.head_to_head),
             ("matches", s.matches), ("totals", s.totals), ("rejected", tables.rejected)]
    with open(path, "w", encoding="utf-8") as out:
        out.write("{")
        for i, (key, frame) in enumerate(lists):
            out.write(("," if i else "") + "\n  " + json.dumps(key) + ": ")
            if key == "totals":
                # One object; its text one level in (JSON strings hold no raw line breaks).
                out.write(dumps(records(frame)[0]).replace("\n", "\n  "))
            else:
                write_json_records(out, frame, 1)
        out.write("\n}\n")


_TEXT_COLUMNS = ["name", "currency", "hands", "points", "money", "net", "royalties", "fouls",
                 "foul_rate", "fantasylands", "fantasyland_rate", "points_per_hand"]
_TEXT_HEADINGS = ["player", "cur", "hands", "points", "money", "stack +/-", "royalties",
                  "fouls", "foul %", "FL", "FL %", "pts/hand"]


def players_text(players: pd.DataFrame) -> str:
    """The per-player table for a terminal (standard output)."""
    if players.empty:
        return "no hands"
    frame = players[_TEXT_COLUMNS].copy()
    for rate in ("foul_rate", "fantasyland_rate"):
        # Plain numbers under a "%" heading: text_table right-aligns numbers, not "12.5%".
        frame[rate] = [MISSING if pd.isna(v) else f"{v * 100:.1f}" for v in frame[rate]]
    return text_table(_TEXT_HEADINGS, text_cells(frame))


def totals_sentence(s: SessionSummaries) -> str:
    return (
        f"{s.total('hands')} hand(s): {s.total('valid')} valid, "
        f"{s.total('with_violations')} with violations, {s.total('with_mismatches')} with "
        f"recorded mismatches, {s.total('with_unverifiable')} with unverifiable points"
        + (f", {s.total('incomplete')} incomplete" if s.total("incomplete") else "")
        + f"; {s.total('rejected')} rejected; {s.total('players')} player(s)"
    )


# -- charts -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chart:
    name: str
    title: str
    png: bytes


def figure_png(figure: Figure, dpi: int = 100) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        # A name in a script the font lacks (CJK in DejaVu Sans) draws as boxes; the tables
        # carry the name itself, so one warning per glyph on stderr would only be noise.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


#: Captions of the charts of :func:`ofc_audit.charts.session_charts` in the reports.
CAPTIONS = {
    "cumulative_points": "Cumulative points per player",
    "royalties": "Royalties by row and category",
    "rates": "Foul rate and Fantasyland frequency per player",
}


def render_charts(tables: SessionTables, s: SessionSummaries) -> list[Chart]:
    """Every chart as PNG, one player->colour mapping for all, and the tear sheet."""
    drawers = charts.session_charts(
        tables.seats, tables.pairs, royalties=s.royalties.set_index("category"), rates=s.rates
    )
    out = []
    for name, draw in drawers:
        figure = Figure(figsize=(9.0, 5.0), layout="constrained")
        ax = draw(figure.add_subplot())
        caption = CAPTIONS.get(name) or ax.get_title()
        if name == "waterfall" and not tables.pairs.empty:
            caption += " (the hand where the most points moved)"
        out.append(Chart(name, caption, figure_png(figure)))
    out.append(Chart("session", "All charts", figure_png(charts.compose(drawers), dpi=80)))
    return out


# -- Markdown ---------------------------------------------------------------------------------


def _capped(frame: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    if len(frame) <= MAX_ROWS:
        return frame, ""
    return frame.head(MAX_ROWS), f"first {MAX_ROWS} of {len(frame):,} rows; the files hold all"


def problem_hands(tables: SessionTables) -> pd.DataFrame:
    hands = tables.hands
    bad = hands[(~hands["valid"]) | (hands["mismatches"] > 0) | hands["incomplete"].notna()]
    return bad[["hand_id", "file", "line", "table", "valid", "violations", "mismatches",
                "incomplete"]]


@dataclass(frozen=True)
class Section:
    title: str
    frame: pd.DataFrame
    note: str = ""


def report_sections(tables: SessionTables, s: SessionSummaries) -> list[Section]:
    """The tables of the Markdown and HTML reports, in order (charts go after the first)."""
    from .explain import readable_fields
    from .rulebook import with_rule_titles

    return [
        Section("Players", s.players, "Money is points times the stake, summed per currency "
                "(a player at tables of two currencies has two rows). Stack change and money "
                "settled are after stack caps (R-SETTLE-3)."),
        Section("Head to head", s.head_to_head, "Each pair of players seen from both sides."),
        Section("Matches", s.matches,
                "A match is a hand and the Fantasyland hands chained to it."),
        Section("Hands with violations or mismatches", problem_hands(tables)),
        Section("Violations", with_rule_titles(tables.violations.drop(columns=["hand"])),
                "Each rule's full text: ofc-audit rules ID."),
        Section("Recorded mismatches", readable_fields(tables.mismatches.drop(columns=["hand"])),
                "What the site recorded against the auditor's own result."),
        Section("Rejected", tables.rejected, "Text that could not be read as a hand."),
    ]


def _time_span(s: SessionSummaries) -> str:
    first, last = s.totals["first_time"].iloc[0], s.totals["last_time"].iloc[0]
    return "" if pd.isna(first) else f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC."


def render_markdown(tables: SessionTables, s: SessionSummaries, chart_files: Sequence[
        tuple[str, str]]) -> str:
    """The Markdown summary; ``chart_files`` are (title, path relative to the summary)."""
    lines = ["# OFC session summary", "", md_escape(totals_sentence(s)) + ".", ""]
    if span := _time_span(s):
        lines += [f"From {span}", ""]
    sections = report_sections(tables, s)
    charts_md = ["## Charts", ""]
    for title, path in chart_files:
        charts_md += [f"![{md_escape(title)}]({path})", ""]
    for i, section in enumerate(sections):
        lines += [f"## {md_escape(section.title)}", ""]
        if section.frame.empty:
            lines += ["None.", ""]
        else:
            shown, cut = _capped(section.frame)
            if section.note:
                lines += [md_escape(section.note), ""]
            lines += [markdown_table(shown), ""]
            if cut:
                lines += [f"({cut}.)", ""]
        if i == 0:
            lines += charts_md
    return "\n".join(lines)


# -- HTML -------------------------------------------------------------------------------------

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
       color: #1d2330; background: #f6f7f9; margin: 0; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 60px; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 36px 0 10px; padding-bottom: 4px; border-bottom: 2px solid #dde1e8; }
p.lead { color: #4a5468; margin-top: 0; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 18px 0; }
.card { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 10px 16px;
        min-width: 110px; }
.card b { display: block; font-size: 22px; }
.card span { color: #5b6579; font-size: 13px; }
.card.bad b { color: #b42318; }
.scroll { overflow-x: auto; background: #fff; border: 1px solid #dde1e8; border-radius: 8px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; }
caption { text-align: left; padding: 8px 10px; color: #5b6579; }
th, td { padding: 5px 10px; border-bottom: 1px solid #edf0f4; text-align: left;
         white-space: nowrap; }
th { background: #f0f2f6; position: sticky; top: 0; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tbody tr:nth-child(even) { background: #fafbfc; }
tbody tr:hover { background: #eef4ff; }
figure { margin: 18px 0; background: #fff; border: 1px solid #dde1e8; border-radius: 8px;
         padding: 10px; }
figure img { max-width: 100%; height: auto; display: block; margin: 0 auto; }
figcaption { color: #5b6579; font-size: 13px; margin-top: 6px; text-align: center; }
p.note { color: #5b6579; font-size: 13px; }
"""


def _html_section(section: Section) -> str:
    parts = [f"<h2>{html.escape(section.title)}</h2>"]
    if section.note:
        parts.append(f'<p class="note">{html.escape(section.note)}</p>')
    if section.frame.empty:
        parts.append('<p class="note">None.</p>')
        return "\n".join(parts)
    shown, cut = _capped(section.frame)
    parts.append(f'<div class="scroll">{html_table(shown, cut or None)}</div>')
    return "\n".join(parts)


def render_html(tables: SessionTables, s: SessionSummaries, chart_list: Sequence[Chart]) -> str:
    """One self-contained page: inline CSS, charts as base64 PNG, every string escaped."""
    problems = s.total("with_violations") + s.total("with_mismatches") + s.total("rejected")
    cards = [
        ("hands", s.total("hands"), False), ("players", s.total("players"), False),
        ("with violations", s.total("with_violations"), s.total("with_violations") > 0),
        ("with mismatches", s.total("with_mismatches"), s.total("with_mismatches") > 0),
        ("rejected", s.total("rejected"), s.total("rejected") > 0),
        ("unverifiable", s.total("with_unverifiable"), False),
    ]
    card_html = "".join(
        f'<div class="card{" bad" if bad else ""}"><b>{value:,}</b><span>{html.escape(label)}'
        "</span></div>"
        for label, value, bad in cards
    )
    span = _time_span(s)
    verdict = ("Every hand replayed cleanly." if problems == 0 else
               "Some hands break rules, disagree with what the site recorded, or could not be "
               "read: see below.")
    figures = "\n".join(
        f'<figure><img alt="{html.escape(c.title)}" src="data:image/png;base64,'
        f'{base64.b64encode(c.png).decode("ascii")}"><figcaption>{html.escape(c.title)}'
        "</figcaption></figure>"
        for c in chart_list if c.name != "session"
    )
    sections = [_html_section(section) for section in report_sections(tables, s)]
    body = [
        "<h1>OFC session report</h1>",
        f'<p class="lead">{html.escape((span + " " + verdict).strip())}</p>',
        f'<div class="cards">{card_html}</div>',
        sections[0],
        "<h2>Charts</h2>",
        figures,
        *sections[1:],
    ]
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>OFC session report</title>\n"
        f"<style>{CSS}</style>\n</head>\n<body>\n<main>\n"
        + "\n".join(body)
        + "\n</main>\n</body>\n</html>\n"
    )


# -- writing ----------------------------------------------------------------------------------


def write_session(
    tables: SessionTables,
    s: SessionSummaries,
    out: Path,
    with_charts: bool = True,
    jobs: int = 1,
) -> list[Path]:
    """Write everything into ``out`` (created when missing); returns the files written.
    With ``jobs`` above 1, a helper process writes the JSON tables meanwhile."""
    out.mkdir(parents=True, exist_ok=True)
    frames = dict(tables.items()) | dict(s.items())
    helper = _Helper(frames, out, "json") if jobs > 1 and _Helper.available() else None
    rest: list[Path] = []
    try:
        written = write_all(frames, out, [f for f in WRITERS if helper is None or f != "json"])
        _write_rest(tables, s, out, with_charts, rest)
    except BaseException:
        if helper is not None:
            helper.stop()
        raise
    helped = helper.join() if helper is not None else []
    return written + helped + rest


class _Helper:
    """A forked process that writes the frames in one format while this one writes the
    rest: the JSON tables take as long as everything else together (pandas' encoder,
    about 300 ns a cell), and with ``--jobs`` the other cores are idle by then. Forked, it
    shares the tables without copying or pickling them (the arrays are not written to,
    so their pages stay shared). An error in it is raised here by :meth:`join`."""

    def __init__(self, frames: dict[str, pd.DataFrame], out: Path, form: str) -> None:
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self.receive, send = context.Pipe(duplex=False)
        # Text buffered in this process would be written twice (the child flushes its
        # copy of the standard streams when it ends).
        sys.stdout.flush()
        sys.stderr.flush()
        self.process = context.Process(target=_help, args=(send, frames, out, form),
                                       name=f"ofc-audit {form} writer", daemon=True)
        self.process.start()
        send.close()

    @staticmethod
    def available() -> bool:
        import multiprocessing

        # Only where a fork is safe and cheap (Linux); elsewhere one process writes all.
        return sys.platform.startswith("linux") and \
            "fork" in multiprocessing.get_all_start_methods()

    def stop(self) -> None:
        self.process.terminate()
        self.process.join()
        self.receive.close()

    def join(self) -> list[Path]:
        try:
            outcome = self.receive.recv()
        except EOFError:
            outcome = ("error", None, None, None, "the writer process ended without a word")
        self.process.join()
        self.receive.close()
        if outcome[0] == "done":
            return [Path(p) for p in outcome[1]]
        _, errno, strerror, filename, message = outcome
        if errno is not None:
            raise OSError(errno, strerror, filename)
        raise RuntimeError(f"writing the session files failed: {message}")


def _help(send: Any, frames: dict[str, pd.DataFrame], out: Path, form: str) -> None:
    """The helper process: writes, then sends the paths or the error."""
    try:
        paths = write_all(frames, out, [form])
    except OSError as error:
        send.send(("error", error.errno, error.strerror, error.filename, str(error)))
    except BaseException as error:  # anything else: said in the parent, which fails
        send.send(("error", None, None, None, f"{type(error).__name__}: {error}"))
    else:
        send.send(("done", [str(p) for p in paths]))
    finally:
        send.close()


def _write_rest(
    tables: SessionTables, s: SessionSummaries, out: Path, with_charts: bool,
    written: list[Path],
) -> None:
    """The charts, session.json and the reports; appends their files to ``written``."""
    chart_list = render_charts(tables, s) if with_charts else []
    chart_dir = out / "charts"
    if chart_list:
        chart_dir.mkdir(exist_ok=True)
    for chart in chart_list:
        path = chart_dir / f"{chart.name}.png"
        path.write_bytes(chart.png)
        written.append(path)
    path = out / "session.json"
    write_session_json(path, tables, s)
    written.append(path)
    targets = {
        "summary.md": render_markdown(
            tables, s, [(c.title, f"charts/{c.name}.png") for c in chart_list]
        ),
        "report.html": render_html(tables, s, chart_list),
    }
    for name, text in targets.items():
        path = out / name
        path.write_text(text, encoding="utf-8")
        written.append(path)


# -- the command ------------------------------------------------------------------------------


class Progress:
    """``N hands`` on standard error every ``every`` hands, only where someone may be
    waiting: on a terminal (rewritten in place), or in a run longer than ``after`` seconds
    (one line each time, for logs)."""

    def __init__(
        self,
        stream: IO[str],
        every: int = 1000,
        after: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.every = every
        self.after = after
        self.clock = clock
        self.start = clock()
        self.tty = stream.isatty()
        self.shown = False

    def tick(self, hands: int) -> None:
        if hands % self.every:
            return
        elapsed = self.clock() - self.start
        if not (self.tty or elapsed >= self.after):
            return
        rate = hands / elapsed if elapsed > 0 else 0.0
        text = f"ofc-audit: {hands:,} hands read ({rate:,.0f}/s)"
        self.stream.write(f"\r{text}" if self.tty else text + "\n")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown and self.tty:
            self.stream.write("\n")
            self.stream.flush()


def load_items(paths: Sequence[str], ruleset: Ruleset) -> Iterator[HandResult | Rejection]:
    """The audit's stream of results and rejections (imported here, when a run needs it)."""
    from .audit import audit_paths

    return audit_paths(paths, ruleset)


def collect(
    items: Iterable[HandResult | Rejection], stderr: IO[str], progress: Progress | None = None
) -> SessionTables:
    """Tables of the stream; each rejection is reported on ``stderr`` as it comes."""
    builder = TableBuilder()
    for item in items:
        if isinstance(item, HandResult):
            builder.add(item)
            if progress is not None:
                progress.tick(builder.hand_count)
        else:
            builder.reject(item)
            stderr.write(
                f"ofc-audit: rejected {item.file}:{item.line}:{item.column}: {item.message}\n"
            )
    if progress is not None:
        progress.done()
    return builder.build()


def run_session(
    paths: Sequence[str],
    ruleset: Ruleset,
    out: Path,
    as_json: bool = False,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """``ofc-audit session``: returns the exit status of CLI.md."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    try:
        tables = collect(load_items(paths, ruleset), stderr, Progress(stderr))
    except OSError as error:
        stderr.write(f"ofc-audit: error: cannot read {error.filename or 'input'}: "
                     f"{error.strerror or error}\n")
        return EXIT_USAGE
    return finish_session(tables, out, as_json, stdout, stderr)


def finish_session(
    tables: SessionTables,
    out: Path,
    as_json: bool = False,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    jobs: int = 1,
) -> int:
    """Everything ``ofc-audit session`` does once the tables are built, whichever engine
    built them: summarise, write ``out`` (``jobs`` > 1: with a helper process), print, and
    return the exit status of CLI.md."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    s = SessionSummaries.of(tables)
    try:
        write_session(tables, s, out, jobs=jobs)
    except OSError as error:
        stderr.write(f"ofc-audit: error: cannot write {error.filename or out}: "
                     f"{error.strerror or error}\n")
        return EXIT_USAGE
    if as_json:
        stdout.write(dumps(players_document(s.players)) + "\n")
    else:
        stdout.write(players_text(s.players) + "\n\n" + totals_sentence(s) + "\n"
                     f"Reports written to {out}/ (report.html, summary.md, session.json, "
                     "charts/, csv/, parquet/, json/)\n")
    findings = (
        s.total("with_violations") + s.total("with_mismatches") + s.total("rejected")
        + s.total("incomplete")
    )
    if findings:
        incomplete = f", {s.total('incomplete')} incomplete" if s.total("incomplete") else ""
        stderr.write(
            f"ofc-audit: {s.total('with_violations')} hand(s) with violations, "
            f"{s.total('with_mismatches')} with recorded mismatches{incomplete}, "
            f"{s.total('rejected')} rejected; details in {out / 'report.html'}\n"
        )
    return EXIT_FINDINGS if findings else EXIT_OK
