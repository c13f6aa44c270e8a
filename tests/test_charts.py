"""Charts (ofc_audit.charts) render under Agg and hold the artists they promise."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # before anything imports pyplot; the charts themselves never do

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from ofc_audit import charts as C  # noqa: E402
from ofc_audit import summaries as S  # noqa: E402
from ofc_audit.tables import TableBuilder, build_tables  # noqa: E402

from .test_summaries import session  # noqa: E402
from .test_tables import ALICE, KK_FH, P, hand_result  # noqa: E402


def labelled_lines(ax: Axes) -> list[Line2D]:
    """Lines a legend shows (matplotlib names unlabelled artists ``_child...``)."""
    return [line for line in ax.get_lines() if not line.get_label().startswith("_")]


def bars(ax: Axes) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def render(ax_or_figure: Axes | Figure) -> bytes:
    figure = ax_or_figure if isinstance(ax_or_figure, Figure) else ax_or_figure.figure
    assert isinstance(figure, Figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=50)
    data = buffer.getvalue()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    return data


def test_player_colors_are_stable_and_distinct() -> None:
    a = C.player_colors(["carol", "alice", "bob", "alice"])
    b = C.player_colors(["bob", "carol", "alice"])
    assert a == b
    assert list(a) == ["alice", "bob", "carol"]
    assert len(set(a.values())) == 3
    many = C.player_colors(f"p{i}" for i in range(35))
    assert len(set(many.values())) == 35


def test_cumulative_points_one_line_per_player() -> None:
    t = session()
    colors = C.player_colors(t.seats["name"])
    cumulative = C.cumulative_points(t.seats)
    ax = C.plot_cumulative_points(cumulative, colors=colors)
    lines = labelled_lines(ax)
    assert [line.get_label() for line in lines] == ["alice", "bob", "carol"]
    for line in lines:
        assert to_hex(line.get_color()) == colors[str(line.get_label())]
    # Each line ends at the player's session total (H3's unknown points count as 0).
    finals = {str(line.get_label()): line.get_ydata()[-1] for line in lines}  # type: ignore[index]
    assert finals == {"alice": -6, "bob": -22, "carol": 28}
    assert ax.get_title() == "Cumulative points"
    assert ax.get_xlabel() and ax.get_ylabel() == "points"
    legend = ax.get_legend()
    assert legend is not None
    assert [text.get_text() for text in legend.get_texts()] == ["alice", "bob", "carol"]
    render(ax)


def test_cumulative_points_frame() -> None:
    got = C.cumulative_points(session().seats)
    alice = got[got["name"] == "alice"]
    assert alice["hand"].tolist() == [0, 1, 2, 3]
    assert alice["cumulative"].tolist() == [-6, 14, 14, -6]


def test_royalties_chart_stacks_categories_per_row() -> None:
    royalties = S.royalties_by_category(session().seats)
    ax = C.plot_royalties(royalties)
    # 7 categories earn royalties in this session, one bar per row each.
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == [
        "pair", "trips", "straight", "flush", "full house", "quads"
    ]
    assert len(bars(ax)) == 6 * 3
    assert [t.get_text() for t in ax.get_xticklabels()] == ["top", "middle", "bottom"]
    assert ax.get_ylabel() == "royalty points"
    render(ax)


def test_rates_chart_two_bars_per_player_in_player_colours() -> None:
    t = session()
    colors = C.player_colors(t.seats["name"])
    ax = C.plot_rates(S.player_rates(t.seats), colors=colors)
    rects = bars(ax)
    assert len(rects) == 2 * 3
    assert [to_hex(r.get_facecolor()[:3]) for r in rects[:3]] == [
        colors["alice"], colors["bob"], colors["carol"]
    ]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["alice", "bob", "carol"]
    assert [r.get_height() for r in rects] == pytest.approx([0.25, 0.5, 0.0, 1 / 3, 0.5, 1.0])
    render(ax)


def test_settlement_waterfall_of_the_worked_example() -> None:
    t = session()
    steps = S.settlement_steps(t.pairs, 0)
    ax = C.plot_settlement_waterfall(steps, hand_label="PD-1001")
    rects = bars(ax)
    assert len(rects) == 9  # 2 pairs + 1 net for each of 3 players
    assert [r.get_height() for r in rects] == [-1, -5, -6, 1, -3, -2, 5, 3, 8]
    assert [r.get_y() for r in rects] == [0, -1, 0, 0, 1, 0, 0, 5, 0]
    assert "PD-1001" in ax.get_title()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[:3] == ["vs bob", "vs carol", "alice\nnet"]
    render(ax)


def test_composer_draws_every_chart() -> None:
    t = session()
    figure = C.plot_session(t.seats, t.pairs)
    titles = [ax.get_title() for ax in figure.axes]
    assert titles[:3] == ["Cumulative points", "Royalties by row and category",
                          "Foul rate and Fantasyland frequency"]
    assert titles[3].startswith("Settlement waterfall of hand #")
    render(figure)


def test_empty_session_renders() -> None:
    t = TableBuilder().build()
    figure = C.plot_session(t.seats, t.pairs)
    assert len(figure.axes) == 4
    render(figure)


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")
@pytest.mark.parametrize("name", ["$x$", "pay $5", "_hidden", "a\\b", "<b>", "名前"])
def test_awkward_names_draw_verbatim(name: str) -> None:
    t = build_tables([hand_result("H", [P(name, 1, KK_FH), P("bob", 2, ALICE)])])
    ax = C.plot_cumulative_points(C.cumulative_points(t.seats))
    legend = ax.get_legend()
    assert legend is not None
    # A lone '$' would make mathtext fail at draw time; '_' would hide the label.
    assert len(legend.get_texts()) == 2
    render(ax)
    figure = C.plot_session(t.seats, t.pairs)
    render(figure)


def test_plot_on_given_axes() -> None:
    figure = Figure()
    ax = figure.add_subplot()
    t = session()
    assert C.plot_cumulative_points(C.cumulative_points(t.seats), ax) is ax
    other = figure.add_subplot(2, 1, 2)
    assert C.plot_rates(S.player_rates(t.seats), ax=other) is other


def test_long_series_are_thinned_but_keep_extremes() -> None:
    x = pd.Series(range(100_000)).to_numpy()
    y = ((x % 1000) - 500) * (x // 1000)  # a growing saw tooth
    tx, ty = C.thin(x, y, 3000)
    assert len(tx) <= 3001 and tx[0] == 0 and tx[-1] == x[-1]
    assert ty.max() == y.max() and ty.min() == y.min()
    assert (tx[1:] > tx[:-1]).all()  # still in order


def test_cumulative_points_of_a_long_session_draws_thinned_lines() -> None:
    seats = pd.DataFrame({
        "hand": range(20_000),
        "name": pd.array(["ann", "bo"] * 10_000, dtype="string"),
        "points": pd.array([3, -3] * 10_000, dtype="Int64"),
    })
    ax = C.plot_cumulative_points(C.cumulative_points(seats))
    lines = labelled_lines(ax)
    assert len(lines) == 2
    assert all(len(line.get_xdata()) <= C.MAX_POINTS + 1 for line in lines)  # type: ignore[arg-type]
    assert lines[0].get_ydata()[-1] == 30_000  # type: ignore[index]
