"""Session charts (matplotlib): compute apart, plot apart, compose once.

Each ``plot_*`` function draws one chart from a summary frame onto ``ax`` (a new figure's
axes when None) and returns the axes; the frames come from :mod:`ofc_audit.summaries` or
:func:`cumulative_points`. :func:`plot_session` composes all of them on one figure.

Figures are made with :class:`matplotlib.figure.Figure`, never ``pyplot``: no global figure
registry to leak into and no dependence on the interactive backend; ``savefig`` to PNG or
SVG renders with Agg whatever backend the process has.

Every player keeps one colour on every chart (:func:`player_colors`), and every name goes
through :func:`display_name`, because matplotlib reads ``$...$`` as mathematics (a name with
one ``$`` would fail to draw) and hides legend labels that start with ``_``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator, PercentFormatter
from pyparsing import ParserElement

from .summaries import busiest_hand, player_rates, royalties_by_category, settlement_steps
from .tables import ROW_NAMES

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


def display_name(name: str) -> str:
    """A name as matplotlib shows it verbatim: ``$`` escaped (no mathtext), and a leading
    ``_`` protected by a zero-width space (legends skip labels starting with ``_``)."""
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


# -- cumulative points ------------------------------------------------------------------------


def cumulative_points(seats: pd.DataFrame) -> pd.DataFrame:
    """Each player's running points total over the session, one row per hand it played:
    ``hand`` (session order), ``name``, ``points`` (0 when unknown) and ``cumulative``."""
    points = seats["points"].fillna(0).astype("int64")
    out = pd.DataFrame({"hand": seats["hand"], "name": seats["name"], "points": points})
    out = out.sort_values("hand", kind="stable")
    out["cumulative"] = out.groupby("name", sort=False)["points"].cumsum()
    return out.reset_index(drop=True)


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


def plot_cumulative_points(
    cumulative: pd.DataFrame, ax: Axes | None = None, colors: Colors | None = None
) -> Axes:
    """The results graph: one step line per player, points won over the session's hands."""
    ax = _axes(ax)
    title = "Cumulative points"
    if cumulative.empty:
        return _empty(ax, title)
    colors = _colors(colors, cumulative["name"])
    for name, group in cumulative.groupby("name", sort=True):
        # Start every line at 0 just before the player's first hand: the first step shows.
        x = np.concatenate([[group["hand"].iloc[0]], group["hand"].to_numpy() + 1])
        y = np.concatenate([[0], group["cumulative"].to_numpy()])
        style = "steps-post"
        if len(x) > MAX_POINTS:
            x, y = thin(x, y, MAX_POINTS)
            style = "default"  # steps between kept points would draw levels never held
        ax.plot(x, y, drawstyle=style, color=colors[str(name)], label=display_name(str(name)),
                linewidth=1.6 if style == "steps-post" else 1.0)
    ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
    ax.set_title(title)
    ax.set_xlabel("hand (session order)")
    ax.set_ylabel("points")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    # Outside the plot: a results graph has lines everywhere, any inside spot hides some.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
              ncols=2 if cumulative["name"].nunique() > 16 else 1, title="player")
    return ax


# -- royalties --------------------------------------------------------------------------------


def plot_royalties(royalties: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Royalty points by row (bars) and category (stacks), from
    :func:`~ofc_audit.summaries.royalties_by_category`."""
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


def plot_rates(rates: pd.DataFrame, ax: Axes | None = None, colors: Colors | None = None) -> Axes:
    """Foul rate (solid) and Fantasyland frequency (hatched) per player, from
    :func:`~ofc_audit.summaries.player_rates`."""
    ax = _axes(ax)
    title = "Foul rate and Fantasyland frequency"
    if rates.empty:
        return _empty(ax, title)
    names = [str(n) for n in rates["name"]]
    colors = _colors(colors, names)
    x = np.arange(len(names))
    width = 0.38
    shades = [colors[n] for n in names]
    ax.bar(x - width / 2, rates["foul_rate"].fillna(0), width, color=shades, edgecolor="black",
           linewidth=0.5)
    ax.bar(x + width / 2, rates["fantasyland_rate"].fillna(0), width, color=shades, alpha=0.55,
           hatch="//", edgecolor="black", linewidth=0.5)
    slanted = len(names) > 5
    ax.set_xticks(x, [display_name(n) for n in names], rotation=30 if slanted else 0,
                  ha="right" if slanted else "center", rotation_mode="anchor")
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.set_ylim(0, max(0.05, float(np.nanmax(rates[["foul_rate", "fantasyland_rate"]]
                                            .fillna(0).to_numpy())) * 1.15))
    ax.set_title(title)
    ax.set_xlabel("player")
    ax.set_ylabel("share of scored hands")
    ax.legend(
        handles=[
            Patch(facecolor="0.55", edgecolor="black", label="foul rate"),
            Patch(facecolor="0.8", edgecolor="black", hatch="//",
                  label="Fantasyland frequency (entries / hands outside Fantasyland)"),
        ],
        fontsize="small",
        loc="upper left",
    )
    ax.grid(True, axis="y", alpha=0.3)
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
    :func:`~ofc_audit.summaries.settlement_steps`."""
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


def session_charts(
    seats: pd.DataFrame,
    pairs: pd.DataFrame,
    colors: Colors | None = None,
    hand: int | None = None,
    *,
    royalties: pd.DataFrame | None = None,
    rates: pd.DataFrame | None = None,
) -> list[tuple[str, Draw]]:
    """The session's charts as (name, draw) pairs, in tear-sheet order, every frame computed
    once here (pass ``royalties``/``rates`` when the caller has them already). ``hand`` picks
    the waterfall's hand (session key); by default the hand where the most points moved."""
    colors = _colors(colors, seats["name"])
    cumulative = cumulative_points(seats)
    royalties = royalties_by_category(seats) if royalties is None else royalties
    rates = player_rates(seats) if rates is None else rates
    chosen = busiest_hand(pairs) if hand is None else hand
    steps = settlement_steps(pairs, chosen)
    label = None if chosen is None else _hand_label(pairs, chosen)
    return [
        ("cumulative_points", lambda ax: plot_cumulative_points(cumulative, ax, colors)),
        ("royalties", lambda ax: plot_royalties(royalties, ax)),
        ("rates", lambda ax: plot_rates(rates, ax, colors)),
        ("waterfall", lambda ax: plot_settlement_waterfall(steps, ax, colors, label)),
    ]


def compose(charts: Sequence[tuple[str, Draw]], columns: int = 2) -> Figure:
    """Charts on one figure (a tear sheet), ``columns`` to a row."""
    rows = max(1, -(-len(charts) // columns))
    figure = Figure(figsize=(7.5 * columns, 5.0 * rows), layout="constrained")
    grid = figure.add_gridspec(rows, columns)
    for i, (_, draw) in enumerate(charts):
        draw(figure.add_subplot(grid[i // columns, i % columns]))
    figure.suptitle("OFC session", fontsize="x-large")
    return figure


def plot_session(
    seats: pd.DataFrame,
    pairs: pd.DataFrame,
    colors: Colors | None = None,
    hand: int | None = None,
) -> Figure:
    """Every chart of a session on one figure: :func:`compose` of :func:`session_charts`."""
    return compose(session_charts(seats, pairs, colors, hand))


def _hand_label(pairs: pd.DataFrame, hand: int) -> str | None:
    ids = pairs.loc[pairs["hand"] == hand, "hand_id"]
    return display_name(str(ids.iloc[0])) if len(ids) else None
