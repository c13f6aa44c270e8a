"""Charts (ofc_audit.present.charts) render under Agg and hold the artists they promise."""

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

from ofc_audit.present import charts as C  # noqa: E402
from ofc_audit.session import summaries as S  # noqa: E402
from ofc_audit.session.tables import TableBuilder, build_tables  # noqa: E402
from tests.session.test_summaries import session  # noqa: E402
from tests.session.test_tables import ALICE, FOUL, KK_FH, P, hand_result  # noqa: E402


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


def test_cumulative_results_per_currency_are_settled_money() -> None:
    # EUR: H1 at 0.10 (alice -6, bob -2, carol +8) and H4 at 0.05 (alice -20, carol +20);
    # USD: H2 at 0.50 (alice +20, bob -20), H3 unknown (0). No cap bites at these stacks.
    got = C.cumulative_results(session().seats)
    eur = got[got["currency"] == "EUR"]
    assert {n: g["cumulative"].tolist() for n, g in eur.groupby("name")} == {
        "alice": pytest.approx([-0.6, -1.6]), "bob": pytest.approx([-0.2]),
        "carol": pytest.approx([0.8, 1.8])}
    assert eur[eur["name"] == "alice"]["number"].tolist() == [1, 2]  # EUR hands 1 and 2
    usd = got[got["currency"] == "USD"]
    assert {n: g["cumulative"].tolist() for n, g in usd.groupby("name")} == {
        "alice": [10.0, 10.0], "bob": [-10.0, -10.0]}


def test_cumulative_chart_is_one_currency_with_a_line_per_player() -> None:
    t = session()
    colors = C.player_colors(t.seats["name"])
    got = C.cumulative_results(t.seats)
    ax = C.plot_cumulative(got[got["currency"] == "EUR"], colors=colors)
    lines = labelled_lines(ax)
    # Legend from the biggest winner down.
    assert [line.get_label() for line in lines] == ["carol", "bob", "alice"]
    for line in lines:
        assert to_hex(line.get_color()) == colors[str(line.get_label())]
    finals = {str(line.get_label()): line.get_ydata()[-1] for line in lines}  # type: ignore[index]
    assert finals == pytest.approx({"alice": -1.6, "bob": -0.2, "carol": 1.8})
    assert "settled money, EUR" in ax.get_title() and ax.get_ylabel() == "EUR"
    render(ax)
    with pytest.raises(ValueError, match="one currency"):
        C.plot_cumulative(got)


def test_cumulative_chart_of_points_tables_says_points() -> None:
    t = build_tables([hand_result("H", [P("ann", 1, KK_FH), P("bo", 2, ALICE)],
                                  stake=("1", "points"))])
    ax = C.plot_cumulative(C.cumulative_results(t.seats))
    assert "points" in ax.get_title().lower() and ax.get_ylabel() == "points"
    render(ax)


def test_over_time_the_running_sum_follows_the_clock() -> None:
    # The file lists the later hand first: over time, the earlier hand comes first.
    t = build_tables([
        hand_result("LATE", [P("ann", 1, KK_FH), P("bo", 2, FOUL)],
                    timestamp="2026-11-29 23:00:00 UTC"),
        hand_result("EARLY", [P("ann", 1, FOUL), P("bo", 2, ALICE)],
                    timestamp="2026-11-29 21:00:00 UTC"),
    ])
    times = pd.Series(t.hands["time"].array, index=t.hands["hand"].to_numpy())
    got = C.in_time_order(C.cumulative_results(t.seats, times))
    ann = got[got["name"] == "ann"]
    early, late = (float(t.seats.loc[(t.seats["hand_id"] == h) & (t.seats["name"] == "ann"),
                                     "transfer"].iloc[0]) for h in ("EARLY", "LATE"))
    assert ann["hand"].tolist() == [1, 0]
    assert ann["cumulative"].tolist() == pytest.approx([early * 0.1, (early + late) * 0.1])
    ax = C.plot_cumulative(C.cumulative_results(t.seats, times), over="time")
    assert ax.get_xlabel() == "time (UTC)"
    render(ax)


def test_many_players_only_the_top_are_named() -> None:
    n = 12
    seats = pd.DataFrame({
        "hand": range(n), "name": pd.array([f"p{i:02d}" for i in range(n)], dtype="string"),
        "currency": pd.array(["EUR"] * n, dtype="string"), "stake": [1.0] * n,
        "transfer": pd.array([i - 5 for i in range(n)], dtype="Int64"),
    })
    ax = C.plot_cumulative(C.cumulative_results(seats), top=3)
    # Results -5..+6: the three biggest either way are p11 (+6), p10 (+5) and p00 (-5).
    assert [line.get_label() for line in labelled_lines(ax)] == ["p11", "p10", "p00"]
    (grey,) = ax.collections
    assert len(grey.get_paths()) == n - 3  # one artist for all the others
    render(ax)


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


def test_rates_leave_out_players_under_min_hands_and_show_counts() -> None:
    # Known boards: alice 4 (fouled H4), bob 2 (H3 hidden), carol 2. Alice's Fantasyland
    # chances: H1, H2, H4 (H3 she played in Fantasyland); she entered once (H2).
    ax = C.plot_rates(S.player_rates(session().seats), min_hands=3)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["alice"]
    assert "2 player(s) with fewer than 3 hands left out" in ax.get_title()
    labels = [t.get_text() for t in ax.texts]
    assert "1/4" in labels and "1/3" in labels
    render(ax)


def test_points_histogram_and_biggest_hands() -> None:
    seats = session().seats
    hist = C.points_histogram(seats)
    # Known points: -6 -2 +8 (H1), +20 -20 (H2), -20 +20 (H4).
    assert hist["seats"].sum() == 7
    assert hist.loc[hist["low"] == -20, "seats"].item() == 2
    assert hist.loc[(hist["low"] <= 20) & (hist["high"] > 20), "seats"].item() == 2
    big = C.biggest_hands(seats, n=2)
    assert big[["hand_id", "name", "points", "currency"]].values.tolist() == [
        ["H2", "alice", 20, "USD"], ["H4", "carol", 20, "EUR"],
        ["H2", "bob", -20, "USD"], ["H4", "alice", -20, "EUR"]]
    assert big["amount"].tolist() == pytest.approx([10.0, 1.0, -10.0, -1.0])
    render(C.plot_points_histogram(hist))
    ax = C.plot_biggest_hands(big)
    assert len(bars(ax)) == 4
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
    figure = C.plot_session(t.seats)
    titles = [ax.get_title() for ax in figure.axes]
    assert titles[0] == "Cumulative settled money, EUR by hand"
    assert titles[-4:-2] == ["Royalties by row and category",
                             "Foul rate and Fantasyland frequency"]
    render(figure)


def test_empty_session_renders() -> None:
    t = TableBuilder().build()
    figure = C.plot_session(t.seats)
    assert len(figure.axes) == 4  # no currency: no results graph
    render(figure)


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")
@pytest.mark.parametrize("name", ["$x$", "pay $5", "_hidden", "a\\b", "<b>", "名前"])
def test_awkward_names_draw_verbatim(name: str) -> None:
    t = build_tables([hand_result("H", [P(name, 1, KK_FH), P("bob", 2, ALICE)])])
    ax = C.plot_cumulative(C.cumulative_results(t.seats))
    legend = ax.get_legend()
    assert legend is not None
    # A lone '$' would make mathtext fail at draw time; '_' would hide the label.
    assert len(legend.get_texts()) == 2
    render(ax)
    figure = C.plot_session(t.seats)
    render(figure)


def test_plot_on_given_axes() -> None:
    figure = Figure()
    ax = figure.add_subplot()
    t = session()
    eur = C.cumulative_results(t.seats).query("currency == 'EUR'")
    assert C.plot_cumulative(eur, ax) is ax
    other = figure.add_subplot(2, 1, 2)
    assert C.plot_rates(S.player_rates(t.seats), ax=other) is other


def test_long_series_are_thinned_but_keep_extremes() -> None:
    x = pd.Series(range(100_000)).to_numpy()
    y = ((x % 1000) - 500) * (x // 1000)  # a growing saw tooth
    tx, ty = C.thin(x, y, 3000)
    assert len(tx) <= 3001 and tx[0] == 0 and tx[-1] == x[-1]
    assert ty.max() == y.max() and ty.min() == y.min()
    assert (tx[1:] > tx[:-1]).all()  # still in order


def test_results_graph_of_a_long_session_draws_thinned_lines() -> None:
    seats = pd.DataFrame({
        "hand": range(20_000),
        "name": pd.array(["ann", "bo"] * 10_000, dtype="string"),
        "currency": pd.array(["EUR"] * 20_000, dtype="string"),
        "stake": [0.5] * 20_000,
        "transfer": pd.array([3, -3] * 10_000, dtype="Int64"),
    })
    ax = C.plot_cumulative(C.cumulative_results(seats))
    lines = labelled_lines(ax)
    assert len(lines) == 2
    assert all(len(line.get_xdata()) <= C.MAX_POINTS + 1 for line in lines)  # type: ignore[arg-type]
    assert lines[0].get_ydata()[-1] == 15_000  # type: ignore[index]


def test_a_long_name_is_cut_on_the_chart() -> None:
    long = "x" * 200
    assert C.display_name(long) == "x" * (C.NAME_CHARS - 1) + "\u2026"
    t = build_tables([hand_result("H", [P(long, 1, KK_FH), P("bob", 2, ALICE)])])
    ax = C.plot_cumulative(C.cumulative_results(t.seats))
    legend = ax.get_legend()
    assert legend is not None
    assert max(len(text.get_text()) for text in legend.get_texts()) == C.NAME_CHARS
    render(ax)
