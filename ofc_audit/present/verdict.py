"""The verdict on one hand, the one story the terminal explanation and the dispute page both
tell: the answer first (whom the site paid too much or too little, in points and in the
money that moved; or that something cannot be checked), then each cause in one sentence
with the rule that decides it and the clause that applies, then its effects, one line per
player (points and stack together), then what could not be checked and why.

"Legal play" is not said where it does not help: a fouled board is play within the rules
that scores as a foul (R-SCORE-3), and the verdict says so in those words.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ..common.textfmt import money_text, quantity, signed
from ..game.board import RowResult
from ..game.record import Row
from ..game.row_values import leading_rank
from ..game.rulebook import cited
from ..history.records import Stake, Summary, SummaryEntry
from ..replay.results import HandResult, Mismatch, PlayerResult
from .settlement import settlement_steps

Tone = Literal["bad", "neutral", "ok"]

#: Fields counted in points that move money: their differences are priced at the stake.
MONEY_FIELDS = ("points", "stack_before", "stack_after")

NO_SUMMARY = "the history has no SUMMARY, so what the site paid could not be compared"

_RANKS = {2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes", 7: "sevens",
          8: "eights", 9: "nines", 10: "tens", 11: "jacks", 12: "queens", 13: "kings",
          14: "aces"}
_HIGH = {5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten", 11: "jack",
         12: "queen", 13: "king", 14: "ace"}
_ROYALTY_RULES = {Row.TOP: "R-ROY-3", Row.MIDDLE: "R-ROY-2", Row.BOTTOM: "R-ROY-1"}


def _same(text: str) -> str:
    return text


# -- money ------------------------------------------------------------------------------------


def stake_money(points: int, stake: Stake, sign: bool = False) -> str:
    """``points`` at the stake (``-0.60 EUR``, ``+2.00 USD``); "" for a stake in points."""
    if not stake.is_money:
        return ""
    value = Decimal(points) * stake.amount
    return f"{'+' if sign and points > 0 else ''}{money_text(value)} {stake.currency}"


def points_and_money(points: int, stake: Stake, sign: bool = False) -> str:
    """``1 point (0.10 EUR)``, with ``sign`` ``+1 point (+0.10 EUR)``; no money for a stake
    in points."""
    text = quantity(points, "point", sign)
    money = stake_money(points, stake, sign)
    return f"{text} ({money})" if money else text


# -- the parts --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cause:
    """Why something differs: one sentence citing the rule that decides it, and the line of
    the history it is about."""

    rule: str
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class Effect:
    """One player's results that follow from the causes: points and stack on one line, and
    what the site paid too much or too little."""

    player: str
    line: int
    text: str


@dataclass(frozen=True, slots=True)
class Unchecked:
    """What the site recorded for one player that the history does not let anyone check."""

    player: str
    line: int
    recorded: str  # "points +20, stack after 280"
    why: str


@dataclass(frozen=True, slots=True)
class Verdict:
    tone: Tone  # "bad": something is wrong; "neutral": something cannot be checked
    headline: str  # the answer, one sentence
    play: str  # how the hand was played, one sentence
    causes: tuple[Cause, ...]
    effects: tuple[Effect, ...]
    payment: str  # what was compared of what the site recorded, one sentence
    unchecked: tuple[Unchecked, ...]
    not_verified: tuple[str, ...]  # the replay's sentences on what hidden cards kept unchecked
    incomplete: str  # where the history stops and what is missing; "" for a complete hand


# -- words ------------------------------------------------------------------------------------


def row_hand(row: RowResult) -> str:
    """A row's hand in words: ``pair of tens``, ``quads of eights``, ``king-high straight``."""
    category, lead = row.category, leading_rank(row.value)
    if category in ("pair", "trips", "quads"):
        return f"{category} of {_RANKS.get(lead, str(lead))}"
    if category == "full_house":
        return f"full house, {_RANKS.get(lead, str(lead))} full"
    if category in ("straight", "straight_flush"):
        return f"{_HIGH.get(lead, str(lead))}-high {category.replace('_', ' ')}"
    return category.replace("_", " ")


def royalty_clause(name: str, p: PlayerResult) -> str:
    """``nadia's top pair of tens pays 5 (R-ROY-3 "Top row royalties") and bottom ...``."""
    r = p.result
    assert r is not None
    paying = [(rr, r.royalties.of(rr.row)) for rr in r.rows if r.royalties.of(rr.row)]
    if not paying:
        return (f"no row of {name}'s board pays royalties ({cited('R-ROY-1')}, "
                f"{cited('R-ROY-2')}, {cited('R-ROY-3')})")
    return f"{name}'s " + " and ".join(
        f"{rr.row.value} {row_hand(rr)} pays {amount} ({cited(_ROYALTY_RULES[rr.row])})"
        for rr, amount in paying)


def _fantasyland(cards: object) -> str:
    return "no Fantasyland" if cards is None else f"Fantasyland with {cards} cards"


def _paid(delta: int, stake: Stake, field: str, name: str = "") -> str:
    """``paid [bob] 2 points (2.00 USD) too little``, ``delta`` from the player's side: what
    moved (the stack after) when the site recorded it, else the points it credited."""
    verb = "paid" if field == "stack_after" else "credited"
    whom = f" {name}" if name else ""
    return (f"{verb}{whom} {points_and_money(abs(delta), stake)} too "
            f"{'little' if delta > 0 else 'much'}")


# -- building it ------------------------------------------------------------------------------


def _causes(result: HandResult, show: Callable[[str], str]) -> list[Cause]:
    out = [Cause(v.rule, v.line, f"{cited(v.rule)}: {show(v.message)}")
           for v in result.violations]
    by_player: dict[str, dict[str, Mismatch]] = {}
    for m in result.mismatches:
        by_player.setdefault(m.player, {})[m.field] = m
    rooted = False
    for player, fields in by_player.items():
        p = result.player(player)
        name = show(player)
        fouled, royalties = fields.get("fouled"), fields.get("royalties")
        if fouled is not None and p is not None and p.result is not None:
            rooted = True
            if fouled.computed:
                rule = p.result.foul_rule or "R-ORDER-1"
                text = (f"{name}'s board is fouled, {p.result.foul_reason} ({cited(rule)}); "
                        "a fouled board is play within the rules that scores as a foul: it "
                        "loses all three rows and the scoop to every live hand and earns no "
                        f"royalties ({cited('R-SCORE-3')}); the site scored it as a live hand")
                if royalties is not None:
                    text += f" and counted {royalties.recorded} royalties for it"
                out.append(Cause("R-SCORE-3", fouled.line, text + "."))
            else:
                out.append(Cause("R-ORDER-1", fouled.line,
                                 f"{name}'s rows are in order ({cited('R-ORDER-1')}), so the "
                                 "board is live; the site scored it as fouled."))
        elif royalties is not None and p is not None and p.result is not None:
            rooted = True
            if p.result.fouled:
                text = (f"{name}'s board is fouled and earns no royalties "
                        f"({cited('R-ROY-4')}); the site counted {royalties.recorded}.")
                out.append(Cause("R-ROY-4", royalties.line, text))
            else:
                clause = royalty_clause(name, p)
                rule = next((_ROYALTY_RULES[rr.row] for rr in p.result.rows
                             if p.result.royalties.of(rr.row)), "R-ROY-1")
                out.append(Cause(rule, royalties.line,
                                 f"{clause}; the site counted {royalties.recorded} royalties, "
                                 f"the rules give {royalties.computed}."))
        entry = fields.get("fantasyland_next")
        if entry is not None:
            m, rooted = entry, True
            in_fl = p is not None and p.in_fantasyland
            if m.computed is not None and m.recorded is not None:
                rule = "R-FL-2"
            else:
                rule = "R-FL-3" if in_fl else "R-FL-1"
            if m.computed is not None:
                gets = f"qualifies for Fantasyland next hand with {m.computed} cards"
            elif p is not None and p.result is not None and p.result.fouled:
                gets = "does not qualify for Fantasyland next hand: its board is fouled"
            else:
                gets = "does not qualify for Fantasyland next hand"
            out.append(Cause(rule, m.line, f"{name} {gets} ({cited(rule)}); the site recorded "
                                            f"{_fantasyland(m.recorded)}."))
        entry = fields.get("stack_before")
        if entry is not None:
            m, rooted = entry, True
            out.append(Cause("R-SETTLE-5", m.line,
                             f"{name} starts the hand with {m.computed}, as its seat line says "
                             f"({cited('R-SETTLE-5')}); the site recorded a stack before of "
                             f"{m.recorded}."))
    paid = [m for m in result.mismatches if m.field in ("points", "stack_after")]
    if paid and not rooted and not result.violations:
        capped = [s for s in settlement_steps(result) if s.known and s.capped]
        if capped and any(m.field == "stack_after" for m in paid):
            steps = "; ".join(f"{s.a} v {s.b}: {s.moved} of {s.due} moved, {s.cut}"
                              for s in (step.named(show) for step in capped))
            out.append(Cause("R-SETTLE-3", paid[0].line,
                             f"The stack cap decides what moves ({cited('R-SETTLE-3')}): each "
                             "pair in turn moves the points due, but no more than the winner's "
                             f"or the loser's stack at that moment; here {steps}."))
        elif any(m.field == "points" for m in paid):
            out.append(Cause("R-SCORE-5", paid[0].line,
                             f"A player's points are the sum of its pairs' points "
                             f"({cited('R-SCORE-5')}, the table of pairs); the site's points "
                             "differ from that sum."))
        else:
            out.append(Cause("R-SETTLE-3", paid[0].line,
                             f"A pair moves the points due, capped by the stacks "
                             f"({cited('R-SETTLE-3')}); the site's stacks after the hand differ "
                             "from what the pairs moved."))
    return out


def _effects(result: HandResult, show: Callable[[str], str]) -> tuple[list[Effect],
                                                                      list[tuple[str, int, str]]]:
    """One line per player whose points or stack differ, and (name, delta, field) of what
    each was paid too much or too little (the stack after when recorded, else the points)."""
    out: list[Effect] = []
    owed: list[tuple[str, int, str]] = []
    by_player: dict[str, list[Mismatch]] = {}
    for m in result.mismatches:
        if m.field in ("points", "stack_after"):
            by_player.setdefault(m.player, []).append(m)
    for player, found in by_player.items():
        numeric = [(m, m.recorded, m.computed) for m in found
                   if isinstance(m.recorded, int) and isinstance(m.computed, int)]
        if not numeric:
            continue
        labels = {"points": "points", "stack_after": "stack after"}
        recorded = " and ".join(
            f"{labels[m.field]} {signed(r) if m.field == 'points' else r}"
            for m, r, _ in numeric)
        given = " and ".join(signed(c) if m.field == "points" else str(c)
                             for m, _, c in numeric)
        moved, was, is_ = next((n for n in numeric if n[0].field == "stack_after"), numeric[0])
        delta = int(is_) - int(was)
        owed.append((show(player), delta, moved.field))
        out.append(Effect(show(player), numeric[0][0].line,
                          f"{show(player)}: the site recorded {recorded}, the rules give "
                          f"{given}: {_paid(delta, result.stake, moved.field)}"))
    return out, owed


def _unknown_why(result: HandResult, p: PlayerResult, show: Callable[[str], str]) -> str:
    if result.incomplete is not None:
        return "the history stops before the hand is over"
    if p.result is None:
        return f"{show(p.name)}'s board is not fully known (hidden cards)"
    hidden = [show(o.name) for o in result.players if o.result is None]
    if hidden:
        return (f"{show(p.name)}'s results depend on {' and '.join(hidden)}'s board, which is "
                "not fully known (hidden cards)")
    return "a result it depends on is not known"


def _recorded_unknowns(entry: SummaryEntry, p: PlayerResult) -> list[str]:
    """What the site recorded for ``p`` whose own figure could not be computed."""
    out = []
    if p.result is None:
        if entry.fouled:
            out.append("fouled")
        if entry.royalties is not None:
            out.append(f"royalties {entry.royalties}")
    if p.points is None and entry.points is not None:
        out.append(f"points {signed(entry.points)}")
    if p.stack_after is None and entry.stack_after is not None:
        out.append(f"stack after {entry.stack_after}")
    if not p.fantasyland_next_known and entry.fantasyland_next is not None:
        out.append(_fantasyland(entry.fantasyland_next))
    return out


def _unchecked(result: HandResult, summary: Summary | None,
               show: Callable[[str], str]) -> list[Unchecked]:
    if summary is None:
        return []
    out = []
    for entry in summary.entries:
        p = result.player(entry.player)
        if p is None:
            continue
        recorded = _recorded_unknowns(entry, p)
        if recorded:
            out.append(Unchecked(show(p.name), entry.line, ", ".join(recorded),
                                 _unknown_why(result, p, show)))
    return out


def _join(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def hand_verdict(result: HandResult, summary: Summary | None = None,
                 show: Callable[[str], str] = _same) -> Verdict:
    """The verdict on ``result``. ``summary`` (the hand's SUMMARY as the history recorded it)
    lets the verdict show what the site recorded where the rules' figure cannot be computed;
    ``show`` gives each name and message as the reader should see it."""
    causes = _causes(result, show)
    effects, owed = _effects(result, show)
    unchecked = _unchecked(result, summary, show)
    fouled = [show(p.name) for p in result.players if p.result is not None and p.result.fouled]
    rules = sorted({v.rule for v in result.violations})

    # Play.
    if result.violations:
        play = f"Play: {quantity(len(rules), 'rule')} broken ({', '.join(rules)})."
    elif result.incomplete is not None:
        play = "Play: what the history holds breaks no rule."
    elif result.unverifiable:
        play = "Play: no rule is broken as far as the history shows."
    else:
        play = "Play: within the rules, no rule is broken."
    if fouled and not result.violations:
        play += (f" {_join(fouled)}'s board {'is' if len(fouled) == 1 else 'are'} fouled: play "
                 f"within the rules that scores as a foul ({cited('R-SCORE-3')}).")

    # What was compared of the SUMMARY.
    if result.incomplete is not None:
        payment = "Payment: not compared: the hand could not be scored, its history is incomplete."
    elif result.summary_line is None:
        payment = f"Payment: not compared: {NO_SUMMARY}."
    elif result.mismatches:
        payment = (f"Payment: the site's SUMMARY (line {result.summary_line}) differs from the "
                   f"rules for {_join(sorted({show(m.player) for m in result.mismatches}))}.")
    elif unchecked or result.unverifiable:
        payment = (f"Payment: what could be computed agrees with the site's SUMMARY (line "
                   f"{result.summary_line}); the rest cannot be checked.")
    else:
        payment = (f"Payment: every result the site recorded (SUMMARY, line "
                   f"{result.summary_line}) agrees with the rules.")

    # The answer.
    parts = []
    if result.violations:
        parts.append(f"The hand breaks {quantity(len(rules), 'rule')}: "
                     + ", ".join(cited(r) for r in rules))
    if owed:
        said = [_paid(delta, result.stake, field, name) for name, delta, field in owed]
        # "paid Big Al 1 point too much, nadia 2 points too little": the verb said once.
        said = [said[0]] + [s.split(" ", 1)[1] if s.split(" ", 1)[0] == said[0].split(" ", 1)[0]
                            else s for s in said[1:]]
        parts.append(("the site " if parts else "The site ") + _join(said))
    elif result.mismatches:
        parts.append(("the site" if parts else "The site")
                     + f" recorded {quantity(len(result.mismatches), 'result')} that "
                     f"{'differs' if len(result.mismatches) == 1 else 'differ'} from the "
                     "rules; what it paid agrees with them")
    tone: Tone
    if parts:
        headline, tone = "; ".join(parts) + ".", "bad"
    elif result.incomplete is not None:
        headline, tone = "The hand cannot be scored: its history is incomplete.", "bad"
    elif result.summary_line is None:
        headline, tone = ("What the site paid cannot be checked: the history has no "
                          "SUMMARY."), "neutral"
    elif unchecked or result.unverifiable:
        headline, tone = ("Part of this hand cannot be checked (hidden cards or hands missing "
                          "from the file); nothing that could be checked differs from the "
                          "rules."), "neutral"
    else:
        headline, tone = ("The hand was played within the rules and the site paid what the "
                          "rules say."), "ok"
    incomplete = "" if result.incomplete is None else show(result.incomplete.message).rstrip(".")
    return Verdict(tone, headline, play, tuple(causes), tuple(effects), payment,
                   tuple(unchecked), tuple(show(u) for u in result.unverifiable), incomplete)


def verdict_lines(v: Verdict) -> list[str]:
    """The verdict as the terminal prints it."""
    out = [f"Verdict: {v.headline}", f"  {v.play}"]
    if v.incomplete:
        out.append(f"  Incomplete: {v.incomplete}.")
    if v.causes:
        out.append("  Why:")
        out.extend(f"    line {c.line}: {c.text}" for c in v.causes)
    if v.effects:
        out.append("  So:")
        out.extend(f"    line {e.line}: {e.text}" for e in v.effects)
    out.append(f"  {v.payment}")
    if v.unchecked:
        out.append("  Recorded by the site, cannot be checked:")
        out.extend(f"    line {u.line}: {u.player}: {u.recorded}: cannot be checked: {u.why}"
                   for u in v.unchecked)
    if v.not_verified:
        out.append("  Not verified (hidden cards or hands missing from the file):")
        out.extend(f"    {u}" for u in v.not_verified)
    return out
