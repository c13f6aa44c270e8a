"""A rejected hand names its table when its table line can be read (docs/FORMAT.md, Files and
sessions: a rejected hand breaks its table's chain); the table is unknown (None, every chain
of its file breaks) when it cannot. Known answers written from the worked example."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.history.reader import HistoryParseError, read_text
from tests.support.histories import WORKED_EXAMPLE, worked_example_hand

HEADER = WORKED_EXAMPLE.split("\n")[0]
TABLE_LINE = "Table 'Tashkent 3' 3-max - Seat #3 is the button"


def rejection(text: str) -> HistoryParseError:
    items = list(read_text(text, "x.txt"))
    errors = [item for item in items if isinstance(item, HistoryParseError)]
    assert len(errors) == 1, items
    return errors[0]


@pytest.mark.parametrize(("broken", "table"), [
    # After the table line: the hand being read knows it.
    (("alice places middle [3c] bottom [3d], discards [Js]", "not a line of the format"),
     "Tashkent 3"),
    (("Seat 2: bob (180)", "Seat 2: alice (180)"), "Tashkent 3"),  # a name twice
    (("bob places middle [5d 5s], discards [Qh]", "bob places middle [5d \udcff]"),
     "Tashkent 3"),  # a byte that is not UTF-8
    # Before it: the lines after the rejection are read for it.
    ((HEADER, "OFC Hand #PD-1001: Nonsense"), "Tashkent 3"),  # the header, then a match line
    (("Match #M-77, hand 2", "Match M-77"), "Tashkent 3"),  # the match line
    (("Match #M-77, hand 2\n", ""), "Tashkent 3"),  # no match line: the header alone
    # The table line itself, or no table line where it must stand: not known.
    ((TABLE_LINE, "Table Tashkent 3 3-max - Seat #3 is the button"), None),
    ((TABLE_LINE, "Seat 9: dave (100)"), None),
    ((TABLE_LINE + "\n", ""), None),
])
def test_a_rejection_names_the_table_its_table_line_names(
    broken: tuple[str, str], table: str | None
) -> None:
    old, new = broken
    if old == "Match #M-77, hand 2\n":  # the header is what is rejected, without a match line
        text = WORKED_EXAMPLE.replace(old, new).replace(HEADER, "OFC Hand #PD-1001: Nonsense")
    else:
        assert old in WORKED_EXAMPLE
        text = WORKED_EXAMPLE.replace(old, new)
    error = rejection(text)
    assert error.table == table
    # It survives the trip to a worker process and back.
    assert pickle.loads(pickle.dumps(error)).table == table


def test_a_hand_that_ends_before_its_table_line_has_none() -> None:
    assert rejection(HEADER + "\nMatch #M-77, hand 2\n").table is None
    # ... and one that ends before its seat lines names it.
    assert rejection(HEADER + "\n" + TABLE_LINE + "\n").table == "Tashkent 3"


def test_the_table_is_named_as_a_hands_table_is_named() -> None:
    text = worked_example_hand("X-1", "  Riga\t 2 ").replace(
        "alice places middle [3c] bottom [3d], discards [Js]", "not a line of the format")
    assert rejection(text).table == "Riga 2"


def test_text_before_the_first_header_has_no_table() -> None:
    error = rejection("prose first\n" + TABLE_LINE + "\n" + WORKED_EXAMPLE)
    assert error.before_first_hand and error.table is None


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Riga 1", "Riga 2"]), st.booleans(), st.integers(0, 2))
def test_the_next_hand_is_read_as_ever(table: str, header_broken: bool, blanks: int) -> None:
    """Waiting for the table line changes nothing else: the rejection comes first, with its
    own lines, and the next hand is read whole."""
    bad = worked_example_hand("B-1", table).replace("\n", "\n" + "\n" * blanks, 1)
    if header_broken:
        bad = bad.replace(bad.split("\n")[0], "OFC Hand #B-1: Nonsense")
    else:
        bad = bad.replace("Match #M-77, hand 2", "Match M-77")
    items = list(read_text(bad + worked_example_hand("G-1", "Riga 3"), "x.txt"))
    assert [type(item).__name__ for item in items] == ["HistoryParseError", "Hand"]
    error = items[0]
    assert isinstance(error, HistoryParseError)
    assert error.table == table and error.entry_line == 1
    assert error.line == (1 if header_broken else 2 + blanks)
