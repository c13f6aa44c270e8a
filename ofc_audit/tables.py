"""Replay results as pandas tables: hands, seats, pairs, violations, mismatches, rejected.

The builder is fed one :class:`~ofc_audit.results.HandResult` at a time while the audit
streams, appends each value to a plain Python list per column, and makes every DataFrame
once at the end: a DataFrame (or a ``concat``) per hand would cost more than the replay.

Unknown results (hidden cards) are missing values, never zeros, so every result column has
a nullable dtype (``Int64``, ``boolean``, ``string``, an ordered ``category`` for the row
categories). The key that joins the tables is ``hand``, the 0-based position of the hand
in the session (hand IDs are only unique per site, and a session may mix files).

The seats and pairs tables repeat the few per-hand columns the summaries group by (match,
table, stake, currency), so a summary never needs a join: that is what keeps the per-player
summary of a million seat rows within a second or two.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any, Protocol

import pandas as pd

from .hands import Category, category_label
from .results import HandResult

#: ``RowResult.category`` builds an enum per call, a third of the builder's time per hand;
#: the label depends on the hand value alone, and a session meets a few thousand values.
_category = functools.lru_cache(maxsize=None)(category_label)

#: Row categories from weakest to strongest, as ``board.RowResult.category`` names them: the
#: hand categories plus ``royal_flush``, which the labels split off the straight flushes.
CATEGORIES: tuple[str, ...] = tuple(c.label for c in sorted(Category)) + ("royal_flush",)
CATEGORY_DTYPE = pd.CategoricalDtype(list(CATEGORIES), ordered=True)
ROW_NAMES: tuple[str, ...] = ("top", "middle", "bottom")


class Rejection(Protocol):
    """A hand the reader could not read (``reader.HistoryParseError`` has these fields).

    Declared structurally so the tables do not depend on the reader module."""

    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def message(self) -> str: ...


# Column name -> how the list of Python values becomes a pandas array. The order of each
# mapping is the column order of its table.
_Maker = Callable[[list[Any]], Any]


def _int(values: list[Any]) -> Any:
    return pd.array(values, dtype="int64")


def _nint(values: list[Any]) -> Any:
    return pd.array(values, dtype="Int64")


def _float(values: list[Any]) -> Any:
    return pd.array(values, dtype="float64")


def _bool(values: list[Any]) -> Any:
    return pd.array(values, dtype="bool")


def _nbool(values: list[Any]) -> Any:
    return pd.array(values, dtype="boolean")


def _str(values: list[Any]) -> Any:
    return pd.array(values, dtype="string")


def _cat(values: list[Any]) -> Any:
    return pd.Categorical(values, dtype=CATEGORY_DTYPE)


def _time(values: list[Any]) -> Any:
    # FORMAT.md timestamps end in a zone word (UTC) or an offset (+05:00); both become UTC.
    # A zone word other than UTC/GMT/Z has no fixed offset, so it stays NaT (the text is
    # kept in ``timestamp``). Parsed once per table, vectorised, not once per hand.
    text = pd.Series(values, dtype="string").str.replace(r" (?:UTC|GMT|Z)$", " +00:00", regex=True)
    times = pd.to_datetime(text, format="%Y-%m-%d %H:%M:%S %z", utc=True, errors="coerce")
    # One resolution whatever the input (an empty column would otherwise infer seconds).
    return times.astype("datetime64[us, UTC]").array


HAND_COLUMNS: dict[str, _Maker] = {
    "hand": _int,
    "file": _str,
    "line": _int,
    "hand_id": _str,
    "match_id": _str,
    "match_hand": _nint,
    "match": _str,
    "table": _str,
    "variant": _str,
    "fantasyland_type": _str,
    "timestamp": _str,
    "time": _time,
    "stake": _float,
    "stake_text": _str,
    "currency": _str,
    "button_seat": _int,
    "players": _int,
    "valid": _bool,
    "violations": _int,
    "mismatches": _int,
    "unverifiable": _int,
}

SEAT_COLUMNS: dict[str, _Maker] = {
    "hand": _int,
    "hand_id": _str,
    "match": _str,
    "table": _str,
    "stake": _float,
    "currency": _str,
    "name": _str,
    "seat": _int,
    "position": _int,  # 1-based settlement position, as in the audit JSON
    "in_fantasyland": _bool,
    "top": _cat,
    "middle": _cat,
    "bottom": _cat,
    "royalties_top": _nint,
    "royalties_middle": _nint,
    "royalties_bottom": _nint,
    "royalties": _nint,
    "fouled": _nbool,
    "points": _nint,
    "transfer": _nint,
    "stack_before": _int,
    "stack_after": _nint,
    "fantasyland_next": _nbool,  # qualifies for Fantasyland next hand; NA when unknown
    "fantasyland_cards": _nint,  # cards of that Fantasyland; NA when not qualifying/unknown
}

PAIR_COLUMNS: dict[str, _Maker] = {
    "hand": _int,
    "hand_id": _str,
    "match": _str,
    "table": _str,
    "stake": _float,
    "currency": _str,
    "a": _str,
    "b": _str,
    "top": _nint,  # +1 a won the row, -1 b won it, 0 tie (or both fouled)
    "middle": _nint,
    "bottom": _nint,
    "scoop": _nint,  # +bonus a scooped, -bonus b scooped
    "royalties": _nint,  # roy(a) - roy(b)
    "points_due": _nint,  # to a, before the stack cap
    "transferred": _nint,  # to a, after the stack cap
    "capped": _nbool,
}

VIOLATION_COLUMNS: dict[str, _Maker] = {
    "hand": _int,
    "hand_id": _str,
    "file": _str,
    "rule": _str,
    "line": _int,
    "player": _str,
    "message": _str,
}

MISMATCH_COLUMNS: dict[str, _Maker] = {
    "hand": _int,
    "hand_id": _str,
    "file": _str,
    "line": _int,
    "player": _str,
    "field": _str,
    # int | bool | None in the record; a flag (``fouled``) is stored as 1/0 so the column
    # keeps one nullable integer dtype (Parquet needs one type per column).
    "recorded": _nint,
    "computed": _nint,
}

REJECTED_COLUMNS: dict[str, _Maker] = {
    "file": _str,
    "line": _int,
    "column": _int,
    "message": _str,
}


@dataclass(frozen=True)
class SessionTables:
    """Every table of one session; empty tables keep their columns and dtypes."""

    hands: pd.DataFrame
    seats: pd.DataFrame
    pairs: pd.DataFrame
    violations: pd.DataFrame
    mismatches: pd.DataFrame
    rejected: pd.DataFrame

    def items(self) -> list[tuple[str, pd.DataFrame]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self)]


class _Columns:
    """One table's column lists. :meth:`push` appends a row given in column order (the order
    of the table's ``*_COLUMNS`` mapping) through pre-bound ``append`` methods: the builder
    runs once per hand and per seat, and name lookups there cost more than the appends."""

    def __init__(self, columns: dict[str, _Maker]) -> None:
        self.columns = columns
        self.data: dict[str, list[Any]] = {c: [] for c in columns}
        self._appends = [self.data[c].append for c in columns]

    def push(self, *values: Any) -> None:
        for append, value in zip(self._appends, values, strict=True):
            append(value)

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({name: make(self.data[name]) for name, make in self.columns.items()})


class TableBuilder:
    """Collects hand results column by column; :meth:`build` makes the DataFrames once."""

    def __init__(self) -> None:
        self._hands = _Columns(HAND_COLUMNS)
        self._seats = _Columns(SEAT_COLUMNS)
        self._pairs = _Columns(PAIR_COLUMNS)
        self._violations = _Columns(VIOLATION_COLUMNS)
        self._mismatches = _Columns(MISMATCH_COLUMNS)
        self._rejected = _Columns(REJECTED_COLUMNS)
        self.hand_count = 0
        self.rejected_count = 0
        self._files: dict[str, str] = {}

    def add(self, r: HandResult) -> None:
        key = self.hand_count
        self.hand_count += 1
        file = self._files.get(r.file)
        if file is None:
            file = self._files.setdefault(r.file, _clean(r.file))
        match = r.match_id if r.match_id is not None else r.hand_id
        stake = float(r.stake.amount)
        currency = r.stake.currency
        hand_id, table = r.hand_id, r.table
        # Each push lists the values in the order of the table's *_COLUMNS mapping.
        self._hands.push(
            key, file, r.line, hand_id, r.match_id, r.match_hand, match, table,
            r.variant.value, r.fantasyland_type.value, r.timestamp, r.timestamp, stake,
            r.stake.text, currency, r.button_seat, len(r.players), r.valid,
            len(r.violations), len(r.mismatches), len(r.unverifiable),
        )
        push = self._seats.push
        for p in r.players:
            res = p.result
            if res is None:
                rows: tuple[str | None, ...] = (None, None, None)
                roy: tuple[int | None, ...] = (None, None, None, None)
                fouled = None
            else:
                top, middle, bottom = res.rows
                rows = (_category(top.value), _category(middle.value), _category(bottom.value))
                x = res.royalties
                roy = (x.top, x.middle, x.bottom, x.total)
                fouled = res.fouled
            qualifies = None if not p.fantasyland_next_known else p.fantasyland_next is not None
            push(
                key, hand_id, match, table, stake, currency, p.name, p.seat, p.position + 1,
                p.in_fantasyland, *rows, *roy, fouled, p.points, p.transfer, p.stack_before,
                p.stack_after, qualifies, p.fantasyland_next,
            )
        push = self._pairs.push
        for pair in r.pairs:
            outcome = pair.rows or (None, None, None)
            known = pair.points_a is not None and pair.transfer_to_a is not None
            push(
                key, hand_id, match, table, stake, currency, pair.a, pair.b, *outcome,
                pair.scoop, pair.royalties, pair.points_a, pair.transfer_to_a,
                pair.capped if known else None,
            )
        for f in r.violations:
            self._violations.push(key, hand_id, file, f.rule, f.line, f.player, f.message)
        for m in r.mismatches:
            self._mismatches.push(
                key, hand_id, file, m.line, m.player, m.field, _as_int(m.recorded),
                _as_int(m.computed),
            )

    def reject(self, error: Rejection) -> None:
        self.rejected_count += 1
        self._rejected.push(_clean(error.file), error.line, error.column, _clean(error.message))

    def build(self) -> SessionTables:
        return SessionTables(
            hands=self._hands.frame(),
            seats=self._seats.frame(),
            pairs=self._pairs.frame(),
            violations=self._violations.frame(),
            mismatches=self._mismatches.frame(),
            rejected=self._rejected.frame(),
        )


def _clean(text: str) -> str:
    """Text safe to encode: the reader decodes bad bytes as lone surrogates (and file names
    may carry them), which UTF-8 writers and Arrow refuse; they become ``\\udcff`` escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _as_int(value: int | bool | None) -> int | None:
    return None if value is None else int(value)


def build_tables(items: Iterable[HandResult | Rejection]) -> SessionTables:
    """Tables of a whole stream of audit items (results and rejections, in any mix)."""
    builder = TableBuilder()
    for item in items:
        if isinstance(item, HandResult):
            builder.add(item)
        else:
            builder.reject(item)
    return builder.build()
