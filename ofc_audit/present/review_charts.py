"""The review report's charts (matplotlib, no pyplot): the EV line of one player in one
currency, and the points each player gave away street by street.

Same looks as the session charts (:mod:`.charts`): the colour-blind-safe palette, one look
per player, type sized for a chart shown 400 pixels wide, legends under the plot.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

from ..common.textfmt import quantity
from .charts import (
    LOSS_COLOR,
    PALETTE,
    POINTS,
    WIN_COLOR,
    Colors,
    _axes,
    _empty,
    _legend_below,
    display_name,
)

#: The expected line's colour: black, dashed, beside the actual line's blue.
EXPECTED_COLOR = "#000000"


def currency_words(currency: str) -> str:
    return "points-only tables" if currency == POINTS else f"{currency} tables"


def plot_ev_line(player: str, currency: str, expected: Sequence[float],
                 actual: Sequence[float], ax: Axes | None = None) -> Axes:
    """Cumulative actual result against cumulative expected, hand by hand, for one player's
    reviewed hands in one currency (docs/REVIEW.md "Luck"): the area between them is what
    the cards gave (blue, actual above) or took (vermillion)."""
    ax = _axes(ax)
    title = f"{display_name(player)}: actual against expected ({currency_words(currency)})"
    if not len(expected):
        return _empty(ax, title)
    x = np.arange(0, len(expected) + 1, dtype="float64")
    exp = np.concatenate([[0.0], np.cumsum(np.asarray(expected, dtype="float64"))])
    act = np.concatenate([[0.0], np.cumsum(np.asarray(actual, dtype="float64"))])
    ax.fill_between(x, exp, act, where=act >= exp, interpolate=True, color=WIN_COLOR,
                    alpha=0.18, linewidth=0, label="the cards gave")
    ax.fill_between(x, exp, act, where=act < exp, interpolate=True, color=LOSS_COLOR,
                    alpha=0.22, linewidth=0, label="the cards took")
    ax.plot(x, act, color=WIN_COLOR, linewidth=1.8, label="actual (cumulative)")
    ax.plot(x, exp, color=EXPECTED_COLOR, linewidth=1.5, linestyle="dashed",
            label="expected (cumulative)")
    gap = float(act[-1] - exp[-1])
    ax.annotate(f"luck {gap:+.2f}", (x[-1], act[-1]), xytext=(-4, 6 if gap >= 0 else -14),
                textcoords="offset points", ha="right", fontsize="small")
    ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
    ax.set_title(title)
    ax.set_xlabel(f"reviewed hand ({quantity(len(expected), 'hand')})")
    ax.set_ylabel("points (before caps)")
    ax.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    ax.grid(True, alpha=0.3)
    _legend_below(ax, 30.0, ncols=2, fontsize="small")
    return ax


def plot_street_costs(streets: Sequence[str], players: Sequence[str],
                      costs: Sequence[Sequence[float]], looks: Colors,
                      ax: Axes | None = None) -> Axes:
    """Points given away per street (``costs[i][j]``: player ``i``, street ``j``), a bar per
    player in each street's group."""
    ax = _axes(ax)
    title = "Points given away by street"
    if not players or not streets:
        return _empty(ax, title, "no decisions")
    x = np.arange(len(streets), dtype="float64")
    width = 0.8 / len(players)
    for i, name in enumerate(players):
        look = looks.get(name)
        color = look.color if look is not None else PALETTE[i % len(PALETTE)]
        hatch = {"solid": None, "dashed": "//", "dotted": "..", "dashdot": "xx"}.get(
            look.dashes if look is not None else "solid")
        ax.bar(x - 0.4 + width * (i + 0.5), costs[i], width, color=color, hatch=hatch,
               edgecolor="black", linewidth=0.4, label=display_name(name))
    ax.set_xticks(x, list(streets))
    ax.set_title(title)
    ax.set_xlabel("street (FL: Fantasyland setting)")
    ax.set_ylabel("points given away")
    ax.yaxis.set_major_locator(MaxNLocator(nbins=6))
    ax.grid(True, axis="y", alpha=0.3)
    _legend_below(ax, 30.0, ncols=max(1, min(3, len(players))), fontsize="small")
    return ax
