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

Every player keeps one colour on every chart (:func:`player_colors`), and every name goes
through :func:`display_name`, because matplotlib reads ``$...$`` as mathematics (a name with
one ``$`` would fail to draw) and hides legend labels that start with ``_``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator, PercentFormatter
from pyparsing import ParserElement

from ..session.summaries import player_rates, royalties_by_category
from ..session.tables import ROW_NAMES

# Importing matplotlib (its mathtext parser) switches pyparsing's packrat cache on for the
# whole process. ofc_audit keeps pyparsing at its defaults, as grammar.py promises: the
# reader runs pyparsing in the same process to explain rejected lines. The charts never
# draw mathtext (display_name escapes '$'), so the default is put back.
ParserElement.disable_memoization()

Colors = Mapping[str, str]


def player_colors(names: Iterable[str]) -> dict[str, str]:
    """A colour per player, assigned in sorted name order so that the same players get the
    same colours on every chart and in every run; tab10 up to 10 players, tab20 up to 20,
    then evenly spaced hues."""
    unique = sorted(set(names))
    n = len(unique)
    if n <= 10:
        palette = [to_hex(c) for c in colormaps["tab10"].colors]  # type: ignore[attr-defined]
    elif n <= 20:
        palette = [to_hex(c) for c in colormaps["tab20"].colors]  # type: ignore[attr-defined]
    else:
        palette = [to_hex(colormaps["hsv"](i / n)) for i in range(n)]
    return {name: palette[i] for i, name in enumerate(unique)}


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


def _colors(colors: Colors | None, names: Iterable[str]) -> Colors:
    return colors if colors is not None else player_colors(names)


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
    ``top`` biggest winners and losers are coloured and labelled; the others are thin grey
    lines without a label, drawn as one artist."""
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
    shown = set(top_players(frame, top)) if len(names) > top else set(names)
    grey: list[np.ndarray] = []
    grey_limit = max(50, MAX_POINTS // max(1, len(names) - len(shown)))
    groups = dict(iter(frame.groupby("name", sort=False)))
    for name in ranked:
        group = groups[name]
        x, y = _series(group, over)
        is_shown = name in shown
        limit = MAX_POINTS if is_shown else grey_limit
        style = "steps-post"
        if len(x) > limit:
            x, y = thin(x, y, limit)
            style = "default"  # steps between kept points would draw levels never held
        if is_shown:
            ax.plot(x, y, drawstyle=style, color=colors[str(name)],
                    label=display_name(str(name)), linewidth=1.6 if style != "default" else 1.0,
                    zorder=3)
        else:
            if style == "steps-post":
                x, y = np.repeat(x, 2)[1:], np.repeat(y, 2)[:-1]
            grey.append(np.column_stack([x, y]))
    if grey:
        ax.add_collection(LineCollection(grey, colors="0.72", linewidths=0.7, zorder=2))
        ax.autoscale_view()
    ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
    ax.set_title(title)
    ax.set_xlabel("time (UTC)" if over == "time" else "hand number")
    ax.set_ylabel("points" if currency == POINTS else currency)
    if over == "time":
        locator = mdates.AutoDateLocator()  # type: ignore[no-untyped-call]
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(
            mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    others = len(names) - len(shown)
    # Outside the plot: a results graph has lines everywhere, any inside spot hides some.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
              title=f"top {len(shown)} of {len(names)}" if others else "player")
    if others:
        ax.text(1.01, 0.0, f"{others} other player(s)\nin grey", transform=ax.transAxes,
                fontsize="x-small", color="0.4", va="bottom")
    return ax


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
        ax.annotate(f"{total:.0f}", (xi, total), ha="center", va="bottom", fontsize="small",
                    xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(x, list(ROW_NAMES))
    ax.set_title(title)
    ax.set_xlabel("row")
    ax.set_ylabel("royalty points")
    ax.legend(title="category", fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(True, axis="y", alpha=0.3)
    return ax


# -- foul rate and Fantasyland frequency ------------------------------------------------------


def rated_players(rates: pd.DataFrame, min_hands: int) -> tuple[pd.DataFrame, list[str]]:
    """The rows of :func:`~ofc_audit.session.summaries.player_rates` with at least ``min_hands``
    known boards (the foul rate's sample), and the names of those left out."""
    enough = rates["boards"] >= min_hands
    return rates[enough].reset_index(drop=True), [str(n) for n in rates.loc[~enough, "name"]]


def plot_rates(
    rates: pd.DataFrame,
    ax: Axes | None = None,
    colors: Colors | None = None,
    *,
    min_hands: int = 1,
) -> Axes:
    """Foul rate (solid) and Fantasyland frequency (hatched) per player, from
    :func:`~ofc_audit.session.summaries.player_rates`, each bar labelled with its count over its
    sample (``3/24``). Players with fewer than ``min_hands`` known boards are left out (a
    rate of one hand says nothing) and the chart says how many; a Fantasyland bar whose own
    sample is under ``min_hands`` is not drawn either."""
    ax = _axes(ax)
    title = "Foul rate and Fantasyland frequency"
    kept, left_out = rated_players(rates, min_hands)
    note = (f"{len(left_out)} player(s) with fewer than {min_hands} hands left out"
            if left_out else "")
    if kept.empty:
        return _empty(ax, title, note or "no hands")
    names = [str(n) for n in kept["name"]]
    colors = _colors(colors, names)
    x = np.arange(len(names))
    width = 0.38
    shades = [colors[n] for n in names]
    fl_ok = kept["fantasyland_chances"] >= min_hands
    foul = kept["foul_rate"].fillna(0).to_numpy(dtype="float64")
    fl = kept["fantasyland_rate"].where(fl_ok).fillna(0).to_numpy(dtype="float64")
    foul_bars = ax.bar(x - width / 2, foul, width, color=shades, edgecolor="black",
                       linewidth=0.5)
    fl_bars = ax.bar(x + width / 2, fl, width, color=shades, alpha=0.55, hatch="//",
                     edgecolor="black", linewidth=0.5)
    small = "xx-small" if len(names) > 12 else "x-small"
    ax.bar_label(foul_bars, [f"{f}/{b}" for f, b in zip(kept["fouls"], kept["boards"],
                                                        strict=True)],
                 fontsize=small, padding=1)
    ax.bar_label(fl_bars, [f"{f}/{c}" if ok else f"n={c}" for f, c, ok in
                           zip(kept["fantasylands"], kept["fantasyland_chances"], fl_ok,
                               strict=True)], fontsize=small, padding=1)
    slanted = len(names) > 5
    ax.set_xticks(x, [display_name(n) for n in names], rotation=30 if slanted else 0,
                  ha="right" if slanted else "center", rotation_mode="anchor")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylim(0, max(0.05, float(max(foul.max(), fl.max())) * 1.25))
    ax.set_title(title + (f"\n({note})" if note else ""))
    ax.set_xlabel("player")
    ax.set_ylabel("share of hands (count / sample)")
    ax.legend(
        handles=[
            Patch(facecolor="0.55", edgecolor="black", label="foul rate (fouls / known boards)"),
            Patch(facecolor="0.8", edgecolor="black", hatch="//",
                  label="Fantasyland frequency (entries / hands outside Fantasyland)"),
        ],
        fontsize="small",
        loc="upper left",
    )
    ax.grid(True, axis="y", alpha=0.3)
    return ax


# -- points per hand --------------------------------------------------------------------------


def points_histogram(seats: pd.DataFrame, bins: int = 40) -> pd.DataFrame:
    """How many seats won or lost how many points in a hand (before caps; known results
    only): ``low``, ``high`` (the bin's edges, whole points) and ``seats``. Points are the
    same unit at every stake, so every table counts."""
    points = seats["points"].dropna().to_numpy(dtype="int64")
    if len(points) == 0:
        return pd.DataFrame({"low": [], "high": [], "seats": []}, dtype="int64")
    lo, hi = int(points.min()), int(points.max()) + 1
    width = max(1, -(-(hi - lo) // bins))
    edges = np.arange(lo, hi + width, width)
    counts, _ = np.histogram(points, edges)
    return pd.DataFrame({"low": edges[:-1], "high": edges[1:], "seats": counts})


def plot_points_histogram(histogram: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """The histogram of :func:`points_histogram` (one artist)."""
    ax = _axes(ax)
    title = "Points per hand"
    if histogram.empty:
        return _empty(ax, title)
    edges = np.append(histogram["low"].to_numpy(), histogram["high"].to_numpy()[-1])
    ax.stairs(histogram["seats"].to_numpy(), edges, fill=True, color="#4c78a8", alpha=0.85)
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set_title(title)
    ax.set_xlabel("points won (+) or lost (-) by a player in one hand, before stack caps")
    ax.set_ylabel("player-hands")
    ax.grid(True, axis="y", alpha=0.3)
    return ax


# -- biggest hands ----------------------------------------------------------------------------

BIGGEST_COLUMNS = ["hand", "hand_id", "name", "currency", "points", "amount"]


def biggest_hands(seats: pd.DataFrame, n: int = 8) -> pd.DataFrame:
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


def plot_biggest_hands(biggest: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Horizontal bars of :func:`biggest_hands`, one per player-hand, wins at the top."""
    ax = _axes(ax)
    title = "Biggest hands won and lost (points)"
    if biggest.empty:
        return _empty(ax, title)
    y = np.arange(len(biggest))[::-1]
    points = biggest["points"].to_numpy()
    ax.barh(y, points, color=["#2e7d32" if p > 0 else "#c62828" for p in points])
    labels = [f"#{display_name(h)} {display_name(n)}" for h, n in
              zip(biggest["hand_id"], biggest["name"], strict=True)]
    ax.set_yticks(y, labels, fontsize="x-small")
    for yi, p, amount, currency in zip(y, points, biggest["amount"], biggest["currency"],
                                       strict=True):
        text = f"{p:+d}" + ("" if currency == POINTS else f" ({amount:+.2f} {currency})")
        ax.annotate(text, (p, yi), xytext=(3 if p > 0 else -3, 0),
                    textcoords="offset points", ha="left" if p > 0 else "right",
                    va="center", fontsize="x-small")
    lim = float(np.abs(points).max()) * 1.45
    ax.set_xlim(-lim, lim)
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set_title(title)
    ax.set_xlabel("points in the hand, before stack caps (settled amount in brackets)")
    ax.grid(True, axis="x", alpha=0.3)
    return ax


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
        color = colors[player]
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
        handles=[Patch(facecolor=colors[p], label=display_name(p))
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
) -> list[ChartSpec]:
    """The session's charts in report order, every frame computed once here (pass
    ``royalties``/``rates`` when the caller has them already; ``times`` is the hands' time
    indexed by ``hand``). The results graphs come per currency, by hand and over time."""
    colors = _colors(colors, seats["name"].unique())
    cumulative = cumulative_results(seats, times)
    royalties = royalties_by_category(seats) if royalties is None else royalties
    rates = player_rates(seats) if rates is None else rates
    histogram = points_histogram(seats)
    biggest = biggest_hands(seats)
    out: list[ChartSpec] = []
    for currency, frame in cumulative.groupby("currency", sort=True):
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
                  f"with at least {min_hands} hands)",
                  lambda ax: plot_rates(rates, ax, colors, min_hands=min_hands)),
        ChartSpec("points_histogram", "Points per hand (every player-hand, before caps)",
                  lambda ax: plot_points_histogram(histogram, ax)),
        ChartSpec("biggest_hands", "Biggest hands won and lost",
                  lambda ax: plot_biggest_hands(biggest, ax)),
    ]
    return out


def _draw_cumulative(frame: pd.DataFrame, colors: Colors, over: str, top: int) -> Draw:
    return lambda ax: plot_cumulative(frame, ax, colors, over=over, top=top)


def compose(charts: Sequence[ChartSpec], columns: int = 2) -> Figure:
    """Charts on one figure (a tear sheet), ``columns`` to a row."""
    rows = max(1, -(-len(charts) // columns))
    figure = Figure(figsize=(7.5 * columns, 5.0 * rows), layout="constrained")
    grid = figure.add_gridspec(rows, columns)
    for i, chart in enumerate(charts):
        chart.draw(figure.add_subplot(grid[i // columns, i % columns]))
    figure.suptitle("OFC session", fontsize="x-large")
    return figure


def plot_session(seats: pd.DataFrame, colors: Colors | None = None) -> Figure:
    """Every chart of a session on one figure: :func:`compose` of :func:`session_charts`."""
    return compose(session_charts(seats, colors=colors))
