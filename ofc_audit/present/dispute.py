"""The dispute page: one self-contained HTML page that shows a player everything about one
hand ("why did I lose 14 points here?"), for them to take to the site.

The data is prepared here, as plain view records of strings and numbers; the Jinja2
template ``templates/dispute.html.j2`` (autoescaped) only lays it out. Everything that comes
from the history (names, ids, messages quoting them, the original text) is untrusted: it is
escaped by the template, wrapped in ``<bdi>`` there, and its invisible direction and
zero-width characters are shown as visible ``<U+202E>`` markers here, so that a name can
neither inject markup nor silently reorder the text around it.
"""

from __future__ import annotations

import difflib
import io
import re
import sys
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, TYPE_CHECKING

import jinja2

from ..common.errors import CannotWrite, UnreadableInput, UsageError
from ..common.textfmt import quantity, signed
from ..game.cards import Card, Suit
from ..game.record import ROWS
from ..game.rulebook import cited, rule_text
from ..game.ruleset import Ruleset
from ..history.reader import HEADER_START, HistoryParseError, read_stream
from ..history.records import Deal, Event, Hand, Placement, SectionKind, Stake
from ..history.sources import history_files, real_name
from ..history.survey import HandIndex
from ..replay import Replayer
from ..replay.results import HandResult, PairResult, PlayerResult
from .settlement import SettlementStep, settlement_steps
from .verdict import Cause, Verdict, hand_verdict, stake_money

if TYPE_CHECKING:
    from .review_page import ReviewSection

#: Lines of a hand's text shown at most (a hand is 20-90 lines; a runaway block is cut).
MAX_HAND_LINES = 400

# -- untrusted text ---------------------------------------------------------------------------

# Direction marks, embeddings, overrides and isolates, and zero-width characters: shown as
# visible markers, never obeyed. Bytes that were not UTF-8 (lone surrogates) become U+FFFD.
_INVISIBLE = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def shown(text: str) -> str:
    """Untrusted text as it should be read on the page: every invisible control visible."""
    text = _SURROGATE.sub("\ufffd", text)
    return _INVISIBLE.sub(lambda m: f"<U+{ord(m.group()):04X}>", text)


# -- cards ------------------------------------------------------------------------------------

_SUITS = {
    Suit.SPADES: ("\u2660", "spades"),
    Suit.HEARTS: ("\u2665", "hearts"),
    Suit.DIAMONDS: ("\u2666", "diamonds"),
    Suit.CLUBS: ("\u2663", "clubs"),
}
_RANK_NAMES = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}


@dataclass(frozen=True, slots=True)
class CardView:
    """A card as drawn: ``rank`` and ``suit`` are what the face shows; ``css`` is the suit's
    class (s, h, d, c), ``joker`` or ``hidden`` (drawn face down, no text)."""

    code: str
    rank: str
    suit: str
    css: str
    title: str
    stands_for: CardView | None = None

    @property
    def face(self) -> str:
        """The visible text of the card (what a browser test reads)."""
        own = f"{self.rank}{self.suit}"
        return own if self.stands_for is None else f"{own}={self.stands_for.face}"


@cache
def _card_view(card: Card) -> CardView:
    if card.is_hidden:
        return CardView("??", "", "", "hidden", "a hidden card (face down in the history)")
    if card.is_joker:
        return CardView(card.text, card.text, "", "joker", f"joker {card.joker}")
    assert card.rank is not None and card.suit is not None
    symbol, suit_name = _SUITS[card.suit]
    rank = "10" if card.rank.value == "T" else card.rank.value
    name = _RANK_NAMES.get(card.rank.value, card.rank.value)
    return CardView(card.text, rank, symbol, card.suit.value, f"{name} of {suit_name}")


def card_view(card: Card, stands_for: Card | None = None) -> CardView:
    view = _card_view(card)
    if stands_for is None or not card.is_joker:
        return view
    real = _card_view(stands_for)
    return CardView(view.code, view.rank, view.suit, view.css,
                    f"{view.title}, standing for the {real.title}", real)


def card_views(cards: Iterable[Card]) -> tuple[CardView, ...]:
    return tuple(map(card_view, cards))


# -- rules ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuleView:
    id: str
    title: str
    text: str
    options: tuple[str, ...] = ()
    presets: tuple[str, ...] = ()


@cache
def rule_view(rule: str) -> RuleView:
    """A rule's title and full text from the rulebook the package ships (empty for an id
    the rulebook does not have)."""
    try:
        entry = rule_text(rule)
    except KeyError:
        return RuleView(rule, "", "")
    return RuleView(rule, entry.title, entry.text, entry.options, entry.presets)


# -- money ------------------------------------------------------------------------------------


def moved(points: int | None, stake: Stake) -> str:
    """What moved for a player: money at the stake (``+13.00 USD``), or the points at a
    table played for points (``+13 points``); ``-`` when it is not known."""
    if points is None:
        return "-"
    return stake_money(points, stake, sign=True) or quantity(points, "point", sign=True)


# -- views ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fact:
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    name: str
    stack: int
    note: str
    button: bool
    line: int


@dataclass(frozen=True, slots=True)
class PlacedRow:
    row: str
    cards: tuple[CardView, ...]


@dataclass(frozen=True, slots=True)
class TurnView:
    """What one player did in one section: the cards dealt, where each went, what was
    discarded, and the events (time-outs, ...), with the lines they came from."""

    player: str
    lines: list[int] = field(default_factory=list)
    dealt: list[CardView] = field(default_factory=list)
    placed: list[PlacedRow] = field(default_factory=list)
    discards: list[CardView] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)  # violations cited at these lines


@dataclass(frozen=True, slots=True)
class StepView:
    title: str
    line: int
    turns: tuple[TurnView, ...]


@dataclass(frozen=True, slots=True)
class RowView:
    row: str
    cards: tuple[CardView, ...]
    category: str
    royalties: int | None


@dataclass(frozen=True, slots=True)
class BoardView:
    player: str
    seat: int
    in_fantasyland: bool
    rows: tuple[RowView, ...]
    royalties: int | None
    verdict: str  # "legal", "FOULED" or "not scored"
    reason: str
    jokers: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PairView:
    a: str
    b: str
    rows: tuple[str, str, str]
    scoop: str
    royalties: str
    points: str
    transfer: str
    capped: bool


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int
    name: str
    in_fantasyland: bool
    points: str  # before any stack cap
    moved: str  # what the settlement moved, after the caps: money at the stake
    stack_before: int
    stack_after: str
    fantasyland_next: str


@dataclass(frozen=True, slots=True)
class SourceLine:
    number: int
    text: str
    cited: bool
    gap_before: bool = False  # lines were skipped before this one
    caret: str | None = None  # the blanks before a rejection's column (tabs kept), or None


@dataclass(frozen=True, slots=True)
class HandPage:
    kind: str  # "hand"
    anchor: str
    hand_id: str
    file: str
    line: int
    facts: tuple[Fact, ...]
    verdict: Verdict
    causes: tuple[tuple[Cause, RuleView], ...]  # the verdict's causes, each with its rule
    bad: bool
    seats: tuple[SeatView, ...]
    topups: tuple[str, ...]
    steps: tuple[StepView, ...]
    boards: tuple[BoardView, ...]
    pairs: tuple[PairView, ...]
    settlement: tuple[SettlementStep, ...]
    stack_cap: bool
    players: tuple[PlayerView, ...]
    incomplete: str  # where the history stops and what is missing; "" for a complete hand
    incomplete_line: int | None
    source: tuple[SourceLine, ...]
    log: tuple[str, ...]
    review: ReviewSection | None = None  # the play review, when the hand was reviewed


@dataclass(frozen=True, slots=True)
class RejectedPage:
    kind: str  # "rejected"
    anchor: str
    hand_id: str | None
    file: str
    line: int
    column: int
    entry_line: int
    message: str
    source: tuple[SourceLine, ...]


Page = HandPage | RejectedPage

# -- building a hand's page -------------------------------------------------------------------

def _fantasyland_next(p: PlayerResult) -> str:
    if not p.fantasyland_next_known:
        return "unknown"
    return "no" if p.fantasyland_next is None else f"yes, {p.fantasyland_next} cards"


def board_view(p: PlayerResult, unfinished: bool = False) -> BoardView:
    name = shown(p.name)
    r = p.result
    if r is None:
        rows = tuple(
            RowView(row.value, card_views(cards), "not known", None)
            for row, cards in zip(ROWS, p.board.rows, strict=True)
        )
        why = ("the hand is unfinished: its history stops" if unfinished
               else "the board is not fully known from this history")
        return BoardView(name, p.seat, p.in_fantasyland, rows, None, "not scored", why, ())
    rows = tuple(
        RowView(
            row.value,
            tuple(card_view(c, real) for c, real in zip(placed, rr.cards, strict=False)),
            rr.category.replace("_", " "),
            r.royalties.of(row),
        )
        for row, placed, rr in zip(ROWS, p.board.rows, r.rows, strict=True)
    )
    if r.fouled:
        verdict, reason = "FOULED", f"{cited(r.foul_rule or '')}: {shown(r.foul_reason or '')}"
    else:
        verdict, reason = "legal", f"rows in order, {cited('R-ORDER-1')}"
    jokers = tuple(f"{j} = {c}" for j, c in r.jokers)
    return BoardView(name, p.seat, p.in_fantasyland, rows, r.royalties.total, verdict, reason,
                     jokers)


def pair_view(pair: PairResult) -> PairView:
    rows = pair.rows or (None, None, None)
    transfer = "-" if pair.transfer_to_a is None else signed(pair.transfer_to_a)
    return PairView(shown(pair.a), shown(pair.b), (signed(rows[0]), signed(rows[1]),
                    signed(rows[2])), signed(pair.scoop), signed(pair.royalties),
                    signed(pair.points_a), transfer, pair.capped)


def settlement_views(result: HandResult) -> tuple[SettlementStep, ...]:
    """Each pair's transfer with the stacks it met, in settlement order (R-SETTLE-2/3), and
    whose stack cut it where one did, the names shown as the page shows them."""
    return tuple(step.named(shown) for step in settlement_steps(result))


def player_view(p: PlayerResult, stake: Stake) -> PlayerView:
    return PlayerView(
        p.seat, shown(p.name), p.in_fantasyland, signed(p.points), moved(p.transfer, stake),
        p.stack_before, "unknown" if p.stack_after is None else str(p.stack_after),
        _fantasyland_next(p),
    )


def step_views(hand: Hand, result: HandResult) -> tuple[StepView, ...]:
    """Every street (and the Fantasyland section) as one step: a turn per player."""
    cited: dict[int, list[str]] = {}
    for v in result.violations:
        cited.setdefault(v.line, []).append(v.rule)
    steps = []
    for section in hand.sections:
        turns: dict[str, TurnView] = {}
        for action in section.actions:
            turn = turns.setdefault(action.player, TurnView(shown(action.player)))
            turn.lines.append(action.line)
            turn.rules.extend(r for r in cited.get(action.line, ()) if r not in turn.rules)
            if isinstance(action, Deal):
                turn.dealt.extend(card_views(action.cards))
            elif isinstance(action, Placement):
                turn.placed.extend(PlacedRow(row.value, card_views(cards))
                                   for row, cards in action.rows)
                turn.discards.extend(card_views(action.discards or ()))
            elif isinstance(action, Event):
                turn.events.append(action.kind.value)
        title = ("Fantasyland" if section.kind is SectionKind.FANTASYLAND
                 else f"Street {section.number}")
        steps.append(StepView(title, section.line, tuple(turns.values())))
    return tuple(steps)


def file_name(path: str) -> str:
    """A history's file name without the folders it was read from: the page goes to the
    site, which has no business with the player's local paths (``-`` stays ``-``)."""
    return shown(path.replace("\\", "/").rsplit("/", 1)[-1])


def _facts(hand: Hand, result: HandResult) -> tuple[Fact, ...]:
    stake = result.stake
    facts = [
        Fact("variant", result.variant.title),
        Fact("Fantasyland", result.fantasyland_type.value),
        Fact("stake", f"{stake.text} {stake.currency} per point" if stake.is_money
             else "points only, no money"),
        Fact("table", shown(result.table)),
        Fact("button", f"seat {result.button_seat}"),
        Fact("time", result.timestamp),
    ]
    if result.match_id:
        facts.append(Fact("match", f"#{shown(result.match_id)}, hand {result.match_hand}"))
    facts.append(Fact("file", f"{file_name(result.file)}, line {result.line}"))
    return tuple(facts)


def source_lines(text: dict[int, str], cited: Iterable[int],
                 carets: dict[int, str] | None = None) -> tuple[SourceLine, ...]:
    marked = set(cited)
    out: list[SourceLine] = []
    previous: int | None = None
    for number in sorted(text):
        gap = previous is not None and number != previous + 1
        out.append(SourceLine(number, shown(text[number]), number in marked, gap,
                              (carets or {}).get(number)))
        previous = number
    return tuple(out)


def hand_page(hand: Hand, result: HandResult, text: dict[int, str], anchor: str = "h1"
              ) -> HandPage:
    """The page of one replayed hand; ``text`` maps line numbers to the file's lines (the
    hand's own, plus any other line a finding cites)."""
    stake = result.stake
    cited = cited_lines(hand, result)
    incomplete = result.incomplete
    seats = tuple(
        SeatView(s.seat, shown(s.name), s.stack,
                 ("in Fantasyland" + (f" ({s.fantasyland_cards} cards)"
                                      if s.fantasyland_cards else "")
                  if s.in_fantasyland else ""), s.seat == result.button_seat, s.line)
        for s in hand.seats
    )
    verdict = hand_verdict(result, hand.summary, shown)
    return HandPage(
        kind="hand",
        anchor=anchor,
        hand_id=shown(result.hand_id),
        file=file_name(result.file),
        line=result.line,
        facts=_facts(hand, result),
        verdict=verdict,
        causes=tuple((c, rule_view(c.rule)) for c in verdict.causes),
        bad=not result.clean,
        seats=seats,
        topups=tuple(f"{shown(t.player)} tops up {t.amount} (line {t.line})"
                     for t in hand.topups),
        steps=step_views(hand, result),
        boards=tuple(board_view(p, incomplete is not None) for p in result.players),
        pairs=tuple(pair_view(pair) for pair in result.pairs),
        settlement=settlement_views(result),
        stack_cap=any(pair.capped for pair in result.pairs),
        players=tuple(player_view(p, stake) for p in result.players),
        incomplete="" if incomplete is None else shown(incomplete.message).rstrip("."),
        incomplete_line=None if incomplete is None else incomplete.line,
        source=source_lines(text, cited),
        log=tuple(f"line {s.line}: {shown(s.text)}" for s in result.log),
    )


_HAND_ID = re.compile(r"[^#]*#([A-Za-z0-9._-]+)")


def header_hand_id(line: str) -> str | None:
    """The hand id of a header line (also of a header the grammar rejected), if any."""
    stripped = line.lstrip(" \t")
    if not HEADER_START(stripped):
        return None
    match = _HAND_ID.match(stripped)
    return match.group(1) if match else None


def rejected_page(error: HistoryParseError, text: dict[int, str], anchor: str = "h1"
                  ) -> RejectedPage:
    header = text.get(error.entry_line, "")
    return RejectedPage(
        kind="rejected",
        anchor=anchor,
        hand_id=header_hand_id(header),
        file=file_name(error.file),
        line=error.line,
        column=error.column,
        entry_line=error.entry_line,
        message=shown(error.message),
        # The caret copies the tabs before the column, so that it stands under the column
        # however wide a tab is drawn (as HistoryParseError's own text does).
        source=source_lines(text, [error.line], {error.line: "".join(
            "\t" if ch == "\t" else " " for ch in shown(error.text[: error.column - 1]))}),
    )


# -- the history text -------------------------------------------------------------------------


class Sources:
    """The text of the history files, read again line by line for the few lines a page
    shows (a file is never held whole; standard input is kept, as it cannot be read
    twice)."""

    def __init__(self, stdin: bytes | None = None) -> None:
        self.stdin = stdin

    def _open(self, file: str) -> IO[str]:
        if file == "-":
            data = self.stdin or b""
            return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8",
                                    errors="surrogateescape", newline="\n")
        return open(real_name(file), encoding="utf-8", errors="surrogateescape",
                    newline="\n")

    def lines(self, file: str, numbers: Iterable[int]) -> dict[int, str]:
        """The given lines of a file (those past its end are left out)."""
        wanted = set(numbers)
        out: dict[int, str] = {}
        if not wanted:
            return out
        last = max(wanted)
        with self._open(file) as stream:
            for number, raw in enumerate(stream, start=1):
                if number in wanted:
                    out[number] = raw.rstrip("\r\n")
                if number >= last:
                    break
        return out

    def excerpts(self, file: str, wants: Mapping[int, Collection[int]]
                 ) -> dict[int, dict[int, str]]:
        """For each start line (a header) of ``wants``: the lines from it up to the next
        header (at most :data:`MAX_HAND_LINES`; blank and comment lines at the end, which
        introduce the next hand, dropped) plus its own other lines (cited elsewhere in the
        file). One pass over the file for all of them."""
        extra = {n for lines in wants.values() for n in lines}
        blocks: dict[int, dict[int, str]] = {start: {} for start in wants}
        others: dict[int, str] = {}
        current: int | None = None
        last = max([*wants, *extra], default=0)
        with self._open(file) as stream:
            for number, raw in enumerate(stream, start=1):
                line = raw.rstrip("\r\n")
                if number == 1:
                    line = line.removeprefix("\ufeff")
                if number in blocks:
                    current = number
                elif current is not None and (
                    HEADER_START(line.lstrip(" \t")) or number - current >= MAX_HAND_LINES
                ):
                    current = None
                if current is not None:
                    blocks[current][number] = line
                if number in extra:
                    others[number] = line
                if current is None and number > last:
                    break
        for start, lines in blocks.items():
            own = set(wants[start])
            for number in sorted(lines, reverse=True):
                text = lines[number].strip()
                if (text and not text.startswith("#")) or number in own:
                    break
                del lines[number]
            for number in own:
                if number in others:
                    lines.setdefault(number, others[number])
        return blocks


def cited_lines(item: Hand | HistoryParseError, result: HandResult | None) -> list[int]:
    """The lines a page marks: each finding's and mismatch's, or the rejected line."""
    if isinstance(item, HistoryParseError):
        return [item.line]
    assert result is not None
    lines = [v.line for v in result.violations] + [m.line for m in result.mismatches]
    if result.incomplete is not None:
        lines.append(result.incomplete.line)  # where the history stops
    return lines


def build_pages(sources: Sources, file: str,
                items: Sequence[tuple[Hand | HistoryParseError, HandResult | None, str]]
                ) -> list[Page]:
    """The pages of replayed hands (with their results) or rejected ones (result None) of
    one file, each with its anchor; the file is read once for all of their text."""
    def start(item: Hand | HistoryParseError) -> int:
        return item.entry_line if isinstance(item, HistoryParseError) else item.line

    wants: dict[int, set[int]] = {}
    for item, result, _ in items:
        wants.setdefault(start(item), set()).update(cited_lines(item, result))
    texts = sources.excerpts(file, wants)
    pages: list[Page] = []
    for item, result, anchor in items:
        text = texts[start(item)]
        if isinstance(item, HistoryParseError):
            pages.append(rejected_page(item, text, anchor))
        else:
            assert result is not None
            pages.append(hand_page(item, result, text, anchor))
    return pages


# -- finding hands ----------------------------------------------------------------------------


@dataclass
class Search:
    """The pages of the hands found under one id, every id seen (for near matches), and the
    duplicates and the conflict of that id (``index``): a duplicate is read once, so it has
    no page of its own; a conflict is not scored, so neither copy has a page."""

    pages: list[Page]
    ids: list[str]
    index: HandIndex = field(default_factory=HandIndex)


Found = tuple[str, Hand | HistoryParseError, HandResult | None]


def find_pages(paths: Sequence[str], wanted: str, ruleset: Ruleset,
               stdin: IO[bytes] | None = None) -> Search:
    """Replay every hand of ``paths`` in order (the chains need the hands before), each once
    as the audit reads it (the copies :class:`~ofc_audit.history.survey.HandIndex` leaves
    out are not read), and build the page of each hand whose id is ``wanted``, a rejected
    one included when its header line names that id. ``OSError`` when a file cannot be
    read."""
    data = (stdin or sys.stdin.buffer).read() if "-" in paths else None
    sources = Sources(data)
    replayer = Replayer(ruleset, explain=True)
    ids: dict[str, None] = {}
    found: list[Found] = []
    files = list(history_files(paths))
    index = HandIndex.of(file for file in files if file != "-")
    for file in files:
        if file == "-":
            _replay_file(read_stream(io.BytesIO(data or b""), "-"), replayer, wanted, ids,
                         found, sources, file)
            continue
        with open(real_name(file), "rb") as stream:
            _replay_file(index.keep(read_stream(stream, file)), replayer, wanted, ids, found,
                         sources, file)
    by_file: dict[str, list[tuple[Hand | HistoryParseError, HandResult | None, str]]] = {}
    for i, (file, item, result) in enumerate(found, start=1):
        by_file.setdefault(file, []).append((item, result, f"h{i}"))
    pages = [page for file, items in by_file.items()
             for page in build_pages(sources, file, items)]
    about = index.about(wanted)
    if about.conflicts:
        ids[wanted] = None  # known, though not scored
    return Search(pages, list(ids), about)


def _replay_file(items: Iterable[Hand | HistoryParseError], replayer: Replayer, wanted: str,
                 ids: dict[str, None], found: list[Found], sources: Sources,
                 file: str) -> None:
    rejected: list[HistoryParseError] = []
    for item in items:
        if isinstance(item, HistoryParseError):
            replayer.reject(item)
            rejected.append(item)
            continue
        result = replayer.replay(item)
        ids[item.hand_id] = None
        if item.hand_id == wanted:
            found.append((file, item, result))
    if not rejected:
        return
    # The ids of rejected hands are in their header lines: one more pass over the file.
    headers = sources.lines(file, [e.entry_line for e in rejected])
    for error in rejected:
        hand_id = header_hand_id(headers.get(error.entry_line, ""))
        if hand_id is None:
            continue
        ids[hand_id] = None
        if hand_id == wanted:
            found.append((file, error, None))


def near_ids(wanted: str, ids: Sequence[str], n: int = 5) -> list[str]:
    return difflib.get_close_matches(wanted, ids, n=n, cutoff=0.6)


# -- rendering --------------------------------------------------------------------------------


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("ofc_audit.present", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_page(pages: Sequence[Page], title: str) -> str:
    """The self-contained HTML document of one or more hands (the same id may occur in
    several files): inline CSS, no script from elsewhere, every string escaped."""
    reviewed = any(isinstance(p, HandPage) and p.review is not None for p in pages)
    return _environment().get_template("dispute.html.j2").render(pages=pages, title=title,
                                                                 reviewed=reviewed)


@dataclass(frozen=True)
class Written:
    """What ``audit --hand ID --html PAGE`` did: whether the page was written (not when the
    id's copies conflict: no copy is scored), whether its hand has violations, mismatches or
    was rejected, or is a conflict (exit 1), and the id's duplicates and conflict (``index``)."""

    written: bool
    bad: bool
    index: HandIndex


def write_dispute_page(paths: Sequence[str], wanted: str, ruleset: Ruleset, target: str,
                       out: IO[str] | None = None) -> Written:
    """``audit --hand ID --html PAGE``: writes the page (``-``: to ``out``, standard output
    by default) and says what it did (docs/CLI.md: exit 1 for a hand with violations,
    mismatches, rejected, or a conflict, which gets no page). Raises
    :class:`~ofc_audit.common.errors.UsageError` when no hand has the id,
    :class:`~ofc_audit.common.errors.UnreadableInput` or
    :class:`~ofc_audit.common.errors.CannotWrite`."""
    try:
        search = find_pages(paths, wanted, ruleset)
    except OSError as error:
        raise UnreadableInput.of(error) from None
    if not search.pages and search.index.conflicts:
        return Written(False, True, search.index)
    if not search.pages:
        near = near_ids(wanted, search.ids)
        hint = ("; near matches: " + ", ".join(f"#{i}" for i in near)) if near else \
            "; no hand id is close to it"
        raise UsageError(f"no hand #{wanted} in {', '.join(paths)}{hint}")
    text = render_page(search.pages, f"OFC hand #{wanted}")
    try:
        if target == "-":
            stream = out or sys.stdout
            stream.write(text)
            stream.flush()
        else:
            Path(target).write_text(text, encoding="utf-8")
    except OSError as error:
        raise CannotWrite.of(error, target) from None
    return Written(True, any(isinstance(p, RejectedPage) or p.bad for p in search.pages),
                   search.index)
