"""The reader's section patterns (grammar.section_regex): whatever they read, the line
patterns read the same way, line for line; what they do not take, the line patterns read."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_audit.game.cards import Card
from ofc_audit.game.record import Row
from ofc_audit.history import grammar, reader
from ofc_audit.history.reader import HistoryParseError, read_text
from ofc_audit.history.records import Deal, Hand, Placement

ROOT = Path(__file__).resolve().parents[2]
HISTORIES = sorted((ROOT / "sample_histories").rglob("*.txt")) + sorted(
    (ROOT / "tests" / "data").glob("*.txt")
)

HEAD = (
    "OFC Hand #1: Pineapple - 1 points/point - 2026-01-01 10:00:00 UTC\n"
    "Table 'T' 3-max - Seat #1 is the button\n"
    "Seat 1: ann (100)\n"
    "Seat 2: Big Al (100)\n"
)


def as_text(items: list[Hand | HistoryParseError]) -> list[str]:
    return [
        f"{item.line}:{item.column}:{item.kind}:{item.entry_line}: {item.message} {item.text!r}"
        if isinstance(item, HistoryParseError)
        else repr(item)
        for item in items
    ]


def read_both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """What the reader reads of ``text``, and what it reads with line patterns only."""
    fast = as_text(list(read_text(text)))
    with monkeypatch.context() as patch:
        patch.setattr(reader, "_SECTION_AT", {})
        patch.setattr(reader, "_SEATS_AT", None)
        lines_only = as_text(list(read_text(text)))
    return fast, lines_only


def sections_read(text: str) -> int:
    """How many times the section patterns read a section of ``text``."""
    calls = 0
    original = reader._Hand.read_section

    def counting(self: reader._Hand, *args: object) -> tuple[int, int]:
        nonlocal calls
        done = original(self, *args)  # type: ignore[arg-type]
        calls += done[0] > 0
        return done

    reader._Hand.read_section = counting  # type: ignore[method-assign]
    try:
        list(read_text(text))
    finally:
        reader._Hand.read_section = original  # type: ignore[method-assign]
    return calls


@pytest.mark.parametrize("path", HISTORIES, ids=lambda path: path.name)
def test_section_patterns_read_the_histories_as_the_line_patterns_do(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = path.read_text(encoding="utf-8")
    fast, lines_only = read_both(text, monkeypatch)
    assert fast == lines_only
    assert sections_read(text) > 0


def test_a_street_section_is_one_match_of_its_lines() -> None:
    street = (
        "*** STREET 2 ***\n"
        "ann is dealt [Ah Kd 7c]\n"
        "ann places top [Ah] middle [Kd], discards [7c]\n"
        "Big Al is dealt [2c 3c 4c]\n"
        "Big Al places bottom [2c 3c], discards [4c]\n"
        "*** STREET 3 ***\n"
    )
    pattern = re.compile(
        grammar.section_regex(("street_header",), ("deal_line", "places_line"), 4)
    )
    match = pattern.match(street)
    assert match is not None
    # Five lines, each with its own \n; the next header is not taken.
    assert match.group().count("\n") == 5 and street[match.end() :] == "*** STREET 3 ***\n"
    assert match["street_header__street"] == "2"
    assert match["deal_line1__player"] == "Big Al"
    assert match["places_line0__top"] == "[Ah]" and match["places_line0__middle"] == "[Kd]"
    assert match["places_line1__bottom"] == "[2c 3c]" and match["places_line1__top"] is None
    assert match["places_line1__discards"] == "[4c]" and match["deal_line2__player"] is None


def test_records_of_a_section_read_in_one_match() -> None:
    text = HEAD + (
        "*** STREET 1 ***\n"
        "ann is dealt [Ah Kd 7c 7s 2h]\n"
        "ann places top [Ah] middle [Kd 2h] bottom [7c 7s]\n"
        "Big Al is dealt [2c 3c 4c 5c 6c]\n"
        "Big Al places bottom [2c 3c 4c 5c 6c]\n"
    )
    assert sections_read(text) == 2  # the seats, the street
    (hand,) = list(read_text(text))
    assert isinstance(hand, Hand)
    assert [seat.line for seat in hand.seats] == [3, 4]
    (street,) = hand.sections
    assert street.line == 5
    deal, places, deal2, places2 = street.actions
    assert deal == Deal("ann", tuple(Card.parse(t) for t in "Ah Kd 7c 7s 2h".split()), 6)
    assert places == Placement(
        "ann",
        (
            (Row.TOP, (Card.parse("Ah"),)),
            (Row.MIDDLE, (Card.parse("Kd"), Card.parse("2h"))),
            (Row.BOTTOM, (Card.parse("7c"), Card.parse("7s"))),
        ),
        None,
        7,
    )
    assert deal2.line == 8 and places2.line == 9
    assert isinstance(places2, Placement) and places2.discards is None


@pytest.mark.parametrize(
    "street",
    [
        # rows out of order, and a row twice (an error): the line patterns read them
        "ann is dealt [Ah Kd 7c]\nann places middle [Kd] top [Ah], discards [7c]\n",
        "ann is dealt [Ah Kd 7c]\nann places top [Kd] top [Ah], discards [7c]\n",
        # a comment and a blank line inside the section
        "ann is dealt [Ah Kd 7c]\n# note\n\nann places top [Ah Kd], discards [7c]\n",
        # an event line, a player not seated, a bad card, tabs and CRLF line ends
        "ann times out\nann is dealt [Ah Kd 7c]\nann places top [Ah Kd], discards [7c]\n",
        "bob is dealt [Ah Kd 7c]\nbob places top [Ah Kd], discards [7c]\n",
        "ann is dealt [Ah Kx 7c]\nann places top [Ah Kd], discards [7c]\n",
        "ann\tis  dealt [Ah\tKd 7c]\r\nann places   top [Ah Kd] ,discards [7c] \r\n",
        # names with keywords, and a name that is only written with two spaces
        "Big  Al is dealt [Ah Kd 7c]\nBig Al places top [Ah Kd], discards [7c]\n",
        # a line that begins with the header keyword is a header, whatever follows
        "ann is dealt [Ah Kd 7c]\nOFC Hand is dealt [Ah]\nOFC Hand places top [Ah]\n",
        # a places line with no row at all, and a line cut short
        "ann is dealt [Ah Kd 7c]\nann places , discards [7c]\n",
        "ann is dealt [Ah Kd 7c]\nann places top [Ah",
    ],
)
def test_lines_the_section_patterns_do_not_take_are_read_by_the_line_patterns(
    street: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = HEAD + "*** STREET 1 ***\n" + street + "*** SHOWDOWN ***\n"
    fast, lines_only = read_both(text, monkeypatch)
    assert fast == lines_only


def test_a_comment_line_is_never_a_line_of_a_section(monkeypatch: pytest.MonkeyPatch) -> None:
    # '#bob' could be a name, but a line that starts with '#' is a comment.
    text = (
        "OFC Hand #1: Classic - 1 points/point - 2026-01-01 10:00:00 UTC\n"
        "Table 'T' 2-max - Seat #1 is the button\n"
        "Seat 1: ann (100)\nSeat 2: #bob (100)\n*** STREET 1 ***\n"
        "ann is dealt [Ah]\nann places top [Ah]\n#bob is dealt [2c]\n#bob places top [2c]\n"
    )
    fast, lines_only = read_both(text, monkeypatch)
    assert fast == lines_only
    (hand,) = list(read_text(text))
    assert isinstance(hand, Hand)
    assert [action.line for action in hand.sections[0].actions] == [6, 7]


def test_more_players_than_a_section_pattern_holds_are_read_on_by_line_patterns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    names = [f"p{i}" for i in range(6)]
    text = (
        "OFC Hand #1: Classic - 1 points/point - 2026-01-01 10:00:00 UTC\n"
        "Table 'T' 6-max - Seat #1 is the button\n"
        + "".join(f"Seat {i + 1}: {name} (100)\n" for i, name in enumerate(names))
        + "*** STREET 1 ***\n"
        + "".join(f"{name} is dealt [Ah]\n{name} places top [Ah]\n" for name in names)
    )
    fast, lines_only = read_both(text, monkeypatch)
    assert fast == lines_only
    (hand,) = list(read_text(text))
    assert isinstance(hand, Hand)
    assert len(hand.seats) == 6 and len(hand.sections[0].actions) == 12


def _damaged(text: str, seed: int) -> Iterator[str]:
    """``text`` with a few lines damaged the ways histories go wrong."""
    rnd = random.Random(seed)
    pieces = ["#", " ", "\t", "[", "]", "Ah", "xx", "top ", "middle [", ",", ":", "*", "\r"]
    lines = text.split("\n")
    for _ in range(rnd.randint(1, 3)):
        i = rnd.randrange(len(lines))
        line = lines[i]
        kind = rnd.randrange(5)
        if kind == 0 and line:
            j = rnd.randrange(len(line))
            lines[i] = line[:j] + line[j + 1 :]
        elif kind == 1:
            j = rnd.randrange(len(line) + 1)
            lines[i] = line[:j] + rnd.choice(pieces) + line[j:]
        elif kind == 2:
            lines.insert(i, lines[rnd.randrange(len(lines))])
        elif kind == 3:
            del lines[i]
        else:
            j = rnd.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    yield "\n".join(lines)


SAMPLE = (ROOT / "tests" / "data" / "variety.txt").read_text(encoding="utf-8")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_damaged_histories_read_the_same_with_and_without_section_patterns(seed: int) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        for text in _damaged(SAMPLE, seed):
            fast, lines_only = read_both(text, monkeypatch)
            assert fast == lines_only


# Words of names, keywords among them: a name may hold 'is', 'dealt', 'places', a row, ...
NAME_WORDS = ["Al", "Big", "is", "dealt", "places", "top", "bottom", "x", "OFC", "Hand", "#y"]
NAMES = st.lists(st.sampled_from(NAME_WORDS), min_size=1, max_size=4).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(NAMES, min_size=2, max_size=2, unique=True),
    st.lists(st.tuples(st.integers(0, 1), st.sampled_from([" ", "  ", "\t"])), min_size=4,
             max_size=4),
)
def test_names_with_keywords_read_the_same_with_and_without_section_patterns(
    names: list[str], lines: list[tuple[int, str]]
) -> None:
    # Each line names one of the two players (most often the run's own), its name's words
    # written with one of the blanks.
    street = ""
    for index, (who, blank) in enumerate(lines):
        name = names[who if index % 2 else index // 2 % 2].replace(" ", blank)
        street += f"{name} is dealt [Ah Kd]\n" if index % 2 == 0 else (
            f"{name} places top [Ah] bottom [Kd]\n"
        )
    text = (
        "OFC Hand #1: Pineapple - 1 points/point - 2026-01-01 10:00:00 UTC\n"
        "Table 'T' 2-max - Seat #1 is the button\n"
        f"Seat 1: {names[0]} (100)\nSeat 2: {names[1]} (100)\n*** STREET 1 ***\n{street}"
        "*** SHOWDOWN ***\n"
    )
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast, lines_only = read_both(text, monkeypatch)
    assert fast == lines_only


def test_a_places_line_is_read_in_the_run_of_its_players_deal() -> None:
    pattern = reader._SECTIONS["streets"]
    street = (
        "*** STREET 1 ***\n"
        "Big Al is dealt [Ah Kd]\nBig Al places top [Ah] bottom [Kd]\n"
        "x is dealt is dealt [Ah]\nx is dealt places top [Ah]\n"
    )
    match = pattern.match(street)
    assert match is not None
    # The first run is read; the second player's name holds the word 'is': the line
    # patterns read it ("x is dealt", the one way to split the line).
    assert match["deal_line0__player"] == "Big Al" and match.end() == street.index("x is")
    assert "places_line0__player" not in pattern.groupindex  # the deal line's name
    # Another player's places line ends the run before it.
    other = "*** STREET 1 ***\nann is dealt [Ah]\nbob places top [Ah]\n"
    match = pattern.match(other)
    assert match is not None and match.end() == len("*** STREET 1 ***\n")
    assert match["deal_line0__player"] is None


def test_placements_in_order_is_a_subset_of_placements() -> None:
    # Every string the in-order form matches, the grammar's placements match too, whole.
    in_order = re.compile(grammar._to_regex(grammar.placements_in_order, "", False, {}))
    placements = grammar.placements
    for text in [" top [Ah]", " middle [Kd 2h] bottom [7c]", " top [] middle [] bottom []"]:
        assert in_order.fullmatch(text)
        placements.parse_string(text, parse_all=True)
    for text in ["", " , discards [Ah]", " bottom [7c] top [Ah]", " top [Ah] top [Kd]"]:
        assert not in_order.fullmatch(text)
