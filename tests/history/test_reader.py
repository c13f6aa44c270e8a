"""The reader: FORMAT.md text into typed records, rejected hands into HistoryParseError."""

from __future__ import annotations

import dataclasses
import io
import pickle
import sys
from dataclasses import FrozenInstanceError
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ofc_audit.game.cards import Card, parse_cards
from ofc_audit.game.record import Row
from ofc_audit.game.ruleset import FantasylandType, Variant
from ofc_audit.history import reader as reader_module
from ofc_audit.history.reader import (
    HistoryParseError,
    read_hands,
    read_path,
    read_stream,
    read_text,
)
from ofc_audit.history.records import (
    Deal,
    Event,
    EventKind,
    Hand,
    Header,
    MatchInfo,
    Placement,
    Seat,
    SectionKind,
    ShowdownBoard,
    Stake,
    SummaryEntry,
    TableInfo,
    TopUp,
)
from tests.support.histories import worked_example_hand

DATA = Path(__file__).resolve().parents[1] / "data"
EXAMPLE = DATA / "format_example.txt"

HEAD = (
    "OFC Hand #H1: Pineapple - 1 points/point - 2026-01-01 10:00:00 UTC\n"
    "Table 'T' 3-max - Seat #1 is the button\n"
    "Seat 1: ann (100)\n"
    "Seat 2: Big Al (100)\n"
)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def one_hand(text: str) -> Hand:
    items = list(read_text(text))
    assert len(items) == 1, items
    item = items[0]
    assert isinstance(item, Hand), str(item)
    return item


def one_error(text: str) -> HistoryParseError:
    items = list(read_text(text))
    assert len(items) == 1, items
    item = items[0]
    assert isinstance(item, HistoryParseError), item
    return item


def column_of(line: str, token: str) -> int:
    return line.index(token) + 1


# -- the worked example of FORMAT.md -----------------------------------------------------------


def test_format_example_reads_into_the_records_it_states() -> None:
    (hand,) = list(read_path(EXAMPLE))
    assert isinstance(hand, Hand)
    assert hand.file == str(EXAMPLE)
    assert hand.header == Header(
        "PD-1001",
        Variant.PINEAPPLE,
        FantasylandType.PROGRESSIVE,
        Stake(Decimal("0.10"), "EUR", "0.10"),
        "2026-11-29 21:04:11 UTC",
        1,
    )
    assert hand.header.stake.is_money
    assert hand.match == MatchInfo("M-77", 2, 2)
    assert hand.table == TableInfo("Tashkent 3", 3, 3, 3)
    assert hand.seats == (
        Seat(1, "alice", 250, False, None, 4),
        Seat(2, "bob", 180, False, None, 5),
        Seat(3, "carol", 300, True, None, 6),
    )
    assert hand.topups == ()
    kinds = [(s.kind, s.number, s.line) for s in hand.sections]
    assert kinds == [(SectionKind.FANTASYLAND, None, 7)] + [
        (SectionKind.STREET, k, 10 + 5 * (k - 1)) for k in range(1, 6)
    ]
    fantasyland = hand.sections[0].actions
    assert fantasyland[0] == Deal("carol", cards("As Ac Kh 8s 8c 8d 6h 5h Jh Th 8h 4h 3h Kc"), 8)
    assert fantasyland[1] == Placement(
        "carol",
        (
            (Row.TOP, cards("As Ac Kh")),
            (Row.MIDDLE, cards("8s 8c 8d 6h 5h")),
            (Row.BOTTOM, cards("Jh Th 8h 4h 3h")),
        ),
        cards("Kc"),
        9,
    )
    street2 = hand.sections[2].actions
    assert street2[1] == Placement(
        "alice", ((Row.MIDDLE, cards("3c")), (Row.BOTTOM, cards("3d"))), cards("Js"), 17
    )
    assert street2[3] == Placement("bob", ((Row.BOTTOM, cards("4d 4s")),), cards("2s"), 19)
    street1 = hand.sections[1].actions
    assert street1[1].discards is None  # type: ignore[union-attr]
    assert sum(len(s.actions) for s in hand.sections) == 2 + 5 * 4
    assert hand.showdown is not None and hand.showdown.line == 35
    assert hand.showdown.boards[1] == ShowdownBoard(
        "alice", cards("Ah 6c 6d"), cards("Kd 2h 3c Ks 3s"), cards("7c 7s 3d 7h 7d"), 37
    )
    assert hand.summary is not None and hand.summary.line == 39
    assert hand.summary.entries == (
        SummaryEntry("alice", False, 11, -6, 250, 244, None, 40),
        SummaryEntry("bob", False, 13, -2, 180, 178, 14, 41),
        SummaryEntry("carol", False, 15, 8, 300, 308, None, 42),
    )


def test_fixture_with_every_line_production_reads_without_rejection() -> None:
    lines = (DATA / "variety.txt").read_text(encoding="utf-8").split("\n")

    def line_of(text: str, start: int = 0) -> int:
        return lines.index(text, start) + 1

    items = list(read_path(DATA / "variety.txt"))
    assert [type(i).__name__ for i in items] == ["Hand"] * 3
    first, second, third = items
    assert isinstance(first, Hand) and isinstance(second, Hand) and isinstance(third, Hand)
    assert first.header.timestamp == "2026-12-01 18:00:00 +05:00"
    assert first.header.fantasyland is FantasylandType.NONE
    assert first.table.name == "Vilnius Main"  # a tab inside a name reads as one space
    assert first.topups == (TopUp("zoe", 5, line_of("zoe tops up 5")),)
    events = [a for s in first.sections for a in s.actions if isinstance(a, Event)]
    assert [e.kind for e in events] == [
        EventKind.TIMES_OUT,
        EventKind.USES_TIME_BANK,
        EventKind.DISCONNECTS,
        EventKind.RECONNECTS,
    ]
    placements = [a for a in first.sections[2].actions if isinstance(a, Placement)]
    assert placements[-1].discards == ()  # "discards []" is not "no discards part"
    assert first.showdown is not None and first.showdown.boards[1].mucked
    assert first.summary is not None and first.summary.entries[0].fouled
    assert second.header.variant is Variant.JOKER_PINEAPPLE
    assert second.header.stake == Stake(Decimal("0.25"), "USD", "0.25")
    assert second.seats[1] == Seat(
        2, "zoe", 106, True, 15, line_of("Seat 2: zoe (106) in Fantasyland (15 cards)")
    )
    dealt = second.sections[0].actions[0]
    assert isinstance(dealt, Deal) and dealt.cards[0].is_joker and dealt.cards[1].is_hidden
    assert second.summary is not None
    assert second.summary.entries[1] == SummaryEntry(
        "Mo", False, None, None, None, None, None, line_of("Mo:")
    )
    assert third.header.fantasyland is FantasylandType.TOURNAMENT
    assert third.showdown is None


# -- lexical freedoms ----------------------------------------------------------------------------


def test_blanks_tabs_case_crlf_bom_and_comments_do_not_change_the_records() -> None:
    canonical = EXAMPLE.read_text(encoding="utf-8")
    messy_lines = []
    for number, line in enumerate(canonical.split("\n")):
        if "[" in line:
            line = line.lower().replace("fantasyland", "Fantasyland")
            line = line.replace("[as", "[As")  # keywords stay case-sensitive; cards do not
            line = (
                line.replace(" places ", " \t places  ")
                .replace("] ", "]   ")
                .replace("[", "[ ")
                .replace("is dealt", "is\tdealt")
            )
            for word in ("top", "middle", "bottom", "discards"):
                line = line.replace(word.lower(), word)
        if number % 7 == 3:
            messy_lines.append("# a comment between lines")
            messy_lines.append("   \t ")
        messy_lines.append("  " + line + " \t")
    messy = "\ufeff" + "\r\n".join(messy_lines)
    (expected,) = read_path(EXAMPLE)
    (got,) = read_text(messy)
    assert isinstance(got, Hand), str(got)
    # The same records but for the line numbers that the inserted comments moved.
    assert without_lines(got) == without_lines(expected)
    alice = "  alice: royalties 11, points -6, stack 250 -> 244 \t"
    assert got.summary is not None
    assert got.summary.entries[0].line == messy_lines.index(alice) + 1


def without_lines(record: object) -> object:
    """``record`` with every line number (and the file) set to 0, recursively."""
    if isinstance(record, tuple):
        return tuple(without_lines(item) for item in record)
    if isinstance(record, Card):
        return record  # interned: equal cards are the same object
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        changes = {
            f.name: without_lines(getattr(record, f.name))
            for f in dataclasses.fields(record)
            if f.name not in ("line", "file")
        }
        changes.update(
            {f.name: 0 for f in dataclasses.fields(record) if f.name in ("line", "file")}
        )
        return dataclasses.replace(record, **changes)
    return record


def test_names_normalise_runs_of_blanks_to_one_space() -> None:
    text = HEAD.replace("Big Al", "Big \t  Al") + (
        "*** STREET 1 ***\nBig  Al is dealt [Ah]\nBig\tAl places top [Ah]\n"
    )
    hand = one_hand(text)
    assert hand.seats[1].name == "Big Al"
    assert [a.player for a in hand.sections[0].actions] == ["Big Al", "Big Al"]


def test_names_may_hold_spaces_keywords_and_punctuation() -> None:
    names = ["Al places", "x is dealt", "top", "Seat 9", "O'Neil, jr.", "#1 fan", "Mo -> 5"]
    seats = "".join(f"Seat {i}: {name} (10)\n" for i, name in enumerate(names, start=1))
    lines = [f"{name} is dealt [Ah]\n{name} places top [Ah]\n" for name in names if name[0] != "#"]
    text = (
        "OFC Hand #N: Classic - 1 points/point - 2026-01-01 10:00:00 UTC\n"
        "Table 'T' 9-max - Seat #1 is the button\n" + seats + "*** STREET 1 ***\n" + "".join(lines)
    )
    hand = one_hand(text)
    assert [s.name for s in hand.seats] == names
    assert [a.player for a in hand.sections[0].actions] == [
        n for n in names if n[0] != "#" for _ in (1, 2)
    ]


def test_a_stake_in_points_and_a_header_without_fantasyland() -> None:
    hand = one_hand(HEAD)
    assert hand.header.stake == Stake(Decimal(1), "points", "1")
    assert not hand.header.stake.is_money
    assert hand.header.fantasyland is FantasylandType.NONE
    assert hand.sections == () and hand.showdown is None and hand.summary is None


def test_summary_fields_are_each_optional_in_their_fixed_order() -> None:
    fields = [
        ("fouled", "fouled"),
        ("royalties", "royalties 3"),
        ("points", "points -4"),
        ("stack", "stack 10 -> 6"),
        ("next", "Fantasyland next (15 cards)"),
    ]
    for mask in range(1 << len(fields)):
        chosen = [text for bit, (_, text) in enumerate(fields) if mask >> bit & 1]
        hand = one_hand(HEAD + "*** SUMMARY ***\nann: " + ", ".join(chosen) + "\n")
        assert hand.summary is not None
        (entry,) = hand.summary.entries
        present = {key for bit, (key, _) in enumerate(fields) if mask >> bit & 1}
        assert entry.fouled == ("fouled" in present)
        assert entry.royalties == (3 if "royalties" in present else None)
        assert entry.points == (-4 if "points" in present else None)
        assert (entry.stack_before, entry.stack_after) == (
            (10, 6) if "stack" in present else (None, None)
        )
        assert entry.fantasyland_next == (15 if "next" in present else None)


# -- rejections: where and what ------------------------------------------------------------------


def rejected(body: str, bad_line: str, head: str = HEAD) -> HistoryParseError:
    """The error for a hand made of ``head`` + ``body`` in which ``bad_line`` is rejected."""
    error = one_error(head + body)
    lines = (head + body).split("\n")
    assert error.line == lines.index(bad_line) + 1, str(error)
    assert error.text == bad_line
    assert error.entry_line == 1
    return error


def test_a_bad_card_is_reported_at_its_column() -> None:
    bad = "ann is dealt [Ah Ax Kd]"
    error = rejected(f"*** STREET 1 ***\n{bad}\n", bad)
    assert error.column == column_of(bad, "Ax")
    assert error.message == "'Ax' is not a card: the suit must be one of s h d c (either case)"
    rendered = str(error).split("\n")
    assert rendered[0] == f"<text>:6:{error.column}: {error.message}"
    assert rendered[1] == bad
    assert rendered[2] == " " * (error.column - 1) + "^"


ROW_NEXT = "a row (top, middle or bottom), ', discards [...]' or end of line after ']'"


@pytest.mark.parametrize(
    "bad, token, message",
    [
        (
            "ann is dealt Ah Kd",
            "Ah",
            "expected a card list '[' ... ']' after 'is dealt', found 'Ah'",
        ),
        ("ann is dealt [Ah Kd", None, "expected a card or ']' to close the card list opened"),
        ("ann is dealt [AhKd]", "AhKd", "'AhKd' is not a card"),
        ("ann is dealt [10h]", "10h", "'10h' is not a card: expected two characters"),
        ("ann is dealt [1h]", "1h", "(ten is T)"),
        ("ann places top [Ah] bottom Kd", "Kd", "expected a card list '[' ... ']' after 'bottom'"),
        ("ann places top [Ah] top [Kd]", "top [Kd]", "row 'top' appears twice in one places line"),
        ("ann places top [Ah], [Kd]", "[Kd]", "expected 'discards' after ','"),
        ("ann places [Ah]", "[Ah]", "after 'places'"),
        ("ann times out now", "now", "expected end of line after 'times out', found 'now'"),
        ("ann is dealt [Ah] extra", "extra", "expected end of line after ']'"),
        ("bob is dealt [Ah]", "bob", "'bob' is not seated in this hand (seats: 'ann', 'Big Al')"),
        ("*** STREET 2 ***", "2", "streets out of order: expected STREET 1, found STREET 2"),
        ("*** STRET 1 ***", "STRET", "expected"),
        ("ann is delt [Ah]", "delt", "expected 'dealt' after 'is', found 'delt'"),
        (
            "Big Al plaaces top [Ah]",
            "plaaces",
            "expected 'is dealt', 'places' or an event ('times out', 'uses time bank', "
            "'disconnects', 'reconnects', 'sits out' or 'returns') after 'Big Al', found 'plaa",
        ),
        ("ann times", None, "expected 'out' after 'times', found the end of the line"),
        ("ann uses time  bonk", "bonk", "expected 'bank' after 'time', found 'bonk'"),
        ("ann places top [Ah] midle [Kd]", "midle", f"expected {ROW_NEXT}, found 'midle'"),
        ("ann places top [Ah] [Kd]", "[Kd]", f"expected {ROW_NEXT}, found '['"),
        ("ann places top [Ah], discards [Kd] x", "x", "expected end of line after ']'"),
        (
            "ann places bottom [Ah] discards [Kd]",
            "discards",
            "expected ', discards [...]' (with its comma) after ']', found 'discards'",
        ),
    ],
)
def test_street_line_errors_name_what_was_expected_and_where(
    bad: str, token: str | None, message: str
) -> None:
    body = f"*** STREET 1 ***\n{bad}\n" if not bad.startswith("***") else f"{bad}\n"
    error = rejected(body, bad)
    assert message in error.message, error.message
    expected_column = len(bad) + 1 if token is None else column_of(bad, token)
    assert error.column == expected_column, str(error)


SECTIONS = "a section name after '***' (STREET k, FANTASYLAND, SHOWDOWN or SUMMARY)"
AFTER_SHOWDOWN = "'SUMMARY' after '***' (only SUMMARY may follow SHOWDOWN)"
SHOWDOWN_BODY = "*** STREET 1 ***\nann is dealt [Ah]\n*** SHOWDOWN ***\nann: mucked\n"


@pytest.mark.parametrize(
    "before, bad, column, message",
    [
        # A section name mistyped: the names it may be, wherever the hand is.
        ("", "*** STRET 1 ***", 5, f"expected {SECTIONS}, found 'STRET'"),
        ("*** STREET 1 ***\n", "*** SHOWDWN ***", 5, f"expected {SECTIONS}, found 'SHOWDWN'"),
        ("", "  *** FANTASY ***", 7, f"expected {SECTIONS}, found 'FANTASY'"),
        ("", "***", 4, f"expected {SECTIONS}, found the end of the line"),
        (
            "",
            "*** street 1 ***",
            5,
            f"expected {SECTIONS}, found 'street' (section names are upper case)",
        ),
        # After SHOWDOWN only SUMMARY may come: a player's NAME may hold '*' and blanks, and
        # the message asked for the ':' of a showdown line.
        (SHOWDOWN_BODY, "*** SUMARY ***", 5, f"expected {AFTER_SHOWDOWN}, found 'SUMARY'"),
        (
            SHOWDOWN_BODY,
            "*** summary",
            5,
            f"expected {AFTER_SHOWDOWN}, found 'summary' (section names are upper case)",
        ),
        (SHOWDOWN_BODY, "*** SUMMARY **", 13, "expected '***' after 'SUMMARY', found '**'"),
        # A known name with the rest wrong is explained by the header's own grammar.
        ("", "*** STREET 1 **", 14, "expected '***' after '1', found '**'"),
        ("", "*** STREET one ***", 12, "expected a whole number >= 1 after 'STREET'"),
        # Where no section may stand at all.
        (
            SHOWDOWN_BODY + "*** SUMMARY ***\nann: royalties 0, points 0, stack 100 -> 100\n",
            "*** EXTRA ***",
            1,
            "a section header cannot stand in SUMMARY; expected a summary line",
        ),
    ],
)
def test_a_mistyped_section_header_says_which_sections_may_stand_there(
    before: str, bad: str, column: int, message: str
) -> None:
    error = rejected(f"{before}{bad}\n", bad)
    assert error.message.startswith(message), error.message
    assert error.column == column, str(error)


@pytest.mark.parametrize(
    "bad, token, message",
    [
        ("ann: tp [Ah]", "tp", "expected 'top [...] middle [...] bottom [...]' or 'mucked'"),
        ("ann: muck", "muck", "or 'mucked' after ':', found 'muck'"),
        ("ann: mucked [Ah]", "[Ah]", "expected end of line after 'mucked'"),
        ("ann: top [Ah Kd Qc] midle [2c]", "midle", "expected 'middle' after ']', found 'midle'"),
    ],
)
def test_a_showdown_line_error_names_both_forms_of_the_line(
    bad: str, token: str, message: str
) -> None:
    error = rejected(f"*** STREET 1 ***\nann is dealt [Ah]\n*** SHOWDOWN ***\n{bad}\n", bad)
    assert message in error.message, error.message
    assert error.column == column_of(bad, token), str(error)


FIELD = "a summary field (fouled, royalties, points, stack, Fantasyland next)"


@pytest.mark.parametrize(
    "bad, token, message",
    [
        ("ann: royalty 3", "royalty", f"expected {FIELD} or end of line after ':', found 'royal"),
        ("ann: royalties 3, pts 4", "pts", f"expected {FIELD} after ',', found 'pts'"),
        # A trailing comma is an error at the comma, which the message does not ask for.
        (
            "ann: royalties 3,",
            ",",
            f"a ',' with no field after it: expected {FIELD}, found the end of the line",
        ),
        ("ann: royalties 3, 4", ",", f"a ',' with no field after it: expected {FIELD}, found '4'"),
        (
            "ann: points -4, royalties 3",
            "royalties",
            "summary field 'royalties' is out of order or repeated: the fields go fouled, "
            "royalties, points, stack, Fantasyland next, each at most once",
        ),
        ("ann: stack 10 => 6", "=>", "expected '->' after '10', found '=>'"),
    ],
)
def test_a_summary_line_error_names_the_fields(bad: str, token: str, message: str) -> None:
    error = rejected(f"*** SUMMARY ***\n{bad}\n", bad)
    assert error.message.startswith(message), error.message
    assert error.column == column_of(bad, token), str(error)


def test_a_player_line_that_begins_with_stars_is_explained_as_a_player_line() -> None:
    # A NAME may begin with '*': a line that neither ends with '*' nor names a section is
    # not taken for a header.
    head = HEAD.replace("Seat 2: Big Al (100)", "Seat 2: ***al (100)")
    bad = "***al is delt [Ah]"
    error = rejected(f"*** STREET 1 ***\n{bad}\n", bad, head=head)
    assert "section name" not in error.message, error.message


@pytest.mark.parametrize(
    "head_line, token, message",
    [
        (
            "OFC Hand #H1: Pineapple, progresive Fantasyland - 1 points/point - 2026-01-01 "
            "10:00:00 UTC",
            "progresive",
            "expected a Fantasyland type",
        ),
        ("OFC Hand #H1: Omaha - 1 points/point - 2026-01-01 10:00:00 UTC", "Omaha", "variant"),
        ("OFC Hand #H1: Classic - 1 point/point - 2026-01-01 10:00:00 UTC", "point/", "currency"),
        ("OFC Hand #H1: Classic - 0.10 eur/point - 2026-01-01 10:00:00 UTC", "eur", "currency"),
        ("OFC Hand H1: Classic - 1 points/point - 2026-01-01 10:00:00 UTC", "H1", "hand id"),
        ("OFC Hand #H1: Classic - 1 points/point - 2026-01-01 10:00 UTC", "10:00", "a time"),
        ("OFC Hand #H1: Classic - 1 points/point - 2026-01-01 10:00:00", None, "time zone"),
    ],
)
def test_header_errors(head_line: str, token: str | None, message: str) -> None:
    error = rejected("", head_line, head=head_line + "\n" + HEAD.split("\n", 1)[1])
    assert message in error.message, error.message
    assert error.column == (len(head_line) + 1 if token is None else column_of(head_line, token))


@pytest.mark.parametrize(
    "bad, token, message",
    [
        ("Seat 3: ann (50)", "ann", "'ann' is listed twice (first on line 3)"),
        ("Seat 1: cid (50)", "1", "seat 1 is listed twice (first on line 3)"),
        ("Seat 3: cid (5O)", "O", "expected ')' after '5', found 'O'"),
        ("Seat 3: cid (O5)", "O5", "expected a whole number (optionally signed) after '('"),
        ("Seat 3: cid (50) in Fantasyland (14 card)", "card)", "expected 'cards'"),
        ("Seat 0: cid (50)", "0", "expected a whole number >= 1"),
        ("Big Al tops up 0", "0", "expected a whole number > 0"),
        ("cid tops up 5", "cid", "'cid' is not seated"),
    ],
)
def test_seat_and_top_up_errors(bad: str, token: str, message: str) -> None:
    error = rejected(f"{bad}\n", bad)
    assert message in error.message, error.message
    assert error.column == column_of(bad, token)


def test_a_row_placed_twice_points_at_the_second() -> None:
    bad = "ann places top [Ah] middle [Kd] top [Qs]"
    error = rejected(f"*** STREET 1 ***\n{bad}\n", bad)
    assert error.column == bad.rindex("top") + 1
    assert error.kind == "context"


@pytest.mark.parametrize(
    "body, bad, message",
    [
        (
            "*** FANTASYLAND ***\n*** STREET 1 ***\n*** FANTASYLAND ***\n",
            "*** FANTASYLAND ***",
            "a second FANTASYLAND section",
        ),
        ("*** SHOWDOWN ***\n*** SHOWDOWN ***\n", "*** SHOWDOWN ***", "cannot stand in SHOWDOWN"),
        ("*** SUMMARY ***\n*** SUMMARY ***\n", "*** SUMMARY ***", "cannot stand in SUMMARY"),
        ("*** SUMMARY ***\n*** SHOWDOWN ***\n", "*** SHOWDOWN ***", "cannot stand in SUMMARY"),
        ("*** SHOWDOWN ***\n*** STREET 1 ***\n", "*** STREET 1 ***", "cannot stand in SHOWDOWN"),
        ("*** SUMMARY ***\nann is dealt [Ah]\n", "ann is dealt [Ah]", "cannot stand in SUMMARY"),
        ("*** SHOWDOWN ***\nann is dealt [Ah]\n", "ann is dealt [Ah]", "a deal line"),
        ("*** STREET 1 ***\nann: mucked\n", "ann: mucked", "cannot stand in a STREET"),
        ("*** STREET 1 ***\nann tops up 5\n", "ann tops up 5", "a top-up line"),
        ("*** STREET 1 ***\nSeat 3: cid (5)\n", "Seat 3: cid (5)", "a seat line"),
        ("ann is dealt [Ah]\n", "ann is dealt [Ah]", "cannot stand after the seat lines"),
        ("*** SUMMARY ***\nann: points 1, royalties 2\n", "ann: points 1, royalties 2", "order"),
        ("*** SUMMARY ***\nann: points 1,\n", "ann: points 1,", "a ',' with no field after it"),
        ("*** SHOWDOWN ***\nann: top [Ah] bottom [Kd]\n", "ann: top [Ah] bottom [Kd]", "'middle'"),
    ],
)
def test_lines_in_the_wrong_place_reject_the_hand(body: str, bad: str, message: str) -> None:
    lines = (HEAD + body).split("\n")
    error = one_error(HEAD + body)
    # The offending line is the last occurrence (the first of a repeated header is fine).
    assert error.line == len(lines) - lines[::-1].index(bad), str(error)
    assert message in error.message, error.message


def test_the_structure_lines_are_required() -> None:
    no_table = "OFC Hand #H1: Classic - 1 points/point - 2026-01-01 10:00:00 UTC\nSeat 1: ann (1)\n"
    error = one_error(no_table)
    assert (error.line, error.column) == (2, 1)
    assert "a seat line 'Seat S: NAME (STACK)' cannot stand after the header line" in error.message
    header_only = no_table.split("\n")[0] + "\n"
    error = one_error(header_only)
    assert (error.line, error.column) == (1, len(header_only))
    assert "the hand ends here without a table line" in error.message
    no_seats = HEAD.split("Seat 1")[0]
    error = one_error(no_seats)
    assert error.line == 2 and "without a seat line" in error.message
    error = one_error(no_seats + "*** STREET 1 ***\n")
    assert error.line == 3 and "expected a seat line" in error.message


def test_text_before_the_first_header_is_one_rejected_entry() -> None:
    text = "\n# fine\nnot a hand\nstill not\n\n" + HEAD
    items = list(read_text(text))
    assert [type(i).__name__ for i in items] == ["HistoryParseError", "Hand"]
    error = items[0]
    assert isinstance(error, HistoryParseError)
    assert (error.line, error.column, error.entry_line) == (3, 1, 3)
    assert "text before the first hand" in error.message
    assert items[1].line == 6


def test_a_bad_hand_never_hides_the_good_ones() -> None:
    good = EXAMPLE.read_text(encoding="utf-8")
    bad = good.replace("bob is dealt [Jc Jd Tc]", "bob is dealt [Jc Jd Tx]")
    text = good + "\n" + bad + "\n" + good.replace("#PD-1001", "#PD-1003")
    items = list(read_text(text))
    assert [type(i).__name__ for i in items] == ["Hand", "HistoryParseError", "Hand"]
    error = items[1]
    assert isinstance(error, HistoryParseError)
    first_line_of_bad = good.count("\n") + 2
    assert error.entry_line == first_line_of_bad
    assert error.line == first_line_of_bad + bad.split("\n").index("bob is dealt [Jc Jd Tx]")
    last = items[2]
    assert isinstance(last, Hand) and last.hand_id == "PD-1003"
    assert last.line == first_line_of_bad + bad.count("\n") + 1


def test_bytes_that_are_not_utf8_reject_only_their_hand() -> None:
    good = EXAMPLE.read_bytes()
    bad = good.replace(b"Seat 2: bob (180)", b"Seat 2: b\xffb (180)")
    items = list(read_stream(io.BytesIO(good + b"\n" + bad + b"\n" + good), "raw.txt"))
    assert [type(i).__name__ for i in items] == ["Hand", "HistoryParseError", "Hand"]
    error = items[1]
    assert isinstance(error, HistoryParseError)
    assert error.kind == "encoding"
    assert error.line == good.count(b"\n") + 2 + 4
    assert error.column == len("Seat 2: b") + 1
    assert "0xFF" in error.message and error.text == "Seat 2: b\ufffdb (180)"


@pytest.mark.parametrize(
    "name, message",
    [
        # A name saved in Windows-1252 by a Windows program: the letter and the remedy.
        (
            b"Jos\xe9",
            "byte 0xE9 is not UTF-8 (a history is UTF-8 text; in Windows-1252 it is '\u00e9', "
            "as in 'Jos\u00e9': save the file as UTF-8)",
        ),
        (
            b"\xc9lise",
            "byte 0xC9 is not UTF-8 (a history is UTF-8 text; in Windows-1252 it is '\u00c9', "
            "as in '\u00c9lise': save the file as UTF-8)",
        ),
        # Not a letter there, or one of a run of bad bytes (UTF-8 mangled): no guess.
        (b"b\xb0b", "byte 0xB0 is not UTF-8 (a history is UTF-8 text)"),
        (b"b\x81b", "byte 0x81 is not UTF-8 (a history is UTF-8 text)"),
        (b"Jo\xc3\xa9\xa9", "byte 0xA9 is not UTF-8 (a history is UTF-8 text)"),
    ],
)
def test_a_byte_that_reads_as_a_windows_1252_letter_says_so(name: bytes, message: str) -> None:
    text = HEAD.encode().replace(b"Seat 2: Big Al", b"Seat 2: " + name)
    (error,) = list(read_stream(io.BytesIO(text), "x.txt"))
    assert isinstance(error, HistoryParseError) and error.kind == "encoding"
    assert error.message == message


def test_a_bad_byte_in_a_comment_still_rejects_its_hand_but_not_the_others() -> None:
    text = HEAD.encode() + "# caf\u00e9 ok\n".encode() + b"# caf\xe9\n" + HEAD.encode()
    items = list(read_stream(io.BytesIO(text), "x.txt"))
    assert [type(i).__name__ for i in items] == ["HistoryParseError", "Hand"]
    assert items[0].line == 6


def test_a_bad_byte_in_a_line_that_straddles_two_read_blocks_is_found() -> None:
    # The reader reads a block of characters at a time; a line cut by the block's end is
    # finished with the next block, and a bad byte in its first part must still count.
    room = reader_module._BLOCK - 50 - len(HEAD)  # the bad line starts 50 characters before
    pad = "# " + "x" * 60 + "\n"
    pad = pad * (room // len(pad))
    pad += "#" * (room - len(pad) - 1) + "\n"
    data = (HEAD + pad).encode() + b"# a bad byte \xff here" + b"y" * 200 + b"\n"
    assert len(HEAD + pad) + len("# a bad byte ") < reader_module._BLOCK < len(data)
    items = list(read_stream(io.BytesIO(data + HEAD.encode()), "x.txt"))
    assert [type(i).__name__ for i in items] == ["HistoryParseError", "Hand"]
    error = items[0]
    assert isinstance(error, HistoryParseError) and error.kind == "encoding"
    assert error.line == (HEAD + pad).count("\n") + 1


def test_a_header_line_always_begins_a_new_hand() -> None:
    # Even one the grammar rejects: the rejected entry then runs to the next header.
    text = HEAD + "OFC Hand #bad header\nSeat 9: x (1)\n" + HEAD
    items = list(read_text(text))
    assert [type(i).__name__ for i in items] == ["Hand", "HistoryParseError", "Hand"]
    assert items[1].line == 5 and items[1].entry_line == 5  # type: ignore[union-attr]


def test_errors_pickle_and_render_tabs_under_the_caret() -> None:
    bad = "\tann\tis dealt [Ah\tAx]"
    error = one_error(HEAD + "*** STREET 1 ***\n" + bad + "\n")
    assert error.column == column_of(bad, "Ax")
    caret = str(error).split("\n")[2]
    assert caret == "\t   \t            \t^"
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.file, copy.line, copy.column, copy.message, copy.text, copy.kind) == (
        error.file,
        error.line,
        error.column,
        error.message,
        error.text,
        error.kind,
    )


# -- paths, folders, standard input, streaming ------------------------------------------------


def test_read_hands_takes_files_folders_and_standard_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.txt").write_text(HEAD.replace("#H1", "#B2"), encoding="utf-8")
    (tmp_path / "a.txt").write_text(HEAD.replace("#H1", "#A1"), encoding="utf-8")
    (tmp_path / "notes.md").write_text("not a history", encoding="utf-8")
    single = tmp_path / "single.log"
    single.write_text(HEAD.replace("#H1", "#S1"), encoding="utf-8")
    stdin = io.TextIOWrapper(io.BytesIO(HEAD.replace("#H1", "#IN").encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    items = list(read_hands([tmp_path / "b", str(single), "-", tmp_path]))
    assert [(h.hand_id, h.file) for h in items] == [  # type: ignore[union-attr]
        ("B2", str(tmp_path / "b" / "2.txt")),
        ("S1", str(single)),
        ("IN", "-"),
        # A folder: every history under it, sorted by path, whatever its name; notes.md
        # is not one, and b/2.txt and single.log were read already: each file once.
        ("A1", str(tmp_path / "a.txt")),
    ]


class CountingStream(io.RawIOBase):
    """An endless history: hands made on demand, counting the bytes handed out."""

    def __init__(self) -> None:
        self.served = 0
        self.hand = 0
        self.pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        while len(self.pending) < len(buffer):
            self.hand += 1
            self.pending += EXAMPLE.read_bytes().replace(b"PD-1001", b"PD-%d" % self.hand)
        size = len(buffer)
        buffer[:size] = self.pending[:size]
        self.pending = self.pending[size:]
        self.served += size
        return size


def test_the_reader_streams_without_reading_ahead() -> None:
    stream = CountingStream()
    hands = read_stream(io.BufferedReader(cast(Any, stream)), "endless")
    for count, hand in enumerate(hands, start=1):
        assert isinstance(hand, Hand) and hand.hand_id == f"PD-{count}"
        if count == 2000:
            break
    # Two thousand hands later the reader has read about as much as it has yielded: a
    # bounded buffer ahead, not the (endless) file.
    size = len(EXAMPLE.read_bytes())
    assert stream.served < 2000 * size + 512 * 1024


# -- the records the reader builds by the thousand ---------------------------------------------


def test_records_built_by_position_are_the_same_frozen_records() -> None:
    # The reader builds records positionally with their classes (no separate constructor).
    deal = Deal("ann", cards("Ah Kd"), 3)
    assert deal == Deal(player="ann", cards=cards("Ah Kd"), line=3)
    assert hash(deal) == hash(Deal(player="ann", cards=cards("Ah Kd"), line=3))
    assert repr(deal) == repr(Deal(player="ann", cards=cards("Ah Kd"), line=3))
    with pytest.raises(FrozenInstanceError):
        deal.line = 4  # type: ignore[misc]
    entry = SummaryEntry("ann", True, 1, 2, 3, 4, None, 9)
    assert entry == SummaryEntry(
        player="ann", fouled=True, royalties=1, points=2, stack_before=3, stack_after=4,
        fantasyland_next=None, line=9,
    )


def test_jokers_and_hidden_cards_read_as_card_parse_reads_them() -> None:
    hand = one_hand(HEAD + "*** STREET 1 ***\nann is dealt [jk1 Jk2 JK1 ?? aH]\n")
    (deal,) = hand.sections[0].actions
    assert isinstance(deal, Deal)
    assert deal.cards == tuple(Card.parse(t) for t in ["JK1", "JK2", "JK1", "??", "Ah"])
    error = one_error(HEAD + "*** STREET 1 ***\nann is dealt [JK3]\n")
    assert error.message == "'JK3' is not a card: the jokers are JK1 and JK2"


def test_the_examples_in_the_docstrings_hold() -> None:
    import doctest

    from ofc_audit.history import writer

    for module in (reader_module, writer):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


# -- card lists ----------------------------------------------------------------------------------


def cards_as_parsed(text: str) -> tuple[Card, ...] | None:
    """The cards of a card list ``[...]`` by Card.parse, or None when a token is no card."""
    try:
        return tuple(Card.parse(token) for token in text[1:-1].split())
    except ValueError:
        return None


def cards_as_read(text: str) -> tuple[Card, ...] | None:
    try:
        return reader_module._cards(text)
    except KeyError:
        return None


@pytest.mark.parametrize(
    "text",
    [
        "[Ah Kd 7c 2s]", "[ Ah Kd 7c]", "[Ah Kd 7c ]", "[ Ah Kd 7c ]", "[Ah\tKd  7c]",
        "[JK1 ?? ah]", "[Ah Kd Kx]", "[Ah Kd [7c]", "[AhKd 7c]", "[ ]", "[]", "[        ]",
        "[Ah        ]", "[       Ah]", "[Ah]]", "[[Ah Kd]",
    ],
)  # fmt: skip
def test_card_lists_read_as_card_parse_reads_their_tokens(text: str) -> None:
    assert cards_as_read(text) == cards_as_parsed(text)


@given(st.text(" \tAaKkhdJ12?x", max_size=16).map(lambda inner: f"[{inner}]"))
def test_any_card_list_reads_as_card_parse_reads_its_tokens(text: str) -> None:
    assert cards_as_read(text) == cards_as_parsed(text)


def test_a_reading_abandoned_after_its_stream_was_closed_closes_quietly() -> None:
    # A runner that stops leaves a reading half done; its caller may close the file first.
    text = "".join(worked_example_hand(f"R-{i}", "Table R") for i in range(2))
    stream = io.BytesIO(text.encode("utf-8"))
    reading = reader_module.read_stream(stream, "r.txt")
    first = next(reading)
    assert not isinstance(first, reader_module.HistoryParseError)
    stream.close()
    reading.close()  # was: ValueError (I/O operation on closed file) from the detach
    open_stream = io.BytesIO(text.encode("utf-8"))
    again = reader_module.read_stream(open_stream, "r.txt")
    next(again)
    again.close()
    assert not open_stream.closed  # an open stream is handed back to its owner, open
