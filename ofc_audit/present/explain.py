"""Readable audit output: one line per hand, and the step-by-step story of one hand for a
player who does not code ("why did I lose 14 points here?").

Every finding shows its rule's title next to the id, and every recorded mismatch says "the
site recorded X, the rules give Y" with the difference in points and in money at the stake.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from ..common.textfmt import money_text, quantity, signed, text_table
from ..game.board import BoardResult
from ..game.record import ROWS
from ..game.rulebook import cited, rule_title
from ..history.records import Stake
from ..replay.results import Finding, HandResult, Mismatch

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
#: Fields counted in points that move money: their differences are priced at the stake.
MONEY_FIELDS = ("points", "stack_before", "stack_after")

NO_SUMMARY = "the history has no SUMMARY, so what the site paid could not be compared"


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
    """``FOULED (R-ORDER-2, Comparing the 3-card top with the 5-card middle): top is stronger
    than middle``."""
    rule = result.foul_rule or "R-ORDER-1"
    return f"FOULED ({rule}, {rule_title(rule)}): {result.foul_reason}"


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


def points_and_money(points: int, stake: Stake) -> str:
    """``1 point (0.10 EUR)``; no money for a stake in points."""
    text = quantity(points, "point")
    if stake.is_money:
        text += f" ({money_text(Decimal(points) * stake.amount)} {stake.currency})"
    return text


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
    """What a player needs: was the play legal, did the site pay what the rules say, and
    what could not be checked. The first line sums it up."""
    pays = [m for m in result.mismatches if m.field in MONEY_FIELDS]
    play = "legal play" if result.valid else f"{len(result.violations)} rule violation(s)"
    if result.valid and result.unverifiable:
        play += " as far as the history shows"
    if result.incomplete is not None:
        play = "no rule broken by what the history holds" if result.valid else play
        payout, joint = "the hand could not be scored: the history is incomplete", "; "
    elif result.summary_line is None:
        payout, joint = "the payout could not be compared (no SUMMARY)", "; "
    else:
        if pays:
            payout = "the site did not pay what the rules say"
        elif result.valid:
            payout = "the site paid what the rules say"
        else:
            payout = "the site paid what the rules give for the boards as played"
        if not pays and result.unverifiable:
            payout += " where it could be checked"
        if not pays and result.mismatches:
            payout += (
                f", though {len(result.mismatches)} other recorded result(s) differ from the rules"
            )
        joint = ", and " if result.valid != bool(pays) else ", but "
    out = [f"Verdict: {play}{joint}{payout}."]
    if result.valid and result.incomplete is not None:
        out.append("  Play: what the history holds breaks no rule.")
    elif result.valid and result.unverifiable:
        out.append("  Play: legal as far as the history shows (see what was not verified).")
    elif result.valid:
        out.append("  Play: legal; no rule is broken (ofc-audit rules lists them).")
    else:
        out.append(f"  Play: {len(result.violations)} rule violation(s):")
        out.extend(f"    line {v.line}: {finding_text(v)}" for v in result.violations)
    if result.incomplete is not None:
        out.append(f"  Incomplete: {result.incomplete.message}.")
    elif result.summary_line is None:
        out.append(f"  Payout: not compared: {NO_SUMMARY}.")
    elif result.mismatches:
        out.append(
            f"  Payout: {len(result.mismatches)} result(s) the site recorded (SUMMARY, line "
            f"{result.summary_line}) differ from the rules:"
        )
        out.extend(f"    line {m.line}: {mismatch_text(m, result.stake)}"
                   for m in result.mismatches)
    else:
        out.append(
            f"  Payout: every result the site recorded (SUMMARY, line {result.summary_line}) "
            "agrees with the rules."
        )
    if result.unverifiable:
        out.append("  Not verified (hidden cards or hands missing from the file):")
        out.extend(f"    {u}" for u in result.unverifiable)
    return out


def results_table(result: HandResult) -> str:
    rows = []
    for p in result.players:
        fl = (
            "unknown"
            if not p.fantasyland_next_known
            else (f"yes ({p.fantasyland_next} cards)" if p.fantasyland_next is not None else "no")
        )
        rows.append(
            [
                p.seat,
                p.name,
                "FL" if p.in_fantasyland else "",
                _value(p.fouled),
                None if p.result is None else p.result.royalties.total,
                signed(p.points),
                p.stack_before,
                p.stack_after,
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
            "points",
            "stack before",
            "stack after",
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


@dataclass(frozen=True, slots=True)
class SettlementStep:
    """One pair of the settlement with the stacks it met (R-SETTLE-2, R-SETTLE-3); the
    stacks are None after a pair whose result is unknown (a board not fully known). The
    terminal explanation and the dispute page both tell the settlement from these."""

    a: str
    b: str
    known: bool
    winner: str = ""
    loser: str = ""
    due: int = 0
    moved: int = 0
    capped: bool = False
    winner_stack: int | None = None  # before this pair
    loser_stack: int | None = None
    a_before: int | None = None
    a_after: int | None = None
    b_before: int | None = None
    b_after: int | None = None

    @property
    def cap(self) -> str:
        """Why less than was due moved, naming whose stack cut it (``capped by bob's stack
        of 12, R-SETTLE-3 (...)``); empty when the transfer was not capped."""
        if not self.capped:
            return ""
        limits = [(self.winner_stack, self.winner), (self.loser_stack, self.loser)]
        cut = [f"{name}'s stack of {stack}" for stack, name in limits if stack == self.moved]
        return "capped by " + " and ".join(cut or ["a stack"]) + f", {cited('R-SETTLE-3')}"

    def named(self, show: Callable[[str], str]) -> SettlementStep:
        """The step with every player's name as ``show`` gives it (the dispute page makes
        invisible characters visible)."""
        return replace(self, a=show(self.a), b=show(self.b), winner=show(self.winner),
                       loser=show(self.loser))


def settlement_steps(result: HandResult) -> list[SettlementStep]:
    """Each pair's transfer with the stacks it met, in settlement order."""
    stacks: dict[str, int | None] = {p.name: p.stack_before for p in result.players}
    out = []
    for pair in result.pairs:
        a, b = stacks.get(pair.a), stacks.get(pair.b)
        moved = pair.transfer_to_a
        if pair.points_a is None or moved is None:
            out.append(SettlementStep(pair.a, pair.b, False, a_before=a, b_before=b))
            stacks[pair.a] = stacks[pair.b] = None
            continue
        winner, loser = (pair.a, pair.b) if pair.points_a >= 0 else (pair.b, pair.a)
        new_a = None if a is None else a + moved
        new_b = None if b is None else b - moved
        out.append(SettlementStep(pair.a, pair.b, True, winner, loser, abs(pair.points_a),
                                  abs(moved), pair.capped, stacks.get(winner),
                                  stacks.get(loser), a, new_a, b, new_b))
        stacks[pair.a], stacks[pair.b] = new_a, new_b
    return out


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
