"""What the session report shows, prepared for its templates (``templates/report.html.j2``,
``templates/summary.md.j2``): every number already worded, every table split into the
columns that matter and a detail, nothing but text and numbers left for the template.

Order is the report's: the answer first (who won and lost how much, settled, per currency;
who owes whom and the fewest payments, per currency; the hands that need attention), then a
section per player, then the charts and the remaining tables. Amounts of different
currencies are never added: every money figure lives inside its currency's block.

Wording is the same everywhere: flags read yes/no (:func:`~ofc_audit.session.exports.cell_text`),
a rate always comes with its count and sample (``3/24, 12.5%``) and is left out under
``min_hands`` hands, money is signed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..common.textfmt import hands_sentence, plural, quantity, signed_money
from ..common.textfmt import number as count_text
from ..game.rulebook import cited, with_rule_titles
from ..session.exports import MISSING, TableSource, cell_text, plain
from ..session.summaries import SessionSummaries
from ..session.tables import SessionTables
from .charts import POINTS, cumulative_results, thin
from .explain import FIELD_NAMES, readable_fields

if TYPE_CHECKING:
    from .review_view import ReviewView

#: Rows shown per table in the reports; the CSV/Parquet/JSON files hold all.
MAX_ROWS = 500
#: Player sections in the HTML page (a long simulated session meets thousands of names).
MAX_PLAYERS = 200
#: Points of a player's sparkline.
SPARK_POINTS = 160

#: Mismatch fields that are flags: stored 1/0 in the table, worded yes/no for people.
FLAG_FIELDS = frozenset({"fouled", "fantasyland_next"})


@dataclass(frozen=True)
class ReportOptions:
    """How the report is drawn and what it is told besides the tables.

    ``hand_pages`` maps (file, line) of a hand to the relative link of its dispute page;
    ``filters`` describes the filters the session was read with; ``warnings`` are lines
    about the input (an empty file among others) the report shows."""

    min_hands: int = 10
    top: int = 8
    hand_pages: Mapping[tuple[str, int], str] = field(default_factory=dict)
    filters: Sequence[str] = ()
    warnings: Sequence[str] = ()
    review: ReviewView | None = None  # session --review: the play review's sections
    #: docs/CLI.md's ``duplicates`` and ``conflicts`` lists (their JSON), for session.json;
    #: empty when every hand was read once.
    copies: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)


# -- tables -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    text: str
    sort: str = ""  # the number a numeric column sorts by; "" sorts last
    num: bool = False
    href: str = ""  # a link ("#player-3", "hands/x.html")
    wrap: bool = False  # free text (a message) that wraps instead of widening the table


@dataclass(frozen=True)
class GridRow:
    cells: list[Cell]
    detail: list[tuple[str, str]] = field(default_factory=list)  # (heading, text)


@dataclass(frozen=True)
class Grid:
    """A table: ``headings`` shown, the rest of each row in its ``detail`` (the HTML page
    folds it into a <details>, the Markdown summary shows every column)."""

    key: str
    headings: list[str]
    numeric: list[bool]
    rows: list[GridRow]
    detail_headings: list[str] = field(default_factory=list)
    note: str = ""
    cut: str = ""  # "first 500 of 2,000 rows; ..." when rows were left out
    title: str = ""

    @property
    def empty(self) -> bool:
        return not self.rows


def text(value: object) -> Cell:
    v = plain(value)
    return Cell(MISSING if v is None else str(v))


def number(value: object, column: str = "", shown: str | None = None) -> Cell:
    v = plain(value)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return Cell(MISSING, "", True)
    return Cell(cell_text(v, column) if shown is None else shown, repr(float(v)), True)


def signed_amount(value: float, currency: str) -> str:
    """Money with its sign (``+12.50``, ``-71.00``, ``0.00``); whole points at points-only
    tables (``+58``)."""
    if currency == POINTS and float(value).is_integer():
        return f"{int(value):+d}" if value else "0"
    return signed_money(value)


def amount(value: object, currency: str) -> Cell:
    v = plain(value)
    if v is None:
        return Cell(MISSING, "", True)
    return Cell(signed_amount(float(v), currency), repr(float(v)), True)


def rate_text(count: object, sample: object, min_hands: int) -> str:
    """``3/24 (12.5%)``; ``- (n=4)`` under ``min_hands``: a rate of a few hands says
    nothing, but its sample size is still said."""
    c, n = plain(count), plain(sample)
    if n is None or c is None:
        return MISSING
    if int(n) < min_hands or int(n) == 0:
        return f"not shown ({quantity(int(n), 'hand')})"
    return f"{int(c):,}/{int(n):,} ({int(c) / int(n) * 100:.1f}%)"


def rate_sentence(label: str, count: object, sample: object, what: str,
                  min_hands: int) -> str:
    """``Fouls: 3 of 24 hands with a known board (12.5%).``, or why the rate is not shown."""
    c, n = int(plain(count) or 0), int(plain(sample) or 0)
    if n < min_hands or n == 0:
        return f"{label}: not shown, {n:,} {what} (a rate needs {min_hands:,})."
    return f"{label}: {c:,} of {n:,} {what} ({c / n * 100:.1f}%)."


def _capped(rows: list[GridRow], total: int) -> tuple[list[GridRow], str]:
    if total <= MAX_ROWS:
        return rows, ""
    return rows[:MAX_ROWS], f"first {MAX_ROWS:,} of {total:,} rows; the CSV files hold all"


def totals_sentence(s: SessionSummaries) -> str:
    """The session in one sentence (the report's and the terminal's). Valid and with
    violations split the hands; mismatches, results that cannot be checked and incomplete
    histories are counted among all of them (a hand can be in more than one), and the
    sentence says so."""
    among = [f"{count_text(s.total('with_mismatches'))} with recorded mismatches",
             f"{count_text(s.total('with_unverifiable'))} with results that cannot be checked"]
    if s.total("incomplete"):
        among.append(f"{count_text(s.total('incomplete'))} incomplete")
    return (hands_sentence(s.total("hands"), s.total("valid"), s.total("with_violations"),
                           among, s.total("rejected"))
            + f"; {quantity(s.total('players'), 'player')}")


# -- the view ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Currency:
    currency: str
    unit: str  # "EUR", or "points" at points-only tables
    headline: str  # "Biggest winner alice +27.50; biggest loser bob -71.00."
    standings: Grid
    owes: Grid
    payments: Grid


@dataclass(frozen=True)
class Spark:
    """A player's cumulative settled result in one currency as an inline SVG polyline."""

    currency: str
    points: str  # "x,y x,y ..." in the SVG's own 300x60 box
    zero: float  # y of the zero line
    final: str  # the last value, worded
    hands: int


@dataclass(frozen=True)
class Player:
    anchor: str
    name: str
    results: Grid
    opponents: Grid
    sparks: list[Spark]
    rates: str


@dataclass(frozen=True)
class ChartView:
    name: str
    caption: str
    png_uri: str  # data:image/png;base64,...
    files: list[str]  # charts/NAME.png, charts/NAME.svg


@dataclass(frozen=True)
class ReportView:
    title: str
    span: str
    verdict: str
    totals: str
    filters: list[str]
    warnings: list[str]
    cards: list[tuple[str, int, bool]]  # (label, value, bad)
    currencies: list[Currency]
    attention: Grid
    attention_count: int  # hands and rejected entries, all of them (the grid may be cut)
    no_page: str
    players: list[Player]
    players_note: str
    charts: list[ChartView]
    tables: list[Grid]
    min_hands: int
    review: ReviewView | None = None


def anchors(names: Iterable[str]) -> dict[str, str]:
    """An element id per player: ``player-N`` (a name may hold anything, an id may not)."""
    return {n: f"player-{i}" for i, n in enumerate(sorted(set(names), key=_name_key))}


def _name_key(name: str) -> tuple[str, str]:
    return (name.casefold(), name)


def _unit(currency: str) -> str:
    return "points" if currency == POINTS else currency


#: The detail of a standings row: every currency has the same (points tables show "-" for
#: money before caps), so a player's rows of several currencies make one table.
STANDING_DETAIL = [
    "points transferred (after caps, every stake)", "points (before caps)",
    "points money (before caps)", "points/hand", "royalties (top/middle/bottom)", "fouls",
    "Fantasyland entered", "Fantasyland hands", "Fantasyland repeats", "biggest win",
    "biggest loss"]


def standings_grid(players: pd.DataFrame, currency: str, links: Mapping[str, str],
                   min_hands: int, key: str, first: str = "name") -> Grid:
    """One currency's players, best settled result first: player, hands, settled money (or
    points at points-only tables); the rest (points, before and after caps, whose sums mix
    stakes; royalties, fouls, Fantasyland, biggest hands) in the detail."""
    settled = "money settled" if currency != POINTS else "points settled"
    if first != "name":
        settled = "settled"
    headings = ["player" if first == "name" else "currency", "hands", settled]
    rows = []
    # A player's own rows are in currency order: amounts of two currencies do not compare.
    frame = players if first != "name" else players.sort_values(
        ["net_money", "name"], ascending=[False, True], kind="stable")
    for r in frame.to_dict("records"):
        name = str(r["name"])
        cur = str(r["currency"])
        lead = (Cell(name, href="#" + links[name], wrap=True) if first == "name"
                else Cell(_unit(cur)))
        more = [
            signed_amount(float(r["net"]), POINTS),
            signed_amount(float(r["points"]), POINTS),
            MISSING if cur == POINTS else signed_amount(float(r["money"]), cur),
            cell_text(r["points_per_hand"], "points_per_hand"),
            f"{r['royalties']} ({r['royalties_top']}/{r['royalties_middle']}/"
            f"{r['royalties_bottom']})",
            rate_text(r["fouls"], r["boards"], min_hands),
            rate_text(r["fantasylands"], r["fantasyland_chances"], min_hands),
            str(r["fantasyland_hands"]),
            str(r["fantasyland_repeats"]),
            cell_text(r["biggest_win"], "biggest_win"),
            cell_text(r["biggest_loss"], "biggest_loss"),
        ]
        rows.append(GridRow([lead, number(r["hands"]), amount(r["net_money"], cur)],
                        list(zip(STANDING_DETAIL, more, strict=True))))
    return Grid(key, headings, [False, True, True], rows, list(STANDING_DETAIL))


def _headline(players: pd.DataFrame, currency: str) -> str:
    if players.empty:
        return ""
    nets = players["net_money"].to_numpy(dtype="float64")
    best = players.iloc[int(nets.argmax())]
    worst = players.iloc[int(nets.argmin())]
    parts = []
    if float(best["net_money"]) > 0:
        parts.append(f"Biggest winner {best['name']} "
                     f"{signed_amount(float(best['net_money']), currency)}")
    if float(worst["net_money"]) < 0:
        parts.append(f"biggest loser {worst['name']} "
                     f"{signed_amount(float(worst['net_money']), currency)}")
    if not parts:
        return "Nobody won or lost."
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def _money_grid(frame: pd.DataFrame, currency: str, key: str, links: Mapping[str, str],
                note: str) -> Grid:
    """``payer`` pays ``payee`` ``amount`` (Decimal, exact: :mod:`ofc_audit.session.settle_up`)."""
    rows = [GridRow([Cell(str(r["payer"]), href="#" + links.get(str(r["payer"]), ""), wrap=True),
                 Cell(str(r["payee"]), href="#" + links.get(str(r["payee"]), ""), wrap=True),
                 Cell(f"{r['amount']:,}", repr(float(r["amount"])), True)])
            for r in frame.to_dict("records")]
    shown, cut = _capped(rows, len(rows))
    return Grid(key, ["pays", "to", _unit(currency)], [False, False, True], shown, note=note,
                cut=cut)


def currency_views(players: pd.DataFrame, owes: pd.DataFrame, paid: pd.DataFrame,
                   links: Mapping[str, str], min_hands: int) -> list[Currency]:
    """Per currency: the standings, the payments that settle it and who owes whom pair by
    pair (``owes`` and ``paid`` as :mod:`ofc_audit.session.settle_up` gives them)."""
    pairwise = pd.DataFrame({"currency": owes["currency"], "payer": owes["opponent"],
                             "payee": owes["player"], "amount": owes["money"]})
    out = []
    for i, (currency, group) in enumerate(players.groupby("currency", sort=True)):
        cur = str(currency)
        mine = paid[paid["currency"] == cur]
        out.append(Currency(
            cur, _unit(cur), _headline(group, cur),
            standings_grid(group, cur, links, min_hands, f"standings-{i}"),
            _money_grid(pairwise[pairwise["currency"] == cur], cur, f"owes-{i}", links,
                        "Net over the session between each two players who played each "
                        "other, after stack caps."),
            _money_grid(mine, cur, f"payments-{i}", links,
                        f"{quantity(len(mine), 'payment')} "
                        f"{plural(len(mine), 'settles', 'settle')} {_unit(cur)}."
                        if len(mine) else "Nobody owes anybody."),
        ))
    return out


def _findings(tables: SessionTables) -> dict[int, list[str]]:
    """Per hand, a line per violation (rule id, its title, the message) and mismatch."""
    lines: dict[int, list[str]] = {}
    v = tables.violations
    for hand, rule, line, message in zip(v["hand"], v["rule"], v["line"], v["message"],
                                         strict=True):
        lines.setdefault(int(hand), []).append(f"{cited(str(rule))}, line {line}: {message}")
    m = tables.mismatches
    for hand, player, fld, recorded, computed in zip(m["hand"], m["player"], m["field"],
                                                     m["recorded"], m["computed"], strict=True):
        lines.setdefault(int(hand), []).append(
            f"{player}, {FIELD_NAMES.get(str(fld), str(fld))}: the site recorded "
            f"{_value(recorded, str(fld))}, the rules give {_value(computed, str(fld))}")
    return lines


def _value(value: object, fld: str) -> str:
    """A recorded or computed mismatch value in words: flags yes/no; Fantasyland next hand
    is its card count, none when the player does not qualify (``yes, 14 cards``, ``no``)."""
    v = plain(value)
    if fld == "fantasyland_next":
        return "no" if v is None else f"yes, {v} cards"
    if v is None:
        return MISSING
    return ("yes" if v else "no") if fld in FLAG_FIELDS else str(v)


def attention_grid(tables: SessionTables, pages: Mapping[tuple[str, int], str]
                   ) -> tuple[Grid, int, int]:
    """The hands with violations, recorded mismatches, unverifiable results or cut off
    (incomplete), then the rejected text, each with what is wrong and a link to its dispute
    page where ``pages`` has one (the first :data:`MAX_ROWS`); how many there are, and how
    many have no page."""
    hands = tables.hands
    bad = hands[(~hands["valid"]) | (hands["mismatches"] > 0) | (hands["unverifiable"] > 0)
                | hands["incomplete"].notna()]
    rejected = tables.rejected
    keys = [*zip(bad["file"], bad["line"], strict=True),
            *zip(rejected["file"], rejected["line"], strict=True)]
    no_page = sum(not _safe_href(pages.get((str(f), int(n)), "")) for f, n in keys)
    # Rows are built for what is shown only: a long session can have many thousands.
    bad = bad.head(MAX_ROWS)
    rejected = rejected.head(MAX_ROWS - len(bad))
    findings = _findings(tables) if len(bad) else {}
    rows: list[GridRow] = []
    for r in bad.to_dict("records"):
        kinds = []
        if not r["valid"]:
            kinds.append(quantity(int(r["violations"]), "violation"))
        if r["mismatches"]:
            kinds.append(quantity(int(r["mismatches"]), "mismatch", many="mismatches"))
        if r["unverifiable"]:
            kinds.append(f"{count_text(int(r['unverifiable']))} not checkable")
        if plain(r["incomplete"]) is not None:
            kinds.append("incomplete")
        page = _safe_href(pages.get((str(r["file"]), int(r["line"])), ""))
        found = findings.get(int(r["hand"]), [])
        if r["unverifiable"]:
            found = found + [f"{quantity(int(r['unverifiable']), 'result')} cannot be checked: "
                             "hidden cards"]
        if plain(r["incomplete"]) is not None:
            found = found + [f"incomplete: {r['incomplete']}"]
        rows.append(GridRow([Cell("#" + str(r["hand_id"]), href=page),
                         Cell(", ".join(kinds)),
                         Cell("; ".join(found), wrap=True),
                         Cell(str(r["table"]), wrap=True),
                         Cell(f"{r['file']}:{r['line']}", wrap=True)]))
    for r in rejected.to_dict("records"):
        page = _safe_href(pages.get((str(r["file"]), int(r["line"])), ""))
        rows.append(GridRow([Cell(MISSING, href=page), Cell("rejected"),
                         Cell(str(r["message"]), wrap=True), Cell(MISSING),
                         Cell(f"{r['file']}:{r['line']}:{r['column']}", wrap=True)]))
    _, cut = _capped(rows, len(keys))
    grid = Grid("problems", ["hand", "problem", "what", "table", "where"],
                [False] * 5, rows, cut=cut)
    return grid, len(keys), no_page


def _safe_href(href: str) -> str:
    """Only relative links (a dispute page beside the report): no scheme, no host."""
    head = href.split("/", 1)[0]
    return "" if ":" in head or href.startswith("//") else href


def pair_money(owes: pd.DataFrame) -> pd.DataFrame:
    """Who owes whom seen from each side: ``player``, ``opponent``, ``currency``,
    ``settled`` (float; > 0: the opponent paid the player)."""
    paid = owes["money"].map(float).to_numpy(dtype="float64")
    forward = pd.DataFrame({"player": owes["player"].astype(str).to_numpy(),
                            "opponent": owes["opponent"].astype(str).to_numpy(),
                            "currency": owes["currency"].astype(str).to_numpy(),
                            "settled": paid})
    mirror = forward.rename(columns={"player": "opponent", "opponent": "player"})
    mirror["settled"] = -mirror["settled"]
    return pd.concat([forward, mirror[forward.columns]], ignore_index=True)


def with_settled(h2h: pd.DataFrame, money: pd.DataFrame) -> pd.DataFrame:
    """Head to head with the money settled between each two players (``money`` of
    :func:`pair_money`; an even pair settled 0), per player and currency the biggest amount
    either way first (amounts of two currencies do not compare)."""
    joined = h2h.astype({"player": str, "opponent": str, "currency": str}).merge(
        money, on=["player", "opponent", "currency"], how="left")
    joined["settled"] = joined["settled"].fillna(0.0)
    return joined.assign(size=-joined["settled"].abs()).sort_values(
        ["player", "currency", "size"], kind="stable")


def opponents_grid(joined: pd.DataFrame, links: Mapping[str, str], key: str) -> Grid:
    """One player's opponents: its rows of :func:`with_settled`."""
    detail = ["points (before caps)", "rows won/lost/tied", "scoops won/lost",
              "royalties net", "hands capped"]
    rows = []
    for r in joined.to_dict("records"):
        cur = str(r["currency"])
        rows.append(GridRow(
            [Cell(str(r["opponent"]), href="#" + links.get(str(r["opponent"]), ""), wrap=True),
             Cell(_unit(cur)), number(r["hands"]), amount(r["settled"], cur)],
            list(zip(detail, [
                signed_amount(float(r["points"]), POINTS),
                f"{r['rows_won']}/{r['rows_lost']}/{r['rows_tied']}",
                f"{r['scoops_won']}/{r['scoops_lost']}",
                signed_amount(float(r["royalties"]), POINTS),
                str(r["capped"]),
            ], strict=True))))
    shown, cut = _capped(rows, len(rows))
    return Grid(key, ["opponent", "currency", "hands", "settled"],
                [False, False, True, True], shown, detail, cut=cut)


def sparks(cumulative: pd.DataFrame) -> list[Spark]:
    """A player's cumulative settled result per currency, as polylines in a 300x60 box."""
    out = []
    for currency, group in cumulative.groupby("currency", sort=True):
        y = np.concatenate([[0.0], group["cumulative"].to_numpy(dtype="float64")])
        x = np.arange(len(y), dtype="float64")
        if len(x) > SPARK_POINTS:
            x, y = thin(x, y, SPARK_POINTS)
        lo, hi = min(0.0, float(y.min())), max(0.0, float(y.max()))
        span = (hi - lo) or 1.0
        sx = x / max(1.0, float(x[-1])) * 296 + 2
        sy = 58 - (y - lo) / span * 56
        out.append(Spark(str(currency), " ".join(f"{a:.1f},{b:.1f}" for a, b in
                                                 zip(sx, sy, strict=True)),
                         round(58 - (0 - lo) / span * 56, 1),
                         signed_amount(float(y[-1]), str(currency)),
                         len(group)))
    return out


def player_views(tables: SessionTables, players: pd.DataFrame, rates: pd.DataFrame,
                 h2h: pd.DataFrame, money: pd.DataFrame, links: Mapping[str, str],
                 min_hands: int) -> tuple[list[Player], str]:
    names = sorted(links, key=_name_key)
    note = ""
    if len(names) > MAX_PLAYERS:
        note = (f"The first {MAX_PLAYERS} of {len(names):,} players by name; the CSV files "
                "hold every player.")
        names = names[:MAX_PLAYERS]
    chosen = set(names)
    seats = tables.seats
    named = seats["name"]
    if named.isna().any() or not set(named.unique()) <= chosen:
        seats = seats[named.isin(chosen)]  # only when some rows go: a copy of the table
    cumulative = cumulative_results(seats)
    # Each player's rows taken when its sparklines are drawn: the groups split at once were
    # another copy of every seat row.
    by_player = cumulative.groupby("name", sort=False).indices
    results_of = dict(iter(players.groupby("name", sort=False)))
    h2h_of = dict(iter(with_settled(h2h, money).groupby("player", sort=False)))
    rate_of = {str(r["name"]): r for r in rates.to_dict("records")}
    out = []
    for name in names:
        anchor = links[name]
        mine = results_of[name]
        results = _results_per_currency(mine, links, min_hands, anchor)
        r = rate_of.get(name)
        rate_line = "" if r is None else " ".join([
            rate_sentence("Fouls", r["fouls"], r["boards"], "hands with a known board",
                          min_hands),
            rate_sentence("Fantasyland entered", r["fantasylands"], r["fantasyland_chances"],
                          "hands outside Fantasyland", min_hands),
            "(All currencies.)"])
        out.append(Player(anchor, name, results,
                          opponents_grid(h2h_of[name] if name in h2h_of else h2h.iloc[0:0]
                                         .assign(settled=0.0), links, f"{anchor}-opponents"),
                          sparks(cumulative.take(np.asarray(by_player[name]))) if name in by_player
                          else [], rate_line))
    return out, note


def _results_per_currency(mine: pd.DataFrame, links: Mapping[str, str], min_hands: int,
                          anchor: str) -> Grid:
    """A player's results, one row per currency (each in its own unit)."""
    return standings_grid(mine.sort_values("currency", kind="stable"), "", links, min_hands,
                          f"{anchor}-results", first="currency")


def table_grid(frame: pd.DataFrame | TableSource, key: str, title: str, note: str = "",
               wrap: Sequence[str] = ("message", "title")) -> Grid:
    """A plain table of every column (the remaining tables at the end of the report); of
    a source (a summary not held whole), its first piece."""
    if isinstance(frame, TableSource):
        total = frame.rows
        head = next(frame.pieces(MAX_ROWS))
    else:
        total = len(frame)
        head = frame.head(MAX_ROWS)
    columns = [str(c) for c in head.columns]
    numeric = [pd.api.types.is_numeric_dtype(d) and not pd.api.types.is_bool_dtype(d)
               for d in head.dtypes]
    rows = []
    for values in head.itertuples(index=False, name=None):
        cells = []
        for c, v, is_num in zip(columns, values, numeric, strict=True):
            cells.append(number(v, c) if is_num else
                         Cell(cell_text(v, c), wrap=c in wrap or c in ("name", "table")))
        rows.append(GridRow(cells))
    _, cut = _capped(rows, total)
    from ..session.exports import heading

    return Grid(key, [heading(c) for c in columns], numeric, rows, note=note, cut=cut,
                title=title)


def _worded_mismatches(mismatches: pd.DataFrame) -> pd.DataFrame:
    """The mismatch table with flags worded yes/no (the files keep 1/0: one column type)."""
    out = mismatches.drop(columns=["hand"])
    for column in ("recorded", "computed"):
        out[column] = [_value(v, str(f)) for v, f in
                       zip(mismatches[column], mismatches["field"], strict=True)]
    return out


def report_view(tables: SessionTables, s: SessionSummaries, charts: Sequence[ChartView],
                options: ReportOptions) -> ReportView:
    """Everything the templates show."""
    players: pd.DataFrame = s.players
    links = anchors(str(n) for n in players["name"])
    money = pair_money(s.owes)
    total = s.total
    attention, attention_total, no_page = attention_grid(tables, options.hand_pages)
    count = (total("with_violations") + total("with_mismatches") + total("rejected")
             + total("incomplete"))
    verdict = ("Every hand replayed cleanly." if count == 0 else
               "Some hands break rules, disagree with what the site recorded, or could not be "
               "read: see the hands that need attention.")
    no_page_text = ""
    if no_page and attention.rows:
        why = getattr(options.hand_pages, "note", lambda: "")()
        no_page_text = (f"{no_page:,} of these {attention_total:,} have no dispute page"
                        + (f": {why}." if why else "."))
    player_list, players_note = player_views(
        tables, players, s.rates, s.head_to_head, money, links, options.min_hands)
    first, last = s.totals["first_time"].iloc[0], s.totals["last_time"].iloc[0]
    span = "" if pd.isna(first) else f"{first:%Y-%m-%d %H:%M} to {last:%Y-%m-%d %H:%M} UTC"
    cards = [
        (plural(total("hands"), "hand"), total("hands"), False),
        (plural(total("players"), "player"), total("players"), False),
        ("with violations", total("with_violations"), total("with_violations") > 0),
        ("with mismatches", total("with_mismatches"), total("with_mismatches") > 0),
        ("not checkable", total("with_unverifiable"), False),
        *([("incomplete", total("incomplete"), True)] if total("incomplete") else []),
        ("rejected", total("rejected"), total("rejected") > 0),
    ]
    return ReportView(
        title="OFC session report",
        span=span,
        verdict=verdict,
        totals=totals_sentence(s),  # the terminal says the same sentence
        filters=list(options.filters),
        warnings=list(options.warnings),
        cards=cards,
        currencies=currency_views(players, s.owes, s.payments, links, options.min_hands),
        attention=attention,
        attention_count=attention_total,
        no_page=no_page_text,
        players=player_list,
        players_note=players_note,
        charts=list(charts),
        tables=[
            table_grid(s.matches, "matches", "Matches",
                       "A match is a hand and the Fantasyland hands chained to it; points and "
                       "points money before caps."),
            table_grid(with_rule_titles(tables.violations.drop(columns=["hand"])),
                       "violations", "Violations", "Each rule's full text: ofc-audit rules ID."),
            table_grid(readable_fields(_worded_mismatches(tables.mismatches)), "mismatches",
                       "Recorded mismatches",
                       "What the site recorded against the auditor's own result."),
            table_grid(tables.rejected, "rejected", "Rejected",
                       "Text that could not be read as a hand."),
        ],
        min_hands=options.min_hands,
        review=options.review,
    )
