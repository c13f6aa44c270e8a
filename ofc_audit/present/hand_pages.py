"""The dispute pages of a session: ``OUT/hands/ID.html`` for every hand with a violation, a
recorded mismatch or something unverifiable, linked from ``report.html``.

The session streams its results into tables and keeps no :class:`HandResult`, whichever
engine replayed them (this process, ``--jobs`` workers or a Dask cluster). So the pages are
made after the tables: the files that hold problem hands are read and replayed again here,
each whole and in order (a table's chain starts at its file's first hand, as in the
session), and only the problem hands are rendered. Nothing is read again when there is no
problem; a session of clean hands costs nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pandas as pd

from ..common.textfmt import number, plural, quantity
from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError, read_path
from ..history.records import Hand
from ..history.survey import HandIndex
from ..replay import Replayer
from ..replay.results import HandResult
from ..session.tables import SessionTables
from .dispute import HandPage, Page, Sources, build_pages, render_page

if TYPE_CHECKING:
    from ..review.run import HandReview, ReviewOptions

#: Pages written at most by default (``session --hand-pages N``).
DEFAULT_HAND_PAGES = 1000
FOLDER = "hands"

Key = tuple[str, int]  # (file, header line) of a hand


@dataclass(frozen=True)
class HandPages(Mapping[Key, str]):
    """Each problem hand's (file, line) -> its page, relative to the report
    (``hands/ID.html``); how many problem hands were left without a page, and why."""

    links: dict[Key, str] = field(default_factory=dict)
    over_cap: int = 0  # problem hands past the --hand-pages cap
    unreadable: int = 0  # problem hands whose input cannot be read again (see note())
    cap: int = DEFAULT_HAND_PAGES

    def __getitem__(self, key: Key) -> str:
        return self.links[key]

    def __iter__(self) -> Iterator[Key]:
        return iter(self.links)

    def __len__(self) -> int:
        return len(self.links)

    @property
    def without_page(self) -> int:
        return self.over_cap + self.unreadable

    def note(self) -> str:
        """What the report says about the pages ("" when every problem hand has one)."""
        parts = []
        if self.over_cap:
            are = plural(self.over_cap, "is", "are")
            parts.append(f"{quantity(self.over_cap, 'more problem hand')} {are} listed without "
                         f"a page (pages are written for the first {number(self.cap)}; raise "
                         "--hand-pages for more)")
        if self.unreadable:
            have, their = (plural(self.unreadable, "has", "have"),
                           plural(self.unreadable, "its", "their"))
            parts.append(f"{quantity(self.unreadable, 'problem hand')} {have} no page: {their} "
                         "input cannot be read again (standard input, or a file moved or "
                         "changed since it was read)")
        return "; ".join(parts)


def problem_hands(hands: pd.DataFrame) -> pd.DataFrame:
    """The hands that get a page, in session order: a violation, a recorded mismatch,
    something unverifiable, or a history that stops before the hand is over."""
    bad = (~hands["valid"].astype(bool)) | (hands["mismatches"] > 0) | (
        hands["unverifiable"] > 0) | hands["incomplete"].notna()
    return hands.loc[bad, ["file", "line", "hand_id"]]


def paged_hands(hands: pd.DataFrame, cap: int) -> frozenset[Key]:
    """(file, header line) of the problem hands :func:`write_hand_pages` gives a page."""
    wanted = problem_hands(hands)
    places = list(zip(wanted["file"].astype(str), wanted["line"].astype(int), strict=True))
    return frozenset((f, int(line)) for f, line in _chosen(places, cap))


_Place = TypeVar("_Place", tuple[str, int], tuple[str, int, str])


def _chosen(keys: list[_Place], cap: int) -> list[_Place]:
    """The hands that get a page: the first ``cap`` of those read from a file (a hand read
    from standard input cannot be read again for its page)."""
    return [k for k in keys if k[0] != "-"][:max(cap, 0)]


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def page_name(hand_id: str, taken: set[str]) -> str:
    """A file name made from any hand id: letters, digits, '-' and '_' only (no dots, so no
    '..' or hidden files), at most 80 characters, unique among ``taken`` (lower case, for
    file systems that ignore case)."""
    stem = _UNSAFE.sub("_", hand_id).strip("_")[:80] or "hand"
    name, n = stem, 1
    while name.lower() in taken:
        n += 1
        name = f"{stem}-{n}"
    taken.add(name.lower())
    return f"{name}.html"


def write_hand_pages(tables: SessionTables, ruleset: Ruleset, out: Path,
                     cap: int = DEFAULT_HAND_PAGES,
                     review: ReviewOptions | None = None,
                     index: HandIndex | None = None,
                     reviews: Sequence[HandReview] | None = None) -> HandPages:
    """Write ``out/hands/*.html`` for the first ``cap`` problem hands (with ``review``: each
    with its hand's play review, ``session --review``); returns the links. ``index``: the
    copies the session left out (a duplicate, a conflict's), left out again when the files
    are replayed here (the tables hold none of them: a duplicate has the one page of its
    first copy, a conflict none). ``reviews``: hands already reviewed (``session
    --review``'s), used for their pages instead of reviewing them again."""
    wanted = problem_hands(tables.hands)
    if wanted.empty:
        return HandPages(cap=cap)
    return write_pages(list(zip(wanted["file"], wanted["line"].astype(int), wanted["hand_id"],
                                strict=True)), ruleset, out, cap, review, reviews, index=index)


def write_pages(keys: list[tuple[str, int, str]], ruleset: Ruleset, out: Path,
                cap: int = DEFAULT_HAND_PAGES, review: ReviewOptions | None = None,
                reviews: Sequence[HandReview] | None = None,
                taken: set[str] | None = None, index: HandIndex | None = None) -> HandPages:
    """Write ``out/hands/*.html`` for the first ``cap`` of the hands ``keys`` names (file,
    header line, hand id; in the order given); returns the links. A file is replayed whole
    to build its pages, as the session replayed it. With ``review``, each page gains its
    hand's play review: from ``reviews`` when the caller has it (``review --out``, ``session
    --review``), else reviewed here. ``taken``: page names already in use in the folder
    (lower case, no extension), which this call adds its own to. ``index``: the copies the
    reading leaves out (see :func:`write_hand_pages`)."""
    if not keys:
        return HandPages(cap=cap)
    files: list[str] = list(dict.fromkeys(f for f, _, _ in keys))
    unreadable = sum(1 for f, _, _ in keys if f == "-")
    chosen = _chosen(keys, cap)
    over_cap = len(keys) - unreadable - len(chosen)
    if not chosen:
        return HandPages({}, over_cap, unreadable, cap)
    folder = out / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    taken = set() if taken is None else taken
    names = {(f, line): page_name(hand_id, taken) for f, line, hand_id in chosen}
    links: dict[Key, str] = {}
    by_file: dict[str, set[int]] = {}
    for f, line in names:
        by_file.setdefault(f, set()).add(line)
    sources = Sources()
    for file in (f for f in files if f in by_file):
        try:
            pages = _file_pages(file, by_file[file], ruleset, sources, index)
            if review is not None and reviews is not None:
                pages = _with_reviews(pages, reviews, review)
                missing = {p.line for p in pages
                           if isinstance(p, HandPage) and p.review is None}
                if missing:
                    pages = _reviewed(pages, file, missing, ruleset, review)
            elif review is not None:
                pages = _reviewed(pages, file, by_file[file], ruleset, review)
        except OSError:
            pages = []  # gone since the session read it: counted below, the rest go on
        for page in pages:
            assert isinstance(page, HandPage)
            name = names[(file, page.line)]
            (folder / name).write_text(render_page([page], f"OFC hand #{page.hand_id}"),
                                       encoding="utf-8")
            links[(file, page.line)] = f"{FOLDER}/{name}"
    unreadable += len(chosen) - len(links)
    return HandPages(links, over_cap, unreadable, cap)


def _with_reviews(pages: list[Page], reviews: Sequence[HandReview], options: ReviewOptions
                  ) -> list[Page]:
    from .review_page import with_reviews

    return with_reviews(pages, reviews, options)


def _reviewed(pages: list[Page], file: str, lines: set[int], ruleset: Ruleset,
              options: ReviewOptions) -> list[Page]:
    """The pages with their hands' play reviews (the review and its engine are imported only
    when asked for)."""
    from .review_page import reviews_of_lines, with_reviews

    return with_reviews(pages, reviews_of_lines(file, lines, ruleset, options), options)


def _file_pages(file: str, lines: set[int], ruleset: Ruleset, sources: Sources,
                index: HandIndex | None) -> list[Page]:
    """Replay one file as the session did (its own chains; a rejection breaks its table's; the
    copies ``index`` leaves out not read) and build the pages of the hands that start at
    ``lines``."""
    replayer = Replayer(ruleset, explain=True)
    found: list[tuple[Hand | HistoryParseError, HandResult | None, str]] = []
    items = read_path(file)
    for item in items if index is None else index.keep(items):
        if isinstance(item, HistoryParseError):
            replayer.reject(item)
            continue
        result = replayer.replay(item)
        if item.line in lines:
            found.append((item, result, "h1"))
    return build_pages(sources, file, found)
