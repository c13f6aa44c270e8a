"""What the review report shows (``templates/review.html.j2``, ``templates/review.md.j2``),
every number worded, from a :class:`~ofc_audit.review.ledger.ReviewLedger`.

Order is the question's: where each player lost points and how much was luck (first
screen), then the costliest decisions with their hand pages, the cost street by street, the
EV lines, and what was left out. Numbers are shown as the review's JSON rounds them (two
decimals), so a number on the page is the number in ``review.json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..common.textfmt import number as count_text
from ..common.textfmt import plural, quantity
from ..review.json_doc import PlayerTotals, card_texts
from ..review.ledger import Costly, LuckPoint, PlayerPlay, ReviewLedger, StreetCost
from ..review.run import DecisionReview
from ..review.terminal import _left_out as left_out_sentences
from ..review.terminal import one_line_board
from .report_view import MAX_ROWS, Cell, ChartView, Grid, GridRow, anchors
from .review_charts import currency_words

Key = tuple[str, int]  # (file, header line) of a hand


def points(value: float) -> str:
    """Two decimals, as the JSON rounds them: ``17.50``."""
    return f"{value + 0.0:.2f}"


def signed_points(value: float) -> str:
    """``+151.40``, ``-82.30``, ``0.00``."""
    return f"{value:+.2f}" if round(value, 2) else "0.00"


def share(count: int, total: int) -> str:
    """``87 of 126 (69.0%)``; ``none`` without any."""
    if not total:
        return "none"
    return f"{count_text(count)} of {count_text(total)} ({count / total * 100:.1f}%)"


def luck_words(luck: float) -> str:
    """What the cards did, in plain words."""
    if round(luck, 2) > 0:
        return f"the cards gave {points(luck)} points more than the play was worth"
    if round(luck, 2) < 0:
        return f"the cards took {points(-luck)} points of what the play was worth"
    return "the cards gave and took nothing"


def street_name(label: str) -> str:
    return "Fantasyland" if label == "fantasyland" else f"street {label}"


def street_short(label: str) -> str:
    return "FL" if label == "fantasyland" else label


def street_order(label: str) -> tuple[int, int]:
    return (1, 0) if label == "fantasyland" else (0, int(label))


#: Players answered in words on the first screen (who gave away most); the table has all.
MAX_SENTENCES = 20


def _name(name: str, links: Mapping[str, str]) -> Cell:
    """A player's name, linked to its answer in words when it has one."""
    return Cell(name, href="#" + links[name] if name in links else "", wrap=True)


def _capped(rows: list[GridRow]) -> tuple[list[GridRow], str]:
    """The first :data:`~.report_view.MAX_ROWS` rows, and what was left out."""
    if len(rows) <= MAX_ROWS:
        return rows, ""
    return rows[:MAX_ROWS], f"first {MAX_ROWS:,} of {len(rows):,} rows; review.json holds all"


def _num(value: float, shown: str) -> Cell:
    return Cell(shown, repr(float(value)), True)


@dataclass(frozen=True)
class PlayerLine:
    """A player's answer in words, and its anchor."""

    anchor: str
    name: str
    sentence: str


@dataclass(frozen=True)
class ReviewView:
    title: str
    lead: str
    options: str
    cards: list[tuple[str, str, bool]]  # (label, value, bad)
    players: Grid
    lines: list[PlayerLine]
    costliest: Grid
    no_page: str
    streets: Grid
    luck: Grid
    charts: list[ChartView]
    left_out: list[str]


def costliest_street(ledger: ReviewLedger, name: str) -> tuple[str, StreetCost] | None:
    """The street where ``name`` gave away most (the earlier among equals), or None when it
    gave away nothing."""
    mine = sorted(((label, cost) for (player, label), cost in ledger.streets.items()
                   if player == name), key=lambda item: street_order(item[0]))
    worst = max(mine, key=lambda item: item[1].cost, default=None)
    return worst if worst is not None and round(worst[1].cost, 2) > 0 else None


def _player_sentence(p: PlayerTotals, play: PlayerPlay, worst: tuple[str, StreetCost] | None
                     ) -> str:
    parts = [f"{quantity(p.hands, 'hand')} and {quantity(p.decisions, 'decision')} "
             f"reviewed; gave away {points(p.cost)} points ({points(p.cost_per_hand)} a hand)"]
    if worst is not None:
        parts[0] += f", most on {street_name(worst[0])} ({points(worst[1].cost)})"
    parts.append(f"{quantity(p.blunders, 'blunder')}; the best play in "
                 f"{share(play.street_best, play.street_decisions)} street decisions"
                 + (f" and {share(play.settings_best, play.settings)} Fantasyland settings"
                    if play.settings else ""))
    luck = p.actual - p.expected
    parts.append(f"expected {signed_points(p.expected)}, got {signed_points(p.actual)}: "
                 f"{luck_words(luck)}")
    return "; ".join(parts[:2]) + ". " + parts[2][0].upper() + parts[2][1:] + "."


PLAYER_DETAIL = ["hands", "per hand", "decisions", "exact", "best street decisions",
                 "best Fantasyland settings", "expected", "actual", "costliest street"]


def players_grid(ledger: ReviewLedger, links: Mapping[str, str]) -> Grid:
    """Every player, who gave away most first."""
    totals = ledger.totals
    rows = []
    for p in sorted(totals.sorted_players(), key=lambda p: (-round(p.cost, 2), p.name)):
        play = ledger.play.get(p.name, PlayerPlay())
        worst = costliest_street(ledger, p.name)
        luck = p.actual - p.expected
        rows.append(GridRow(
            [_name(p.name, links),
             _num(round(p.cost, 2), points(p.cost)),
             _num(p.blunders, count_text(p.blunders)),
             _num(round(luck, 2), signed_points(luck))],
            list(zip(PLAYER_DETAIL, [
                count_text(p.hands), points(p.cost_per_hand), count_text(p.decisions),
                count_text(p.exact),
                share(play.street_best, play.street_decisions),
                share(play.settings_best, play.settings),
                signed_points(p.expected), signed_points(p.actual),
                f"{street_name(worst[0])}: {points(worst[1].cost)}" if worst else "none",
            ], strict=True))))
    shown, cut = _capped(rows)
    return Grid("review-players", ["player", "given away", "blunders", "luck"],
                [False, True, True, True], shown, list(PLAYER_DETAIL),
                note="Given away: EV(best) - EV(played), summed over the player's decisions, "
                     "in points. Luck: actual - expected, what the cards gave (+) or took (-).",
                cut=cut)


def _cost_text(decision: DecisionReview) -> str:
    if decision.exact:
        return f"{points(decision.cost)} exact"
    return f"{points(decision.cost)} \u00b1 {points(decision.ci95)}"


#: The anchor of a hand page's own hand (hand_pages writes one hand a page).
PAGE_ANCHOR = "h1"


def decision_anchor(costly: Costly) -> str:
    """Where the hand page's play review shows this decision (review_page's anchors: the
    page's, ``-review-p`` and the player's number, then the street)."""
    return f"{PAGE_ANCHOR}-review-p{costly.player_number}-{costly.decision.decision.label}"


def costliest_grid(ledger: ReviewLedger, pages: Mapping[Key, str]) -> tuple[Grid, int]:
    """The costliest decisions (those that cost anything), each linked to its hand's page;
    how many have no page."""
    rows = []
    no_page = 0
    for costly in ledger.costliest():
        d = costly.decision
        if round(d.cost, 2) <= 0:
            continue
        decision = d.decision
        page = pages.get(costly.hand, "")
        page = page and page + "#" + decision_anchor(costly)
        no_page += not page
        rows.append(GridRow([
            Cell("#" + decision.hand_id, href=page),
            Cell(decision.player, wrap=True),
            Cell(street_short(decision.label)),
            Cell(" ".join(card_texts(decision.dealt)), wrap=True),
            Cell(one_line_board(d.candidates[d.played].placement), wrap=True),
            Cell(one_line_board(d.candidates[d.best].placement), wrap=True),
            _num(round(d.cost, 2), _cost_text(d)),
        ]))
    return Grid("review-costliest", ["hand", "player", "street", "dealt", "played", "best", "cost"],
                [False] * 6 + [True], rows,
                note="Played and best: the cards this decision placed, top / middle / bottom "
                     "(- for a row it left alone). Cost: points given away, with its 95% "
                     "half-width, or exact."), no_page


def streets_grid(ledger: ReviewLedger, links: Mapping[str, str]) -> Grid:
    rows = []
    for (name, label), cost in sorted(ledger.streets.items(),
                                      key=lambda item: (item[0][0], street_order(item[0][1]))):
        per = cost.cost / cost.decisions if cost.decisions else 0.0
        rows.append(GridRow([
            _name(name, links),
            Cell(street_short(label)),
            _num(cost.decisions, count_text(cost.decisions)),
            _num(round(cost.cost, 2), points(cost.cost)),
            _num(round(per, 2), points(per)),
            _num(cost.blunders, count_text(cost.blunders)),
            _num(cost.best / cost.decisions if cost.decisions else 0.0,
                 share(cost.best, cost.decisions)),
        ]))
    shown, cut = _capped(rows)
    return Grid("review-streets", ["player", "street", "decisions", "given away", "per decision",
                            "blunders", "best play"],
                [False, False, True, True, True, True, True], shown,
                note="Where each player gives points away: FL is the Fantasyland setting.",
                cut=cut)


@dataclass(frozen=True)
class LuckLine:
    """One player's EV line in one currency."""

    player: str
    currency: str
    expected: list[float]
    actual: list[float]

    @property
    def gap(self) -> float:
        return sum(self.actual) - sum(self.expected)


def luck_lines(luck: Sequence[LuckPoint]) -> list[LuckLine]:
    """Per player and currency, in name then currency order."""
    by: dict[tuple[str, str], LuckLine] = {}
    for point in luck:
        line = by.setdefault((point.player, point.currency),
                             LuckLine(point.player, point.currency, [], []))
        line.expected.append(point.expected)
        line.actual.append(point.actual)
    return [by[key] for key in sorted(by)]


def luck_grid(lines: Sequence[LuckLine], links: Mapping[str, str]) -> Grid:
    rows = []
    for line in lines:
        expected, actual = sum(line.expected), sum(line.actual)
        rows.append(GridRow([
            _name(line.player, links),
            Cell(currency_words(line.currency)),
            _num(len(line.expected), count_text(len(line.expected))),
            _num(round(expected, 2), signed_points(expected)),
            _num(round(actual, 2), signed_points(actual)),
            _num(round(line.gap, 2), signed_points(line.gap)),
        ]))
    shown, cut = _capped(rows)
    return Grid("review-luck", ["player", "tables", "hands", "expected", "actual", "luck"],
                [False, False, True, True, True, True], shown,
                note="Per reviewed hand, expected is the EV of the player's first decision as "
                     "played and actual the hand's value as it happened (points before caps, "
                     "plus the Fantasyland value when the board enters or stays).", cut=cut)


def review_view(ledger: ReviewLedger, pages: Mapping[Key, str], charts: Sequence[ChartView]
                ) -> ReviewView:
    totals = ledger.totals
    options = totals.options
    players = totals.sorted_players()
    # "review-player-N": apart from the session report's own "player-N" (session --review).
    links = {name: "review-" + anchor for name, anchor in
             anchors(p.name for p in players).items()}
    decisions = sum(p.decisions for p in players)
    exact = sum(p.exact for p in players)
    cost = sum(p.cost for p in players)
    blunders = sum(p.blunders for p in players)
    costliest, no_page = costliest_grid(ledger, pages)
    answered = sorted(players, key=lambda p: (-round(p.cost, 2), p.name))[:MAX_SENTENCES]
    links = {p.name: links[p.name] for p in answered}
    lines = [PlayerLine(links[p.name], p.name,
                        _player_sentence(p, ledger.play.get(p.name, PlayerPlay()),
                                         costliest_street(ledger, p.name)))
             for p in answered]
    return ReviewView(
        title="OFC play review",
        lead=(f"{quantity(totals.hands, 'hand')} and {quantity(decisions, 'decision')} "
              f"reviewed ({count_text(exact)} exact). Where each player gave points away, "
              "and how much the cards gave or took."),
        options=(f"Up to {count_text(options.rollouts)} rollouts per candidate, seed "
                 f"{options.seed}; Fantasyland worth {options.fl_value:g} points; a blunder "
                 f"costs {options.blunder:g} points or more."),
        cards=[(quantity(len(players), "player").split(" ", 1)[1], count_text(len(players)),
                False),
               ("decisions", count_text(decisions), False),
               ("points given away", points(cost), cost > 0),
               ("blunders", count_text(blunders), blunders > 0),
               # Luck summed over several players means nothing (one's luck is another's).
               *([("luck", signed_points(players[0].actual - players[0].expected),
                   round(players[0].actual - players[0].expected, 2) < 0)]
                 if len(players) == 1 else [])],
        players=players_grid(ledger, links),
        lines=lines,
        costliest=costliest,
        no_page=(f"{quantity(no_page, 'decision')} without a hand page "
                 f"({plural(no_page, 'its', 'their')} history cannot be read again: standard "
                 "input, or a file changed since)." if no_page else ""),
        streets=streets_grid(ledger, links),
        luck=luck_grid(luck_lines(ledger.luck), links),
        charts=list(charts),
        left_out=left_out_sentences(totals.skipped),
    )
