"""Writers of session tables: CSV (safe to open in a spreadsheet), Parquet, JSON, and the
cell formatting and escaping shared by the text, Markdown and HTML reports.

Every string in these tables may come from a hand history (player, table and file names,
messages quoting them), i.e. from whoever wrote the file. So:

- CSV string cells that a spreadsheet would read as a formula (starting with ``=``, ``+``,
  ``-``, ``@``, tab or carriage return) get a leading apostrophe (OWASP's CSV injection
  advice). Only string cells: a number such as ``-6`` is data, never a formula.
- Markdown and HTML cells are escaped (:func:`md_escape`, :func:`html.escape`).
"""

from __future__ import annotations

import html
import itertools
import json
import math
import re
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from json.encoder import encode_basestring
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from ..common.lifeline import start_worker
from ..common.textfmt import money_text
from .tables import plain_labels

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def guard_cell(value: object) -> object:
    """A string cell that a spreadsheet would evaluate, with ``'`` in front; anything else
    as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def _is_text(series: pd.Series) -> bool:
    dtype = series.dtype
    return (
        isinstance(dtype, pd.StringDtype | pd.CategoricalDtype)
        or pd.api.types.is_string_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
    )


def guard_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text columns (string, category, object) are guarded cell by cell;
    numeric, boolean and date columns are left alone."""
    # A shallow copy: the columns replaced below are new arrays, the others are shared
    # (copy-on-write), so a table is not copied whole to guard the few risky cells.
    out = frame.copy(deep=False)
    for name in out.columns:
        column = out[name]
        if not _is_text(column):
            continue
        if isinstance(column.dtype, pd.CategoricalDtype):
            column = out[name] = column.astype("string")
        if isinstance(column.dtype, pd.StringDtype):
            # Vectorised for the common (string) case: only the risky cells are touched,
            # and a column without any is left as it is.
            risky = column.str.startswith(FORMULA_PREFIXES).fillna(False).astype(bool)
            if risky.any():
                out[name] = column.where(~risky, "'" + column)
        else:
            out[name] = column.map(guard_cell)
    return out


#: Rows per piece when a table is written piece by piece: every writer's output for a
#: million-row table would otherwise sit in memory whole (text, or an Arrow copy).
CHUNK_ROWS = 65_536


def _pieces(frame: pd.DataFrame, rows: int = CHUNK_ROWS) -> Iterator[pd.DataFrame]:
    for start in range(0, len(frame), rows):
        yield frame.iloc[start:start + rows]


def _decimal_columns(frame: pd.DataFrame) -> bool:
    """Whether a column holds :class:`~decimal.Decimal` amounts (``settle_up``'s money),
    told by its first value (a look per column: the seat table has millions of rows)."""
    for name in frame.columns:
        column = frame[name]
        if column.dtype == object:
            first = next((value for value in column.array if not pd.isna(value)), None)
            if isinstance(first, Decimal):
                return True
    return False


def _exact_cell(value: object) -> str:
    """A cell as Arrow's CSV writer writes it (strings quoted, missing values empty), a
    Decimal as its own digits (``38``, ``12.50``)."""
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, float | np.floating):
        text = repr(float(value))  # Arrow's shortest text, a whole float without its ".0"
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _write_csv_exact(frame: pd.DataFrame, path: Path) -> Path:
    """A table of amounts in several currencies (who owes whom, the payments): Arrow would
    give a Decimal column one scale for every row (points as ``38.00``); each amount is
    written at its own currency's scale instead, as :func:`settle_up.in_minor_units` made
    it. These tables have a row per pair of players: small, written in one go."""
    guarded = guard_formulas(frame)
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write(",".join(_exact_cell(str(name)) for name in guarded.columns) + "\n")
        for row in guarded.itertuples(index=False, name=None):
            out.write(",".join(_exact_cell(value) for value in row) + "\n")
    return path


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The places of ``values``' distinct elements (the first of each) and each element's
    distinct one; floats told apart by their bits, so ``-0.0`` is not ``0.0``."""
    key = values.view(f"i{values.itemsize}") if values.dtype.kind == "f" else values
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.reshape(-1)


_LARGE = pa.large_string()


def _arrow_text(values: Sequence[str]) -> pa.Array:
    return pa.array(values, _LARGE)


def _text_bytes(text: pa.Array) -> memoryview:
    """The characters of a ``large_string`` array without nulls, one after another: its
    data buffer between its first and last offsets (no copy)."""
    offsets = np.frombuffer(cast(Any, text.buffers()[1]), dtype=np.int64,
                            count=len(text) + 1, offset=text.offset * 8)
    data = text.buffers()[2]
    if data is None:
        return memoryview(b"")
    return memoryview(cast(Any, data))[int(offsets[0]):int(offsets[-1])]


def _exact_cells(column: pd.Series) -> pa.Array:
    """:func:`_exact_cell` of every cell of ``column`` as a row of ``itertuples`` gives it
    (as Arrow text): a numpy column through its distinct values (a summary repeats a few
    counts and amounts over many rows), text columns through Arrow, anything else cell by
    cell."""
    import pyarrow.compute as pc

    dtype = column.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "biuf":
        values = column.to_numpy()
        first, inverse = _distinct(values)
        # tolist(): Python scalars, what iterating the column gives.
        texts = _arrow_text([_exact_cell(v) for v in values[first].tolist()])
        return texts.take(pa.array(inverse))
    if isinstance(dtype, pd.StringDtype):
        text = pa.array(column.array)
        if isinstance(text, pa.ChunkedArray):
            text = text.combine_chunks()
        text = text.cast(_LARGE)
        quote = pa.scalar('"', _LARGE)
        quoted = pc.binary_join_element_wise(
            quote, pc.replace_substring(text, '"', '""'), quote, pa.scalar("", _LARGE))
        return pc.fill_null(quoted, "")
    return _arrow_text([_exact_cell(value) for value in column])


def write_money_csv(frame: pd.DataFrame, path: Path, max_places: int = 6) -> Path:
    """:func:`write_csv` of ``settle_up.exact_money(frame, max_places)`` (a summary with
    its float money columns as exact decimals at one scale per currency), the same bytes,
    made a column at a time instead of a Python Decimal and a cell call per amount (the
    match summary has a row per match and player)."""
    from .settle_up import exact_money

    if not _money_by_columns(frame):
        # Nothing becomes a Decimal (or columns share a name): written as it always was.
        return write_csv(exact_money(frame, max_places), path)
    with open(path, "wb") as out:
        _write_money_rows(frame, out, max_places, None, header=True)
    return path


def _money_columns(frame: pd.DataFrame) -> list[str]:
    from .settle_up import SUMMARY_MONEY_COLUMNS

    return [c for c in SUMMARY_MONEY_COLUMNS
            if c in frame.columns and frame[c].dtype.kind == "f"]


def _money_by_columns(frame: pd.DataFrame) -> bool:
    """Whether :func:`_write_money_rows` writes ``frame``: it has a currency, no two columns
    of one name, and an amount that becomes a Decimal."""
    return ("currency" in frame.columns and not frame.columns.duplicated().any()
            and any(frame[c].notna().any() for c in _money_columns(frame)))


def _write_money_rows(frame: pd.DataFrame, out: IO[bytes], max_places: int,
                      scales: Mapping[str, Mapping[str, Decimal]] | None,
                      header: bool) -> None:
    """The rows of :func:`write_money_csv` (its header line first when ``header``), each
    currency's scale in a money column found from ``frame`` or, for a piece of a longer
    table, taken from ``scales`` (:func:`settle_up.money_scales` of the whole table)."""
    import pyarrow.compute as pc

    money = _money_columns(frame)
    codes, found = pd.factorize(frame["currency"], use_na_sentinel=False)
    # exact_money keys a currency by its text (str() of each cell).
    currency_names = [str(c) for c in found.tolist()]
    if len(set(currency_names)) < len(currency_names):
        codes = pd.factorize(pd.Series(currency_names, dtype=object).take(codes))[0]
        currency_names = sorted(set(currency_names), key=currency_names.index)
    codes = np.asarray(codes, dtype=np.int64)
    guarded = guard_formulas(frame)  # the money columns are numbers: left as they are
    columns: list[pa.Array] = []
    for name in guarded.columns:
        if name in money:
            columns.append(_exact_money_column(
                frame[name].to_numpy(dtype="float64"), codes, currency_names, max_places,
                scales.get(str(name), {}) if scales is not None else None))
        else:
            columns.append(_exact_cells(guarded[name]))
    comma = pa.scalar(",", _LARGE)
    if header:
        out.write((",".join(_exact_cell(str(name)) for name in guarded.columns) + "\n")
                  .encode("utf-8"))
    for start in range(0, len(frame), CHUNK_ROWS):
        piece = [column.slice(start, CHUNK_ROWS) for column in columns]
        rows = pc.binary_join_element_wise(*piece, comma) if len(piece) > 1 else piece[0]
        lines = pc.binary_join_element_wise(rows, pa.scalar("", _LARGE),
                                            pa.scalar("\n", _LARGE))
        out.write(_text_bytes(lines))


def _exact_money_column(values: np.ndarray, codes: np.ndarray, currencies: list[str],
                        max_places: int,
                        exponents: Mapping[str, Decimal] | None = None) -> pa.Array:
    """Each amount of a money column as its exact-money cell: empty where missing, else
    its decimal (:func:`settle_up.money_decimal`) at its currency's one scale
    (:func:`settle_up.one_scale`; ``exponents``: each currency's, found over a whole table
    this column is a piece of). The decimals are made once per distinct amount and the
    scales once per currency from its distinct amounts: the same, since a scale depends
    only on the set of a currency's amounts."""
    from .settle_up import money_decimal, one_scale

    known = np.flatnonzero(~np.isnan(values))
    amounts = values[known]
    first, inverse = _distinct(amounts)
    decimals = [money_decimal(v, max_places) for v in amounts[first].tolist()]
    # Each distinct (currency, amount) once.
    pair_first, pair_inverse = _distinct(codes[known] * len(first) + inverse)
    pair_codes = codes[known][pair_first].tolist()
    pair_amounts = [decimals[i] for i in inverse[pair_first].tolist()]
    by_currency: dict[int, list[Decimal]] = {}
    for code, amount in zip(pair_codes, pair_amounts, strict=True):
        by_currency.setdefault(code, []).append(amount)
    exponent = {code: (one_scale(found, currencies[code]) if exponents is None
                       else exponents[currencies[code]])
                for code, found in by_currency.items()}
    texts = [format(amount.quantize(exponent[code]), "f")
             for code, amount in zip(pair_codes, pair_amounts, strict=True)]
    # Index len(texts) is the empty cell of a missing amount.
    where = np.full(len(values), len(texts), dtype=np.int64)
    where[known] = pair_inverse
    return _arrow_text([*texts, ""]).take(pa.array(where))


def write_csv(frame: pd.DataFrame, path: Path, rows: int = CHUNK_ROWS) -> Path:
    """UTF-8 CSV through Arrow's writer (about ten times pandas' speed on the seat table).
    Every string cell is quoted, so a comma, quote, CR or LF inside one never breaks a row,
    and a missing value (an empty field) differs from an empty string (``""``). Written a
    piece of rows at a time (guarded, converted to Arrow, written), so neither the guarded
    copy nor the Arrow one of a long table is ever whole in memory. A table with Decimal
    amounts writes each at its own scale (:func:`_write_csv_exact`)."""
    if _decimal_columns(frame):
        return _write_csv_exact(frame, path)
    options = pacsv.WriteOptions(quoting_style="needed")
    if frame.empty:
        table = pa.Table.from_pandas(guard_formulas(frame), preserve_index=False)
        pacsv.write_csv(table, path, write_options=options)
        return path
    _write_arrow_pieces(
        _pieces(frame, rows), guard_formulas,
        lambda schema: pacsv.CSVWriter(path, schema, write_options=options),
    )
    return path


def _write_arrow_pieces(
    pieces: Iterable[pd.DataFrame],
    prepare: Callable[[pd.DataFrame], pd.DataFrame],
    open_writer: Callable[[pa.Schema], Any],
) -> None:
    """Each piece prepared, converted to Arrow with the first piece's schema (its pandas
    metadata too) and written by the writer the first piece opens; a piece's Arrow copy is
    dropped before the next is made, so a long table is never whole in Arrow."""
    writer: Any = None
    schema: pa.Schema | None = None
    try:
        for piece in pieces:
            table = pa.Table.from_pandas(prepare(piece), schema=schema, preserve_index=False)
            if writer is None:
                schema = table.schema
                writer = open_writer(schema)
            writer.write_table(table)
            del table
    finally:
        if writer is not None:
            writer.close()


#: Rows per Parquet row group: pyarrow's own default, so a file is the same whether it is
#: written whole or a row group at a time.
ROW_GROUP_ROWS = 1024 * 1024


def write_parquet(frame: pd.DataFrame, path: Path, rows: int = ROW_GROUP_ROWS) -> Path:
    """``frame.to_parquet`` (label columns as the strings they stand for), the same bytes;
    a table longer than a row group is converted to Arrow and written one row group at a
    time, so its Arrow copy is never whole in memory."""
    if len(frame) <= rows:
        plain_labels(frame).to_parquet(path, engine="pyarrow", index=False)
        return path
    import pyarrow.parquet as pq

    # What to_parquet gives pq.write_table; all else is its default.
    _write_arrow_pieces(
        _pieces(frame, rows), plain_labels,
        lambda schema: pq.ParquetWriter(path, schema, compression="snappy"),
    )
    return path


def write_json(frame: pd.DataFrame, path: Path, rows: int = CHUNK_ROWS) -> Path:
    """Records (one object a row); missing values are null, times ISO 8601. Not indented:
    the seat table of a long session runs to hundreds of megabytes as it is, so it is
    written a piece at a time (each record's text depends on its row alone, so the pieces'
    arrays joined are the text of the whole array)."""
    if frame.empty:
        with open(path, "w", encoding="utf-8", newline="") as out:
            out.write(frame.to_json(orient="records", date_format="iso", force_ascii=False))
        return path
    return _write_json_pieces(map(plain_labels, _pieces(frame, rows)), path)


def _write_json_pieces(pieces: Iterable[pd.DataFrame], path: Path) -> Path:
    """The JSON array of the records of ``pieces`` (at least one, none empty)."""
    with open(path, "w", encoding="utf-8", newline="") as out:
        for i, piece in enumerate(pieces):
            text = piece.to_json(orient="records", date_format="iso", force_ascii=False)
            out.write(("," if i else "[") + text[1:-1])
        out.write("]")
    return path


def write_json_from_parquet(
    source: Path, path: Path, dtypes: Mapping[str, Any], rows: int = CHUNK_ROWS
) -> Path:
    """What :func:`write_json` writes of a non-empty frame, from the Parquet file
    :func:`write_parquet` wrote of it: read back a piece of rows at a time and given the
    frame's own ``dtypes`` (``frame.dtypes``), so the pieces' records are the frame's. A
    process that writes the JSON this way holds one piece, never the table."""
    import pyarrow.parquet as pq

    def pieces() -> Iterator[pd.DataFrame]:
        for batch in pq.ParquetFile(source).iter_batches(batch_size=rows):
            piece = batch.to_pandas()
            yield piece.astype({name: dtypes[name] for name in piece.columns})

    return _write_json_pieces(pieces(), path)


#: Rows per piece in the JSON writer process. It runs while the session's process holds
#: every table, so its own peak adds to the session's: with 4,096-row pieces it is about
#: 185 MB, with :data:`CHUNK_ROWS` about 350 MB (100,000 hands; the text is the same).
HELPER_ROWS = 4096


def write_json_tables(send: Any, tasks: Sequence[tuple[Path, Path, Mapping[str, Any]]],
                      parent: Connection | None = None) -> None:
    """The JSON writer process of ``session --jobs N`` (``report._Helper``): each task's
    JSON from its Parquet file (``(parquet, json, dtypes)``); sends ``("done",)`` or the
    error on the pipe ``send``. It leaves by itself when the command has gone (``parent``:
    the command's :func:`~ofc_audit.common.lifeline.lifeline`)."""
    if parent is not None:
        start_worker(parent)
    try:
        for _, target, _ in tasks:
            target.parent.mkdir(parents=True, exist_ok=True)
        for source, target, dtypes in tasks:
            write_json_from_parquet(source, target, dtypes, rows=HELPER_ROWS)
    except OSError as error:
        send.send(("error", error.errno, error.strerror, error.filename, str(error)))
    except BaseException as error:  # anything else: said in the parent, which fails
        send.send(("error", None, None, None, f"{type(error).__name__}: {error}"))
    else:
        send.send(("done",))
    finally:
        send.close()


WRITERS: dict[str, Callable[[pd.DataFrame, Path], Path]] = {
    "csv": write_csv,
    "parquet": write_parquet,
    "json": write_json,
}


def write_all(
    frames: Mapping[str, pd.DataFrame], out: Path, formats: Sequence[str] = tuple(WRITERS)
) -> list[Path]:
    """Every frame in every format (of ``formats``): ``out/csv/NAME.csv``,
    ``out/parquet/NAME.parquet``, ``out/json/NAME.json``."""
    written: list[Path] = []
    for suffix in formats:
        writer = WRITERS[suffix]
        folder = out / suffix
        folder.mkdir(parents=True, exist_ok=True)
        for name, frame in frames.items():
            written.append(writer(frame, folder / f"{name}.{suffix}"))
    return written


#: A table's rows in order, at most ``rows`` a piece, each piece with the table's dtypes
#: (an empty table: one empty piece). Called once per format.
Pieces = Callable[[int], Iterator[pd.DataFrame]]

#: A non-empty table's rows in order as Arrow tables of exactly ``rows`` rows (the last
#: shorter), each what ``pa.Table.from_pandas(plain_labels(piece), preserve_index=False)``
#: makes of the same rows (its schema and pandas metadata too).
ArrowPieces = Callable[[int], Iterator[pa.Table]]


@dataclass(frozen=True)
class TableSource:
    """A table to write, whole in memory or not: its length, its columns (no rows) and
    its rows a piece at a time; ``arrow``, when given, makes the Parquet row groups
    without a pandas copy of them (a row group is up to a million rows)."""

    rows: int
    empty: pd.DataFrame
    pieces: Pieces
    arrow: ArrowPieces | None = None

    @classmethod
    def of(cls, frame: pd.DataFrame) -> TableSource:
        def pieces(rows: int) -> Iterator[pd.DataFrame]:
            if frame.empty:
                yield frame
            else:
                yield from _pieces(frame, rows)

        return cls(len(frame), frame.iloc[:0], pieces)


def write_csv_pieces(pieces: Pieces, path: Path) -> Path:
    """:func:`write_csv` of the table ``pieces`` make, never whole in memory."""
    chunks = pieces(CHUNK_ROWS)
    first = next(chunks)
    if first.empty:
        return write_csv(first, path)
    options = pacsv.WriteOptions(quoting_style="needed")
    _write_arrow_pieces(
        itertools.chain([first], chunks), guard_formulas,
        lambda schema: pacsv.CSVWriter(path, schema, write_options=options),
    )
    return path


def write_parquet_pieces(pieces: Pieces | TableSource, path: Path) -> Path:
    """:func:`write_parquet` of the table ``pieces`` make: a row group a piece (a source
    with Arrow row groups: those, never as pandas)."""
    import pyarrow.parquet as pq

    if isinstance(pieces, TableSource):
        if pieces.arrow is not None and pieces.rows:
            return write_parquet_arrow(pieces.arrow, path)
        pieces = pieces.pieces
    groups = pieces(ROW_GROUP_ROWS)
    first = next(groups)
    second = next(groups, None)
    if second is None:
        return write_parquet(first, path)
    _write_arrow_pieces(
        itertools.chain([first, second], groups), plain_labels,
        lambda schema: pq.ParquetWriter(path, schema, compression="snappy"),
    )
    return path


def write_parquet_arrow(groups: ArrowPieces, path: Path) -> Path:
    """:func:`write_parquet` of a non-empty table given as Arrow row groups: the same
    bytes (``to_parquet`` is ``pq.write_table`` of the same Arrow table, snappy), one row
    group in memory at a time."""
    import pyarrow.parquet as pq

    writer: Any = None
    try:
        for group in groups(ROW_GROUP_ROWS):
            if writer is None:
                writer = pq.ParquetWriter(path, group.schema, compression="snappy")
            writer.write_table(group)
            del group
    finally:
        if writer is not None:
            writer.close()
    return path


def write_json_pieces(pieces: Pieces, path: Path) -> Path:
    """:func:`write_json` of the table ``pieces`` make, :data:`HELPER_ROWS` rows a piece:
    pandas' encoder holds several copies of a piece's text (about 150 MB more at
    :data:`CHUNK_ROWS` seat rows), and the text is the same at any piece size."""
    chunks = pieces(HELPER_ROWS)
    first = next(chunks)
    if first.empty:
        return write_json(first, path)
    return _write_json_pieces(map(plain_labels, itertools.chain([first], chunks)), path)


# -- per-hand tables from Arrow, every format in one pass -------------------------------------
#
# A stored table's rows come as Arrow (``TableSource.arrow``: what ``pa.Table.from_pandas``
# makes of ``plain_labels`` of its pandas piece). Converting each piece to pandas to write
# it took as long as writing it, and pandas' JSON encoder costs about 0.4 us a cell; here the
# CSV and JSON text are made from the Arrow columns, the same bytes.

#: :data:`FORMULA_PREFIXES` as one pattern (RE2's syntax).
_FORMULA_START = r"^[=+\-@\t\r]"


def guard_arrow(table: pa.Table) -> pa.Table:
    """:func:`guard_formulas` of the pandas table ``table`` stands for, as Arrow: dictionary
    (category) columns as their text, risky text cells with ``'`` in front."""
    import pyarrow.compute as pc

    for i, field in enumerate(table.schema):
        column = table.column(i)
        if pa.types.is_dictionary(field.type):
            column = column.cast(_LARGE)
        elif not (pa.types.is_string(field.type) or pa.types.is_large_string(field.type)):
            continue
        # One pass for every prefix (each is one ASCII character).
        risky = pc.match_substring_regex(column, _FORMULA_START)
        if pc.any(risky).as_py():
            column = pc.if_else(risky, pc.binary_join_element_wise(
                pa.scalar("'", column.type), column, pa.scalar("", column.type)), column)
        table = table.set_column(i, pa.field(field.name, column.type), column)
    return table


def _json_texts(values: pa.Array, dtype: Any) -> list[str] | None:
    """pandas' JSON text of each of ``values`` (distinct, none missing) as a column of
    ``dtype`` writes it in :func:`write_json` (pandas' own encoder, so the same); None when
    the text cannot be cut into its values."""
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = "string"
    series = pd.Series(values.to_pandas()).astype(dtype)
    if not len(series):
        return []
    # The stubs know no orient "values" for a Series.
    text: str = cast(Any, series).to_json(orient="values", date_format="iso",
                                          force_ascii=False)[1:-1]
    if text.startswith('"'):
        # Quoted items: every quote inside one is escaped, so '","' is only between two.
        items = [f'"{item}"' for item in text[1:-1].split('","')]
    else:
        items = text.split(",")
    return items if len(items) == len(series) else None


def json_records(table: pa.Table, dtypes: Mapping[str, Any]) -> pa.Array | None:
    """The records of ``table`` as :func:`write_json` writes them (``dtypes``: the pandas
    frame's), each as ``,{...}`` (a comma first), each column's distinct values encoded
    once; None when a column cannot be made this way (the caller encodes the piece with
    pandas)."""
    import pyarrow.compute as pc

    cells: list[pa.Array] = []
    last = table.num_columns - 1
    for i, name in enumerate(table.column_names):
        column = table.column(i).combine_chunks()
        if pa.types.is_dictionary(column.type):
            column = column.cast(_LARGE)
        codes = column.dictionary_encode()
        texts = _json_texts(codes.dictionary, dtypes[name])
        if texts is None:
            return None
        key = (",{" if i == 0 else ",") + json.dumps(name, ensure_ascii=False) + ":"
        end = "}" if i == last else ""
        made = _arrow_text([key + t + end for t in texts])
        cells.append(pc.fill_null(made.take(codes.indices), key + "null" + end))
    if len(cells) == 1:
        return cells[0]
    return pc.binary_join_element_wise(*cells, pa.scalar("", _LARGE))


class _ParquetGroups:
    """A Parquet file written a row group (:data:`ROW_GROUP_ROWS`) at a time from pieces
    of fewer rows: each group joined whole (one chunk a column, as ``from_pandas`` gives
    it) before it is written, so the file is the same bytes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.held: list[pa.Table] = []
        self.rows = 0
        self.writer: Any = None

    def add(self, piece: pa.Table) -> None:
        self.held.append(piece)
        self.rows += piece.num_rows
        if self.rows >= ROW_GROUP_ROWS:
            self._write()

    def _write(self) -> None:
        import pyarrow.parquet as pq

        whole = pa.concat_tables(self.held)
        self.held = []
        group = whole.slice(0, ROW_GROUP_ROWS)
        rest = whole.slice(ROW_GROUP_ROWS)
        del whole
        schema = group.schema
        arrays = []
        for name in schema.names:  # a column joined, its chunks let go
            arrays.append(group.column(name).combine_chunks())
            group = group.drop_columns([name])
        joined = pa.Table.from_arrays(arrays, schema=schema)
        del arrays
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, schema, compression="snappy")
        self.writer.write_table(joined)
        del joined
        self.rows = rest.num_rows
        self.held = [rest] if self.rows else []

    def close(self) -> None:
        try:
            if self.held:
                self._write()
        finally:
            if self.writer is not None:
                self.writer.close()


def write_arrow_source(source: TableSource, paths: Mapping[str, Path]) -> list[Path]:
    """A non-empty table with Arrow pieces (``source.arrow``) in each format of ``paths``
    (csv, parquet, json: its file), read once: the files :func:`write_all_pieces` writes
    of it, the same bytes."""
    assert source.arrow is not None and source.rows
    dtypes = dict(plain_labels(source.empty).dtypes)
    csv: Any = None
    parquet = _ParquetGroups(paths["parquet"]) if "parquet" in paths else None
    json_out: IO[bytes] | None = None
    try:
        if "json" in paths:
            json_out = open(paths["json"], "wb")
            json_out.write(b"[")
        first = True
        for piece in source.arrow(CHUNK_ROWS):
            if "csv" in paths:
                guarded = guard_arrow(piece)
                if csv is None:
                    csv = pacsv.CSVWriter(paths["csv"], guarded.schema,
                                          write_options=pacsv.WriteOptions(
                                              quoting_style="needed"))
                csv.write_table(guarded)
                del guarded
            if json_out is not None:
                rows = json_records(piece, dtypes)
                if rows is None:  # pandas' encoder on the piece itself
                    frame = piece.to_pandas().astype(dtypes)
                    text = frame.to_json(orient="records", date_format="iso",
                                         force_ascii=False)[1:-1]
                    json_out.write((text if first else "," + text).encode("utf-8"))
                else:  # the file's first record without its comma
                    json_out.write(_text_bytes(rows)[1 if first else 0:])
                del rows
            first = False
            if parquet is not None:
                parquet.add(piece)
            del piece
        if json_out is not None:
            json_out.write(b"]")
    finally:
        if csv is not None:
            csv.close()
        if parquet is not None:
            parquet.close()
        if json_out is not None:
            json_out.close()
    return [paths[suffix] for suffix in ("csv", "parquet", "json") if suffix in paths]


def write_exact_csv_pieces(source: TableSource, path: Path) -> Path:
    """``write_csv(settle_up.exact_money(frame))`` of a summary given as a source (the match
    summary of a long session), the same bytes, a piece at a time: each money column's
    scale per currency is found over every piece first (:func:`settle_up.money_scales`),
    then each piece is written by the whole table's writer, its header line kept once."""
    from .settle_up import exact_money, money_scales

    scales = money_scales(source.pieces(CHUNK_ROWS))
    empty = source.empty
    if (any(scales.values()) and "currency" in empty.columns
            and not empty.columns.duplicated().any()):
        # A column at a time, each piece at the whole table's scales (write_money_csv's way).
        with open(path, "wb") as out:
            for i, piece in enumerate(source.pieces(CHUNK_ROWS)):
                _write_money_rows(piece, out, 6, scales, header=not i)
        return path
    # As for the whole table: the exact writer once any amount is a Decimal.
    writer = _write_csv_exact if scales else write_csv
    part = path.with_name(path.name + ".part")
    try:
        with open(path, "wb") as target:
            for i, piece in enumerate(source.pieces(CHUNK_ROWS)):
                writer(exact_money(piece, scales=scales), part)
                with open(part, "rb") as written:
                    if i:
                        written.readline()
                    shutil.copyfileobj(written, target)
    finally:
        part.unlink(missing_ok=True)
    return path


PIECE_WRITERS: dict[str, Callable[[Pieces, Path], Path]] = {
    "csv": write_csv_pieces,
    "parquet": write_parquet_pieces,
    "json": write_json_pieces,
}


def write_all_pieces(
    tables: Mapping[str, TableSource], out: Path,
    formats: Sequence[str] = tuple(PIECE_WRITERS),
) -> list[Path]:
    """:func:`write_all` of tables given as sources: the same files."""
    for suffix in formats:
        (out / suffix).mkdir(parents=True, exist_ok=True)
    for name, source in tables.items():
        if source.arrow is not None and source.rows:
            # Read once for every format, never as pandas.
            write_arrow_source(
                source, {suffix: out / suffix / f"{name}.{suffix}" for suffix in formats})
            continue
        for suffix in formats:
            # Parquet gets the source itself: its Arrow row groups when it has them.
            given: Any = source if suffix == "parquet" else source.pieces
            PIECE_WRITERS[suffix](given, out / suffix / f"{name}.{suffix}")
    # Listed a format at a time, as written before the tables were read once for all.
    return [out / suffix / f"{name}.{suffix}" for suffix in formats for name in tables]


# -- plain Python values ----------------------------------------------------------------------


def plain(value: object) -> Any:
    """A cell as a JSON-ready Python value: NA/NaN/NaT as None, numpy scalars unwrapped,
    times in ISO 8601."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows as dicts of plain values (for small frames: summaries, not the seat table)."""
    columns = list(frame.columns)
    return [
        {c: plain(v) for c, v in zip(columns, row, strict=True)}
        for row in frame.itertuples(index=False, name=None)
    ]


# -- cell text for people ---------------------------------------------------------------------

MISSING = "-"


def cell_text(value: object, column: str) -> str:
    """How a cell reads in the text, Markdown and HTML tables; the column name picks the
    style (``*_rate`` as percent, ``money``/``net_money`` with decimals)."""
    value = plain(value)
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if column.endswith("_rate"):
            return f"{value * 100:.1f}%"
        if "money" in column:
            return money_text(value)
        return f"{value:,.2f}"
    if isinstance(value, int) and column not in _PLAIN_INTS:
        return f"{value:,}"  # counts read with thousands separators, as money does
    return str(value)


#: Integer columns that are references, not counts: a line of a file, a seat, the session's
#: hand index; ``12,345`` would not read as the line to look at.
_PLAIN_INTS = frozenset({"line", "seat", "hand", "button", "summary_line"})


HEADINGS = {
    "name": "player",
    "points_per_hand": "points/hand",
    "net": "stack change",
    "net_money": "money settled",
    "fantasylands": "FL entered",
    "fantasyland_rate": "FL rate",
    "fantasyland_repeats": "FL repeats",
    "fantasyland_hands": "FL hands",
    "foul_rate": "foul rate",
    "royalties_top": "roy. top",
    "royalties_middle": "roy. middle",
    "royalties_bottom": "roy. bottom",
    "first_hand_id": "first hand",
}


def heading(column: str) -> str:
    return HEADINGS.get(column, column.replace("_", " "))


def text_cells(frame: pd.DataFrame) -> list[list[str]]:
    columns = [str(c) for c in frame.columns]
    return [
        [cell_text(v, c) for c, v in zip(columns, row, strict=True)]
        for row in frame.itertuples(index=False, name=None)
    ]


def _numeric(frame: pd.DataFrame) -> list[bool]:
    """Which columns hold numbers (right-aligned in every table); flags are not numbers."""
    return [
        pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        for dtype in frame.dtypes
    ]


# -- Markdown ---------------------------------------------------------------------------------

# What changes meaning inside a table cell: emphasis, code, links/images, cell separators,
# strike-through, and the escape character itself. (<, >, & become entities below; block
# syntax such as '#', '-', '>' only counts at the start of a line, and cells never start one.)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")


def md_escape(text: str) -> str:
    """Text that Markdown shows literally: its punctuation backslash-escaped, HTML characters
    as entities (renderers pass raw HTML through), line breaks as spaces."""
    flat = " ".join(text.splitlines())
    return html.escape(_MD_SPECIAL.sub(r"\\\1", flat), quote=False)


def markdown_table(frame: pd.DataFrame) -> str:
    columns = [str(c) for c in frame.columns]
    numeric = _numeric(frame)
    lines = [
        "| " + " | ".join(md_escape(heading(c)) for c in columns) + " |",
        "|" + "|".join("---:" if n else "---" for n in numeric) + "|",
    ]
    for row in text_cells(frame):
        lines.append("| " + " | ".join(md_escape(cell) for cell in row) + " |")
    return "\n".join(lines)


# -- HTML -------------------------------------------------------------------------------------


_NUM = ' class="num"'


def html_table(frame: pd.DataFrame, caption: str | None = None) -> str:
    """A ``<table>``: every heading and cell escaped, numeric columns right-aligned."""
    columns = [str(c) for c in frame.columns]
    numeric = _numeric(frame)
    parts = ["<table>"]
    if caption:
        parts.append(f"<caption>{html.escape(caption)}</caption>")
    attrs = [_NUM if n else "" for n in numeric]
    parts.append("<thead><tr>" + "".join(
        f"<th{a}>{html.escape(heading(c))}</th>" for c, a in zip(columns, attrs, strict=True)
    ) + "</tr></thead><tbody>")
    for row in text_cells(frame):
        parts.append("<tr>" + "".join(
            f"<td{a}>{html.escape(cell)}</td>" for cell, a in zip(row, attrs, strict=True)
        ) + "</tr>")
    parts.append("</tbody></table>")
    return "\n".join(parts)


def dumps(document: object) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


# -- indented JSON of big tables --------------------------------------------------------------
#
# ``dumps`` of :func:`records` is the reference, but with ``indent`` the json module encodes
# in Python, object by object, and keeps every piece of the text until the end: the matches
# of a million-hand session (millions of rows) would take minutes and gigabytes. The same
# text is made here a column at a time and written a piece of rows at a time.

_INDENT = "  "


def _json_float(value: float) -> str:
    if value != value:  # NaN: plain() makes it None
        return "null"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _json_scalar(value: object) -> str:
    return json.dumps(plain(value), ensure_ascii=False)


def _objects(column: pd.Series) -> Any:
    """The cells as Python objects, None where missing (pandas-stubs do not allow the
    ``na_value`` pandas takes here)."""
    return cast(Any, column).to_numpy(dtype=object, na_value=None)


def json_values(column: pd.Series) -> list[str]:
    """Each cell of ``column`` as ``dumps`` writes it in :func:`records` (of ``plain``
    values): vectorised per dtype, cell by cell only for the dtypes it does not know."""
    dtype = column.dtype
    # Columns without missing cells (nearly all) go through map(), which loops in C.
    complete = not column.hasnans
    if pd.api.types.is_bool_dtype(dtype):
        return ["null" if v is None else "true" if v else "false"
                for v in _objects(column)]
    if pd.api.types.is_integer_dtype(dtype):
        if complete:
            return list(map(str, column.to_numpy(dtype="int64").tolist()))
        return ["null" if v is None else str(int(v)) for v in _objects(column)]
    if pd.api.types.is_float_dtype(dtype):
        # Each distinct value once (a summary's amounts and counts repeat over its rows).
        values = column.to_numpy(dtype="float64", na_value=np.nan)
        first, inverse = _distinct(values)
        texts = np.array([_json_float(v) for v in values[first].tolist()], dtype=object)
        return cast(list[str], texts[inverse].tolist())
    if isinstance(dtype, pd.StringDtype):
        if complete:
            return list(map(encode_basestring, column.to_numpy(dtype=object)))
        return ["null" if v is None else encode_basestring(v) for v in _objects(column)]
    return [_json_scalar(v) for v in column.tolist()]


def write_json_records(
    out: IO[str], frame: pd.DataFrame | TableSource, level: int, rows: int = CHUNK_ROWS
) -> None:
    """``frame``'s rows as ``dumps`` writes ``records(frame)`` nested ``level`` deep (the
    key before the list already written by the caller), a piece of rows at a time (a
    source's pieces: the same text)."""
    if isinstance(frame, TableSource):
        if not frame.rows:
            out.write("[]")
            return
        pieces = frame.pieces(rows)
    elif frame.empty:
        out.write("[]")
        return
    else:
        pieces = _pieces(frame, rows)
    item = "\n" + _INDENT * (level + 1)  # before each row's "{" and its closing "}"
    field = item + _INDENT  # before each "key": value of a row
    columns = frame.empty.columns if isinstance(frame, TableSource) else frame.columns
    keys = [field + encode_basestring(str(c)) + ": " for c in columns]
    between = item + "}," + item + "{"
    for i, piece in enumerate(pieces):
        cells = [[key + v for v in json_values(piece[c])]
                 for key, c in zip(keys, piece.columns, strict=True)]
        out.write(("," if i else "[") + item + "{")
        out.write(between.join(map(",".join, zip(*cells, strict=True))))
        out.write(item + "}")
    out.write("\n" + _INDENT * level + "]")
