"""The writer: records to canonical text, and round trips through the reader."""

from __future__ import annotations

import dataclasses
import io
import random
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_audit.game.cards import HIDDEN, JOKERS, NATURAL_CARDS
from ofc_audit.game.record import Row
from ofc_audit.game.ruleset import FantasylandType, Variant
from ofc_audit.history.reader import HistoryParseError, read_path, read_text
from ofc_audit.history.records import (
    Action,
    Deal,
    Event,
    EventKind,
    Hand,
    Header,
    MatchInfo,
    Placement,
    Seat,
    Section,
    SectionKind,
    Showdown,
    ShowdownBoard,
    Stake,
    Summary,
    SummaryEntry,
    TableInfo,
    TopUp,
)
from ofc_audit.history.writer import hand_lines, write_hand, write_hands, write_to

DATA = Path(__file__).resolve().parents[1] / "data"

# -- records, generated --------------------------------------------------------------------------

NAME_WORDS = [
    "alice", "Big", "Al", "bob", "x", "is", "dealt", "places", "top", "middle", "times",
    "out", "returns", "tops", "up", "Seat", "Fantasyland", "->", "O'Neil", "jr.", "*", "***",
    "#2", "-", "9", "ü", "名前", "a,b", "OFC",
]  # fmt: skip
name_word = st.one_of(
    st.sampled_from(NAME_WORDS),
    st.text(
        st.characters(blacklist_characters="()[]: \t\r\n", codec="utf-8"),
        min_size=1,
        max_size=4,
    ),
)
names = (
    st.lists(name_word, min_size=1, max_size=3)
    .map(" ".join)
    # A line starting with '#' is a comment and one starting with "OFC Hand" a header, so
    # no name that begins a line can start so (FORMAT.md; the writer refuses them).
    .filter(lambda n: not n.startswith("#") and re.match(r"OFC[ \t]+Hand\b", n) is None)
)
cards = st.sampled_from([*NATURAL_CARDS, *JOKERS, HIDDEN])
card_lists = st.lists(cards, max_size=6).map(tuple)
small = st.integers(min_value=-500, max_value=500)
positive = st.integers(min_value=1, max_value=300)


@st.composite
def headers(draw: st.DrawFn) -> Header:
    amount = draw(st.sampled_from(["1", "0.10", "2.5", "100", "0.01"]))
    currency = draw(st.sampled_from(["points", "EUR", "USD", "UZS"]))
    zone = draw(st.sampled_from(["UTC", "+05:00", "-03:30", "Europe/Vilnius", "Z"]))
    day, hour = draw(st.integers(1, 28)), draw(st.integers(0, 23))
    return Header(
        draw(st.from_regex(r"[A-Za-z0-9._-]{1,12}", fullmatch=True)),
        draw(st.sampled_from(list(Variant))),
        draw(st.sampled_from(list(FantasylandType))),
        Stake(Decimal(amount), currency, amount),
        f"2026-11-{day:02d} {hour:02d}:04:11 {zone}",
        0,
    )


# Strategies are built once, at module level (building them inside a draw is slow); a player
# is drawn as an index, taken modulo the number of seats.
player_index = st.integers(0, 3)
rows = st.tuples(
    st.permutations(list(Row)), st.integers(1, 3), st.tuples(card_lists, card_lists, card_lists)
).map(lambda t: tuple(zip(t[0][: t[1]], t[2][: t[1]], strict=True)))
action_parts = st.one_of(
    st.tuples(st.just("deal"), player_index, card_lists),
    st.tuples(st.just("event"), player_index, st.sampled_from(list(EventKind))),
    st.tuples(st.just("places"), player_index, rows, st.none() | card_lists),
)
board_parts = st.tuples(player_index, st.none() | st.tuples(card_lists, card_lists, card_lists))
entry_parts = st.tuples(
    player_index,
    st.booleans(),
    st.none() | small,
    st.none() | small,
    st.none() | st.tuples(small, small),
    st.none() | positive,
)
seat_parts = st.tuples(small, st.booleans(), st.none() | positive)
match_infos = st.none() | st.builds(
    MatchInfo, st.from_regex(r"[A-Za-z0-9._-]{1,8}", fullmatch=True), positive, st.just(0)
)
table_names = st.lists(
    st.sampled_from(["Tashkent", "3", "Main", "#1", "[x]", "a:b"]), min_size=1, max_size=3
).map(" ".join)


def make_action(parts: tuple[object, ...], players: list[str]) -> Action:
    kind, index, *rest = parts
    player = players[int(index) % len(players)]  # type: ignore[call-overload]
    if kind == "deal":
        return Deal(player, rest[0], 0)  # type: ignore[arg-type]
    if kind == "event":
        return Event(player, rest[0], 0)  # type: ignore[arg-type]
    return Placement(player, rest[0], rest[1], 0)  # type: ignore[arg-type]


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    """A hand as the reader would produce it (every line number 0; see renumbered)."""
    players = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    numbers = draw(st.lists(positive, min_size=len(players), max_size=len(players), unique=True))
    seats = []
    for number, player in zip(numbers, players, strict=True):
        stack, in_fantasyland, cards_count = draw(seat_parts)
        seats.append(
            Seat(number, player, stack, in_fantasyland, cards_count if in_fantasyland else None, 0)
        )

    def actions(most: int) -> tuple[Action, ...]:
        drawn = draw(st.lists(action_parts, max_size=most))
        return tuple(make_action(parts, players) for parts in drawn)

    sections = [
        Section(SectionKind.STREET, k, actions(4), 0) for k in range(1, draw(st.integers(0, 4)) + 1)
    ]
    if draw(st.booleans()):
        fantasyland = Section(SectionKind.FANTASYLAND, None, actions(3), 0)
        sections.insert(draw(st.integers(0, len(sections))), fantasyland)
    showdown = None
    if draw(st.booleans()):
        boards = []
        for index, board in draw(st.lists(board_parts, max_size=4)):
            player = players[index % len(players)]
            top, middle, bottom = board or (None, None, None)
            boards.append(ShowdownBoard(player, top, middle, bottom, 0))
        showdown = Showdown(tuple(boards), 0)
    summary = None
    if draw(st.booleans()):
        entries = []
        for index, fouled, royalties, points, stack, fantasyland_next in draw(
            st.lists(entry_parts, max_size=4)
        ):
            before, after = stack or (None, None)
            player = players[index % len(players)]
            entries.append(
                SummaryEntry(player, fouled, royalties, points, before, after, fantasyland_next, 0)
            )
        summary = Summary(tuple(entries), 0)
    topups = draw(st.lists(st.tuples(player_index, positive), max_size=2))
    return Hand(
        "<text>",
        draw(headers()),
        draw(match_infos),
        TableInfo(draw(table_names), draw(positive), draw(positive), 0),
        tuple(seats),
        tuple(TopUp(players[i % len(players)], amount, 0) for i, amount in topups),
        tuple(sections),
        showdown,
        summary,
    )


_R = TypeVar("_R")


def renumbered(hand: Hand, first_line: int = 1) -> Hand:
    """``hand`` with the line numbers its canonical text gives it, from ``first_line``."""
    line = first_line

    def next_line() -> int:
        nonlocal line
        line += 1
        return line - 1

    def at(record: _R) -> _R:
        return cast(_R, dataclasses.replace(cast(Any, record), line=next_line()))

    header = at(hand.header)
    match = None if hand.match is None else at(hand.match)
    table = at(hand.table)
    seats = tuple(at(seat) for seat in hand.seats)
    topups = tuple(at(topup) for topup in hand.topups)
    sections = []
    for section in hand.sections:
        start = next_line()
        actions = tuple(at(action) for action in section.actions)
        sections.append(dataclasses.replace(section, actions=actions, line=start))
    showdown = summary = None
    if hand.showdown is not None:
        start = next_line()
        boards = tuple(at(board) for board in hand.showdown.boards)
        showdown = Showdown(boards, start)
    if hand.summary is not None:
        start = next_line()
        entries = tuple(at(entry) for entry in hand.summary.entries)
        summary = Summary(entries, start)
    return dataclasses.replace(
        hand,
        header=header,
        match=match,
        table=table,
        seats=seats,
        topups=topups,
        sections=tuple(sections),
        showdown=showdown,
        summary=summary,
    )


# -- round trips ---------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hands(), min_size=1, max_size=3))
def test_reading_what_was_written_gives_the_records_back(generated: list[Hand]) -> None:
    text = write_hands(generated)
    items = list(read_text(text))
    assert all(isinstance(item, Hand) for item in items), [str(i) for i in items]
    expected = []
    line = 1
    for hand in generated:
        expected.append(renumbered(hand, line))
        line += len(list(hand_lines(hand))) + 1  # and the blank line between hands
    assert items == expected


def messy(text: str, rng: random.Random) -> str:
    """``text`` with the freedoms FORMAT.md allows: blanks, tabs, card case, comments, blank
    lines, CRLF and a byte-order mark. The records it reads into are the same."""
    out = []
    for line in text.split("\n"):
        if rng.random() < 0.2:
            out.append(rng.choice(["", "   ", "# note", "\t# another [note]"]))
        if line and rng.random() < 0.5:
            line = re.sub(" ", lambda _: rng.choice([" ", "  ", "\t", " \t "]), line)
            # Inside card lists only: the natural cards, which are case-insensitive.
            line = re.sub(
                r"(?<=[\[ \t])[2-9TJQKA][shdc](?=[\] \t])",
                lambda m: rng.choice([m.group(), m.group().lower(), m.group().upper()]),
                line,
            )
            line = rng.choice(["", " ", "\t"]) + line + rng.choice(["", " ", "\t "])
        out.append(line)
    return rng.choice(["", "\ufeff"]) + rng.choice(["\n", "\r\n"]).join(out)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hands(), min_size=1, max_size=2), st.randoms(use_true_random=False))
def test_writing_what_was_read_gives_the_canonical_text(
    generated: list[Hand], rng: random.Random
) -> None:
    canonical = write_hands(generated)
    assert write_hands(read_text(messy(canonical, rng))) == canonical


def test_the_format_example_is_canonical() -> None:
    text = (DATA / "format_example.txt").read_text(encoding="utf-8")
    assert write_hands(read_path(DATA / "format_example.txt")) == text
    out = io.StringIO()
    write_to(out, read_text(text + "\n" + text))
    assert out.getvalue() == text + "\n" + text


def test_the_canonical_form_of_a_fixture() -> None:
    items = list(read_path(DATA / "variety.txt"))
    text = write_hands(items)
    assert "#" not in text.replace("OFC Hand #", "").replace("Seat #", "").replace("Match #", "")
    assert "\t" not in text and "  " not in text
    assert "[Qs Qd 4c 9h 9d]" in text  # lower-case cards come out canonical
    assert "zoe: points +6, stack 100 -> 106" in text  # points carry their sign
    assert "Big Al: points 0" in text
    assert "Mo:\n" in text  # a summary line with no field
    assert write_hands(read_text(text)) == text


def test_rejected_items_are_skipped() -> None:
    text = (DATA / "format_example.txt").read_text(encoding="utf-8")
    items = list(read_text("garbage\n" + text))
    assert isinstance(items[0], HistoryParseError)
    assert write_hands(items) == text


# -- what cannot be written ----------------------------------------------------------------------


def example() -> Hand:
    (hand,) = read_path(DATA / "format_example.txt")
    assert isinstance(hand, Hand)
    return hand


@pytest.mark.parametrize(
    "name, reason",
    [
        ("bo:b", "it is not"),
        ("bo(b", "it is not"),
        ("bob  b", "blanks would read back as one space"),
        (" bob", "blanks would read back as one space"),
        ("#bob", "a line starting with '#' is a comment"),
        ("OFC Hand", "it is not"),
        ("", "it is not"),
    ],
)
def test_names_that_would_not_read_back_are_refused(name: str, reason: str) -> None:
    hand = example()
    seats = (dataclasses.replace(hand.seats[0], name=name), *hand.seats[1:])
    with pytest.raises(ValueError, match=re.escape(reason)):
        write_hand(dataclasses.replace(hand, seats=seats, sections=(), showdown=None, summary=None))


def test_records_that_cannot_be_written_are_refused() -> None:
    hand = example()
    with pytest.raises(ValueError, match="it is not"):
        write_hand(dataclasses.replace(hand, table=dataclasses.replace(hand.table, name="it's")))
    board = ShowdownBoard("alice", (), None, None, 1)
    with pytest.raises(ValueError, match="all three rows or none"):
        write_hand(dataclasses.replace(hand, showdown=Showdown((board,), 1)))
    entry = SummaryEntry("alice", False, None, None, 5, None, None, 1)
    with pytest.raises(ValueError, match="stack_before and stack_after"):
        write_hand(dataclasses.replace(hand, summary=Summary((entry,), 1)))
    placement = Placement("alice", ((Row.TOP, ()), (Row.TOP, ())), None, 1)
    section = Section(SectionKind.STREET, 1, (placement,), 1)
    with pytest.raises(ValueError, match="row 'top' appears twice"):
        write_hand(dataclasses.replace(hand, sections=(section,)))
    with pytest.raises(ValueError, match="streets out of order"):
        write_hand(dataclasses.replace(hand, sections=(dataclasses.replace(section, number=2),)))
    stranger = dataclasses.replace(entry, player="zed", stack_after=1)
    with pytest.raises(ValueError, match="'zed' is not seated"):
        write_hand(dataclasses.replace(hand, summary=Summary((stranger,), 1)))
