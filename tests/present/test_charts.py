"""Charts (ofc_audit.present.charts) render under Agg and hold the artists they promise."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # before anything imports pyplot; the charts themselves never do

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib import rc_context  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
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


def test_player_looks_are_stable_and_distinct() -> None:
    a = C.player_looks(["carol", "alice", "bob", "alice"])
    b = C.player_looks(["bob", "carol", "alice"])
    assert a == b
    assert list(a) == ["alice", "bob", "carol"]
    assert len(set(a.values())) == 3
    many = C.player_looks(f"p{i}" for i in range(len(C.LOOKS)))
    assert len(set(many.values())) == len(C.LOOKS) == 28
    assert C.player_colors(["bob", "alice"]) == {"alice": C.PALETTE[0], "bob": C.PALETTE[1]}


def test_the_palette_is_okabe_ito_without_yellow_and_without_grey() -> None:
    # Okabe & Ito's eight colours, less the yellow (#F0E442) that cannot be read on white.
    assert {c.lower() for c in C.PALETTE} == {
        "#0072b2", "#e69f00", "#009e73", "#d55e00", "#56b4e9", "#cc79a7", "#000000"}
    # No named player is drawn in a grey like the others' (tab10's 8th colour was grey).
    for color in C.PALETTE:
        r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
        assert color == "#000000" or max(r, g, b) - min(r, g, b) > 60, color


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
    looks = C.player_looks(t.seats["name"])
    got = C.cumulative_results(t.seats)
    ax = C.plot_cumulative(got[got["currency"] == "EUR"], colors=looks)
    lines = labelled_lines(ax)
    # Legend from the biggest winner down.
    assert [line.get_label() for line in lines] == ["carol", "bob", "alice"]
    for line in lines:
        assert to_hex(line.get_color()) == looks[str(line.get_label())].color.lower()
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


def test_rates_chart_a_row_of_two_bars_per_player_coloured_by_measure() -> None:
    t = session()
    ax = C.plot_rates(S.player_rates(t.seats))
    rects = bars(ax)
    assert len(rects) == 2 * 3
    assert {to_hex(r.get_facecolor()[:3]) for r in rects[:3]} == {C.FOUL_COLOR.lower()}
    assert {to_hex(r.get_facecolor()[:3]) for r in rects[3:]} == {
        C.FANTASYLAND_COLOR.lower()}
    # The first name at the top.
    assert [t.get_text() for t in ax.get_yticklabels()] == ["alice", "bob", "carol"]
    assert list(ax.get_yticks()) == [2, 1, 0]
    assert [r.get_width() for r in rects] == pytest.approx([0.25, 0.5, 0.0, 1 / 3, 0.5, 1.0])
    render(ax)


def test_rates_leave_out_players_under_min_hands_and_show_counts() -> None:
    # Known boards: alice 4 (fouled H4), bob 2 (H3 hidden), carol 2. Alice's Fantasyland
    # chances: H1, H2, H4 (H3 she played in Fantasyland); she entered once (H2).
    ax = C.plot_rates(S.player_rates(session().seats), min_hands=3)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["alice"]
    assert "2 players with fewer than 3 hands left out" in ax.get_title()
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


# -- issue 20.6: charts people can read --------------------------------------------------------


def many_seats(players: int, hands: int = 6) -> pd.DataFrame:
    """``players`` players, one seat per hand each, player i ending at ``i - players // 2``
    units (a spread of winners and losers), at one EUR table."""
    names, transfers, hand = [], [], []
    for i in range(players):
        for h in range(hands):
            names.append(f"p{i:02d}")
            transfers.append((i - players // 2) if h == hands - 1 else 0)
            hand.append(h * players + i)
    return pd.DataFrame({
        "hand": hand, "hand_id": [f"H{h}" for h in hand],
        "name": pd.array(names, dtype="string"),
        "currency": pd.array(["EUR"] * len(names), dtype="string"),
        "stake": [1.0] * len(names), "transfer": pd.array(transfers, dtype="Int64"),
        "points": pd.array(transfers, dtype="Int64"),
    })


def charts_of(seats: pd.DataFrame, **kwargs: object) -> list[C.ChartSpec]:
    """:func:`C.session_charts` of seats without royalty columns (not drawn here)."""
    royalties = S.royalties_by_category(session().seats)
    kwargs.setdefault("rates", many_rates(3))
    return C.session_charts(seats, royalties=royalties, **kwargs)  # type: ignore[arg-type]


def drawn_looks(ax: Axes) -> dict[str, tuple[str, object]]:
    return {str(line.get_label()): (to_hex(line.get_color()), line.get_linestyle())
            for line in labelled_lines(ax)}


@pytest.mark.parametrize("players, asked, top", [(24, 8, 8), (40, 28, 28), (40, 35, 28)])
def test_named_players_never_share_a_look_and_are_exactly_the_coloured(
        players: int, asked: int, top: int) -> None:
    seats = many_seats(players)
    cumulative = C.cumulative_results(seats)
    # Looks dealt over every player: with 40, p00 and p28 are dealt the same one.
    dealt = C.player_looks(seats["name"])
    ax = C.plot_cumulative(cumulative, colors=dealt, top=asked)
    looks = drawn_looks(ax)
    named = C.top_players(cumulative, top)
    assert sorted(looks) == sorted(named)
    assert len(set(looks.values())) == len(looks)  # no two named players look alike
    palette = {c.lower() for c in C.PALETTE}
    assert all(color in palette for color, _ in looks.values())
    # Everyone else is one grey artist, and only they are grey.
    (grey,) = ax.collections
    assert len(grey.get_paths()) == players - top
    assert to_hex(grey.get_edgecolor()[0]) == C.OTHERS_GREY
    legend = ax.get_legend()
    assert legend is not None
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == [*named, f"{players - top} other players"]
    render(ax)


def test_session_charts_deal_looks_to_the_named_players_only() -> None:
    """24 players, 8 named: the 16 in grey take no look from the 8 (with looks dealt to all
    24 in name order, p07 and p14 of the 8 named... would still differ, but a named player
    must never be dealt grey)."""
    seats = many_seats(24)
    (spec, *_) = charts_of(seats, top=8)
    figure = C.chart_figure(spec)
    looks = drawn_looks(figure.axes[0])
    assert len(looks) == 8 and len(set(looks.values())) == 8
    assert all(color != C.OTHERS_GREY for color, _ in looks.values())


def drawn(figure: Figure) -> Figure:
    """``figure`` laid out and drawn with Agg, so that its texts have their boxes."""
    FigureCanvasAgg(figure).draw()
    return figure


def text_boxes(figure: Figure, artists: list[object]) -> list[object]:
    renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
    return [a.get_window_extent(renderer) for a in artists  # type: ignore[attr-defined]
            if a.get_visible() and a.get_text()]  # type: ignore[attr-defined]


def assert_apart(boxes: list[object]) -> None:
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)  # type: ignore[attr-defined]


def many_rates(players: int) -> pd.DataFrame:
    rows = []
    for i in range(players):
        boards, chances = 5_000 + 37 * i, 4_800 + 31 * i
        fouls, entries = 600 + 11 * i, 150 + 3 * i
        rows.append({"name": f"player{i:02d}", "hands": boards, "scored": boards,
                     "fouls": fouls, "foul_rate": fouls / boards, "fantasylands": entries,
                     "fantasyland_rate": entries / chances, "boards": boards,
                     "fantasyland_chances": chances})
    return pd.DataFrame(rows, columns=S.RATE_COLUMNS)


@pytest.mark.parametrize("players", [1, 3, 8, 24, 40])
def test_rates_count_labels_never_overlap(players: int) -> None:
    """The count labels of ``rates.png`` overlapped with many players (issue 20.6): in
    the figure the report draws, no label, player name or tick touches another."""
    rates = many_rates(players)
    spec = next(s for s in charts_of(many_seats(3), rates=rates, min_hands=10)
                if s.name == "rates")
    with rc_context(C.STYLE):
        figure = drawn(C.chart_figure(spec))
        ax = figure.axes[0]
        labels = text_boxes(figure, list(ax.texts))
        assert len(labels) == 2 * players
        assert "1,234" not in "" and all("," in t.get_text() for t in ax.texts)
        assert_apart(labels + text_boxes(figure, list(ax.get_yticklabels())))
        # Labels stay inside the plot (they were clipped or ran past it).
        inside = ax.get_window_extent()
        assert all(inside.x0 <= b.x0 and b.x1 <= inside.x1 for b in labels)  # type: ignore[attr-defined]


def test_biggest_hands_labels_never_overlap() -> None:
    big = pd.DataFrame({
        "hand": range(16), "hand_id": [f"TB-C-{30000 + i}" for i in range(16)],
        "name": [f"someone{i}" for i in range(16)],
        "currency": ["EUR"] * 16,
        "points": [60 - i for i in range(8)] + [-70 + i for i in range(8)],
        "amount": [(60 - i) * 0.5 for i in range(8)] + [(-70 + i) * 0.5 for i in range(8)],
    }, columns=C.BIGGEST_COLUMNS)
    spec = C.ChartSpec("biggest_hands", "", lambda ax: C.plot_biggest_hands(big, ax),
                       C.biggest_height(len(big)))
    with rc_context(C.STYLE):
        figure = drawn(C.chart_figure(spec))
        ax = figure.axes[0]
        labels = text_boxes(figure, list(ax.texts))
        assert len(labels) == 16
        assert_apart(labels + text_boxes(figure, list(ax.get_yticklabels())))
        inside = ax.get_window_extent()
        assert all(inside.x0 <= b.x0 and b.x1 <= inside.x1 for b in labels)  # type: ignore[attr-defined]


def test_points_histogram_counts_are_whole_numbers() -> None:
    """A histogram of few seats had ticks at 2.5 and 7.5 player-hands."""
    seats = pd.DataFrame({"points": pd.array([-6, -2, 8, 20, -20, 3, 3], dtype="Int64")})
    ax = C.plot_points_histogram(C.points_histogram(seats))
    render(ax)
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks and all(t.replace(",", "").lstrip("\u2212-").isdigit() for t in ticks), ticks
    assert all(float(v).is_integer() for v in ax.get_xticks())


def test_counts_on_charts_have_thousands_separators() -> None:
    seats = many_seats(2, hands=12_000)
    ax = C.plot_cumulative(C.cumulative_results(seats))
    render(ax)
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert any("," in t for t in ticks), ticks


# -- the results frames of a long session: no copy of every seat row -------------------------


def _cumulative_of(currencies: list[str], hands: list[int]) -> pd.DataFrame:
    seats = pd.DataFrame({
        "hand": hands,
        "name": pd.Categorical([f"p{i % 3}" for i in range(len(hands))]),
        "currency": pd.Categorical(currencies),
        "stake": [0.5] * len(hands),
        "transfer": [float(i % 5 - 2) for i in range(len(hands))],
    })
    return C.cumulative_results(seats)


def test_one_currency_is_its_own_group_and_many_are_groupbys() -> None:
    one = _cumulative_of(["EUR"] * 6, [0, 0, 1, 1, 2, 2])
    [(currency, frame)] = list(C.by_currency(one))
    assert currency == "EUR" and frame is one
    two = _cumulative_of(["EUR", "EUR", "USD", "USD", "EUR", "EUR"], [0, 0, 1, 1, 2, 2])
    got = list(C.by_currency(two))
    expected = list(two.groupby("currency", sort=True))
    assert [c for c, _ in got] == [c for c, _ in expected] == ["EUR", "USD"]
    for (_, a), (_, b) in zip(got, expected, strict=True):
        pd.testing.assert_frame_equal(a, b)


def test_cumulative_results_sorted_or_not_are_the_same_rows() -> None:
    # Seats in session order (as a session's tables are) keep their order without a sort;
    # out of order they are sorted by hand, stably: the same frame either way.
    ordered = _cumulative_of(["EUR"] * 6, [0, 0, 1, 1, 2, 2])
    shuffled = _cumulative_of(["EUR"] * 6, [2, 0, 1, 0, 1, 2])
    assert ordered["hand"].tolist() == [0, 0, 1, 1, 2, 2]
    assert shuffled["hand"].tolist() == [0, 0, 1, 1, 2, 2]
    assert list(ordered.columns) == ["currency", "name", "hand", "number", "time", "amount",
                                     "cumulative"]
