"""Session charts (matplotlib): compute apart, plot apart, compose once.

Each ``plot_*`` function draws one chart from a summary frame onto ``ax`` (a new figure's
axes when None) and returns the axes; the frames come from :mod:`ofc_audit.session.summaries` or
the compute functions here (:func:`cumulative_results`, :func:`points_histogram`,
:func:`biggest_hands`), small aggregates: no chart draws an artist per hand, so a million-hand
session draws as fast as a short one (long lines are thinned). :func:`session_charts` lists
the report's charts; :func:`plot_session` composes them on one figure.

Money is never added across currencies: the results graph is drawn per currency, in settled
money (after stack caps), or in points for points-only tables.

Figures are made with :class:`matplotlib.figure.Figure`, never ``pyplot``: no global figure
registry to leak into and no dependence on the interactive backend; ``savefig`` to PNG or
SVG renders with Agg whatever backend the process has.

Every named player keeps one look, a colour of a colour-blind-safe palette and a line style,
on every chart (:func:`player_looks`); two players named on one chart never share a look,
and only the players a chart does not name are grey. Type is sized for a chart shown 400
pixels wide (:data:`WIDTH`, :data:`STYLE`), and count labels sit one to a bar. Every name goes
through :func:`display_name`, because matplotlib reads ``$...$`` as mathematics (a name with
one ``$`` would fail to draw) and hides legend labels that start with ``_``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from matplotlib import colormaps, rc_context
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator, PercentFormatter, StrMethodFormatter
from matplotlib.transforms import ScaledTranslation
from matplotlib.typing import RcKeyType
from pyparsing import ParserElement

from ..common.textfmt import number, quantity, signed
from ..session.summaries import player_rates, royalties_by_category
from ..session.tables import ROW_NAMES

# Importing matplotlib (its mathtext parser) switches pyparsing's packrat cache on for the
# whole process. ofc_audit keeps pyparsing at its defaults, as grammar.py promises: the
# reader runs pyparsing in the same process to explain rejected lines. The charts never
# draw mathtext (display_name escapes '$'), so the default is put back.
ParserElement.disable_memoization()

#: Okabe and Ito's colour-blind-safe palette ("Color Universal Design", 2008) without its
#: yellow, which is unreadable as a line on white: blue, orange, bluish green, vermillion,
#: sky blue, reddish purple, black. None is grey: grey is for the players a chart does not
#: name.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#000000")

#: Line styles combined with the palette: 7 x 4 = 28 looks, so two players named on one chart
#: never share a look even where the colours alone run out.
DASHES = ("solid", "dashed", "dotted", "dashdot")

#: The grey of the players a results graph does not name.
OTHERS_GREY = "#b3b3b3"


@dataclass(frozen=True)
class Look:
    """How a player's line looks: a colour of :data:`PALETTE` and a dash pattern."""

    color: str
    dashes: str


#: Every look in the order they are handed out: all colours solid first, then dashed, ...
LOOKS = tuple(Look(color, dashes) for dashes in DASHES for color in PALETTE)

Colors = Mapping[str, Look]


def player_looks(names: Iterable[str]) -> dict[str, Look]:
    """A look per player (:data:`LOOKS`), assigned in sorted name order so that the same
    players look the same on every chart and in every run; distinct up to ``len(LOOKS)``
    players (a chart that names more resolves the repeats itself, :func:`_distinct_looks`)."""
    unique = sorted(set(names))
    return {name: LOOKS[i % len(LOOKS)] for i, name in enumerate(unique)}


def player_colors(names: Iterable[str]) -> dict[str, str]:
    """The colour of each player's look (:func:`player_looks`)."""
    return {name: look.color for name, look in player_looks(names).items()}


def _distinct_looks(names: Sequence[str], looks: Colors) -> dict[str, Look]:
    """The looks of ``names`` (the players one chart names), each its own: a player whose look
    another of them already has takes the first look nobody on the chart has."""
    used: set[Look] = set()
    out: dict[str, Look] = {}
    for name in names:
        look = looks.get(name)
        if look is None or look in used:
            look = next((c for c in LOOKS if c not in used), LOOKS[0])
        used.add(look)
        out[name] = look
    return out


#: Characters of a name a chart shows; a longer name is cut with an ellipsis (the tables
#: carry it whole), or one 200-character name would squeeze the plot to nothing.
NAME_CHARS = 32


def display_name(name: str) -> str:
    """A name as matplotlib shows it verbatim: ``$`` escaped (no mathtext), a leading ``_``
    protected by a zero-width space (legends skip labels starting with ``_``), cut to
    :data:`NAME_CHARS` characters."""
    if len(name) > NAME_CHARS:
        name = name[:NAME_CHARS - 1] + "\u2026"
    text = name.replace("$", r"\$")
    return "\u200b" + text if text.startswith("_") else text


def _axes(ax: Axes | None, size: tuple[float, float] = (8.0, 4.5)) -> Axes:
    if ax is not None:
        return ax
    figure = Figure(figsize=size, layout="constrained")
    return figure.add_subplot()


def _empty(ax: Axes, title: str, what: str = "no hands") -> Axes:
    ax.set_title(title)
    ax.text(0.5, 0.5, what, ha="center", va="center", transform=ax.transAxes, color="0.4")
    ax.set_xticks([])
    ax.set_yticks([])
    return ax


def _legend_below(ax: Axes, gap: float = 40.0, **kwargs: object) -> None:
    """The legend centred under the plot, ``gap`` points below the axes (under the tick
    labels and the axis label), in ``kwargs``' columns; constrained layout makes room.
    Under, not beside: a legend beside a chart takes the width a phone does not have."""
    offset = ScaledTranslation(0, -gap / 72, ax.figure.dpi_scale_trans)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0),
              bbox_transform=ax.transAxes + offset, frameon=False, **kwargs)


def _colors(colors: Colors | None, names: Iterable[str]) -> Colors:
    return colors if colors is not None else player_looks(names)


#: Points per line beyond which the results graph is thinned: a chart a thousand pixels wide
#: cannot show more steps, and drawing a million-hand session's every step takes seconds.
MAX_POINTS = 4000


def thin(x: np.ndarray, y: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """At most ``limit`` points of a long series: per bin of consecutive points, the first,
    the lowest and the highest (in order), so peaks and troughs survive; the last point
    is always kept."""
    bins = max(1, limit // 3)
    edges = np.linspace(0, len(x), bins + 1).astype(int)
    keep = [len(x) - 1]
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        if hi > lo:
            part = y[lo:hi]
            keep += [lo, lo + int(part.argmin()), lo + int(part.argmax())]
    index = np.unique(np.asarray(keep))
    return x[index], y[index]


# -- cumulative results -----------------------------------------------------------------------

#: The currency of points-only tables (docs/FORMAT.md: ``1 points``): its amounts are points.
POINTS = "points"


def cumulative_results(seats: pd.DataFrame, times: pd.Series | None = None) -> pd.DataFrame:
    """Each player's running settled result per currency, one row per hand it played:
    ``currency``, ``name``, ``hand`` (session order), ``number`` (1-based hand number among
    the currency's hands), ``time`` (UTC, from ``times`` indexed by ``hand``; NaT without
    it), ``amount`` (what moved to the player after stack caps, at the stake: money, or
    points at points-only tables; 0 when unknown) and ``cumulative`` (its running sum within
    the player's currency). Currencies are never added together."""
    amount = _floats_or_zero(seats["transfer"]) * seats["stake"].to_numpy(dtype="float64")
    out = pd.DataFrame({
        # Categoricals, as the seat table has them: a Python string per seat row here was
        # the biggest transient of a long session's charts (two objects a row).
        "currency": _labels(seats["currency"]),
        "name": _labels(seats["name"]),
        "hand": seats["hand"].to_numpy(dtype="int64"),
        "amount": amount.round(8),
    })
    if not out["hand"].is_monotonic_increasing:  # sorted already: no copy
        out = out.sort_values("hand", kind="stable").reset_index(drop=True)
    # Hand number within the currency: the rank of the hand among that currency's hands.
    out["number"] = out.groupby("currency", sort=False)["hand"].rank(method="dense") \
        .astype("int64")
    # Naive UTC (datetime64 values, not an object array of Timestamps).
    out["time"] = pd.Series(pd.NaT, index=out.index, dtype="datetime64[us]")
    if times is not None and len(times):
        naive = pd.Series(times).dt.tz_convert(None).astype("datetime64[us]")
        out["time"] = naive.reindex(out["hand"]).to_numpy()
    out["cumulative"] = out.groupby(["currency", "name"], sort=False)["amount"].cumsum() \
        .round(8)
    return out[["currency", "name", "hand", "number", "time", "amount", "cumulative"]]


def _labels(values: pd.Series) -> pd.Categorical:
    """A text column as a Categorical (a seat table's label columns already are one)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return cast(pd.Categorical, values.array)
    return pd.Categorical(values.astype(str).to_numpy())


def _floats_or_zero(values: pd.Series) -> np.ndarray:
    out: np.ndarray = values.to_numpy(dtype="float64", na_value=0.0)
    return out


def top_players(cumulative: pd.DataFrame, top: int) -> list[str]:
    """The ``top`` players with the largest final result either way (won or lost most), best
    first; ties by name."""
    final = cumulative.groupby("name", sort=True)["cumulative"].last()
    order = final.abs().sort_values(ascending=False, kind="stable")
    chosen = list(order.index[:top])
    return sorted(chosen, key=lambda n: (-final[n], n))


def unit_label(currency: str) -> str:
    return "points (points-only tables)" if currency == POINTS else f"settled money, {currency}"


def plot_cumulative(
    cumulative: pd.DataFrame,
    ax: Axes | None = None,
    colors: Colors | None = None,
    *,
    over: str = "number",
    top: int = 8,
) -> Axes:
    """The results graph of ONE currency (``cumulative`` rows of one currency, from
    :func:`cumulative_results`): a step line per player over the hand number (``over`` =
    ``"number"``) or the hands' time (``"time"``). With more than ``top`` players only the
    ``top`` biggest winners and losers are named, each in a look (colour and line style)
    of its own; the others are thin grey lines, drawn as one artist, named in the legend by
    their number. ``top`` is at most ``len(LOOKS)``, the looks there are."""
    ax = _axes(ax)
    currencies = [str(c) for c in cumulative["currency"].unique()]
    currency = str(currencies[0]) if len(currencies) else ""
    if len(currencies) > 1:
        raise ValueError("plot_cumulative draws one currency; got " + ", ".join(currencies))
    what = "Cumulative points" if currency == POINTS else "Cumulative settled money"
    title = f"{what}{', ' + currency if currency and currency != POINTS else ''}" + (
        " (points-only tables)" if currency == POINTS else "")
    title += " over time" if over == "time" else " by hand"
    frame = in_time_order(cumulative) if over == "time" else cumulative
    if frame.empty:
        return _empty(ax, title, "no hands" if cumulative.empty else "no hand has a time")
    names = sorted(frame["name"].unique())
    colors = _colors(colors, names)
    # Legend from the biggest winner down to the biggest loser.
    ranked = top_players(frame, len(names))
    top = min(top, len(LOOKS))  # more could not each have a look of their own
    shown = set(top_players(frame, top)) if len(names) > top else set(names)
    looks = _distinct_looks([n for n in ranked if n in shown], colors)
    grey: list[np.ndarray] = []
    grey_limit = max(50, MAX_POINTS // max(1, len(names) - len(shown)))
    # Each player's rows taken as drawn, one player at a time: the groups split at once
    # were another copy of every row (3 million at 1,000,000 hands) beside ``frame``.
    rows = frame.groupby("name", sort=False, observed=True).indices
    for name in ranked:
        x, y = _series(frame.take(np.asarray(rows[name])), over)
        is_shown = name in shown
        limit = MAX_POINTS if is_shown else grey_limit
        style = "steps-post"
        if len(x) > limit:
            x, y = thin(x, y, limit)
            style = "default"  # steps between kept points would draw levels never held
        if is_shown:
            look = looks[name]
            ax.plot(x, y, drawstyle=style, color=look.color, linestyle=look.dashes,
                    label=display_name(str(name)), linewidth=1.8 if style != "default" else 1.2,
                    zorder=3)
        else:
            if style == "steps-post":
                x, y = np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
            grey.append(np.column_stack([x, y]))
    others = len(names) - len(shown)
    handles, labels = ax.get_legend_handles_labels()
    if grey:
        lines = LineCollection(grey, colors=OTHERS_GREY, linewidths=0.7, zorder=2)
        ax.add_collection(lines)
        ax.autoscale_view()
        handles.append(Line2D([], [], color=OTHERS_GREY, linewidth=1.5))
        labels.append(quantity(others, "other player"))
    ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
    ax.set_title(title)
    ax.set_xlabel("time (UTC)" if over == "time" else "hand number")
    ax.set_ylabel("points" if currency == POINTS else currency)
    if over == "time":
        locator = mdates.AutoDateLocator(maxticks=6)  # type: ignore[no-untyped-call]
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(
            mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    else:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.grid(True, alpha=0.3)
    # Under the plot, in columns: a results graph has lines everywhere (any inside spot
    # hides some), and a legend beside it would take the width a phone does not have.
    longest = max((len(label) for label in labels), default=1)
    _legend_below(ax, 40.0 if over == "time" else 30.0, handles=handles, labels=labels,
                  ncols=max(1, min(3, len(handles), 60 // (longest + 6))),
                  fontsize="small", handlelength=3.0, title_fontsize="small",
                  title=(f"the {len(shown)} biggest winners and losers of "
                         f"{number(len(names))} players" if others else None))
    return ax


def by_currency(cumulative: pd.DataFrame) -> Iterator[tuple[Any, pd.DataFrame]]:
    """``cumulative.groupby("currency", sort=True)``'s groups; a session of one currency
    (none missing) is its own group, not a copy of it (three rows a hand:
    the biggest frame of a long session's charts)."""
    column = cumulative["currency"]
    if len(cumulative) and not column.isna().any():
        values = column.unique()  # a Categorical's observed values, as groupby's groups
        if len(values) == 1:
            yield values[0], cumulative
            return
    yield from cumulative.groupby("currency", sort=True)


def in_time_order(cumulative: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`cumulative_results` that have a time, in time order, with the
    running sums taken in that order (files of a session need not be in time order)."""
    timed = cumulative[cumulative["time"].notna()]
    timed = timed.sort_values(["time", "hand"], kind="stable").reset_index(drop=True)
    timed["cumulative"] = timed.groupby(["currency", "name"], sort=False)["amount"] \
        .cumsum().round(8)
    return timed


def _series(group: pd.DataFrame, over: str) -> tuple[np.ndarray, np.ndarray]:
    """A player's steps: starting at 0 just before its first hand, so the first step shows."""
    y = np.concatenate([[0.0], group["cumulative"].to_numpy(dtype="float64")])
    if over == "time":
        # Days since 1970-01-01, matplotlib's date numbers (its default epoch).
        t = group["time"].to_numpy("datetime64[us]").astype("int64") / 86_400e6
        x = np.concatenate([[t[0]], t])
        return x, y
    n = group["number"].to_numpy(dtype="float64")
    return np.concatenate([[n[0] - 1], n]), y


# -- royalties --------------------------------------------------------------------------------


def plot_royalties(royalties: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Royalty points by row (bars) and category (stacks), from
    :func:`~ofc_audit.session.summaries.royalties_by_category`."""
    ax = _axes(ax)
    title = "Royalties by row and category"
    shown = royalties.loc[(royalties[list(ROW_NAMES)] > 0).any(axis=1)]
    if shown.empty:
        return _empty(ax, title, "no royalties")
    cmap = colormaps["viridis"]
    x = np.arange(len(ROW_NAMES))
    bottom = np.zeros(len(ROW_NAMES))
    # Weakest category darkest; the ramp spans only the categories shown, for contrast.
    for i, (category, values) in enumerate(shown.iterrows()):
        heights = values[list(ROW_NAMES)].to_numpy(dtype="float64")
        shade = cmap(0.9 * i / max(len(shown) - 1, 1))
        ax.bar(x, heights, bottom=bottom, color=shade, edgecolor="white",
               label=str(category).replace("_", " "))
        bottom += heights
    for xi, total in zip(x, bottom, strict=True):
        ax.annotate(f"{total:,.0f}", (xi, total), ha="center", va="bottom", fontsize="small",
                    xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(x, list(ROW_NAMES))
    ax.set_title(title)
    ax.set_xlabel("row")
    ax.set_ylabel("royalty points")
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    _legend_below(ax, title="category", fontsize="small", title_fontsize="small",
                  ncols=min(3, len(shown)))
    ax.grid(True, axis="y", alpha=0.3)
    return ax


# -- foul rate and Fantasyland frequency ------------------------------------------------------


def rated_players(rates: pd.DataFrame, min_hands: int) -> tuple[pd.DataFrame, list[str]]:
    """The rows of :func:`~ofc_audit.session.summaries.player_rates` with at least ``min_hands``
    known boards (the foul rate's sample), and the names of those left out."""
    enough = rates["boards"] >= min_hands
    return rates[enough].reset_index(drop=True), [str(n) for n in rates.loc[~enough, "name"]]


#: The two measures of the rates chart, in colours of :data:`PALETTE` that differ in
#: lightness too (they stay apart in grey print), the Fantasyland bars hatched as well.
FOUL_COLOR = "#D55E00"
FANTASYLAND_COLOR = "#56B4E9"


def rates_height(players: int) -> float:
    """Inches the rates chart needs for ``players`` rows: each row holds two bars with a
    label each, and a label must not reach into the next bar's."""
    return max(3.2, 1.9 + 0.42 * players)


def plot_rates(
    rates: pd.DataFrame,
    ax: Axes | None = None,
    colors: Colors | None = None,
    *,
    min_hands: int = 1,
) -> Axes:
    """Foul rate (solid) and Fantasyland frequency (hatched) per player, from
    :func:`~ofc_audit.session.summaries.player_rates`: a row per player, named on the left,
    each bar labelled at its end with its count over its sample (``3/24``), so labels sit
    one to a bar and never overlap. Players with fewer than ``min_hands`` known boards are
    left out (a rate of one hand says nothing) and the chart says how many; a Fantasyland
    bar whose own sample is under ``min_hands`` is not drawn either (its label says
    ``n=2``). The bars are coloured by measure, not by player: the rows name the players.
    ``colors`` is accepted for a uniform signature and not used."""
    del colors
    ax = _axes(ax, (8.0, rates_height(len(rates))))
    title = "Foul rate and Fantasyland frequency"
    kept, left_out = rated_players(rates, min_hands)
    note = (f"{quantity(len(left_out), 'player')} with fewer than {quantity(min_hands, 'hand')}"
            " left out" if left_out else "")
    if kept.empty:
        return _empty(ax, title, note or "no hands")
    names = [str(n) for n in kept["name"]]
    y = np.arange(len(names))[::-1].astype("float64")  # the first name at the top
    height = 0.4
    fl_ok = kept["fantasyland_chances"] >= min_hands
    foul = kept["foul_rate"].fillna(0).to_numpy(dtype="float64")
    fl = kept["fantasyland_rate"].where(fl_ok).fillna(0).to_numpy(dtype="float64")
    foul_bars = ax.barh(y + height / 2, foul, height, color=FOUL_COLOR, edgecolor="black",
                        linewidth=0.5, label="foul rate (fouls / known boards)")
    fl_bars = ax.barh(y - height / 2, fl, height, color=FANTASYLAND_COLOR, hatch="//",
                      edgecolor="black", linewidth=0.5,
                      label="Fantasyland frequency (entries / hands outside Fantasyland)")
    ax.bar_label(foul_bars, [f"{number(f)}/{number(b)}" for f, b in
                             zip(kept["fouls"], kept["boards"], strict=True)],
                 fontsize="small", padding=3)
    ax.bar_label(fl_bars, [f"{number(f)}/{number(c)}" if ok else f"n={number(c)}"
                           for f, c, ok in zip(kept["fantasylands"],
                                               kept["fantasyland_chances"], fl_ok,
                                               strict=True)],
                 fontsize="small", padding=3)
    ax.set_yticks(y, [display_name(n) for n in names])
    ax.set_ylim(-0.7, len(names) - 0.3)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5))
    # Room on the right for the longest label ("1,234/5,678") beyond the longest bar.
    ax.set_xlim(0, max(0.05, float(max(foul.max(), fl.max()))) * 1.35)
    ax.set_title(title + (f"\n({note})" if note else ""))
    ax.set_xlabel("share of hands (labels: count / sample)")
    _legend_below(ax, fontsize="small")
    ax.grid(True, axis="x", alpha=0.3)
    return ax


# -- points per hand --------------------------------------------------------------------------


def points_histogram(seats: pd.DataFrame, bins: int = 40) -> pd.DataFrame:
    """How many seats won or lost how many points in a hand (before caps; known results
    only): ``low``, ``high`` (the bin's edges, whole points) and ``seats``. Points are the
    same unit at every stake, so every table counts."""
    points = seats["points"].dropna().to_numpy(dtype="int64")
    return points_histogram_of(points, None, bins)


def points_histogram_of(points: np.ndarray, seats: np.ndarray | None, bins: int = 40
                        ) -> pd.DataFrame:
    """:func:`points_histogram` of ``points`` (int64), each counted ``seats`` times (once
    each when None): an archive gives each distinct result and its count."""
    if len(points) == 0:
        return pd.DataFrame({"low": [], "high": [], "seats": []}, dtype="int64")
    lo, hi = int(points.min()), int(points.max()) + 1
    width = max(1, -(-(hi - lo) // bins))
    edges = np.arange(lo, hi + width, width)
    if seats is None:
        counts, _ = np.histogram(points, edges)
    else:
        weighted, _ = np.histogram(points, edges, weights=seats)
        counts = weighted.round().astype(np.int64)
    return pd.DataFrame({"low": edges[:-1], "high": edges[1:], "seats": counts})


def plot_points_histogram(histogram: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """The histogram of :func:`points_histogram` (one artist)."""
    ax = _axes(ax)
    title = "Points per hand"
    if histogram.empty:
        return _empty(ax, title)
    edges = np.append(histogram["low"].to_numpy(), histogram["high"].to_numpy()[-1])
    ax.stairs(histogram["seats"].to_numpy(), edges, fill=True, color=PALETTE[0], alpha=0.85)
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set_title(title)
    ax.set_xlabel("points won (+) or lost (-) in one hand, before caps")
    ax.set_ylabel("player-hands")
    # Counts and points are whole numbers: no tick at 2.5 player-hands.
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
    ax.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.grid(True, axis="y", alpha=0.3)
    return ax


# -- biggest hands ----------------------------------------------------------------------------

BIGGEST_COLUMNS = ["hand", "hand_id", "name", "currency", "points", "amount"]


#: Wins and losses drawn on the biggest hands chart (each).
BIGGEST = 8


def biggest_hands(seats: pd.DataFrame, n: int = BIGGEST) -> pd.DataFrame:
    """The ``n`` biggest wins and the ``n`` biggest losses of single players in single hands,
    in points (comparable at every stake), with what moved at the stake (``amount``, in the
    hand's ``currency``); wins first (biggest first), then losses (biggest first)."""
    known = seats[seats["points"].notna()]
    points = known["points"].astype("int64")
    wins = known.loc[points[points > 0].sort_values(ascending=False, kind="stable")
                     .index[:n]]
    losses = known.loc[points[points < 0].sort_values(kind="stable").index[:n]]
    both = pd.concat([wins, losses])
    amount = _floats_or_zero(both["transfer"]) * both["stake"].to_numpy(dtype="float64")
    return pd.DataFrame({
        "hand": both["hand"].to_numpy(dtype="int64"),
        "hand_id": both["hand_id"].astype(str).to_numpy(),
        "name": both["name"].astype(str).to_numpy(),
        "currency": both["currency"].astype(str).to_numpy(),
        "points": both["points"].to_numpy(dtype="int64"),
        "amount": amount.round(8),
    }, columns=BIGGEST_COLUMNS)


WIN_COLOR = "#0072B2"
LOSS_COLOR = "#D55E00"


def plot_biggest_hands(biggest: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Horizontal bars of :func:`biggest_hands`, one per player-hand, wins at the top."""
    ax = _axes(ax)
    title = "Biggest hands won and lost (points)"
    if biggest.empty:
        return _empty(ax, title)
    y = np.arange(len(biggest))[::-1]
    points = biggest["points"].to_numpy()
    # Blue and vermillion (:data:`PALETTE`), not green and red: told apart by every reader.
    ax.barh(y, points, color=[WIN_COLOR if p > 0 else LOSS_COLOR for p in points])
    labels = [f"#{display_name(h)} {display_name(n)}" for h, n in
              zip(biggest["hand_id"], biggest["name"], strict=True)]
    ax.set_yticks(y, labels, fontsize="small")
    ax.set_ylim(-0.7, len(biggest) - 0.3)
    for yi, p, amount, currency in zip(y, points, biggest["amount"], biggest["currency"],
                                       strict=True):
        text = signed(int(p)) + ("" if currency == POINTS
                                 else f" ({amount:+,.2f} {currency})")
        # On the other side of zero, in the half the row's bar leaves empty: a label at
        # the bar's end needed that half's room again and ran into the names.
        ax.annotate(text, (0, yi), xytext=(-4 if p > 0 else 4, 0),
                    textcoords="offset points", ha="right" if p > 0 else "left",
                    va="center", fontsize="small")
    lim = float(np.abs(points).max()) * 1.05
    ax.set_xlim(-lim, lim)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set_title(title)
    ax.set_xlabel("points before caps (settled amount in brackets)")
    ax.grid(True, axis="x", alpha=0.3)
    return ax


def biggest_height(rows: int) -> float:
    """Inches the biggest-hands chart needs for ``rows`` bars, a label line each."""
    return max(3.2, 1.5 + 0.3 * rows)


# -- settlement waterfall ---------------------------------------------------------------------


def plot_settlement_waterfall(
    steps: pd.DataFrame,
    ax: Axes | None = None,
    colors: Colors | None = None,
    hand_label: str | None = None,
) -> Axes:
    """One hand's settlement: per player, a floating bar per pair it played (in settlement
    order, R-SETTLE-2) and a solid bar for its net; from
    :func:`~ofc_audit.session.summaries.settlement_steps`."""
    ax = _axes(ax)
    title = "Settlement waterfall" + (f" of hand #{hand_label}" if hand_label else "")
    if steps.empty:
        return _empty(ax, title)
    colors = _colors(colors, steps["player"])
    labels: list[str] = []
    x = 0.0
    positions: list[float] = []
    previous_player: str | None = None
    rows = zip(
        steps["player"].astype(str).tolist(),
        steps["opponent"].tolist(),
        steps["amount"].astype(int).tolist(),
        steps["start"].astype(int).tolist(),
        steps["end"].astype(int).tolist(),
        steps["total"].astype(bool).tolist(),
        strict=True,
    )
    for player, opponent, amount, start, end, total in rows:
        if previous_player is not None and player != previous_player:
            x += 0.6  # a gap between players' groups
        previous_player = player
        color = colors[player].color
        if total:
            ax.bar(x, amount, color=color, edgecolor="black", linewidth=0.8)
            labels.append(f"{display_name(player)}\nnet")
        else:
            ax.bar(x, end - start, bottom=start, color=color, alpha=0.45, edgecolor=color,
                   linewidth=0.8)
            labels.append(f"vs {display_name(str(opponent))}")
        ax.annotate(f"{amount:+d}" if amount else "0", (x, max(start, end)), ha="center",
                    va="bottom", fontsize="x-small", xytext=(0, 2), textcoords="offset points")
        positions.append(x)
        x += 1.0
    ax.axhline(0, color="0.3", linewidth=0.8)
    ax.set_xticks(positions, labels, fontsize="x-small", rotation=45, ha="right",
                  rotation_mode="anchor")
    ax.set_title(title)
    ax.set_xlabel("pairs in settlement order, then each player's net")
    ax.set_ylabel("points transferred")
    ax.legend(
        handles=[Patch(facecolor=colors[p].color, label=display_name(p))
                 for p in dict.fromkeys(str(p) for p in steps["player"])],
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        title="player",
    )
    ax.grid(True, axis="y", alpha=0.3)
    return ax


# -- composer ---------------------------------------------------------------------------------

#: Draws one chart on the axes given and returns them.
Draw = Callable[[Axes], Axes]


@dataclass(frozen=True)
class ChartSpec:
    """One chart of a session: its file name (no extension), its caption and its drawer."""

    name: str
    caption: str
    draw: Draw
    height: float = 4.6  # inches, at :data:`WIDTH`


#: Inches across of every chart: narrow, with :data:`STYLE`'s type, so that a chart shown 400
#: pixels wide on a phone keeps its text at about 10 pixels (a 12-point font is 400 / (5.6 *
#: 72) = 0.99 pixels a point there), instead of a thumbnail of a wide chart.
WIDTH = 5.6

#: Type sizes of the charts (matplotlib rcParams): nothing smaller than "small" is used.
STYLE: dict[RcKeyType, object] = {
    "font.size": 12.0, "axes.titlesize": 13.0, "axes.labelsize": 12.0,
    "xtick.labelsize": 11.0, "ytick.labelsize": 11.0, "legend.fontsize": 11.0,
    "legend.title_fontsize": 11.0, "axes.titlelocation": "center",
}


def chart_figure(spec: ChartSpec) -> Figure:
    """``spec`` drawn on its own figure, :data:`WIDTH` by its height. Draw and save under
    ``rc_context(STYLE)`` (matplotlib makes tick labels when it renders)."""
    figure = Figure(figsize=(WIDTH, spec.height), layout="constrained")
    spec.draw(figure.add_subplot())
    return figure


def file_part(text: str) -> str:
    """A currency as a piece of a file name (docs/FORMAT.md currencies are letters already)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_") or "x"


def session_charts(
    seats: pd.DataFrame,
    times: pd.Series | None = None,
    colors: Colors | None = None,
    *,
    royalties: pd.DataFrame | None = None,
    rates: pd.DataFrame | None = None,
    min_hands: int = 10,
    top: int = 8,
    histogram: pd.DataFrame | None = None,
    biggest: pd.DataFrame | None = None,
) -> list[ChartSpec]:
    """The session's charts in report order, every frame computed once here (pass
    ``royalties``, ``rates``, ``histogram``, ``biggest`` when the caller has them already
    (an archive's session has no whole seat table); ``times`` is the hands' time
    indexed by ``hand``). The results graphs come per currency, by hand and over time."""
    cumulative = cumulative_results(seats, times)
    if colors is None:
        # Looks for the players some results graph names, so that in a 24-player session
        # the 8 named ones do not run out of looks that the 16 grey ones were dealt.
        named: set[str] = set()
        for _, frame in by_currency(cumulative):
            players = frame["name"].nunique()
            named.update(top_players(frame, top) if players > top else frame["name"].unique())
            timed = in_time_order(frame)
            if not timed.empty and players > top:
                named.update(top_players(timed, top))
        colors = player_looks(str(n) for n in named)
    royalties = royalties_by_category(seats) if royalties is None else royalties
    rates = player_rates(seats) if rates is None else rates
    histogram = points_histogram(seats) if histogram is None else histogram
    biggest = biggest_hands(seats) if biggest is None else biggest
    out: list[ChartSpec] = []
    for currency, frame in by_currency(cumulative):
        cur = str(currency)
        what = ("Cumulative points per player (points-only tables)" if cur == POINTS
                else f"Cumulative settled money per player, {cur} (after stack caps)")
        out.append(ChartSpec(f"cumulative_{file_part(cur)}_by_hand", what + ", by hand number",
                             _draw_cumulative(frame, colors, "number", top)))
        if frame["time"].notna().any():
            out.append(ChartSpec(f"cumulative_{file_part(cur)}_over_time", what + ", over time",
                                 _draw_cumulative(frame, colors, "time", top)))
    out += [
        ChartSpec("royalties", "Royalties by row and category",
                  lambda ax: plot_royalties(royalties, ax)),
        ChartSpec("rates", f"Foul rate and Fantasyland frequency with their counts (players "
                  f"with at least {quantity(min_hands, 'hand')})",
                  lambda ax: plot_rates(rates, ax, colors, min_hands=min_hands),
                  rates_height(len(rated_players(rates, min_hands)[0]))),
        ChartSpec("points_histogram", "Points per hand (every player-hand, before caps)",
                  lambda ax: plot_points_histogram(histogram, ax)),
        ChartSpec("biggest_hands", "Biggest hands won and lost",
                  lambda ax: plot_biggest_hands(biggest, ax), biggest_height(len(biggest))),
    ]
    return out


def _draw_cumulative(frame: pd.DataFrame, colors: Colors, over: str, top: int) -> Draw:
    return lambda ax: plot_cumulative(frame, ax, colors, over=over, top=top)


def compose(charts: Sequence[ChartSpec], columns: int = 2) -> Figure:
    """Charts on one figure (a tear sheet), ``columns`` to a row."""
    rows = max(1, -(-len(charts) // columns))
    figure = Figure(figsize=(7.5 * columns, 6.0 * rows), layout="constrained")
    grid = figure.add_gridspec(rows, columns)
    with rc_context(STYLE):
        for i, chart in enumerate(charts):
            chart.draw(figure.add_subplot(grid[i // columns, i % columns]))
        figure.suptitle("OFC session", fontsize="x-large")
    return figure


def plot_session(seats: pd.DataFrame, colors: Colors | None = None) -> Figure:
    """Every chart of a session on one figure: :func:`compose` of :func:`session_charts`."""
    return compose(session_charts(seats, colors=colors))
