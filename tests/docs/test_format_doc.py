"""docs/FORMAT.md against the code: its grammar is the EBNF of grammars/, every example line
is read by the production the page names for it, its example hands are read (or rejected)
as it says, and they are the sample histories' own text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ofc_audit.history import grammar
from ofc_audit.history.reader import HistoryParseError, read_text

ROOT = Path(__file__).resolve().parents[2]
FORMAT = (ROOT / "docs" / "FORMAT.md").read_text("utf-8")
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```$", FORMAT, flags=re.M | re.S)
LINE_TABLE = re.findall(r"^\| `([a-z_]+)` \| `([^`]+)` \|$", FORMAT, flags=re.M)


def test_the_grammar_on_the_page_is_the_ebnf_file() -> None:
    ebnf = [text for language, text in BLOCKS if language == "ebnf"]
    assert ebnf == [(ROOT / "grammars" / "ofc-hh-v1.ebnf").read_text("utf-8")]


def test_the_page_links_the_railroad_diagram() -> None:
    assert "(../grammars/ofc-hh-v1.html)" in FORMAT
    assert (ROOT / "grammars" / "ofc-hh-v1.html").is_file()


def test_every_line_production_has_an_example_on_the_page() -> None:
    assert sorted(name for name, _ in LINE_TABLE) == sorted(grammar.LINE_PRODUCTIONS)


@pytest.mark.parametrize(("production", "line"), LINE_TABLE)
def test_each_example_line_is_read_by_its_production(production: str, line: str) -> None:
    grammar.ELEMENTS[production].parse_string(line + "\n", parse_all=True)


@pytest.mark.parametrize(("production", "line"), LINE_TABLE)
def test_each_example_line_is_read_by_no_other_line_production(production: str,
                                                                      line: str) -> None:
    # The table says which production a line is: no other line production takes it whole
    # (the reader's own line patterns, the ones it runs on every line).
    takes = [name for name in grammar.LINE_PRODUCTIONS
             if grammar.line_matcher([name], single_line=True).fullmatch(line)]
    assert takes == [production]


def test_the_example_hands_are_read_and_the_rejected_one_is_rejected() -> None:
    read = [text for language, text in BLOCKS if language == "text"]
    rejected = [text for language, text in BLOCKS if language == "" and "OFC Hand" in text]
    assert len(read) == 2 and len(rejected) == 1
    for text in read:
        results = list(read_text(text))
        assert results and not any(isinstance(r, HistoryParseError) for r in results)
    (error,) = list(read_text(rejected[0]))
    assert isinstance(error, HistoryParseError)
    assert error.line == 7  # alice's places line, as the page says


def test_the_example_hands_are_the_sample_histories_text() -> None:
    read = [text for language, text in BLOCKS if language == "text"]
    samples = ["pineapple_3p_progressive_fl_worked_example.txt",
               "pineapple_3p_own_view_hidden_cards.txt"]
    for text, sample in zip(read, samples, strict=True):
        assert f"`sample_histories/{sample}`" in FORMAT
        assert text in (ROOT / "sample_histories" / sample).read_text("utf-8")
