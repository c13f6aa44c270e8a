"""The review for people: per player what its play cost, the costliest decisions, and what
was left out and why."""

from __future__ import annotations

from collections import Counter

from ..common.textfmt import number, quantity, text_table
from .decisions import Played, Skip, SkipReason
from .json_doc import ReviewTotals, card_texts, half_width_text, points_text
from .run import DecisionReview

#: The costliest decisions the terminal lists (the totals keep more, for the report).
COSTLIEST_SHOWN = 5


def one_line_board(placement: Played) -> str:
    """``Qs / 9h 9d / 4c 5c``: the rows a decision placed, ``-`` for a row it left alone
    (its discards are what the deal leaves)."""
    return " / ".join(" ".join(card_texts(row)) or "-" for row in placement.rows)


def _cost(decision: DecisionReview) -> str:
    if decision.exact:
        return f"{points_text(decision.cost)} exact"
    return f"{points_text(decision.cost)} ± {half_width_text(decision.ci95) or '?'}"


def _street_words(decision: DecisionReview) -> str:
    label = decision.decision.label
    return "Fantasyland" if label == "fantasyland" else f"street {label}"


def _decision_block(rank: int, decision: DecisionReview) -> list[str]:
    """A decision in a few lines that fit 80 columns: who, where and the cost, then the
    cards dealt and the played and best boards one under the other (so the cards that
    differ line up)."""
    d = decision
    return [
        f"{rank}. {d.decision.hand_id} {d.decision.player}, {_street_words(d)}: cost "
        f"{_cost(d)}",
        f"   dealt   {' '.join(card_texts(d.decision.dealt))}",
        f"   played  {one_line_board(d.candidates[d.played].placement)}",
        f"   best    {one_line_board(d.candidates[d.best].placement)}",
    ]


def render_review(totals: ReviewTotals) -> str:
    options = totals.options
    decisions = sum(p.decisions for p in totals.players.values())
    exact = sum(p.exact for p in totals.players.values())
    fl_value = f"{options.fl_value:g}"
    lines = [
        f"Review of {quantity(totals.hands, 'hand')}, {quantity(decisions, 'decision')} "
        f"({number(exact)} exact)",
        f"up to {number(options.rollouts)} rollouts per candidate, seed {options.seed}",
        f"Fantasyland worth {fl_value} points; a blunder costs {options.blunder:g} points or "
        "more",
        "",
    ]
    if totals.players:
        rows = [[p.name, p.hands, p.decisions, points_text(p.cost),
                 points_text(p.cost_per_hand), p.blunders, points_text(p.expected),
                 points_text(p.actual), points_text(p.actual - p.expected, sign=True)]
                for p in totals.sorted_players()]
        lines.append(text_table(["player", "hands", "decisions", "cost", "per hand",
                                 "blunders", "expected", "actual", "luck"], rows))
        lines.append("")
        lines.append("cost: points given away, EV(best) - EV(played), summed over decisions;")
        lines.append("luck: actual - expected (what the cards gave or took)")
    else:
        lines.append("No decision reviewed.")
    costly = [d for d in totals.costliest() if d.cost > 0][:COSTLIEST_SHOWN]
    if costly:
        lines += ["", f"Costliest decisions (the {len(costly)} that gave away most)"
                  if len(costly) > 1 else "Costliest decisions"]
        for rank, d in enumerate(costly, 1):
            lines += _decision_block(rank, d)
    left_out = _left_out(totals.skipped)
    if left_out:
        lines += ["", "Left out:"]
        lines += [f"  {sentence}" for sentence in left_out]
    return "\n".join(lines)


def _left_out(skipped: list[Skip]) -> list[str]:
    """One sentence per reason: how many, and which."""
    sentences: list[str] = []
    by_reason: dict[SkipReason, list[Skip]] = {}
    for skip in skipped:
        by_reason.setdefault(skip.reason, []).append(skip)
    for reason, hand_words in ((SkipReason.VIOLATIONS, "with rule violations (see ofc-audit "
                                "audit)"),
                               (SkipReason.INCOMPLETE, "incomplete (the text stops before the "
                                "play is over)")):
        found = by_reason.get(reason, [])
        if found:
            sentences.append(f"{_hands(len(found))} {hand_words}: {_ids(found)}")
    rejected = by_reason.get(SkipReason.REJECTED, [])
    if rejected:
        where = ", ".join(f"{s.file}:{s.line}" for s in rejected[:5])
        more = f" and {len(rejected) - 5} more" if len(rejected) > 5 else ""
        sentences.append(f"{len(rejected)} rejected entr{'y' if len(rejected) == 1 else 'ies'}"
                         f" (not read as hands): {where}{more}")
    hidden = by_reason.get(SkipReason.HIDDEN, [])
    if hidden:
        count = Counter[str]()
        hands = Counter[str]()
        for skip in hidden:
            assert skip.player is not None
            count[skip.player] += skip.decisions
            hands[skip.player] += 1
        who = ", ".join(f"{name} {count[name]} in {_hands(hands[name])}"
                        for name in sorted(count))
        sentences.append(f"{quantity(sum(count.values()), 'decision')} whose own cards are hidden "
                         f"(??): {who}")
    return sentences


def _hands(count: int) -> str:
    return f"{count} hand{'' if count == 1 else 's'}"


def _ids(skips: list[Skip]) -> str:
    ids = [f"#{s.hand_id}" for s in skips[:8]]
    return ", ".join(ids) + (f" and {len(skips) - 8} more" if len(skips) > 8 else "")
