"""Which hands a report covers: ``--player``, ``--table``, ``--since``, ``--until``.

Every hand is still read and replayed (a Fantasyland chain, a stack or a match runs across
hands the filter leaves out, and the checks across hands must stay exact); the filters
choose which results are reported. A hand is kept when it matches every kind of filter given
and any of the values of a kind (``--player a --player b``: hands where a or b sat).

Times are compared in UTC: each hand's timestamp is converted from its own offset (docs/FORMAT.md:
``UTC`` or ``+05:00``). A ``--since``/``--until`` value without a zone is UTC too.
``--since`` is the first instant kept; ``--until`` keeps everything up to the end of the
day, minute or second it names (``--until 2026-11-29`` keeps all of the 29th; ``--until
"2026-11-29 21:00"`` keeps 21:00:59). A hand whose zone word has no fixed offset has no
UTC time, so a time filter leaves it out (and says how many).

With ``--player``, the session tables keep the named players' own seats, the pairs they
played (their opponents), and everything of their hands (violations, mismatches); the audit
keeps those hands whole. ``--table`` and the times keep whole hands.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from ..replay.results import HandResult

if TYPE_CHECKING:
    import pandas as pd

    from ..session.tables import SessionTables


class FilterError(ValueError):
    """A filter that cannot be applied (a bad date, or a name no hand has): exit 2."""


_WHEN = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:[ T](?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}))?)?"
    r"\s*(?P<zone>UTC|GMT|Z|[+-]\d{2}:?\d{2})?"
)


@dataclass(frozen=True)
class When:
    """A --since or --until value: the instant it names (UTC) and its precision."""

    text: str
    start: datetime
    span: timedelta  # a day, a minute or a second: what --until keeps to the end of

    @classmethod
    def parse(cls, text: str, option: str) -> When:
        match = _WHEN.fullmatch(text.strip())
        if match is None:
            raise FilterError(
                f"{option}: expected a date 2026-11-29 or a date and time '2026-11-29 21:00' "
                f"(optionally with seconds and a zone such as UTC or +05:00), got {text!r}")
        zone = match["zone"] or "UTC"
        offset = "+00:00" if zone in ("UTC", "GMT", "Z") else zone
        clock = "00:00:00"
        span = timedelta(days=1)
        if match["hour"] is not None:
            clock = f"{int(match['hour']):02}:{match['minute']}:{match['second'] or '00'}"
            span = timedelta(seconds=1) if match["second"] else timedelta(minutes=1)
        try:
            moment = datetime.strptime(f"{match['date']} {clock} {offset.replace(':', '')}",
                                       "%Y-%m-%d %H:%M:%S %z")
        except ValueError as error:
            raise FilterError(f"{option}: {text!r} is not a valid date or time ({error})"
                              ) from None
        return cls(text.strip(), moment.astimezone(UTC), span)

    def label(self) -> str:
        form = "%Y-%m-%d" if self.span == timedelta(days=1) else "%Y-%m-%d %H:%M:%S"
        return self.start.strftime(form) + ("" if form == "%Y-%m-%d" else " UTC")


def hand_time(timestamp: str) -> datetime | None:
    """A docs/FORMAT.md timestamp in UTC; None for a zone word without a fixed offset (as the
    hands table's ``time`` column, which is NaT then)."""
    text = re.sub(r" (?:UTC|GMT|Z)$", " +00:00", timestamp)
    try:
        return datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z").astimezone(UTC)
    except ValueError:
        return None


#: What a filter looks at in a hand: its table, its players' names and its timestamp text.
Facts = tuple[str, tuple[str, ...], str]


def hand_facts(result: HandResult) -> Facts:
    return result.table, tuple(p.name for p in result.players), result.timestamp


@dataclass(frozen=True)
class Filters:
    """The filters of one run; the empty one keeps every hand."""

    players: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()
    since: When | None = None
    until: When | None = None

    @classmethod
    def of(cls, players: Sequence[str] | None = None, tables: Sequence[str] | None = None,
           since: str | None = None, until: str | None = None) -> Filters:
        """From the command line's values; raises FilterError for a bad date."""
        out = cls(tuple(dict.fromkeys(players or ())), tuple(dict.fromkeys(tables or ())),
                  None if since is None else When.parse(since, "--since"),
                  None if until is None else When.parse(until, "--until"))
        if out.since and out.until and out.until.start + out.until.span <= out.since.start:
            raise FilterError(f"--until {out.until.text} is before --since {out.since.text}")
        return out

    @property
    def active(self) -> bool:
        return bool(self.players or self.tables or self.since or self.until)

    @property
    def timed(self) -> bool:
        return self.since is not None or self.until is not None

    def describe(self) -> str:
        """The filters for people, e.g. ``player alice; from 2026-11-29 (times in UTC)``
        ("" without filters); names as given (escape them to show them)."""
        parts = []
        if self.players:
            parts.append(("player " if len(self.players) == 1 else "players ")
                         + ", ".join(self.players))
        if self.tables:
            parts.append(("table " if len(self.tables) == 1 else "tables ")
                         + ", ".join(self.tables))
        if self.since:
            parts.append(f"from {self.since.label()}")
        if self.until:
            parts.append(f"through {self.until.label()}")
        if not parts:
            return ""
        return "; ".join(parts) + (" (times in UTC)" if self.timed else "")

    def sentence(self) -> str:
        """:meth:`describe` as a sentence of its own ("" without filters)."""
        described = self.describe()
        return f"Hands filtered: {described}." if described else ""

    def _in_time(self, moment: datetime | None) -> bool:
        if moment is None:
            return False
        if self.since is not None and moment < self.since.start:
            return False
        return not (self.until is not None and moment >= self.until.start + self.until.span)


def _closest(kind: str, wanted: str, known: Iterable[str]) -> str:
    names = sorted(set(known))
    close = difflib.get_close_matches(wanted, names, n=3, cutoff=0.6)
    close += [n for n in names if n.casefold() == wanted.casefold() and n not in close]
    if close:
        hint = "closest: " + ", ".join(repr(n) for n in close)
    elif names:
        hint = f"{kind}s: " + ", ".join(repr(n) for n in names[:10]) + \
            (f" and {len(names) - 10} more" if len(names) > 10 else "")
    else:
        hint = f"no {kind} at all"
    return f"no {kind} named {wanted!r} in the hands read; {hint}"


@dataclass
class Selection:
    """A :class:`Filters` applied to a stream of hands: keeps or drops each, and remembers
    the names it saw, to tell an unknown player or table from one that the other filters
    left out."""

    filters: Filters
    players_seen: set[str] = field(default_factory=set)
    tables_seen: set[str] = field(default_factory=set)
    untimed: int = 0  # hands a time filter dropped because their time is not in UTC
    kept: int = 0

    def keeps(self, facts: Facts) -> bool:
        f = self.filters
        table, names, timestamp = facts
        if f.players:
            self.players_seen.update(names)
        if f.tables:
            self.tables_seen.add(table)
        if f.tables and table not in f.tables:
            return False
        if f.players and not any(n in f.players for n in names):
            return False
        if f.timed:
            moment = hand_time(timestamp)
            if moment is None:
                self.untimed += 1
                return False
            if not f._in_time(moment):
                return False
        self.kept += 1
        return True

    def unknown(self) -> str | None:
        """Why the run must fail (an unknown player or table), or None."""
        return _unknown(self.filters, self.players_seen, self.tables_seen)

    def warnings(self) -> list[str]:
        return _untimed_warning(self.untimed)


def _unknown(filters: Filters, players: set[str], tables: set[str]) -> str | None:
    problems = [_closest("player", p, players) for p in filters.players if p not in players]
    problems += [_closest("table", t, tables) for t in filters.tables if t not in tables]
    return "; ".join(problems) or None


def _untimed_warning(count: int) -> list[str]:
    if not count:
        return []
    return [f"{count} hand(s) left out by --since/--until: their time zone word has no fixed "
            "offset, so their time in UTC is unknown"]


@dataclass(frozen=True)
class Selected:
    """The tables a :class:`Filters` keeps, and what to say about it."""

    tables: SessionTables
    warnings: list[str]


def select_tables(tables: SessionTables, filters: Filters) -> Selected:
    """The session tables of the hands ``filters`` keeps (every table keeps its columns);
    raises FilterError naming the closest names when a player or table is in no hand. The
    rejected entries are kept: nothing tells whose they were."""
    # pandas only here: the audit (and every --jobs worker) imports this module for its
    # filters, and pandas would add about 0.3 s and 90 MB to each process.
    import numpy as np
    import pandas as pd

    if not filters.active:
        return Selected(tables, [])
    hands, seats, pairs = tables.hands, tables.seats, tables.pairs
    unknown = _unknown(filters, set(seats["name"].dropna().unique()),
                       set(hands["table"].dropna().unique()))
    if unknown:
        raise FilterError(unknown)
    keep = np.ones(len(hands), dtype=bool)
    untimed = 0
    if filters.tables:
        keep &= hands["table"].isin(filters.tables).to_numpy(dtype=bool, na_value=False)
    if filters.players:
        sat = seats.loc[seats["name"].isin(filters.players).to_numpy(dtype=bool), "hand"]
        keep &= hands["hand"].isin(sat.unique()).to_numpy(dtype=bool)
    if filters.timed:
        times = hands["time"]
        known = times.notna().to_numpy(dtype=bool)
        untimed = int((keep & ~known).sum())
        in_range = known.copy()
        if filters.since is not None:
            in_range &= (times >= pd.Timestamp(filters.since.start)).to_numpy(
                dtype=bool, na_value=False)
        if filters.until is not None:
            end = pd.Timestamp(filters.until.start + filters.until.span)
            in_range &= (times < end).to_numpy(dtype=bool, na_value=False)
        keep &= in_range
    kept_hands = hands["hand"].to_numpy()[keep]

    def of_hands(frame: pd.DataFrame) -> pd.Series:
        return frame["hand"].isin(kept_hands)

    seat_rows = of_hands(seats)
    pair_rows = of_hands(pairs)
    if filters.players:
        seat_rows &= seats["name"].isin(filters.players)
        pair_rows &= pairs["a"].isin(filters.players) | pairs["b"].isin(filters.players)
    out = replace(
        tables,
        hands=hands[keep].reset_index(drop=True),
        seats=seats[seat_rows.to_numpy(dtype=bool)].reset_index(drop=True),
        pairs=pairs[pair_rows.to_numpy(dtype=bool)].reset_index(drop=True),
        violations=tables.violations[of_hands(tables.violations)].reset_index(drop=True),
        mismatches=tables.mismatches[of_hands(tables.mismatches)].reset_index(drop=True),
    )
    return Selected(out, _untimed_warning(untimed))
