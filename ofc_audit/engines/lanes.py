"""Lanes and windows: how both parallel runners (``--jobs N``, :mod:`.processes`, and
``--engine dask``, :mod:`.dask_engine`) cut a run into the same whole-table chunks.

Nothing here imports Dask or starts a process. What is here:

* **The deal** (:func:`deal`): the parent's one scan of every file
  (:func:`~ofc_audit.engines.groups.scan_entries`), each (file, table) dealt to the lane with
  the fewest entries when it first turns up, and the entries of all files cut into windows.
  A table's hands all go to one lane, in order, so every check across hands is exact.
* **Reading one's own entries** (:func:`read_entry`, :func:`entry_item`): an entry's bytes
  alone, read from its first line on, and the check that they are the one item the scan
  said (or None: the scan and the reader parted, the run falls back to the driver's loop).
* **Break points** (:func:`apply_breaks`): the rejections of other lanes, applied to a
  lane's ``Replayer`` where the loop in one process meets them (a rejection breaks every
  chain of its file).

What a lane makes of each hand (:func:`~ofc_audit.audit.work.render_outcome`) and how the
windows are merged and finished (:mod:`ofc_audit.audit.driver`) are the driver's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from typing import IO

from ..audit.work import Item, Key, Plan
from ..history.reader import HistoryParseError, read_text
from ..history.sources import Source, open_source
from ..replay import Replayer
from .groups import scan_entries

__all__ = [
    "Break",
    "Row",
    "apply_breaks",
    "as_read",
    "deal",
    "entry_item",
    "item_key",
    "read_entry",
    "window_end",
]

#: A rejection as the lanes tell each other: (its key, its file's name).
Break = tuple[Key, str]
#: An entry dealt to a lane: (index among all entries, source, start byte, end byte, first
#: line, is a hand).
Row = tuple[int, int, int, int, int, bool]


# -- the deal (in the parent) -----------------------------------------------------------------


def deal(plan: Plan) -> Iterator[tuple[int, Key, list[list[Row]]]]:
    """The scan of every file, once, here: each window's first entry and each lane's entries
    in it. Each (file, table) goes to the lane with the fewest entries when it first turns
    up, and stays there (``sabotage="deal"``, tests only: from the second window on, entries
    go to the lanes five at a time whatever their table). The entries ``plan.index`` leaves
    out (a duplicate, a conflict's copies) go to no lane: the loop in one process does not
    read them either."""
    window, lanes = plan.window, plan.lanes
    loads = [0] * lanes
    index = 0
    rows: list[list[Row]] = [[] for _ in range(lanes)]
    start: Key | None = None
    # file -> its tables' lanes (a file named twice is one file: its tables stay in a lane)
    owners: dict[str, dict[str | None, int]] = {}
    hands = plan.index
    for source in plan.sources:
        owner = owners.setdefault(source.file, {})
        number = source.index
        for entry in scan_entries(source, plan.scan_block):
            if hands is not None and entry.hand and hands.leaves_out(source.file, entry.line):
                continue  # a copy read once already, or a conflict's: no lane reads it
            if start is None:
                start = (number, entry.line)
            if plan.sabotage == "deal" and index >= window:
                lane = index // 5 % lanes
            else:
                lane = owner.get(entry.table, -1)
                if lane < 0:
                    lane = owner[entry.table] = loads.index(min(loads))  # the first least
            loads[lane] += 1
            rows[lane].append((index, number, entry.start, entry.end, entry.line, entry.hand))
            index += 1
            if index % window == 0:
                yield index // window - 1, start, rows
                rows, start = [[] for _ in range(lanes)], None
    if start is not None:
        yield index // window, start, rows


# -- reading a lane's entries -----------------------------------------------------------------


def read_entry(files: dict[int, IO[bytes]], sources: Sequence[Source], row: Row) -> list[Item]:
    """The items the reader yields for one entry, read alone: its own bytes, its lines
    numbered as in its file (``files``: the streams opened so far, by source)."""
    _, source, start, end, line, _hand = row
    stream = files.get(source)
    if stream is None:
        stream = files[source] = open_source(sources[source])
    stream.seek(start)
    text = stream.read(end - start).decode("utf-8", "surrogateescape")
    return list(read_text(text, sources[source].file, line))


def as_read(plan: Plan, lane: int, row: Row) -> Row:
    """The row a lane reads: as dealt, or (``sabotage="lines"``, tests only) lane 0's entries
    from the third window on numbered from a line later than they start (the check,
    :func:`entry_item` against the row as dealt, fails)."""
    if plan.sabotage == "lines" and lane == 0 and row[0] >= 2 * plan.window:
        return (*row[:4], row[4] + 1, row[5])
    return row


def entry_item(items: list[Item], row: Row) -> Item | None:
    """The one item of an entry, or None when the reader did not yield exactly one item
    starting where the scan said (the engine falls back to the local loop)."""
    if len(items) != 1:
        return None
    item = items[0]
    first = item.entry_line if isinstance(item, HistoryParseError) else item.line
    if row[5] and first != row[4]:
        return None
    return item


def item_key(source: int, item: Item) -> Key:
    return (source, item.entry_line if isinstance(item, HistoryParseError) else item.line)


# -- break points -----------------------------------------------------------------------------


def apply_breaks(replayer: Replayer, pending: deque[Break], last: Key | None, key: Key) -> None:
    """Break the chains of the files with a rejection of another lane (``pending``, sorted)
    since this lane's previous item ``last`` and before ``key``, as the local engine breaks
    them in file order. Rejections before a lane's first item break nothing: it holds no
    chain yet."""
    files: set[str] = set()
    while pending and pending[0][0] < key:
        where, file = pending.popleft()
        if last is not None and where > last:
            files.add(file)
    for file in sorted(files):
        replayer.break_chains(file)


# -- bytes read, for the progress -------------------------------------------------------------


def window_end(bases: Sequence[int], rows: Sequence[Sequence[Row]]) -> int:
    """The bytes of the input up to the end of a window's last entry."""
    return max((bases[r[1]] + r[3] for lane in rows for r in lane[-1:]), default=0)
