"""Replay results as pandas tables: hands, seats, pairs, violations, mismatches, rejected.

The builder is fed one :class:`~ofc_audit.replay.results.HandResult` at a time while the audit
streams. A table row is one tuple of Python values (one append per row: per-value appends
to column lists cost more than the replay's own bookkeeping); every :data:`BATCH` hands the
tuples become compact column arrays (numpy, or Arrow for strings and nullable values), and
:meth:`TableBuilder.build` joins each column's arrays once. So the Python objects of at most
one batch are alive at a time, and a million-hand session holds its tables at about the
size of the final DataFrames, not ten times that in lists of boxed values.

Unknown results (hidden cards) are missing values, never zeros, so every result column has
a nullable dtype (``Int64``, ``boolean``, ``string``, an ordered ``category`` for the row
categories). The key that joins the tables is ``hand``, the 0-based position of the hand
in the session (hand IDs are only unique per site, and a session may mix files).

The seats and pairs tables repeat the few per-hand columns the summaries group by (match,
table, stake, currency), so a summary never needs a join: that is what keeps the per-player
summary of a million seat rows within a second or two. The builder does not store them per
row: a seat or pair row carries its hand's place in the batch, and the columns are taken
from the batch's hand columns at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from operator import itemgetter
from typing import Any, Protocol

import numpy as np
import pandas as pd
import pyarrow as pa
from pandas.api.types import union_categoricals

from ..game.row_values import Category, category_label
from ..replay.results import HandResult

#: Row categories from weakest to strongest, as ``board.RowResult.category`` names them: the
#: hand categories plus ``royal_flush``, which the labels split off the straight flushes.
CATEGORIES: tuple[str, ...] = tuple(c.label for c in sorted(Category)) + ("royal_flush",)
CATEGORY_DTYPE = pd.CategoricalDtype(list(CATEGORIES), ordered=True)
ROW_NAMES: tuple[str, ...] = ("top", "middle", "bottom")

_CODES = {label: code for code, label in enumerate(CATEGORIES)}


@functools.cache
def _category_code(value: int) -> int:
    """The code in :data:`CATEGORY_DTYPE` of a row's hand value. ``RowResult.category``
    builds an enum per call; the code depends on the value alone, and a session meets a few
    thousand values."""
    return _CODES[category_label(value)]


#: Hands whose rows the builder keeps as Python tuples before making them column arrays:
#: a few megabytes of tuples, and the per-batch cost of the arrays (~60 of them) is small
#: next to the batch's rows.
BATCH = 4096


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


# -- column kinds -----------------------------------------------------------------------------
#
# A column kind turns a batch of Python values into a *chunk* (a numpy array, or an Arrow
# array where values may be missing or are text: Arrow converts a list with None in C) and
# joins a column's chunks into the pandas array of the table. The ``*_COLUMNS`` mappings
# below give the kind of every column; calling a kind on a list of values makes the pandas
# array directly (the tests write expected frames that way).

Chunk = Any  # np.ndarray | pa.Array


@dataclass(frozen=True)
class _Kind:
    name: str
    chunk: Callable[[Sequence[Any]], Chunk]
    join: Callable[[list[Chunk]], Any]

    def __call__(self, values: Sequence[Any]) -> Any:
        return self.join([self.chunk(list(values))])


def _numpy(dtype: str) -> Callable[[Sequence[Any]], Chunk]:
    def chunk(values: Sequence[Any]) -> Chunk:
        return np.fromiter(values, dtype=dtype, count=len(values))

    return chunk


def _arrow(kind: pa.DataType) -> Callable[[Sequence[Any]], Chunk]:
    def chunk(values: Sequence[Any]) -> Chunk:
        return pa.array(values, type=kind)

    return chunk


def _concat(chunks: list[Chunk]) -> Any:
    if len(chunks) == 1:
        return chunks[0]
    if isinstance(chunks[0], np.ndarray):
        return np.concatenate(chunks)
    return pa.concat_arrays(chunks)


def _join_numpy(chunks: list[Chunk]) -> Any:
    return _concat(chunks)


def _join_int(chunks: list[Chunk]) -> Any:
    array = _concat(chunks)
    # Missing values become 0 under the mask (what lies under it is never read).
    return pd.arrays.IntegerArray(array.fill_null(0).to_numpy(),
                                  array.is_null().to_numpy(zero_copy_only=False))


def _join_bool(chunks: list[Chunk]) -> Any:
    array = _concat(chunks)
    return pd.arrays.BooleanArray(array.fill_null(False).to_numpy(zero_copy_only=False),
                                  array.is_null().to_numpy(zero_copy_only=False))


def _join_str(chunks: list[Chunk]) -> Any:
    # pandas' own ``string`` dtype (Arrow storage): the same array pd.array(values,
    # dtype="string") makes, without a pass over the values in Python.
    return pd.arrays.ArrowStringArray(_concat(chunks))


def _label_chunk(values: Sequence[Any]) -> Chunk:
    return pa.array(values, type=pa.large_string()).dictionary_encode()


def _as_labels(chunk: Chunk) -> pd.Categorical:
    """A dictionary-encoded Arrow chunk as a pandas Categorical (its own categories)."""
    codes = chunk.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return pd.Categorical.from_codes(codes, categories=pd.Index(chunk.dictionary, dtype="str"))


def join_labels(pieces: Sequence[pd.Categorical]) -> pd.Categorical:
    """Label pieces (each with its own categories) as one Categorical whose categories are
    sorted: a sort or a sorted groupby on the column then orders rows as on the strings."""
    joined = union_categoricals(list(pieces), sort_categories=True)
    # Making the union built a hash table of the categories as Python strings, several
    # times the size of the strings (a hand_id is unique per hand): dropped, so a table
    # holds codes and one Arrow array of the categories. A look-up that needs it builds it.
    getattr(joined.categories, "_cache", {}).pop("_engine", None)
    return joined


def _join_labels(chunks: list[Chunk]) -> Any:
    return join_labels([_as_labels(chunk) for chunk in chunks])


def _join_codes(chunks: list[Chunk]) -> Any:
    return pd.Categorical.from_codes(_concat(chunks), dtype=CATEGORY_DTYPE)


def _cat_chunk(values: Sequence[Any]) -> Chunk:
    """Labels (or None) to codes: the kind called on labels, as the tests write them."""
    return np.fromiter((-1 if v is None else _CODES[v] for v in values), dtype=np.int8,
                       count=len(values))


def _join_time(chunks: list[Chunk]) -> Any:
    # docs/FORMAT.md timestamps end in a zone word (UTC) or an offset (+05:00); both become UTC.
    # A zone word other than UTC/GMT/Z has no fixed offset, so it stays NaT (the text is
    # kept in ``timestamp``). Parsed once per table, vectorised, not once per hand.
    text = pd.Series(_join_str(chunks)).str.replace(r" (?:UTC|GMT|Z)$", " +00:00", regex=True)
    times = pd.to_datetime(text, format="%Y-%m-%d %H:%M:%S %z", utc=True, errors="coerce")
    # One resolution whatever the input (an empty column would otherwise infer seconds).
    return times.astype("datetime64[us, UTC]").array


_int = _Kind("int", _numpy("int64"), _join_numpy)
_float = _Kind("float", _numpy("float64"), _join_numpy)
_bool = _Kind("bool", _numpy("bool"), _join_numpy)
_nint = _Kind("Int64", _arrow(pa.int64()), _join_int)
_nbool = _Kind("boolean", _arrow(pa.bool_()), _join_bool)
_str = _Kind("string", _arrow(pa.large_string()), _join_str)
_cat = _Kind("category", _cat_chunk, _join_codes)
#: Text that repeats over many rows (names, tables, the hand a seat belongs to): a
#: Categorical in the table, plain ``string`` in every file written (:func:`plain_labels`).
_label = _Kind("label", _label_chunk, _join_labels)
_time = _Kind("time", _arrow(pa.large_string()), _join_time)
#: What the builder stores for a row category: its code (-1 when unknown), not its label.
_codes = _Kind("category", _numpy("int8"), _join_codes)

_Maker = _Kind

# Column name -> kind. The order of each mapping is the column order of its table.
HAND_COLUMNS: dict[str, _Maker] = {
    "hand": _int,
    "file": _label,
    "line": _int,
    "hand_id": _str,
    "match_id": _str,
    "match_hand": _nint,
    "match": _str,
    "table": _label,
    "variant": _label,
    "fantasyland_type": _label,
    "timestamp": _str,
    "time": _time,
    "stake": _float,
    "stake_text": _label,
    "currency": _label,
    "button_seat": _int,
    "players": _int,
    "valid": _bool,
    "violations": _int,
    "mismatches": _int,
    "unverifiable": _int,
    "incomplete": _str,  # where the text stops and what is missing; NA for a complete hand
}

SEAT_COLUMNS: dict[str, _Maker] = {
    "hand": _int,
    "hand_id": _label,
    "match": _label,
    "table": _label,
    "stake": _float,
    "currency": _label,
    "name": _label,
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
    "hand_id": _label,
    "match": _label,
    "table": _label,
    "stake": _float,
    "currency": _label,
    "a": _label,
    "b": _label,
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

#: The per-hand columns that the seat and pair rows repeat, and those of the findings: taken
#: from the batch's hand columns, not stored per row.
_HAND_KEYS = ("hand", "hand_id", "match", "table", "stake", "currency")
_FINDING_KEYS = ("hand", "hand_id", "file")


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


class _Table:
    """One table being built: the rows of the current batch (tuples of the ``stored``
    columns' values, in that order, after the row's hand's place in the batch when the
    table takes ``shared`` columns from the hands) and the chunks of the batches before."""

    def __init__(
        self,
        columns: dict[str, _Kind],
        shared: Sequence[str] = (),
        kinds: dict[str, _Kind] | None = None,
    ) -> None:
        self.columns = columns
        self.kinds = columns | (kinds or {})
        self.shared = tuple(shared)
        self.stored = tuple(c for c in columns if c not in self.shared and c != "time")
        self.rows: list[tuple[Any, ...]] = []
        self.chunks: dict[str, list[Chunk]] = {c: [] for c in columns}

    def flush(self, hands: dict[str, Chunk] | None = None) -> None:
        """The batch's rows become chunks; ``hands`` are the batch's hand columns."""
        rows, self.rows = self.rows, []
        if not rows:
            return
        offset = 1 if self.shared else 0
        for i, name in enumerate(self.stored, start=offset):
            self.chunks[name].append(self.kinds[name].chunk(list(map(itemgetter(i), rows))))
        if self.shared:
            assert hands is not None
            where = np.fromiter(map(itemgetter(0), rows), dtype=np.int64, count=len(rows))
            for name in self.shared:
                chunk = hands[name].take(where)
                if isinstance(chunk, pa.DictionaryArray):
                    # The batch's dictionary holds values of hands this table has no rows of.
                    chunk = chunk.cast(pa.large_string())
                if self.kinds[name] is _label:
                    chunk = chunk.dictionary_encode()
                self.chunks[name].append(chunk)
        if "time" in self.columns:  # parsed from the batch's timestamps when joined
            self.chunks["time"].append(self.chunks["timestamp"][-1])

    def frame(self) -> pd.DataFrame:
        """The table; its chunks are released column by column as the columns are made, so
        the batches and the whole table are never held in full at the same time."""
        data = {}
        for name, kind in self.columns.items():
            chunks = self.chunks[name]
            self.chunks[name] = []
            data[name] = self.kinds[name].join(chunks) if chunks else kind(())
        # copy=False: the arrays are the table's own; pandas would copy each one again.
        return pd.DataFrame(data, copy=False)


class TableBuilder:
    """Collects hand results row by row; :meth:`build` makes the DataFrames. (The batches
    are made into arrays as they fill; :meth:`build` hands everything over and leaves the
    builder empty.)"""

    def __init__(self, batch: int = BATCH) -> None:
        self.batch = batch
        self._hands = _Table(HAND_COLUMNS)
        codes = dict.fromkeys(ROW_NAMES, _codes)
        self._seats = _Table(SEAT_COLUMNS, _HAND_KEYS, codes)
        self._pairs = _Table(PAIR_COLUMNS, _HAND_KEYS)
        self._violations = _Table(VIOLATION_COLUMNS, _FINDING_KEYS)
        self._mismatches = _Table(MISMATCH_COLUMNS, _FINDING_KEYS)
        self._rejected = _Table(REJECTED_COLUMNS)
        self.hand_count = 0
        self.rejected_count = 0
        self._files: dict[str, str] = {}

    def add(self, r: HandResult) -> None:
        key = self.hand_count
        self.hand_count += 1
        file = self._files.get(r.file)
        if file is None:
            file = self._files.setdefault(r.file, _clean(r.file))
        hand_rows = self._hands.rows
        at = len(hand_rows)  # the hand's place in the batch, for its seats, pairs, findings
        stake = r.stake
        # Each row lists the values of its table's stored columns, in the order of its
        # *_COLUMNS mapping (the shared ones and ``time`` left out).
        hand_rows.append((
            key, file, r.line, r.hand_id, r.match_id, r.match_hand,
            r.match_id if r.match_id is not None else r.hand_id, r.table, r.variant.value,
            r.fantasyland_type.value, r.timestamp, float(stake.amount), stake.text,
            stake.currency, r.button_seat, len(r.players), not r.violations,
            len(r.violations), len(r.mismatches), len(r.unverifiable),
            None if r.incomplete is None else _clean(r.incomplete.message),
        ))
        append = self._seats.rows.append
        code = _category_code
        for p in r.players:
            res = p.result
            if res is None:
                append((
                    at, p.name, p.seat, p.position + 1, p.in_fantasyland, -1, -1, -1, None,
                    None, None, None, None, p.points, p.transfer, p.stack_before,
                    p.stack_after, None if not p.fantasyland_next_known else
                    p.fantasyland_next is not None, p.fantasyland_next,
                ))
                continue
            top, middle, bottom = res.rows
            x = res.royalties
            append((
                at, p.name, p.seat, p.position + 1, p.in_fantasyland, code(top.value),
                code(middle.value), code(bottom.value), x.top, x.middle, x.bottom, x.total,
                res.fouled, p.points, p.transfer, p.stack_before, p.stack_after,
                None if not p.fantasyland_next_known else p.fantasyland_next is not None,
                p.fantasyland_next,
            ))
        append = self._pairs.rows.append
        for pair in r.pairs:
            outcome = pair.rows or (None, None, None)
            due, moved = pair.points_a, pair.transfer_to_a
            append((
                at, pair.a, pair.b, *outcome, pair.scoop, pair.royalties, due, moved,
                None if due is None or moved is None else moved != due,
            ))
        if r.violations:
            append = self._violations.rows.append
            for f in r.violations:
                append((at, f.rule, f.line, f.player, f.message))
        if r.mismatches:
            append = self._mismatches.rows.append
            for m in r.mismatches:
                append((at, m.line, m.player, m.field, _as_int(m.recorded),
                        _as_int(m.computed)))
        if len(hand_rows) >= self.batch:
            self._flush()

    def reject(self, error: Rejection) -> None:
        self.rejected_count += 1
        self._rejected.rows.append(
            (_clean(error.file), error.line, error.column, _clean(error.message)))

    def _flush(self) -> None:
        hands = self._hands
        hands.flush()
        if not hands.chunks["hand"]:
            return
        # The chunks just made are this batch's hand columns (flush appends none when the
        # batch is empty, and then no other table has rows that point into it).
        batch = {name: chunks[-1] for name, chunks in hands.chunks.items()}
        for table in (self._seats, self._pairs, self._violations, self._mismatches):
            table.flush(batch)

    def build(self) -> SessionTables:
        if self._hands.rows:
            self._flush()
        self._rejected.flush()
        return SessionTables(
            hands=self._hands.frame(),
            seats=self._seats.frame(),
            pairs=self._pairs.frame(),
            violations=self._violations.frame(),
            mismatches=self._mismatches.frame(),
            rejected=self._rejected.frame(),
        )


def plain_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its label columns (the unordered Categoricals of :data:`_label`) as
    the plain ``string`` columns they stand for, as every file has them: a dictionary column
    would change a Parquet file's schema and its pandas metadata. Other columns are shared,
    not copied; a frame without labels is returned as it is."""
    labels = [name for name, dtype in frame.dtypes.items()
              if isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered]
    if not labels:
        return frame
    return frame.assign(**{str(name): plain_text(frame[name]) for name in labels})


def plain_text(column: pd.Series) -> Any:
    """A label column's values as the ``string`` array :data:`_str` makes of them."""
    return _join_str([pa.array(column.array).cast(pa.large_string())])


def text_array(values: pa.Array | pa.ChunkedArray) -> Any:
    """Arrow text as the ``string`` array :data:`_str` makes of it (what a summary's key
    columns are once :func:`plain_labels` has made them plain)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return _join_str([values.cast(pa.large_string())])


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
