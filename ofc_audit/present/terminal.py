"""What ``ofc-audit session`` prints on standard output for people: the players, and who
owes whom. Money is settled money: what moved after the stack caps (R-SETTLE-3), at each
hand's stake, one row per player and currency (currencies are never added together); the
points before the caps keep their own columns ("points", "points money")."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd

from ..common.textfmt import display_width, money_text, printable, quantity, text_table
from ..session.exports import MISSING

_PLAYER_HEADINGS = ["player", "cur", "hands", "money", "stack +/-", "points", "points money",
                    "royalties", "fouls", "foul %", "FL", "FL %"]


def name_text(name: object) -> str:
    """A player's name as a terminal shows it (:func:`~ofc_audit.common.textfmt.printable`)."""
    return printable(str(name))


def amount_text(value: object, currency: str) -> str:
    """Money for people: cents at least (more when a stake has them), whole points for a
    points-only table."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return MISSING
    if isinstance(value, Decimal):
        return f"{value:,}" if currency != "points" or value != int(value) else f"{int(value):,}"
    number = float(str(value))
    if currency == "points" and number == int(number):
        return f"{int(number):,}"
    return money_text(number)


def _count(value: object) -> str:
    """A whole number with thousands separators (``50,000``), ``-`` when unknown."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return MISSING
    return f"{int(str(value)):,}"


def _rate(value: object) -> str:
    number = float(str(value)) if value is not None and value is not pd.NA else float("nan")
    return MISSING if number != number else f"{number * 100:.1f}"


def players_text(players: pd.DataFrame, width: int | None = None) -> str:
    """The per-player table (``summaries.player_summary``), per currency, the biggest winner
    of settled money first. With ``width`` (a terminal's columns), the rightmost columns
    are left out until the table fits, and a line says which; player, currency, hands and
    settled money always stay."""
    if players.empty:
        return "no hands"
    ordered = players.sort_values(["currency", "net_money", "name"],
                                  ascending=[True, False, True], kind="stable")
    rows = []
    for p in ordered.itertuples(index=False):
        currency = str(p.currency)
        rows.append([
            name_text(p.name), currency, _count(p.hands), amount_text(p.net_money, currency),
            _count(p.net), _count(p.points), amount_text(p.money, currency), _count(p.royalties),
            _count(p.fouls), _rate(p.foul_rate), _count(p.fantasylands),
            _rate(p.fantasyland_rate),
        ])
    table = text_table(_PLAYER_HEADINGS, rows)
    kept = len(_PLAYER_HEADINGS)
    while width is not None and kept > 4 and _widest(table) > width:
        kept -= 1
        table = text_table(_PLAYER_HEADINGS[:kept], [row[:kept] for row in rows])
    if kept < len(_PLAYER_HEADINGS):
        table += (f"\n(left out to fit {width} columns: {', '.join(_PLAYER_HEADINGS[kept:])}; "
                  "see the reports)")
    return table


def _widest(text: str) -> int:
    return max(display_width(line) for line in text.splitlines())


def owes_text(owes: pd.DataFrame) -> str:
    """Who won what from whom (``settle_up.who_owes_whom``), per currency."""
    if owes.empty:
        return "Nobody owes anybody anything."
    rows = [[name_text(o.opponent), "pays", name_text(o.player),
             amount_text(o.money, str(o.currency)), str(o.currency), _count(o.points),
             _count(o.hands)]
            for o in owes.itertuples(index=False)]
    return text_table(["who", "", "whom", "amount", "cur", "points", "hands"], rows)


def payments_text(payments: pd.DataFrame) -> str:
    """The fewest payments that settle the session (``settle_up.payments``), per currency."""
    if payments.empty:
        return "Nothing to pay: everyone is even."
    rows = [[name_text(p.payer), "pays", name_text(p.payee),
             amount_text(p.amount, str(p.currency)), str(p.currency)]
            for p in payments.itertuples(index=False)]
    return text_table(["payer", "", "payee", "amount", "cur"], rows)


def settle_text(owes: pd.DataFrame, payments: pd.DataFrame, pairwise: bool) -> str:
    """The "who owes whom" section: the fewest payments, and with ``pairwise`` the net of
    every pair of players before them."""
    parts = []
    if pairwise:
        parts += ["Who owes whom (net per pair of players, after stack caps):",
                  owes_text(owes), ""]
    count = len(payments)
    parts += [f"Settle up ({quantity(count, 'payment')}, the fewest that settle "
              "every balance; per currency):", payments_text(payments)]
    return "\n".join(parts)
