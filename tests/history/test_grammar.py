"""The grammar: one definition (pyparsing), its EBNF and diagram, and its compiled form."""

from __future__ import annotations

import html
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pyparsing as pp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc_audit.game.cards import Card, CardError
from ofc_audit.history import grammar

ROOT = Path(__file__).resolve().parents[2]
EBNF = ROOT / "grammars" / "ofc-hh-v1.ebnf"
DIAGRAM = ROOT / "grammars" / "ofc-hh-v1.html"
DATA = Path(__file__).resolve().parents[1] / "data"


def ebnf_productions(text: str) -> set[str]:
    """The names defined (``name = ...``) in an ISO EBNF text."""
    text = re.sub(r"\(\*.*?\*\)", " ", text, flags=re.S)  # comments
    text = re.sub(r'"[^"]*"', " ", text)  # terminals
    text = re.sub(r"\?[^?]*\?", " ", text)  # special sequences
    return set(re.findall(r"(?m)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=", text))


def test_ebnf_names_the_productions_of_the_pyparsing_grammar() -> None:
    defined = ebnf_productions(EBNF.read_text(encoding="utf-8"))
    assert defined, "no production found in the EBNF"
    only_ebnf = sorted(defined - grammar.productions())
    only_grammar = sorted(grammar.productions() - defined)
    assert not only_ebnf and not only_grammar, (only_ebnf, only_grammar)


def test_ebnf_reader_sees_productions_and_not_comments() -> None:
    text = '(* x = y ; *)\na = "b = c" , ? d = e ? ;\n  f=a;'
    assert ebnf_productions(text) == {"a", "f"}


def test_every_element_of_the_grammar_is_named_and_registered() -> None:
    reachable = list(grammar.walk(grammar.history))
    names = {element.customName for element in reachable if element.customName}
    # Every registered element is part of the file grammar ...
    assert names == set(grammar.ELEMENTS)
    # ... every token has a name, and every name has a description for messages.
    for element in reachable:
        if isinstance(element, pp.Token) and not isinstance(element, pp.Empty):
            assert element.customName, element
    assert set(grammar.DESCRIPTIONS) == set(grammar.ELEMENTS)


def test_grammar_leaves_pyparsing_defaults_alone() -> None:
    # Built line-oriented (blanks only), the grammar restores the global default, and it
    # never turns packrat on. A fresh interpreter: other modules (matplotlib) touch them too.
    script = (
        "import pyparsing as pp\n"
        "before = (pp.ParserElement.DEFAULT_WHITE_CHARS, pp.ParserElement._packratEnabled)\n"
        "import ofc_audit.history.reader\n"
        "after = (pp.ParserElement.DEFAULT_WHITE_CHARS, pp.ParserElement._packratEnabled)\n"
        "assert before == after == (' \\n\\t\\r', False), (before, after)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=ROOT)
    for element in grammar.walk(grammar.history):
        if isinstance(element, pp.Token) and element.skipWhitespace:
            assert set(element.whiteChars) == {" ", "\t"}, element


def test_named_productions_survive_streamlining() -> None:
    # pyparsing folds two-element sequences into their parents; the grammar must keep its
    # named productions whole (the diagram and error messages need them).
    grammar.history.streamline()
    names = {e.customName for e in grammar.walk(grammar.history) if e.customName}
    assert {"header_line", "stake", "timestamp", "street_header", "sections"} <= names


def test_diagram_is_drawn_from_the_grammar(tmp_path: Path) -> None:
    if importlib.util.find_spec("railroad") is None or importlib.util.find_spec("jinja2") is None:
        pytest.skip("railroad-diagrams and jinja2 draw the diagram")
    target = tmp_path / "diagram.html"
    assert grammar.main(["--diagram", str(target)]) == 0

    def headings(path: Path) -> set[str]:
        text = path.read_text(encoding="utf-8")
        return {html.unescape(h) for h in re.findall(r"<h1[^>]*>([^<]*)</h1>", text)}

    assert headings(target) == set(grammar.ELEMENTS)
    # The committed diagram is up to date: regenerate it with the command above.
    assert headings(DIAGRAM) == headings(target)


def test_productions_command_lists_the_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert grammar.main(["--productions"]) == 0
    assert set(capsys.readouterr().out.split()) == grammar.productions()


# -- cards --------------------------------------------------------------------------------------

CARD_ALPHABET = "23456789TJQKAtjqkaSHDCshdcJK12?x1 "


@given(st.text(CARD_ALPHABET, min_size=1, max_size=3))
def test_card_token_accepts_exactly_what_card_parse_accepts(token: str) -> None:
    try:
        Card.parse(token)
        parses = True
    except CardError:
        parses = False
    assert (grammar.card.re.fullmatch(token) is not None) == parses


# -- the compiled matcher says what pyparsing says ---------------------------------------------


def corpus_lines() -> list[str]:
    lines = []
    for path in sorted(DATA.glob("*.txt")):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip() and not line.lstrip().startswith("#"):
                lines.append(line)
    extra = [
        "Al places places top [Ah]",  # a name holding a keyword
        "x is dealt is dealt [Ah]",
        "Al places top returns",
        "Bob tops up +7",
        "Seat 4: Mo (-12) in Fantasyland (17 cards)",
        "bob: fouled",
        "bob:",
        "OFC Hand #a.b_c-1: Joker \t Pineapple - 12 points/point - 2026-01-01 00:00:00 "
        "Europe/Vilnius",
    ]
    return lines + extra


CORPUS = corpus_lines()
MATCHERS = {n: grammar.line_matcher([n]).fullmatch for n in grammar.LINE_PRODUCTIONS}
SINGLE = {
    n: grammar.line_matcher([n], single_line=True).fullmatch for n in grammar.LINE_PRODUCTIONS
}
CARD_LIST = re.compile(r"\[([^\[\]]*)\]")


def pyparsing_accepts(name: str, line: str) -> bool:
    try:
        grammar.ELEMENTS[name].parse_string(line, parse_all=True)
    except pp.ParseBaseException:
        return False
    return True


def single_line_accepts(name: str, line: str) -> bool:
    """The single-line form, completed the way the reader completes it: every token of a card
    list must be a card."""
    if SINGLE[name](line) is None:
        return False
    for content in CARD_LIST.findall(line):
        for token in content.split():
            try:
                Card.parse(token)
            except CardError:
                return False
    return True


def test_corpus_lines_each_match_one_production() -> None:
    for line in CORPUS:
        matched = [n for n in grammar.LINE_PRODUCTIONS if MATCHERS[n](line)]
        assert len(matched) == 1, (line, matched)


MUTATION_ALPHABET = " \t[]():,#-+>*?0123456789AaKkQqJjTtSsHhDdCcxOFC'\r"
mutations = st.tuples(
    st.sampled_from(CORPUS),
    st.lists(
        st.tuples(
            st.sampled_from(["insert", "delete", "replace", "swapcase"]),
            st.integers(0, 200),
            st.sampled_from(
                list(MUTATION_ALPHABET)
                + [" is dealt ", " places ", " top ", ", discards ", " times out", "***"]
            ),
        ),
        min_size=0,
        max_size=3,
    ),
)


def mutate(line: str, edits: list[tuple[str, int, str]]) -> str:
    for kind, position, text in edits:
        at = position % (len(line) + 1)
        if kind == "insert":
            line = line[:at] + text + line[at:]
        elif kind == "delete":
            line = line[:at] + line[at + len(text) :]
        elif kind == "replace":
            line = line[:at] + text + line[at + 1 :]
        else:
            line = line[:at] + line[at:].swapcase()
    return line


@settings(max_examples=300, deadline=None)
@given(mutations)
def test_compiled_matchers_accept_what_pyparsing_accepts(
    case: tuple[str, list[tuple[str, int, str]]],
) -> None:
    line = mutate(*case)
    accepted = []
    for name in grammar.LINE_PRODUCTIONS:
        by_pyparsing = pyparsing_accepts(name, line)
        assert (MATCHERS[name](line) is not None) == by_pyparsing, (name, line)
        assert single_line_accepts(name, line) == by_pyparsing, (name, line)
        if by_pyparsing:
            accepted.append(name)
    # The line productions never overlap: the reader may try them in any order.
    assert len(accepted) <= 1, (line, accepted)


@pytest.mark.parametrize("line", CORPUS)
def test_compiled_groups_capture_what_pyparsing_names(line: str) -> None:
    name = next(n for n in grammar.LINE_PRODUCTIONS if MATCHERS[n](line))
    match = MATCHERS[name](line)
    assert match is not None
    results = grammar.ELEMENTS[name].parse_string(line, parse_all=True)
    prefix = f"{name}__"
    for group, value in match.groupdict().items():
        if value is None or not group.startswith(prefix):
            continue
        key = group[len(prefix) :]
        if key in ("rows", "in_fantasyland"):
            continue  # spans several tokens: the reader splits them itself
        parsed = results[key]
        if isinstance(parsed, pp.ParseResults):
            # A card list: the captured text holds exactly the cards pyparsing read.
            assert value.strip("[] \t").split() == [t for t in parsed if t not in "[]"]
        else:
            assert value == parsed, (line, key)


# -- word ends --------------------------------------------------------------------------------

ASCII_WORD_END = r"(?a:\b)"
LOOK_AHEAD = r"(?![A-Za-z0-9_])"
# Every ASCII character, and characters that are word characters for Unicode but not for
# ASCII (letters, digits, a combining mark), and Unicode blanks.
PROBES = [chr(c) for c in range(128)] + ["é", "ß", "K", "ǅ", "١", "²", "\u0301", "\u00a0", "\u2028"]
WORDS = sorted({word for words in grammar.WORD_ENDS for word in words})
# The patterns the grammar writes: its tokens and keywords, and the section patterns' forms.
EMITTED = [str(e.pattern) for e in grammar.ELEMENTS.values() if isinstance(e, pp.Regex)] + [
    form for form in grammar.SECTION_FORMS.values() if isinstance(form, str)
]


def as_look_ahead(pattern: str) -> str:
    """A pattern with its ASCII word boundaries written as the look-ahead they stand for."""
    return pattern.replace(ASCII_WORD_END, LOOK_AHEAD)


def test_every_ascii_word_boundary_follows_a_word_that_ends_in_a_word_character() -> None:
    assert WORDS
    for word in WORDS:
        assert re.fullmatch(r"[A-Za-z0-9_ ]*[A-Za-z0-9_]", word), word
    # Every (?a:\b) of the grammar was written by _words, after one of these words.
    emitted = "".join(EMITTED)
    # Each word as the grammar writes it in a pattern, as a pattern that finds that text.
    written = (r"[ \t]++".join(map(re.escape, word.split(" "))) for word in WORDS)
    words_pattern = "|".join(re.escape(text) for text in written)
    after_words = re.findall(rf"(?:{words_pattern})\)?{re.escape(ASCII_WORD_END)}", emitted)
    assert emitted.count(ASCII_WORD_END) == len(after_words) > 0


@pytest.mark.parametrize("words", sorted(set(grammar.WORD_ENDS)))
def test_a_word_ends_where_the_look_ahead_says_it_ends(words: tuple[str, ...]) -> None:
    pattern = next(p for p in EMITTED if grammar._words_pattern(words) in p)
    new, old = re.compile(pattern), re.compile(as_look_ahead(pattern))
    for word in words:
        for written in {word, word.replace(" ", " \t ")}:
            for after in ["", *PROBES]:
                for text in (written + after, "OFC Hand " + written + after):
                    for at in range(len(text) + 1):
                        found, expected = new.match(text, at), old.match(text, at)
                        assert (found and found.span()) == (expected and expected.span()), text


WORD_TEXTS = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from(PROBES), st.sampled_from([" ", "[Ah]"])),
    max_size=8,
).map("".join)
PATTERNS = [
    re.compile(pattern)
    for name in grammar.LINE_PRODUCTIONS
    for pattern in (grammar.line_regex([name]), grammar.line_regex([name], single_line=True))
]


@settings(max_examples=300, deadline=None)
@given(st.one_of(WORD_TEXTS, st.sampled_from(CORPUS).map(lambda line: line + "\n")))
def test_line_patterns_with_ascii_word_boundaries_match_as_with_look_aheads(text: str) -> None:
    for pattern in PATTERNS:
        old = re.compile(as_look_ahead(pattern.pattern))
        for at in range(len(text) + 1):
            found, expected = pattern.match(text, at), old.match(text, at)
            assert (found and (found.span(), found.groups())) == (
                expected and (expected.span(), expected.groups())
            ), (pattern.pattern[:40], text)


def test_line_end_takes_blank_and_comment_lines() -> None:
    text = "Match #M, hand 2   \r\n\n   # note\n\t\nTable"
    match = grammar.match_line.parse_string(text)
    assert match  # the comment and blank lines went with the line end
    end = grammar.line_end.re.match(text, len("Match #M, hand 2"))
    assert end is not None and text[end.end() :] == "Table"


def test_a_name_is_whatever_stands_before_the_keyword() -> None:
    cases = {
        "Big Al is dealt [Ah]": ("deal_line", "Big Al"),
        "Al places places top [Ah]": ("places_line", "Al places"),
        "x is dealt is dealt [Ah]": ("deal_line", "x is dealt"),
        "Al places top returns": ("event_line", "Al places top"),
        "Mo tops up tops up 5": ("topup_line", "Mo tops up"),
    }
    for line, (name, player) in cases.items():
        match = MATCHERS[name](line)
        assert match is not None and match[f"{name}__player"] == player, line
        results = grammar.ELEMENTS[name].parse_string(line, parse_all=True)
        assert results["player"] == player


def test_a_line_starting_with_the_header_keyword_is_never_a_name_line() -> None:
    for line in ["OFC Hand is dealt [Ah]", "OFC  Hand: mucked", "OFC Hand #3: mucked"]:
        assert not any(MATCHERS[n](line) for n in grammar.LINE_PRODUCTIONS if n != "header_line")
    assert MATCHERS["deal_line"]("OFC Handy is dealt [Ah]")
