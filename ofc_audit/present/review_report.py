"""The review report: what ``ofc-audit review --out DIR`` writes (docs/REVIEW.md)::

    review.html        the answer first (per player: what the play gave away, where, and the
                       luck), the costliest decisions linked to their hand pages, the cost
                       by street, the EV lines; one self-contained file
    summary.md         the same, in Markdown
    review.json        the same numbers, and each player's EV line hand by hand
    charts/*.png, .svg the cost by street and an EV line per player and currency
    hands/*.html       the page of each hand of a costliest decision

Everything goes through the folder's manifest (:class:`~ofc_audit.session.out_folder.OwnedFolder`):
the next run into DIR removes what this one wrote and it does not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from matplotlib import rc_context

from ..common.errors import CannotWrite
from ..game.ruleset import Ruleset
from ..review.json_doc import decision_json, options_json, skip_json
from ..review.ledger import ReviewLedger
from ..session.out_folder import OwnedFolder
from . import charts as C
from .hand_pages import HandPages, write_pages
from .report import CHART_DPI, Chart, chart_views, figure_bytes, html_page, markdown_page
from .report_view import anchors
from .review_charts import currency_words, plot_ev_line, plot_street_costs
from .review_view import (
    LuckLine,
    ReviewView,
    decision_anchor,
    luck_lines,
    review_view,
    street_order,
    street_short,
)

#: EV line charts drawn at most (the players with the most reviewed hands); the table and
#: review.json hold every line.
MAX_EV_CHARTS = 12
#: Players on the cost-by-street chart (who gave away most); the table holds all.
MAX_STREET_PLAYERS = 6


def _round(value: float) -> float:
    return round(value, 2) + 0.0


def review_document(ledger: ReviewLedger, pages: dict[tuple[str, int], str]) -> dict[str, Any]:
    """``review.json``: the numbers of the page, under docs/REVIEW.md's keys where it has
    them."""
    totals = ledger.totals
    players = []
    for p in totals.sorted_players():
        play = ledger.play.get(p.name)
        players.append(p.to_json() | {
            "luck": _round(p.actual - p.expected),
            "street_decisions": play.street_decisions if play else 0,
            "street_best": play.street_best if play else 0,
            "settings": play.settings if play else 0,
            "settings_best": play.settings_best if play else 0,
        })
    streets = [{"player": name, "street": None if label == "fantasyland" else int(label),
                "kind": "fantasyland" if label == "fantasyland" else "street",
                "decisions": cost.decisions, "cost": _round(cost.cost),
                "blunders": cost.blunders, "best": cost.best}
               for (name, label), cost in sorted(
                   ledger.streets.items(), key=lambda i: (i[0][0], street_order(i[0][1])))]
    costliest = []
    for costly in ledger.costliest():
        review, hand = costly.decision, costly.hand
        if round(review.cost, 2) <= 0:
            continue
        page = pages.get(hand)
        costliest.append({"hand_id": review.decision.hand_id, "file": hand[0],
                          "hand_line": hand[1],
                          "page": page + "#" + decision_anchor(costly) if page else None}
                         | decision_json(review))
    luck = [{"player": p.player, "currency": p.currency, "number": p.number,
             "hand_id": p.hand_id, "file": p.file, "line": p.line,
             "expected": round(p.expected, 4) + 0.0, "actual": round(p.actual, 4) + 0.0}
            for p in ledger.luck]
    return {"players": players, "streets": streets, "costliest": costliest, "luck": luck,
            "skipped": [skip_json(s) for s in totals.skipped],
            "options": options_json(totals.options)}


def review_charts(ledger: ReviewLedger) -> list[Chart]:
    """The cost-by-street chart, then the EV lines (by player name, then currency)."""
    totals = ledger.totals
    by_cost = sorted(totals.sorted_players(), key=lambda p: (-round(p.cost, 2), p.name))
    shown = [p.name for p in by_cost[:MAX_STREET_PLAYERS]]
    looks = C.player_looks(shown)
    labels = sorted({label for (_, label) in ledger.streets}, key=street_order)
    costs = [[ledger.streets[(name, label)].cost if (name, label) in ledger.streets else 0.0
              for label in labels] for name in shown]
    more = len(by_cost) - len(shown)
    specs = [C.ChartSpec("cost_by_street",
                   "Points given away by street" + (
                       f" (the {len(shown)} players who gave away most; the table has all)"
                       if more > 0 else ""),
                   lambda ax: plot_street_costs([street_short(x) for x in labels], shown,
                                                costs, looks, ax))]
    links = anchors(p.name for p in totals.sorted_players())
    lines = luck_lines(ledger.luck)
    drawn = sorted(sorted(lines, key=lambda line: -len(line.expected))[:MAX_EV_CHARTS],
                   key=lambda line: (line.player, line.currency))
    for line in drawn:
        specs.append(C.ChartSpec(f"ev_line_{links[line.player]}_{C.file_part(line.currency)}",
                           f"EV line of {line.player} ({currency_words(line.currency)}): "
                           f"luck {line.gap:+.2f} points",
                           _ev_drawer(line)))
    out = []
    with rc_context(C.STYLE):
        for spec in specs:
            figure = C.chart_figure(spec)
            out.append(Chart(spec.name, spec.caption, figure_bytes(figure, "png", CHART_DPI),
                             figure_bytes(figure, "svg")))
    return out


def _ev_drawer(line: LuckLine) -> C.Draw:
    return lambda ax: plot_ev_line(line.player, line.currency, line.expected, line.actual, ax)


def write_review_parts(out: Path, ledger: ReviewLedger, ruleset: Ruleset,
                       pages: HandPages | None = None) -> tuple[ReviewView, list[Path]]:
    """The hand pages of the costliest decisions (those ``pages`` already has are linked,
    not written again), the charts and ``review.json`` in ``out``; the view of the review's
    sections and the files written. Raises ``OSError``."""
    have = dict(pages.links) if pages is not None else {}
    taken = {Path(href).stem.lower() for href in have.values()}
    wanted = [key for key in ledger.page_hands() if (key[0], key[1]) not in have]
    written_pages = write_pages(wanted, ruleset, out, review=ledger.options,
                                reviews=ledger.page_reviews(), taken=taken)
    written = [out / href for href in written_pages.values()]
    links = have | dict(written_pages.links)
    chart_list = review_charts(ledger)
    if chart_list:
        (out / "charts").mkdir(exist_ok=True)
    for chart in chart_list:
        for suffix, data in ((".png", chart.png), (".svg", chart.svg)):
            path = out / "charts" / f"{chart.name}{suffix}"
            path.write_bytes(data)
            written.append(path)
    path = out / "review.json"
    path.write_text(json.dumps(review_document(ledger, links), indent=1, ensure_ascii=False)
                    + "\n", encoding="utf-8")
    written.append(path)
    return review_view(ledger, links, chart_views(chart_list)), written


def write_review_report(out: Path, ledger: ReviewLedger, ruleset: Ruleset) -> list[Path]:
    """Write the report into ``out`` (created when missing); returns the files written.
    The hand pages replay their files again under ``ruleset``. Raises
    :class:`~ofc_audit.common.errors.CannotWrite`."""
    try:
        folder = OwnedFolder.claim(out)
        try:
            view, written = write_review_parts(out, ledger, ruleset)
            texts = {"summary.md": markdown_page("review.md.j2", view),
                     "review.html": html_page("review.html.j2", view)}
            for name, text in texts.items():
                path = out / name
                path.write_text(text, encoding="utf-8")
                written.append(path)
        except BaseException:
            folder.abandon()
            raise
        folder.release()
    except OSError as error:
        raise CannotWrite.of(error, str(out)) from None
    return written
