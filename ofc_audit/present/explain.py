"""Readable audit output: one line per hand, and the step-by-step story of one hand for a
player who does not code ("why did I lose 14 points here?"). The verdict it ends with is
:mod:`~ofc_audit.present.verdict`'s, the one the dispute page shows.

Every finding shows its rule's title next to the id, and every recorded mismatch says "the
site recorded X, the rules give Y" with the difference in points and in money at the stake.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..common.textfmt import quantity, signed, text_table
from ..game.board import BoardResult
from ..game.record import ROWS
from ..game.rulebook import cited, rule_title
from ..history.records import Stake
from ..replay.results import Finding, HandResult, Mismatch
from .settlement import settlement_steps
from .verdict import (
    MONEY_FIELDS,
    NO_SUMMARY,
    hand_verdict,
    points_and_money,
    stake_money,
    verdict_lines,
)

if TYPE_CHECKING:
    import pandas as pd

#: How people read the SUMMARY fields of a mismatch (docs/CLI.md's names are for programs).
FIELD_NAMES = {
    "fouled": "fouled",
    "royalties": "royalties",
    "points": "points",
    "stack_before": "stack before",
    "stack_after": "stack after",
    "fantasyland_next": "Fantasyland next hand",
}


def readable_fields(mismatches: pd.DataFrame) -> pd.DataFrame:
    """A mismatches table with its ``field`` as people read it (``stack after``), for the
    tables people read; the files for programs keep docs/CLI.md's names."""
    return mismatches.assign(field=mismatches["field"].map(lambda f: FIELD_NAMES.get(f, f)))


def hand_line(result: HandResult) -> str:
    verdict = "legal play" if result.valid else f"{len(result.violations)} violation(s)"
    if result.incomplete is not None:
        verdict += ", incomplete"
    if result.mismatches:
        verdict += f", {len(result.mismatches)} recorded mismatch(es)"
    if result.unverifiable:
        verdict += f", {len(result.unverifiable)} unverifiable point(s)"
    return f"#{result.hand_id}  {result.file}:{result.line}  {verdict}"


def hand_findings(result: HandResult) -> list[str]:
    lines = [f"    line {v.line}: {finding_text(v)}" for v in result.violations]
    if result.incomplete is not None:
        # (Its missing SUMMARY is part of what the incomplete line says is missing.)
        lines.append(f"    incomplete: {result.incomplete.message}")
    lines += [f"    line {m.line}: {mismatch_text(m, result.stake)}" for m in result.mismatches]
    if result.summary_line is None and result.incomplete is None:
        lines.append(f"    not compared: {NO_SUMMARY}")
    lines += [f"    not verified: {u}" for u in result.unverifiable]
    return lines


def finding_text(finding: Finding) -> str:
    """``R-CARD-3 (No card twice in one hand): Qh dealt to ... was already seen ...``."""
    return f"{cited(finding.rule)}: {finding.message}"


def foul_text(result: BoardResult) -> str:
    """``FOULED (R-ORDER-2 "Comparing the 3-card top with the 5-card middle"): top is
    stronger than middle``."""
    return f"FOULED ({cited(result.foul_rule or 'R-ORDER-1')}): {result.foul_reason}"


def _value(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _number(field: str, value: int | bool | None) -> str:
    return signed(value) if field == "points" and isinstance(value, int) else _value(value)


def _recorded_value(field: str, value: int | bool | None) -> str:
    """A SUMMARY value as a sentence fragment: ``points -5``, ``not fouled``."""
    if field == "fouled":
        return "fouled" if value else "not fouled"
    if field == "fantasyland_next":
        return "no Fantasyland next hand" if value is None else (
            f"Fantasyland next hand with {value} cards")
    return f"{FIELD_NAMES.get(field, field)} {_number(field, value)}"


def mismatch_text(m: Mismatch, stake: Stake) -> str:
    """``bob: the site recorded points -5, the rules give -6: 1 point (0.10 EUR) less for bob
    than the site recorded``."""
    # "the rules give -6" after "points -5"; the flags read as whole phrases.
    flag = m.field in ("fouled", "fantasyland_next")
    given = _recorded_value(m.field, m.computed) if flag else _number(m.field, m.computed)
    recorded = _recorded_value(m.field, m.recorded)
    text = f"{m.player}: the site recorded {recorded}, the rules give {given}"
    if (
        isinstance(m.recorded, int) and isinstance(m.computed, int)
        and not isinstance(m.recorded, bool) and not isinstance(m.computed, bool)
    ):
        difference = m.computed - m.recorded
        more = "more" if difference > 0 else "less"
        amount = (
            points_and_money(abs(difference), stake)
            if m.field in MONEY_FIELDS
            else quantity(abs(difference), "royalty point")
        )
        text += f": {amount} {more} for {m.player} than the site recorded"
    return text


def verdict(result: HandResult) -> list[str]:
    """The verdict as the terminal prints it (:mod:`~ofc_audit.present.verdict`: the answer,
    then each cause with its rule, then its effects, then what cannot be checked)."""
    return verdict_lines(hand_verdict(result))


def results_table(result: HandResult) -> str:
    """Each player's results; "moved" is what the settlement moved (after the stack caps),
    at the stake where the table plays for money, "points" the score before the caps."""
    rows = []
    for p in result.players:
        fl = (
            "unknown"
            if not p.fantasyland_next_known
            else (f"yes ({p.fantasyland_next} cards)" if p.fantasyland_next is not None else "no")
        )
        change = p.transfer
        rows.append(
            [
                p.seat,
                p.name,
                "FL" if p.in_fantasyland else "",
                "unknown" if p.fouled is None else _value(p.fouled),
                None if p.result is None else p.result.royalties.total,
                signed(p.points),
                p.stack_before,
                p.stack_after,
                None if change is None else (stake_money(change, result.stake, sign=True)
                                             or signed(change)),
                fl,
            ]
        )
    return text_table(
        [
            "seat",
            "player",
            "",
            "fouled",
            "royalties",
            "points before caps",
            "stack before",
            "stack after",
            "moved",
            "Fantasyland next",
        ],
        rows,
        indent="  ",
    )


def explain_hand(result: HandResult) -> str:
    """Every street with the board growing, every check, the final rows with their values,
    the pairwise table, the settlement with each capped transfer, and the verdict."""
    out: list[str] = []
    out.append(
        f"Hand #{result.hand_id} ({result.file}, line {result.line}): {result.variant.title}, "
        f"Fantasyland {result.fantasyland_type.value}, table '{result.table}', button seat "
        f"{result.button_seat}, stake {result.stake.text} {result.stake.currency}/point"
    )
    if result.match_id:
        out.append(f"Match {result.match_id}, hand {result.match_hand}")
    out.append("")
    out.append("Replay")
    for step in result.log:
        out.append(f"  line {step.line:>4}: {_with_title(step.text)}")
    out.append("")
    out.append("Final boards")
    for p in result.players:
        header = f"  {p.name} (seat {p.seat}{', in Fantasyland' if p.in_fantasyland else ''})"
        if p.result is None:
            why = "unfinished (the history stops)" if result.incomplete else "not fully known"
            out.append(f"{header}: {p.board} -- {why}, not scored")
            continue
        r = p.result
        out.append(f"{header}: {foul_text(r) if r.fouled else 'legal (R-ORDER-1)'}")
        out.append(
            text_table(
                ["row", "cards", "hand", "royalties"],
                [
                    [
                        row.value,
                        " ".join(str(c) for c in rr.cards),
                        rr.category.replace("_", " "),
                        r.royalties.of(row),
                    ]
                    for row, rr in zip(ROWS, r.rows, strict=True)
                ]
                + [["total", "", "", r.royalties.total]],
                indent="    ",
            )
        )
        if r.jokers:
            out.append("    jokers (R-JOKER-2): " + ", ".join(f"{j} = {c}" for j, c in r.jokers))
    if result.pairs:
        out.append("")
        out.append("Pairs, in settlement order (R-SETTLE-2); points of the first player")
        out.append(
            text_table(
                ["pair", "top", "middle", "bottom", "scoop", "royalties", "points", "transfer"],
                [
                    [
                        f"{pr.a} v {pr.b}",
                        *(signed(x) for x in (pr.rows or (None,) * 3)),
                        signed(pr.scoop),
                        signed(pr.royalties),
                        signed(pr.points_a),
                        (signed(pr.transfer_to_a) + (" (capped, R-SETTLE-3)" if pr.capped else ""))
                        if pr.transfer_to_a is not None
                        else "-",
                    ]
                    for pr in result.pairs
                ],
                indent="  ",
            )
        )
    out.extend(_settlement_walk(result))
    out.append("")
    out.append("Results")
    out.append(results_table(result))
    out.append("")
    out.extend(verdict(result))
    return "\n".join(out)


def _with_title(text: str) -> str:
    """A replay step that reports a violation (``VIOLATION R-ACT-2: ...``), with the rule's
    title after its id."""
    if text.startswith("VIOLATION "):
        rule, colon, rest = text[len("VIOLATION "):].partition(":")
        if colon and rule_title(rule):
            return f"VIOLATION {cited(rule)}:{rest}"
    return text


def _settlement_walk(result: HandResult) -> list[str]:
    """Each pair's transfer with the stacks it met (R-SETTLE-3), in settlement order."""
    if not result.pairs:
        return []
    out = ["", "Settlement, pair by pair (R-SETTLE-2, R-SETTLE-3)"]
    for step in settlement_steps(result):
        if not step.known:
            out.append(f"  {step.a} v {step.b}: unknown (a board is not fully known)")
            continue
        how = (
            f"min({step.due} due, {step.winner} {step.winner_stack}, {step.loser} "
            f"{step.loser_stack}) = {step.moved}"
            if step.capped
            else f"{step.moved}"
        )
        out.append(
            f"  {step.a} v {step.b}: {step.winner} is due {step.due}; moves {how}; "
            f"{step.a} {step.a_before} -> {step.a_after}, {step.b} {step.b_before} -> "
            f"{step.b_after}"
        )
    return out
