"""The hand page with its play review: the dispute page of one hand (:mod:`.dispute`) and a
"Play review" section, street by street for each reviewed player (docs/REVIEW.md): the
cards dealt, the placement made and the best one drawn as boards with the cards that
differ marked, every candidate's EV with its 95% half-width, the cost, the chances of
fouling and of Fantasyland; a Fantasyland setting beside the best one, row by row.

As on the dispute page, the values are prepared here as view records of strings; the
template ``templates/review_section.html.j2`` (autoescaped) lays them out. Every number is
the JSON's (:mod:`ofc_audit.review.json_doc`), shown through the same formatting as the
terminal's.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO

from ..common.errors import CannotWrite, UnreadableInput, UsageError
from ..common.textfmt import and_list, quantity
from ..game.board import Board, evaluate_board
from ..game.cards import JOKERS, NATURAL_CARDS, Card
from ..game.record import ROWS
from ..game.ruleset import Ruleset
from ..history.reader import HistoryParseError, read_path, read_stream
from ..history.records import Hand
from ..history.sources import history_files
from ..review.decisions import HandDecisions, Kind, Played, Skip, SkipReason
from ..review.json_doc import ReviewTotals, chance_text, half_width_text, points_text
from ..review.run import (
    CandidateResult,
    DecisionReview,
    HandReview,
    ReviewOptions,
    review_hands,
    reviewable_hands,
)
from .dispute import (
    CardView,
    HandPage,
    Page,
    card_view,
    file_name,
    find_pages,
    near_ids,
    render_page,
    shown,
)

#: A street decision with more candidates than this shows its best few and the one played,
#: the rest behind "show all" (Pineapple street 1 has 232).
LISTED_IN_FULL = 12
#: How many of the best candidates such a decision shows before "show all".
SHOWN_FIRST = 5

_ROW_NAMES = ("top", "middle", "bottom", "discard")

# -- views ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SlotView:
    """A card on a drawn board: ``new`` when this decision placed it, ``differs`` when the
    other placement (played or best) puts it elsewhere."""

    card: CardView
    new: bool
    differs: bool


@dataclass(frozen=True, slots=True)
class ReviewRowView:
    row: str
    cards: tuple[SlotView, ...]
    category: str  # "" on a street decision (the board is not finished)
    royalties: int | None


@dataclass(frozen=True, slots=True)
class ReviewBoardView:
    """One placement drawn as the board it leaves: ``label`` is "Played" or "Best"."""

    label: str
    rows: tuple[ReviewRowView, ...]
    discards: tuple[SlotView, ...]
    ev: str
    ci95: str | None  # None when exact or unknown
    foul: str
    fantasyland: str
    note: str  # a Fantasyland setting: its royalties, whether it stays, its value


@dataclass(frozen=True, slots=True)
class CandidateView:
    rank: int
    rows: tuple[tuple[CardView, ...], ...]  # top, middle, bottom, discard
    ev: str
    ci95: str | None
    foul: str
    fantasyland: str
    played: bool
    best: bool


@dataclass(frozen=True, slots=True)
class DecisionView:
    anchor: str
    player: str
    title: str
    line: int
    fantasyland: bool
    dealt: tuple[CardView, ...]
    boards: tuple[ReviewBoardView, ...]  # played, then best when it differs
    was_best: bool
    cost: str
    ci95: str | None
    exact: bool
    blunder: bool
    differences: str  # what the best play does otherwise, in words ("" when played is best)
    rollouts: int
    discards: bool  # whether its placements discard (a discard column)
    shown: tuple[CandidateView, ...]  # the candidates listed first
    everything: tuple[CandidateView, ...]  # all of them, behind "show all" (empty: none more)
    count: int  # candidates in all


@dataclass(frozen=True, slots=True)
class PlayerReviewView:
    name: str
    anchor: str
    decisions: int
    exact: int
    cost: str
    blunders: int
    expected: str
    actual: str
    luck: str


@dataclass(frozen=True, slots=True)
class ReviewSection:
    """The "Play review" of one hand: per player the totals, then each decision."""

    anchor: str
    players: tuple[PlayerReviewView, ...]
    decisions: tuple[tuple[PlayerReviewView, tuple[DecisionView, ...]], ...]
    left_out: tuple[str, ...]  # why a hand or some decisions are not reviewed
    summary: str  # one sentence for the top of the page
    options: str
    fl_value: str
    blunder: str


# -- building it -------------------------------------------------------------------------------


def _card(index: int) -> Card:
    return NATURAL_CARDS[index] if index < 52 else JOKERS[index - 52]


def _views(cards: Iterable[int]) -> tuple[CardView, ...]:
    return tuple(card_view(_card(i)) for i in cards)


def _rows_of(placement: Played) -> dict[int, str]:
    """Each card of a placement -> the row it goes to (or ``discard``)."""
    return {card: name for name, cards in zip(_ROW_NAMES, (*placement.rows, placement.discard),
                                              strict=True) for card in cards}


def _ev(candidate: CandidateResult, exact: bool) -> tuple[str, str | None]:
    return points_text(candidate.ev, sign=True), None if exact else _margin(candidate.ci95)


def _margin(ci95: float) -> str:
    text = half_width_text(ci95)
    return "±?" if text is None else f"± {text}"


def _setting_rows(rows: tuple[tuple[int, ...], ...], placed: set[int], differs: set[int],
                  ruleset: Ruleset) -> tuple[tuple[ReviewRowView, ...], int, bool]:
    """A Fantasyland setting's rows with each row's hand and royalties (R-ROY), its total
    royalties and whether it fouls, by the rules' own evaluation."""
    board = Board(*(tuple(_card(i) for i in row) for row in rows))
    result = evaluate_board(board, ruleset)
    views = []
    for row, cards, scored in zip(ROWS, rows, result.rows, strict=True):
        faces = tuple(card_view(_card(i), real) for i, real in
                      zip(cards, scored.cards, strict=False))
        views.append(ReviewRowView(row.value, tuple(
            SlotView(face, i in placed, i in differs) for face, i in zip(faces, cards,
                                                                          strict=True)),
            scored.category.replace("_", " "), result.royalties.of(row)))
    return tuple(views), result.royalties.total, result.fouled


def _board(label: str, review: DecisionReview, index: int, other: int,
           options: ReviewOptions) -> ReviewBoardView:
    decision = review.decision
    candidate = review.candidates[index]
    placement = candidate.placement
    mine, theirs = _rows_of(placement), _rows_of(review.candidates[other].placement)
    differs = {card for card, row in mine.items() if theirs.get(card) != row}
    before = decision.rows[decision.hero]
    # Marking the cards just placed says something only on a board that had cards before.
    placed = set(mine) if any(before) else set()
    ev, ci95 = _ev(candidate, review.exact)
    rows = tuple(b + p for b, p in zip(before, placement.rows, strict=True))
    discards = tuple(SlotView(card_view(_card(i)), bool(placed), i in differs)
                     for i in placement.discard)
    if decision.kind is Kind.FANTASYLAND:
        views, royalties, fouled = _setting_rows(rows, placed, differs, decision.ruleset)
        stays = bool(candidate.fantasyland)
        note = (f"fouled: no royalties; value {points_text(candidate.ev)}" if fouled else
                f"royalties {royalties}" + (f", stays in Fantasyland (+{options.fl_value:g})"
                                            if stays else ", does not stay in Fantasyland")
                + f": value {points_text(candidate.ev)}")
        return ReviewBoardView(label, views, discards, ev, None, chance_text(candidate.foul),
                               chance_text(candidate.fantasyland), note)
    views = tuple(ReviewRowView(row.value, tuple(
        SlotView(card_view(_card(i)), i in placed, i in differs) for i in cards), "", None)
        for row, cards in zip(ROWS, rows, strict=True))
    return ReviewBoardView(label, views, discards, ev, ci95, chance_text(candidate.foul),
                           chance_text(candidate.fantasyland), "")


#: Beyond this many cards placed otherwise, the words say how many, the boards show which.
SPELLED_OUT = 4


def _differences(review: DecisionReview) -> str:
    """What the best placement does with this decision's cards that the play did not, in
    the order dealt: ``Q♠ to the middle (played: top)``; past :data:`SPELLED_OUT` cards
    (a Fantasyland setting), how many, the boards marking them."""
    played = _rows_of(review.candidates[review.played].placement)
    best = _rows_of(review.candidates[review.best].placement)
    words = []
    for card in review.decision.dealt:
        if played.get(card) != best.get(card):
            face = card_view(_card(card)).face
            target = "discarded" if best.get(card) == "discard" else f"to the {best.get(card)}"
            was = "discarded" if played.get(card) == "discard" else played.get(card)
            words.append(f"{face} {target} (played: {was})")
    if len(words) > SPELLED_OUT:
        return (f"{len(words)} of the {len(review.decision.dealt)} cards go elsewhere, each "
                "marked \u2260 on both boards")
    return and_list(words)


def _candidate(rank: int, review: DecisionReview, index: int) -> CandidateView:
    candidate = review.candidates[index]
    placement = candidate.placement
    rows = tuple(_views(cards) for cards in (*placement.rows, placement.discard))
    ev, ci95 = _ev(candidate, review.exact)
    return CandidateView(rank, rows, ev, ci95, chance_text(candidate.foul),
                         chance_text(candidate.fantasyland), index == review.played,
                         index == review.best)


def _ranked(review: DecisionReview) -> list[int]:
    """The candidates best first: the engine's best, then by EV (ties in the engine's
    order)."""
    order = sorted(range(len(review.candidates)), key=lambda i: -review.candidates[i].ev)
    order.remove(review.best)
    return [review.best, *order]


def decision_view(review: DecisionReview, anchor: str, options: ReviewOptions
                  ) -> DecisionView:
    decision = review.decision
    was_best = review.cost <= 0 or review.best == review.played
    boards = [_board("Played", review, review.played, review.best, options)]
    if not was_best:
        boards.append(_board("Best", review, review.best, review.played, options))
    ranked = _ranked(review)
    views = [_candidate(rank, review, i) for rank, i in enumerate(ranked, start=1)]
    fantasyland = decision.kind is Kind.FANTASYLAND
    if fantasyland or len(views) <= LISTED_IN_FULL:
        shown_first, everything = views, []
    else:
        shown_first = [v for v in views[:SHOWN_FIRST]]
        shown_first += [v for v in views[SHOWN_FIRST:] if v.played]
        everything = views
    title = ("Fantasyland setting" if fantasyland else f"Street {decision.street}")
    return DecisionView(
        anchor=anchor, player=shown(decision.player), title=title, line=decision.line,
        fantasyland=fantasyland, dealt=_views(decision.dealt), boards=tuple(boards),
        was_best=was_best, cost=points_text(review.cost),
        ci95=None if review.exact else _margin(review.ci95), exact=review.exact,
        blunder=review.cost >= options.blunder,
        differences="" if was_best else _differences(review), rollouts=review.rollouts,
        discards=any(c.placement.discard for c in review.candidates),
        shown=tuple(shown_first), everything=tuple(everything), count=len(views))


def _left_out(skips: Iterable[Skip]) -> list[str]:
    sentences = []
    for skip in skips:
        if skip.reason is SkipReason.VIOLATIONS:
            sentences.append("This hand is not reviewed: it breaks the rules (see the "
                             "verdict above). The review grades only hands played by the "
                             "rules.")
        elif skip.reason is SkipReason.INCOMPLETE:
            sentences.append("This hand is not reviewed: its history stops before the "
                             "play is over.")
        elif skip.reason is SkipReason.HIDDEN:
            assert skip.player is not None
            sentences.append(f"{quantity(skip.decisions, 'decision')} of {shown(skip.player)} "
                             "not reviewed: the history hides that player's own cards (??).")
        else:
            sentences.append("This hand is not reviewed: its text could not be read.")
    return sentences


def review_section(review: HandReview, options: ReviewOptions, anchor: str = "h1"
                   ) -> ReviewSection:
    """The "Play review" section of one reviewed hand; ``anchor`` is its page's."""
    totals = ReviewTotals(options)
    totals.add(review)
    players = []
    for n, name in enumerate(dict.fromkeys(d.decision.player for d in review.decisions),
                             start=1):
        p = totals.players[name]
        known = p.luck_hands > 0
        players.append(PlayerReviewView(
            shown(name), f"{anchor}-review-p{n}", p.decisions, p.exact, points_text(p.cost),
            p.blunders, points_text(p.expected, sign=True),
            points_text(p.actual, sign=True) if known else "unknown",
            points_text(p.actual - p.expected, sign=True) if known else "unknown"))
    grouped = []
    for view in players:
        name = view.name
        own = [d for d in review.decisions if shown(d.decision.player) == name]
        grouped.append((view, tuple(
            decision_view(d, f"{view.anchor}-{d.decision.label}", options) for d in own)))
    if players:
        summary = and_list([f"{p.name} gave away {p.cost} points" + (
            f" ({quantity(p.blunders, 'blunder')})" if p.blunders else "") for p in players])
        summary += "."
    else:
        summary = "no decision of this hand is reviewed."
    rollouts = f"up to {options.rollouts:,} rollouts per candidate, seed {options.seed}"
    return ReviewSection(
        anchor=f"{anchor}-review", players=tuple(players), decisions=tuple(grouped),
        left_out=tuple(_left_out(review.hand.skipped)), summary=summary, options=rollouts,
        fl_value=f"{options.fl_value:g}", blunder=f"{options.blunder:g}")


# -- the page ---------------------------------------------------------------------------------


def with_reviews(pages: Sequence[Page], reviews: Iterable[HandReview],
                 options: ReviewOptions) -> list[Page]:
    """Each hand page with the review of its hand (the same file and header line); a page
    whose hand was not reviewed stays as it is."""
    by_place = {(file_name(r.hand.file), r.hand.line): r for r in reviews}
    out: list[Page] = []
    for page in pages:
        review = by_place.get((page.file, page.line)) if isinstance(page, HandPage) else None
        if review is None:
            out.append(page)
        else:
            assert isinstance(page, HandPage)
            out.append(replace(page, review=review_section(review, options, page.anchor)))
    return out


def _items(paths: Sequence[str], stdin: bytes | None) -> Iterator[Hand | HistoryParseError]:
    for file in history_files(paths):
        if file == "-":
            yield from read_stream(io.BytesIO(stdin or b""), "-")
        else:
            yield from read_path(file)


def review_of_hand(paths: Sequence[str], wanted: str, ruleset: Ruleset,
                   options: ReviewOptions, stdin: bytes | None = None) -> list[HandReview]:
    """Every hand ``wanted`` of ``paths`` reviewed (the hands before it replayed for their
    chains, as the review does)."""
    hands: list[HandDecisions] = list(reviewable_hands(_items(paths, stdin), ruleset,
                                                       hand_id=wanted))
    return [r for r in review_hands(hands, options) if r.hand.hand_id == wanted]


def write_reviewed_hand_page(paths: Sequence[str], wanted: str, ruleset: Ruleset,
                             target: str, options: ReviewOptions,
                             reviews: Sequence[HandReview] | None = None,
                             out: IO[str] | None = None) -> bool:
    """The dispute page of hand ``wanted`` with its play review, written to ``target``
    (``-``: ``out``, standard output by default). ``reviews``: the hand's reviews when the
    caller has them (``ofc-audit review``), else the hand is reviewed here. Says whether
    the hand has violations, mismatches or was rejected, as
    :func:`~ofc_audit.present.dispute.write_dispute_page` does, and raises as it does."""
    data = sys.stdin.buffer.read() if "-" in paths else None
    try:
        search = find_pages(paths, wanted, ruleset, io.BytesIO(data or b""))
        if reviews is None and search.pages:
            reviews = review_of_hand(paths, wanted, ruleset, options, data)
    except OSError as error:
        raise UnreadableInput.of(error) from None
    if not search.pages:
        near = near_ids(wanted, search.ids)
        hint = ("; near matches: " + ", ".join(f"#{i}" for i in near)) if near else \
            "; no hand id is close to it"
        raise UsageError(f"no hand #{wanted} in {', '.join(paths)}{hint}")
    pages = with_reviews(search.pages, reviews or (), options)
    text = render_page(pages, f"OFC hand #{wanted}")
    try:
        if target == "-":
            stream = out or sys.stdout
            stream.write(text)
            stream.flush()
        else:
            Path(target).write_text(text, encoding="utf-8")
    except OSError as error:
        raise CannotWrite.of(error, target) from None
    return any(not isinstance(p, HandPage) or p.bad for p in pages)


def reviews_of_lines(file: str, lines: set[int], ruleset: Ruleset, options: ReviewOptions
                     ) -> list[HandReview]:
    """The hands of ``file`` that start at ``lines``, reviewed (a session's hand pages)."""
    hands = [h for h in reviewable_hands(read_path(file), ruleset) if h.line in lines]
    return list(review_hands(hands, options))


__all__ = ["ReviewSection", "decision_view", "review_of_hand", "review_section",
           "reviews_of_lines", "with_reviews", "write_reviewed_hand_page"]
