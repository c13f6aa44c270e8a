"""Text for people: display widths in terminal cells, plurals, number format."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from ofc_audit.common.textfmt import display_width, pad, text_table

# Worked out by hand: what a terminal draws, one cell per narrow character.
WIDTHS = [
    ("bob", 3),
    ("", 0),
    ("Zo\u00eb", 3),          # ë precomposed
    ("Zoe\u0308", 3),         # e + combining diaeresis: one cell
    ("\u674e\u660e", 4),      # 李明: two wide characters
    ("\uff21", 2),            # full-width A
    ("\U0001f600", 2),        # 😀
    ("\U0001f600bob", 5),
    ("\u2764\ufe0f", 2),      # ❤️: heart + emoji presentation
    ("\u2764", 1),            # the heart alone is a narrow text character
    ("\u0627\u0644\u0639", 3),  # Arabic letters are narrow
]


def test_display_width_known_answers() -> None:
    for text, width in WIDTHS:
        assert display_width(text) == width, text


def column_starts(line: str, values: list[str]) -> list[int]:
    """The display column where each of ``values`` starts in ``line``."""
    out = []
    at = 0
    for value in values:
        at = line.index(value, at)
        out.append(display_width(line[:at]))
        at += len(value)
    return out


def test_a_wide_or_combining_name_does_not_shift_its_row() -> None:
    names = ["bob", "\U0001f600 ace", "\u674e\u660e", "Zoe\u0308", "\u2764\ufe0f love"]
    rows = [[name, "EUR", f"{i * 1000:,}"] for i, name in enumerate(names)]
    lines = text_table(["player", "cur", "hands"], rows).splitlines()
    starts = {tuple(column_starts(line, ["EUR"])) for line in lines[2:]}
    assert starts == {(column_starts(lines[0], ["cur"])[0],)}
    # Right-aligned numbers end in the same cell on every line.
    assert len({display_width(line) for line in lines}) == 1


NAME_CHARS = st.sampled_from(
    ["a", "Z", " ", "\u00e9", "\u0301", "\u674e", "\uff21", "\U0001f600", "\u2764", "\ufe0f",
     "\u0627"])


@given(st.lists(NAME_CHARS, max_size=12).map("".join), st.integers(0, 30), st.booleans())
def test_pad_reaches_the_width_in_cells(text: str, width: int, right: bool) -> None:
    padded = pad(text, width, right=right)
    assert display_width(padded) == max(width, display_width(text))
    assert padded.strip(" ") == text.strip(" ") or text.strip(" ") == ""


@given(st.text(st.characters(categories=("Lu", "Ll", "Lo", "Mn", "Nd")), max_size=20))
def test_width_is_the_sum_of_base_characters(text: str) -> None:
    # Without emoji selectors, every non-mark character takes 1 or 2 cells, marks none.
    expected = sum(0 if unicodedata.category(c) == "Mn" else
                   2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    assert display_width(text) == expected


# -- plurals and counts (issue 20.7) -----------------------------------------------------------

from ofc_audit.common.textfmt import (  # noqa: E402
    and_list,
    hands_sentence,
    number,
    plural,
    quantity,
    signed,
)


def test_quantity_says_one_and_many_with_thousands_separators() -> None:
    assert quantity(1, "hand") == "1 hand"
    assert quantity(0, "hand") == "0 hands"
    assert quantity(50_000, "hand") == "50,000 hands"
    assert quantity(2, "mismatch", many="mismatches") == "2 mismatches"
    assert quantity(1, "mismatch", many="mismatches") == "1 mismatch"
    assert quantity(3, "entry", many="entries") == "3 entries"
    assert quantity(-1, "point", sign=True) == "-1 point"
    assert quantity(-1_250, "point", sign=True) == "-1,250 points"
    assert plural(1, "payment") + plural(2, "payment") == "paymentpayments"
    assert number(6500) == "6,500" and signed(12_000) == "+12,000" and signed(0) == "0"


def test_and_list() -> None:
    assert and_list([]) == "" and and_list(["a"]) == "a"
    assert and_list(["a", "b"]) == "a and b" and and_list(["a", "b", "c"]) == "a, b and c"


def test_hands_sentence_says_which_counts_overlap() -> None:
    """"2 hand(s): 2 valid, ... 1 incomplete" read as parts that did not add up: the
    incomplete hand is one of the valid ones."""
    assert hands_sentence(2, 2, 0, ["0 with recorded mismatches", "1 incomplete"], 0) == (
        "2 hands: 2 valid, 0 with violations; 0 with recorded mismatches and 1 incomplete, "
        "valid or not; 0 rejected")
    assert hands_sentence(50_000, 49_000, 1_000, [], 1) == (
        "50,000 hands: 49,000 valid, 1,000 with violations; 1 rejected")


@given(st.integers(-10**9, 10**9), st.sampled_from(["hand", "player", "point"]))
def test_quantity_never_writes_a_bracketed_plural(count: int, unit: str) -> None:
    text = quantity(count, unit)
    assert "(" not in text
    assert text.replace(",", "").split()[0] == str(count)
    assert text.endswith(unit if abs(count) == 1 else unit + "s")
