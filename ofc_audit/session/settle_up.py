"""Who owes whom after a session, and the fewest payments that settle it.

Pure functions from the ``pairs`` table of :mod:`ofc_audit.session.tables` to DataFrames. Money here
is what moved: each pair's ``transferred`` points (after the R-SETTLE-3 stack caps) times its
hand's stake, per currency; currencies are never added together, and a points-only table
(currency ``points``) settles in points. Amounts are :class:`decimal.Decimal`, exact: a stake
is decimal text (``0.10 EUR``) and what people pay must not drift the way float sums do.

A pair whose transfer is unknown (hidden cards) moved nothing that can be settled and is
left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np
import pandas as pd

#: Currencies with this many players or fewer get the exact fewest payments (a search over
#: the subsets of players: 2**n steps); more players get the greedy settlement.
EXACT_PLAYERS = 16

OWES_COLUMNS = ["currency", "player", "opponent", "hands", "points", "money"]
BALANCE_COLUMNS = ["currency", "name", "points", "money"]
PAYMENT_COLUMNS = ["currency", "payer", "payee", "amount"]

#: Names the command line and ``session --json`` use for the per-player summary's columns
#: (``summaries.player_summary``): ``net`` is the points transferred after the caps,
#: ``net_money`` that at each hand's stake.
CLI_NAMES = {"net": "transferred", "net_money": "money_settled"}


def stake_decimal(stake: float) -> Decimal:
    """A stake as the decimal it was written as: the tables keep stakes as float64, whose
    shortest round-trip text is the decimal of the history (``0.10`` reads back as 0.1)."""
    return Decimal(repr(float(stake)))


def in_minor_units(amount: Decimal, currency: str) -> Decimal:
    """``amount`` shown to a currency's cents at least (``-71`` EUR -> ``-71.00``), more
    places when a stake has them; points stay as they are."""
    if currency == "points":
        whole = amount.to_integral_value()
        return whole.quantize(Decimal(1)) if amount == whole else amount.normalize()
    exponent = amount.as_tuple().exponent
    places = min(int(exponent), -2) if isinstance(exponent, int) else -2
    return amount.quantize(Decimal(1).scaleb(places))


#: Float money columns of the session summaries (per player, per pair, per match), which
#: their CSV files show as exact decimals at their currency's one scale.
SUMMARY_MONEY_COLUMNS = ("money", "net_money", "money_settled")


def currency_places(amounts: Iterable[Decimal]) -> int:
    """The one number of decimal places a currency's amounts are shown with: cents at least
    (2), more when an amount has more (a 0.005 stake), so every amount of the currency has the
    same scale in a table (``2.00`` beside ``0.125`` would be ``2.000``)."""
    places = 2
    for amount in amounts:
        exponent = amount.as_tuple().exponent
        if isinstance(exponent, int):
            places = max(places, -exponent)
    return places


def at_one_scale(amounts: Sequence[Decimal], currencies: Sequence[str]) -> list[Decimal]:
    """Each amount at its currency's one scale (:func:`currency_places`); points as whole
    numbers where they are whole, else at their own one scale."""
    by_currency: dict[str, list[Decimal]] = {}
    for amount, currency in zip(amounts, currencies, strict=True):
        by_currency.setdefault(currency, []).append(amount)
    exponent = {currency: one_scale(values, currency)
                for currency, values in by_currency.items()}
    return [a.quantize(exponent[c]) for a, c in zip(amounts, currencies, strict=True)]


def one_scale(amounts: Sequence[Decimal], currency: str) -> Decimal:
    """The exponent :func:`at_one_scale` quantizes a currency's ``amounts`` to (its places
    depend on the set of amounts only, not on how often each occurs)."""
    if currency == "points" and all(v == v.to_integral_value() for v in amounts):
        return Decimal(1)
    return Decimal(1).scaleb(-currency_places(amounts))


def money_decimal(value: float, max_places: int = 6) -> Decimal:
    """A float sum of money as the decimal it stands for (:func:`exact_money`)."""
    return Decimal(repr(round(value, max_places)))


def exact_money(frame: pd.DataFrame, max_places: int = 6,
                scales: Mapping[str, Mapping[str, Decimal]] | None = None) -> pd.DataFrame:
    """A summary table with its float money columns as exact decimals at one scale per
    currency: a float sum such as 8.799999999999999 is the decimal 8.80 it stands for (money
    is whole points times stakes of a few places, so rounding to ``max_places`` recovers it
    exactly). Tables without a currency column are returned as they are. ``scales``: each
    money column's exponent per currency, when ``frame`` is a piece of a longer table
    (:func:`money_scales` of its pieces); else the frame's own."""
    if "currency" not in frame.columns:
        return frame
    currencies = [str(c) for c in frame["currency"].array]
    changed = {}
    for column in SUMMARY_MONEY_COLUMNS:
        if column not in frame.columns or frame[column].dtype.kind != "f":
            continue
        values = [None if pd.isna(v) else money_decimal(float(v), max_places)
                  for v in frame[column].array]
        known = [i for i, v in enumerate(values) if v is not None]
        scaled = (at_one_scale([values[i] for i in known],  # type: ignore[misc]
                               [currencies[i] for i in known]) if scales is None else
                  [values[i].quantize(scales[column][currencies[i]])  # type: ignore[union-attr]
                   for i in known])
        cells: list[Decimal | None] = [None] * len(values)
        for i, amount in zip(known, scaled, strict=True):
            cells[i] = amount
        changed[column] = pd.Series(cells, index=frame.index, dtype=object)
    return frame.assign(**changed) if changed else frame


def money_scales(pieces: Iterable[pd.DataFrame], max_places: int = 6
                 ) -> dict[str, dict[str, Decimal]]:
    """The exponent :func:`exact_money` quantizes each money column's amounts to per
    currency, over the pieces of one table: a currency's scale depends on the set of its
    amounts alone, so each distinct amount is made a decimal once."""
    seen: dict[str, set[tuple[str, float]]] = {}
    for frame in pieces:
        if "currency" not in frame.columns:
            return {}
        for column in SUMMARY_MONEY_COLUMNS:
            if column not in frame.columns or frame[column].dtype.kind != "f":
                continue
            known = frame[column].notna().to_numpy()
            pairs = pd.DataFrame({"currency": frame["currency"].astype(str).to_numpy()[known],
                                  "amount": frame[column].to_numpy()[known]}).drop_duplicates()
            seen.setdefault(column, set()).update(
                zip(pairs["currency"].tolist(), pairs["amount"].tolist(), strict=True))
    scales: dict[str, dict[str, Decimal]] = {}
    for column, found in seen.items():
        amounts = [Decimal(repr(round(float(v), max_places))) for _, v in found]
        by_currency = at_one_scale(amounts, [c for c, _ in found])
        scales[column] = {c: Decimal(1).scaleb(int(a.as_tuple().exponent))
                          for (c, _), a in zip(found, by_currency, strict=True)}
    return scales


#: Transferred points and hands per (currency, stake, a, b): what the settlement adds up.
Moved = list[tuple[str, float, str, str, int, int]]


def _moved(pairs: pd.DataFrame) -> Moved:
    """Transferred points and hands per (currency, stake, a, b), pairs with a known
    transfer only. The keys are packed into one integer per pair row and counted with numpy
    (a million-hand session has millions of pair rows and a few thousand groups)."""
    known = pairs["transferred"].notna().to_numpy(dtype=bool)
    if not known.any():
        return []
    points = pairs["transferred"].to_numpy(dtype="float64", na_value=0.0)[known]
    currency, currencies = pd.factorize(pairs["currency"].array[known])
    stake, stakes = pd.factorize(pairs["stake"].to_numpy(dtype="float64")[known])
    # One code per name for both columns: b's names looked up among a's (and appended).
    a, a_names = pd.factorize(pairs["a"].array[known])
    b_only, b_names = pd.factorize(pairs["b"].array[known])
    names = pd.Index(a_names).append(pd.Index(b_names).difference(pd.Index(a_names)))
    b = names.get_indexer(b_names)[b_only]
    n = len(names)
    key = ((currency.astype("int64") * len(stakes) + stake) * n + a) * n + b
    inverse, groups = pd.factorize(key)  # hashing: no sort of millions of keys
    sums = np.bincount(inverse, weights=points)  # whole numbers, exact far beyond any session
    hands = np.bincount(inverse)
    b_of, rest = groups % n, groups // n
    a_of, rest = rest % n, rest // n
    stake_of, currency_of = rest % len(stakes), rest // len(stakes)
    currency_list = [str(c) for c in currencies]
    stake_list = [float(k) for k in stakes]
    name_list = [str(x) for x in names]
    return [(currency_list[c], stake_list[k], name_list[x], name_list[y], int(round(t)), int(h))
            for c, k, x, y, t, h in zip(currency_of.tolist(), stake_of.tolist(), a_of.tolist(),
                                        b_of.tolist(), sums.tolist(), hands.tolist(),
                                        strict=True)]


def _money(points: int, stake: float) -> Decimal:
    return Decimal(points) * stake_decimal(stake)


def who_owes_whom(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per currency and unordered pair of players: the net that moved between them
    over the session. Sign convention: every row reads "``opponent`` paid ``player``", so
    ``money`` (Decimal) is positive, or zero with ``points`` positive when equal point
    totals at different stakes cancelled out; ``points`` are the transferred points (after
    caps) from ``opponent`` to ``player``, ``hands`` the hands they settled against each
    other. Pairs that came out even (no money, no points) are left out. Sorted by currency,
    then the largest amount first."""
    return who_owes_whom_of(_moved(pairs))


def who_owes_whom_of(moved: Moved) -> pd.DataFrame:
    """:func:`who_owes_whom` from the transfers per (currency, stake, a, b), in any order
    (an archive's SQL sums them)."""
    net: dict[tuple[str, str, str], tuple[int, int, Decimal]] = {}
    for currency, stake, a, b, points, together in moved:
        money = _money(points, stake)
        if b < a:  # one key per unordered pair, seen from the name that sorts first
            a, b, points, money = b, a, -points, -money
        hands, p, m = net.get((currency, a, b), (0, 0, Decimal(0)))
        net[(currency, a, b)] = (hands + together, p + points, m + money)
    rows = []
    for (currency, a, b), (hands, points, money) in net.items():
        if money == 0 and points == 0:
            continue
        if money < 0 or (money == 0 and points < 0):
            a, b, points, money = b, a, -points, -money
        rows.append((currency, a, b, hands, points, money))
    scaled = at_one_scale([r[5] for r in rows], [r[0] for r in rows])
    rows = [(*r[:5], m) for r, m in zip(rows, scaled, strict=True)]
    out = pd.DataFrame(rows, columns=OWES_COLUMNS)
    out = out.astype({"currency": "string", "player": "string", "opponent": "string",
                      "hands": "int64", "points": "int64"})
    if rows:
        out = out.sort_values(["currency", "money", "player", "opponent"],
                              ascending=[True, False, True, True], kind="stable")
    return out.reset_index(drop=True)


def settled_balances(pairs: pd.DataFrame) -> pd.DataFrame:
    """Each player's net per currency from the pairs: ``points`` transferred (after caps)
    and ``money`` (Decimal) at each hand's stake. Every player of a settled pair is listed,
    an even player with 0. Per currency the money adds up to exactly zero."""
    return settled_balances_of(_moved(pairs))


def settled_balances_of(moved: Moved) -> pd.DataFrame:
    """:func:`settled_balances` from the transfers per (currency, stake, a, b)."""
    net: dict[tuple[str, str], tuple[int, Decimal]] = {}
    for currency, stake, a, b, points, _ in moved:
        money = _money(points, stake)
        for name, sign in ((a, 1), (b, -1)):
            p, m = net.get((currency, name), (0, Decimal(0)))
            net[(currency, name)] = (p + sign * points, m + sign * money)
    ordered = sorted(net.items())
    scaled = at_one_scale([m for _, (_, m) in ordered], [c for (c, _), _ in ordered])
    rows = [(c, n, p, m) for ((c, n), (p, _)), m in zip(ordered, scaled, strict=True)]
    out = pd.DataFrame(rows, columns=BALANCE_COLUMNS)
    return out.astype({"currency": "string", "name": "string", "points": "int64"})


@dataclass(frozen=True)
class _Ledger:
    """One currency's non-zero balances in whole minor units (exact integers)."""

    names: list[str]
    units: list[int]
    scale: Decimal  # one minor unit

    @classmethod
    def of(cls, balances: list[tuple[str, Decimal]]) -> _Ledger:
        places = max((-int(e) for _, m in balances
                      if isinstance(e := m.as_tuple().exponent, int)), default=0)
        scale = Decimal(1).scaleb(-max(places, 0))
        kept = sorted((n, int(m / scale)) for n, m in balances if m != 0)
        return cls([n for n, _ in kept], [u for _, u in kept], scale)


def _settle_group(names: list[str], units: list[int]) -> list[tuple[str, str, int]]:
    """Payments settling balances that add up to zero: the largest debtor pays the largest
    creditor, again and again. Each payment clears at least one balance and the last clears
    two, so k balances take at most k - 1 payments."""
    owed = dict(zip(names, units, strict=True))
    out: list[tuple[str, str, int]] = []
    while True:
        debtors = sorted((u, n) for n, u in owed.items() if u < 0)
        creditors = sorted(((-u, n) for n, u in owed.items() if u > 0))
        if not debtors:
            return out
        debt, payer = debtors[0]
        credit, payee = creditors[0]
        amount = min(-debt, -credit)
        out.append((payer, payee, amount))
        owed[payer] += amount
        owed[payee] -= amount


def _zero_sum_groups(units: list[int]) -> list[list[int]]:
    """The balances split into the most groups that each add up to zero (indices).

    ``best[mask]`` is the most zero-sum groups the players of ``mask`` can be split into
    when taken one at a time: removing players in some order, a group closes each time the
    players left add up to zero. n - best[all] is the fewest payments (a group of k needs
    k - 1, and no payment plan beats that: its payments link players into groups that each
    add up to zero)."""
    n = len(units)
    full = (1 << n) - 1
    total = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + units[low.bit_length() - 1]
    best = [0] * (full + 1)
    bits = [1 << i for i in range(n)]
    for mask in range(1, full + 1):
        best[mask] = max(best[mask ^ b] for b in bits if mask & b) + (total[mask] == 0)
    # Walk back from everyone: each step removes a player that keeps the best count; the
    # players between two zero-sum points of the walk form one group.
    groups: list[list[int]] = []
    current: list[int] = []
    mask = full
    while mask:
        gained = total[mask] == 0
        if gained and current:
            groups.append(current)
            current = []
        for i, b in enumerate(bits):
            if mask & b and best[mask ^ b] + gained == best[mask]:
                current.append(i)
                mask ^= b
                break
    if current:
        groups.append(current)
    return groups


def _fewest(names: list[str], units: list[int]) -> list[tuple[str, str, int]]:
    if len(names) > EXACT_PLAYERS:
        return _settle_group(names, units)
    out: list[tuple[str, str, int]] = []
    for group in _zero_sum_groups(units):
        out.extend(_settle_group([names[i] for i in group], [units[i] for i in group]))
    return out


def payments(balances: pd.DataFrame) -> pd.DataFrame:
    """The fewest payments that settle each currency: ``payer`` pays ``payee`` ``amount``
    (a positive Decimal). ``balances`` has one row per player and currency, columns
    ``currency``, ``name`` and ``money`` (what the player won, negative when it lost; as
    :func:`settled_balances` gives them; numbers that are not Decimal are read by their
    decimal text).

    Up to :data:`EXACT_PLAYERS` players with a balance in a currency the count is the exact
    minimum: n minus the most groups of players whose balances add up to zero; beyond it
    the largest debtor pays the largest creditor until all are even (at most n - 1).
    Raises ValueError when a currency's balances do not add up to zero."""
    rows = []
    for currency, group in balances.groupby("currency", sort=True):
        entries = [(str(n), m if isinstance(m, Decimal) else Decimal(str(m)))
                   for n, m in zip(group["name"], group["money"], strict=True)]
        if sum((m for _, m in entries), Decimal(0)) != 0:
            raise ValueError(f"the {currency} balances do not add up to zero")
        ledger = _Ledger.of(entries)
        for payer, payee, units in _fewest(ledger.names, ledger.units):
            amount = in_minor_units(units * ledger.scale, str(currency))
            rows.append((str(currency), payer, payee, amount))
    out = pd.DataFrame(rows, columns=PAYMENT_COLUMNS)
    out = out.astype({"currency": "string", "payer": "string", "payee": "string"})
    if rows:
        out = out.sort_values(["currency", "amount", "payer"], ascending=[True, False, True],
                              kind="stable")
    return out.reset_index(drop=True)


def pair_payments(owes: pd.DataFrame) -> pd.DataFrame:
    """Payments pair by pair (each row of :func:`who_owes_whom`: ``opponent`` pays
    ``player``), with :func:`payments`' columns. For one player's view (``--player``): the
    balances there are that player's dealings only, and the fewest payments would have the
    opponents pay each other what they never played for."""
    out = pd.DataFrame({"currency": owes["currency"], "payer": owes["opponent"],
                        "payee": owes["player"], "amount": owes["money"]},
                       columns=PAYMENT_COLUMNS)
    return out[out["amount"] != 0].reset_index(drop=True)
