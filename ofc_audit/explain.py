"""Readable audit output: one line per hand, and the step-by-step story of one hand for a
player who does not code ("why did I lose 14 points here?")."""

from __future__ import annotations

from .records import ROWS
from .results import HandResult
from .textfmt import signed, text_table


def hand_line(result: HandResult) -> str:
    verdict = "valid" if result.valid else f"{len(result.violations)} violation(s)"
    if result.incomplete is not None:
        verdict += ", incomplete"
    if result.mismatches:
        verdict += f", {len(result.mismatches)} recorded mismatch(es)"
    if result.unverifiable:
        verdict += f", {len(result.unverifiable)} unverifiable point(s)"
    return f"#{result.hand_id}  {result.file}:{result.line}  {verdict}"


def hand_findings(result: HandResult) -> list[str]:
    lines = [f"    line {v.line}: {v.rule} {v.message}" for v in result.violations]
    if result.incomplete is not None:
        lines.append(f"    incomplete: {result.incomplete.message}")
    lines += [
        f"    line {m.line}: recorded {m.field} of {m.player} is {_value(m.recorded)}, "
        f"the auditor computes {_value(m.computed)}"
        for m in result.mismatches
    ]
    lines += [f"    unverifiable: {u}" for u in result.unverifiable]
    return lines


def _value(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


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
        out.append(f"  line {step.line:>4}: {step.text}")
    out.append("")
    out.append("Final boards")
    for p in result.players:
        header = f"  {p.name} (seat {p.seat}{', in Fantasyland' if p.in_fantasyland else ''})"
        if p.result is None:
            why = "unfinished (the history stops)" if result.incomplete else "not fully known"
            out.append(f"{header}: {p.board} -- {why}, not scored")
            continue
        r = p.result
        verdict = f"FOULED ({r.foul_rule}: {r.foul_reason})" if r.fouled else "legal (R-ORDER-1)"
        out.append(f"{header}: {verdict}")
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
    if result.valid and result.incomplete is not None:
        out.append("Verdict: no rule of RULES.md is broken by what the text holds, but the "
                   "history is incomplete, so the hand could not be scored.")
    elif result.valid:
        out.append("Verdict: the hand is legal; no rule of RULES.md is broken.")
    else:
        out.append(f"Verdict: {len(result.violations)} violation(s)")
    out.extend(f"    line {v.line}: {v.rule} {v.message}" for v in result.violations)
    if result.incomplete is not None:
        out.append(f"Incomplete: {result.incomplete.message}")
    if result.mismatches:
        out.append("What the site recorded and the auditor computes differently:")
        out.extend(
            f"    line {m.line}: {m.player}'s {m.field}: recorded {_value(m.recorded)}, "
            f"computed {_value(m.computed)}"
            for m in result.mismatches
        )
    else:
        out.append("No recorded result differs from the auditor's.")
    if result.unverifiable:
        out.append("Could not be verified (hidden cards or missing hands):")
        out.extend(f"    {u}" for u in result.unverifiable)
    return "\n".join(out)


def _settlement_walk(result: HandResult) -> list[str]:
    """Each pair's transfer with the stacks it met (R-SETTLE-3), in settlement order."""
    if not result.pairs:
        return []
    stacks: dict[str, int | None] = {p.name: p.stack_before for p in result.players}
    out = ["", "Settlement, pair by pair (R-SETTLE-2, R-SETTLE-3)"]
    for pair in result.pairs:
        a, b = stacks[pair.a], stacks[pair.b]
        moved = pair.transfer_to_a
        if pair.points_a is None or moved is None:
            out.append(f"  {pair.a} v {pair.b}: unknown (a board is not fully known)")
            stacks[pair.a] = stacks[pair.b] = None
            continue
        winner, loser = (pair.a, pair.b) if pair.points_a >= 0 else (pair.b, pair.a)
        due = abs(pair.points_a)
        how = (
            f"min({due} due, {winner} {stacks[winner]}, {loser} {stacks[loser]}) = {abs(moved)}"
            if pair.capped
            else f"{abs(moved)}"
        )
        new_a = None if a is None else a + moved
        new_b = None if b is None else b - moved
        out.append(
            f"  {pair.a} v {pair.b}: {winner} is due {due}; moves {how}; "
            f"{pair.a} {a} -> {new_a}, {pair.b} {b} -> {new_b}"
        )
        stacks[pair.a], stacks[pair.b] = new_a, new_b
    return out
