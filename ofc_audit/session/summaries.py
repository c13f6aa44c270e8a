"""Session summaries: pure functions from the tables of :mod:`ofc_audit.session.tables` to
DataFrames.

Nothing here reads files, plots or prints; the charts and the reports take these frames as
they are. Every function works on an empty table too (and returns its columns, no rows).

Money is ``points * stake`` per hand, summed per currency: a player who played at EUR and
USD tables gets one row per currency, never one sum of both. Unknown results (hidden cards)
are left out of sums and rates: ``scored`` counts the hands whose points are known (both
boards of every pair seen), and rates divide by what is known, never by ``hands``.

Definitions (per player):

- ``fantasylands``: Fantasylands entered, i.e. hands played outside Fantasyland that earned
  one (R-FL-1). ``fantasyland_repeats``: hands played in Fantasyland that earned another
  (R-FL-3). ``fantasyland_hands``: hands played in Fantasyland.
- ``fantasyland_rate``: ``fantasylands`` over the hands played outside Fantasyland whose
  board is known, the hands where entry was possible and could be seen.
- ``foul_rate``: fouls over the hands whose board is known (a player's own board may be
  known while an opponent's is not). ``points_per_hand``: points over ``scored``.
- ``net``: the stack change (points actually transferred, after R-SETTLE-3 caps);
  ``net_money`` the same at the stake. ``points`` and ``money`` are before any cap (docs/CLI.md).
- ``boards``: hands whose own board is known (the foul rate's sample);
  ``fantasyland_chances``: those played outside Fantasyland (the Fantasyland rate's sample).
- ``biggest_win``/``biggest_loss``: the best and worst single hand in points (0 when the
  player never won, or never lost, a hand).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from . import settle_up
from .exports import TableSource
from .tables import CATEGORIES, ROW_NAMES, SessionTables, plain_labels

#: Money is float arithmetic on decimal stakes (0.1 * 3 = 0.30000000000000004); sums are
#: rounded to this many places, far below any currency's minor unit.
MONEY_DECIMALS = 8

_COUNTS = [
    "scored", "boards", "points", "money", "net", "net_money", "royalties", "royalties_top",
    "royalties_middle", "royalties_bottom", "fouls", "fantasylands", "fantasyland_repeats",
    "fantasyland_hands", "fantasyland_chances",
]

PLAYER_COLUMNS = [
    "name", "currency", "hands", "scored", "points", "money", "net", "net_money",
    "points_per_hand", "royalties", "royalties_top", "royalties_middle", "royalties_bottom",
    "fouls", "foul_rate", "fantasylands", "fantasyland_rate", "fantasyland_repeats",
    "fantasyland_hands", "biggest_win", "biggest_loss", "boards", "fantasyland_chances",
]


def _floats(values: pd.Series) -> np.ndarray:
    """A nullable integer column as float64 with NaN for NA: numpy arithmetic, no NA logic."""
    return values.to_numpy(dtype="float64", na_value=np.nan)


def _flags(values: pd.Series) -> np.ndarray:
    """A (nullable) boolean column as a numpy bool array, NA as False."""
    return values.to_numpy(dtype="bool", na_value=False)


def _player_counts(
    seats: pd.DataFrame,
    keys: list[str],
    firsts: Sequence[str] = (),
    sums: Sequence[str] = tuple(_COUNTS),
) -> pd.DataFrame:
    """Sums of ``sums`` and the points extremes per ``keys``, plus the first value of each
    column of ``firsts``; one groupby over precomputed numpy columns, so the keys are
    factorised once. (Summing only what a summary needs matters with many small groups.)"""
    known = seats["fouled"].notna().to_numpy()  # the player's own board is known
    in_fl = _flags(seats["in_fantasyland"])
    qualifies = _flags(seats["fantasyland_next"])
    points = _floats(seats["points"])
    stake = seats["stake"].to_numpy(dtype="float64")
    transfer = _floats(seats["transfer"])
    work = pd.DataFrame(
        {
            **{k: seats[k] for k in keys},
            "scored": (~np.isnan(points)).astype("int64"),
            "boards": known.astype("int64"),
            "points": points,
            "money": points * stake,
            "net": transfer,
            "net_money": transfer * stake,
            "royalties": _floats(seats["royalties"]),
            "royalties_top": _floats(seats["royalties_top"]),
            "royalties_middle": _floats(seats["royalties_middle"]),
            "royalties_bottom": _floats(seats["royalties_bottom"]),
            "fouls": _flags(seats["fouled"]).astype("int64"),
            "fantasylands": (qualifies & ~in_fl).astype("int64"),
            "fantasyland_repeats": (qualifies & in_fl).astype("int64"),
            "fantasyland_hands": in_fl.astype("int64"),
            "fantasyland_chances": (known & ~in_fl).astype("int64"),
            **{f: seats[f] for f in firsts},
        }
    )
    grouped = work.groupby(keys, sort=False, observed=True)
    out = grouped[list(sums)].sum()
    out.insert(0, "hands", grouped.size())
    out["biggest_win"] = grouped["points"].max().clip(lower=0)
    out["biggest_loss"] = grouped["points"].min().clip(upper=0)
    if firsts:
        out[list(firsts)] = grouped[list(firsts)].first()
    return out


def _ratio(num: pd.Series, den: pd.Series) -> pd.Series:
    return (num / den.where(den > 0)).astype("float64")


def _ints(frame: pd.DataFrame, columns: list[str]) -> None:
    for c in columns:
        frame[c] = frame[c].astype("int64")


def player_summary(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per player and currency; sorted by currency, then points (best first)."""
    return player_summary_of(_player_counts(seats, ["name", "currency"]))


def player_summary_of(c: pd.DataFrame) -> pd.DataFrame:
    """:func:`player_summary` from the counts per (name, currency) (the index): ``hands``,
    the :data:`_COUNTS` sums and the points extremes, as an archive's SQL gives them too."""
    c["money"] = c["money"].round(MONEY_DECIMALS)
    c["net_money"] = c["net_money"].round(MONEY_DECIMALS)
    c["points_per_hand"] = _ratio(c["points"], c["scored"])
    c["foul_rate"] = _ratio(c["fouls"], c["boards"])
    c["fantasyland_rate"] = _ratio(c["fantasylands"], c["fantasyland_chances"])
    # Sums of whole numbers stay whole; the extremes are NA for a player never scored.
    _ints(c, ["hands", "scored", "points", "net", "royalties", "royalties_top",
              "royalties_middle", "royalties_bottom", "fouls", "fantasylands",
              "fantasyland_repeats", "fantasyland_hands", "boards", "fantasyland_chances"])
    for col in ("biggest_win", "biggest_loss"):
        c[col] = c[col].astype("Int64")
    out = plain_labels(c.reset_index()).sort_values(
        ["currency", "points", "name"], ascending=[True, False, True], kind="stable"
    )
    return out[PLAYER_COLUMNS].reset_index(drop=True)


RATE_COLUMNS = ["name", "hands", "scored", "fouls", "foul_rate", "fantasylands",
                "fantasyland_rate", "boards", "fantasyland_chances"]


def player_rates(seats: pd.DataFrame) -> pd.DataFrame:
    """Foul rate and Fantasyland frequency per player over all currencies (rates are not
    money, so they need no split), sorted by name."""
    return player_rates_of(_player_counts(
        seats, ["name"], sums=["scored", "boards", "fouls", "fantasylands", "fantasyland_chances"]
    ))


def player_rates_of(c: pd.DataFrame) -> pd.DataFrame:
    """:func:`player_rates` from the counts per name (the index)."""
    c["foul_rate"] = _ratio(c["fouls"], c["boards"])
    c["fantasyland_rate"] = _ratio(c["fantasylands"], c["fantasyland_chances"])
    _ints(c, ["hands", "scored", "fouls", "fantasylands", "boards", "fantasyland_chances"])
    out = plain_labels(c.reset_index()).sort_values("name", kind="stable")
    return out[RATE_COLUMNS].reset_index(drop=True)


_PAIR_VALUES = ["top", "middle", "bottom", "scoop", "royalties", "points_due", "transferred"]

HEAD_TO_HEAD_COLUMNS = [
    "player", "opponent", "currency", "hands", "scored", "points", "money", "transferred",
    "rows_won", "rows_lost", "rows_tied", "scoops_won", "scoops_lost", "royalties", "capped",
]


def head_to_head(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per player, opponent and currency, seen from ``player``; each pair of players
    appears twice (once from each side), so a player's rows add up to its own results.
    ``royalties`` is the royalty net, ``capped`` the hands whose transfer the cap cut."""
    values = {c: _floats(pairs[c]) for c in _PAIR_VALUES}
    rows = np.column_stack([values[r] for r in ROW_NAMES])
    scoop = values["scoop"]
    # Aggregate the big table once, seen from ``a``; the view from ``b`` is then the mirror
    # of each (small) aggregate row, which beats mirroring every pair row first.
    seen_from_a = pd.DataFrame(
        {
            "player": pairs["a"].array,
            "opponent": pairs["b"].array,
            "currency": pairs["currency"].array,
            "scored": (~np.isnan(values["points_due"])).astype("int64"),
            "points": values["points_due"],
            "money": values["points_due"] * pairs["stake"].to_numpy(dtype="float64"),
            "transferred": values["transferred"],
            "rows_won": (rows > 0).sum(axis=1),
            "rows_lost": (rows < 0).sum(axis=1),
            "rows_tied": (rows == 0).sum(axis=1),
            "scoops_won": (scoop > 0).astype("int64"),
            "scoops_lost": (scoop < 0).astype("int64"),
            "royalties": values["royalties"],
            "capped": _flags(pairs["capped"]).astype("int64"),
        }
    )
    grouped = seen_from_a.groupby(_H2H_KEYS, sort=False, observed=True)
    forward = grouped.sum()
    forward.insert(0, "hands", grouped.size())
    return head_to_head_of(plain_labels(forward.reset_index()))


_H2H_KEYS = ["player", "opponent", "currency"]


def head_to_head_of(forward: pd.DataFrame) -> pd.DataFrame:
    """:func:`head_to_head` from the sums seen from ``a``: one row per (player = a,
    opponent = b, currency), the columns of :data:`HEAD_TO_HEAD_COLUMNS`."""
    keys = _H2H_KEYS
    mirror = forward.rename(columns={"player": "opponent", "opponent": "player",
                                     "rows_won": "rows_lost", "rows_lost": "rows_won",
                                     "scoops_won": "scoops_lost", "scoops_lost": "scoops_won"})
    for column in ("points", "money", "transferred", "royalties"):
        mirror[column] = -mirror[column]
    out = pd.concat([forward, mirror[forward.columns]], ignore_index=True)
    out = out.groupby(keys, sort=True, observed=True).sum()
    out["money"] = out["money"].round(MONEY_DECIMALS)
    _ints(out, ["hands", "scored", "points", "transferred", "rows_won", "rows_lost",
                "rows_tied", "scoops_won", "scoops_lost", "royalties", "capped"])
    return out.reset_index()[HEAD_TO_HEAD_COLUMNS]


MATCH_COLUMNS = [
    "match", "table", "first_hand_id", "name", "currency", "hands", "fantasyland_hands",
    "points", "money", "royalties", "fouls",
]


def match_summary(seats: pd.DataFrame) -> pd.DataFrame:
    """One row per match and player (a match is a hand and its Fantasyland hands, R-MATCH-1;
    a hand without a ``Match`` line is a match of its own), in session order."""
    return match_summary_of(match_counts(seats))


def match_counts(seats: pd.DataFrame, firsts: Sequence[str] = ("hand", "hand_id", "position")
                 ) -> pd.DataFrame:
    """What :func:`match_summary_of` takes: the sums per (table, match, name, currency) and
    the first value of each column of ``firsts``. Seats are in session order, so a group's
    first row is its player's first hand."""
    return _player_counts(
        seats, ["table", "match", "name", "currency"], firsts=list(firsts),
        sums=["fantasyland_hands", "points", "money", "royalties", "fouls"],
    )


#: The match summary's order: a match's rows start at its first hand; inside a match,
#: players in settlement order; ties in the order the groups first appear.
MATCH_ORDER = ["match_first", "position"]


def match_summary_of(counts: pd.DataFrame) -> pd.DataFrame:
    """:func:`match_summary` from the counts per (table, match, name, currency) (the index,
    in the order each group first appears in the session), with the first hand, hand_id and
    position of each."""
    out = match_rows_of(counts).sort_values(MATCH_ORDER, kind="stable")
    return out[MATCH_COLUMNS].reset_index(drop=True)


def match_rows_of(counts: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`match_summary_of`, not yet in order, with the columns of
    :data:`MATCH_ORDER` besides (the counts of whole matches: a share of the matches gives
    the rows of its matches)."""
    counts["money"] = counts["money"].round(MONEY_DECIMALS)
    _ints(counts, ["hands", "fantasyland_hands", "points", "royalties", "fouls"])
    counts["match_first"] = counts.groupby(level=["table", "match"], sort=False)[
        "hand"].transform("min")
    counts = counts.rename(columns={"hand_id": "first_hand_id"})
    return plain_labels(counts.reset_index())


def royalties_by_category(seats: pd.DataFrame) -> pd.DataFrame:
    """Royalty points earned per row (columns top, middle, bottom) and category (index, weakest
    first); every category is listed, zeros included. Fouled boards earn none (R-ROY-4)."""
    return royalties_of({
        row: pd.Series(_floats(seats[f"royalties_{row}"])).groupby(
            seats[row].array, observed=False).sum()
        for row in ROW_NAMES})


def royalties_of(sums: dict[str, pd.Series]) -> pd.DataFrame:
    """:func:`royalties_by_category` from each row's royalty sums per category label."""
    columns = {row: sums[row].reindex(list(CATEGORIES), fill_value=0.0).astype("int64")
               for row in ROW_NAMES}
    return pd.DataFrame(columns, index=pd.Index(list(CATEGORIES), name="category"))


WATERFALL_COLUMNS = ["player", "opponent", "amount", "start", "end", "total"]


def settlement_steps(pairs: pd.DataFrame, hand: int | None) -> pd.DataFrame:
    """The waterfall of one hand: for each player (in settlement order) one step per pair it
    played, in settlement order, then its net (``total`` True, ``opponent`` NA). No rows
    when ``hand`` is None (a session without pairs has no hand to show).

    ``amount`` is what moved to the player: the capped transfer when stacks are known,
    otherwise the points due; an unknown pair (hidden cards) moves 0."""
    one = pairs[pairs["hand"] == (-1 if hand is None else hand)]
    moved = one["transferred"].fillna(one["points_due"]).fillna(0).astype("int64").to_numpy()
    a_names = one["a"].tolist()
    b_names = one["b"].tolist()
    players = list(dict.fromkeys(n for ab in zip(a_names, b_names, strict=True) for n in ab))
    rows: list[tuple[str, str | None, int, int, int, bool]] = []
    for player in players:
        running = 0
        for a, b, amount in zip(a_names, b_names, moved, strict=True):
            if player not in (a, b):
                continue
            step = int(amount) if player == a else -int(amount)
            rows.append((player, b if player == a else a, step, running, running + step, False))
            running += step
        rows.append((player, None, running, 0, running, True))
    out = pd.DataFrame(rows, columns=WATERFALL_COLUMNS)
    return out.astype(
        {"player": "string", "opponent": "string", "amount": "int64", "start": "int64",
         "end": "int64", "total": "bool"}
    )


def busiest_hand(pairs: pd.DataFrame) -> int | None:
    """The hand where the most points moved (sum of absolute transfers, or dues when the
    transfers are unknown): the one a settlement waterfall is most worth drawing for."""
    if pairs.empty:
        return None
    moved = pairs["transferred"].fillna(pairs["points_due"]).fillna(0).abs()
    totals = moved.groupby(pairs["hand"]).sum()
    return int(totals.index.to_numpy()[totals.to_numpy().argmax()])


TOTAL_COLUMNS = [
    "hands", "valid", "with_violations", "with_mismatches", "with_unverifiable", "rejected",
    "incomplete",
    "players", "first_time", "last_time",
]


def session_totals(
    hands: pd.DataFrame, seats: pd.DataFrame, rejected: pd.DataFrame
) -> pd.DataFrame:
    """One row: the counts of the audit's ``totals`` (docs/CLI.md) plus players and time span."""
    return totals_of(
        hands=len(hands), valid=int(hands["valid"].sum()),
        with_mismatches=int((hands["mismatches"] > 0).sum()),
        with_unverifiable=int((hands["unverifiable"] > 0).sum()), rejected=len(rejected),
        incomplete=int(hands["incomplete"].notna().sum()),
        players=int(seats["name"].nunique()),
        first_time=hands["time"].min(), last_time=hands["time"].max())


def totals_of(*, hands: int, valid: int, with_mismatches: int, with_unverifiable: int,
              rejected: int, incomplete: int, players: int, first_time: object,
              last_time: object) -> pd.DataFrame:
    """:func:`session_totals` from its counts (the times as ``Series.min``/``max`` of the
    hands' ``time`` give them: a Timestamp, or NaT)."""
    return pd.DataFrame(
        {
            "hands": [hands],
            "valid": [valid],
            "with_violations": [hands - valid],
            "with_mismatches": [with_mismatches],
            "with_unverifiable": [with_unverifiable],
            "rejected": [rejected],
            "incomplete": [incomplete],
            "players": [players],
            "first_time": [first_time],
            "last_time": [last_time],
        },
        columns=TOTAL_COLUMNS,
    )


@dataclass(frozen=True)
class SessionSummaries:
    """Every summary of one session's tables, computed once for the report, the terminal
    and the exported files."""

    players: pd.DataFrame
    rates: pd.DataFrame
    head_to_head: pd.DataFrame
    #: A row per match and player: as long as the seat table when matches are short, so a
    #: session summarised where its hands are stored gives it as a source of pieces
    #: (:class:`~ofc_audit.session.exports.TableSource`, in order), never whole in memory.
    matches: pd.DataFrame | TableSource
    royalties: pd.DataFrame
    totals: pd.DataFrame
    #: Who owes whom per currency and pair, and the fewest payments that settle each
    #: currency (:mod:`ofc_audit.session.settle_up`; amounts are Decimal).
    owes: pd.DataFrame
    payments: pd.DataFrame

    @classmethod
    def of(cls, tables: SessionTables) -> SessionSummaries:
        return cls(
            players=player_summary(tables.seats),
            rates=player_rates(tables.seats),
            head_to_head=head_to_head(tables.pairs),
            matches=match_summary(tables.seats),
            royalties=royalties_by_category(tables.seats).reset_index(),
            totals=session_totals(tables.hands, tables.seats, tables.rejected),
            owes=settle_up.who_owes_whom(tables.pairs),
            payments=settle_up.payments(settle_up.settled_balances(tables.pairs)),
        )

    def items(self) -> list[tuple[str, pd.DataFrame | TableSource]]:
        """The exported  ``rates`` only feeds a chart: the player table already has
        the rates, per currency."""
        return [(f.name, getattr(self, f.name)) for f in fields(self) if f.name != "rates"]

    def total(self, column: str) -> int:
        return int(self.totals[column].iloc[0])
