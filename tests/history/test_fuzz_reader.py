"""Fuzzing the reader: broken histories yield HistoryParseError items, never an exception, and
never cost a good hand; the reader and the pyparsing grammar agree on every hand."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import pyparsing as pp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc_audit.history import grammar
from ofc_audit.history.reader import HistoryParseError, read_stream
from ofc_audit.history.records import Hand
from ofc_audit.history.writer import write_hand

DATA = Path(__file__).resolve().parents[1] / "data"
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)
HEADER = re.compile(rb"[ \t]*OFC[ \t]+Hand(?![A-Za-z0-9_])")


@dataclass(frozen=True)
class Corpus:
    """A valid history: its lines (each with its b"\\n") and the line span of every hand."""

    lines: tuple[bytes, ...]
    spans: tuple[tuple[int, int], ...]  # 0-based [first, end) line indexes per hand

    @classmethod
    def of(cls, data: bytes) -> Corpus:
        lines = tuple(data.splitlines(keepends=True))
        starts = [i for i, line in enumerate(lines) if HEADER.match(line)]
        spans = tuple(zip(starts, [*starts[1:], len(lines)], strict=True))
        return cls(lines, spans)


def corpus_bytes() -> bytes:
    example = (DATA / "format_example.txt").read_bytes()
    variety = (DATA / "variety.txt").read_bytes()
    return example + b"\n" + variety + b"\n" + example.replace(b"PD-1001", b"PD-1002")


CORPUS = Corpus.of(corpus_bytes())
GOOD = [item for item in read_stream(io.BytesIO(corpus_bytes()), "f") if isinstance(item, Hand)]
assert len(GOOD) == len(CORPUS.spans) == 5

JUNK = [b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf0\x28\x8c\xbc", b"\x80", b"\xe2\x82"]
CHARACTERS = " \t[]():,#-+>*?0123456789AKQJTshdcxO'\r\x00\u00e9"


@st.composite
def mutations(draw: st.DrawFn) -> tuple[int, bytes, bool]:
    """(index of the damaged hand, the damaged history, whether it was cut short there).
    Header lines stay as they are, so the damage stays inside its hand (a rejected hand runs
    to the next header)."""
    target = draw(st.integers(0, len(CORPUS.spans) - 1))
    first, end = CORPUS.spans[target]
    lines = list(CORPUS.lines)
    body = st.integers(first + 1, end - 1)
    kind = draw(
        st.sampled_from(["delete", "duplicate", "swap", "flip", "truncate", "bytes", "utf8"])
    )
    if kind == "truncate":
        cut = draw(body)
        data = b"".join(lines[:cut]) + lines[cut][: draw(st.integers(0, len(lines[cut])))]
        return target, data, True
    at = draw(body)
    if kind == "delete":
        del lines[at]
    elif kind == "duplicate":
        lines.insert(at, lines[at])
    elif kind == "swap":
        other = draw(body)
        lines[at], lines[other] = lines[other], lines[at]
    elif kind == "flip":
        text = lines[at].decode("utf-8").rstrip("\n")  # the line end stays: see below
        for _ in range(draw(st.integers(1, 3))):
            where = draw(st.integers(0, len(text)))
            text = text[:where] + draw(st.sampled_from(CHARACTERS)) + text[where + 1 :]
        lines[at] = text.encode("utf-8") + b"\n"
    else:
        raw = lines[at]
        # Before the line's own b"\n": past it, bytes would damage the next line, which may
        # be the next hand's header.
        where = draw(st.integers(0, len(raw.rstrip(b"\n"))))
        junk = (
            draw(st.sampled_from(JUNK))
            if kind == "utf8"
            else draw(st.binary(min_size=1, max_size=8))
        )
        lines[at] = raw[:where] + junk + raw[where:]
    return target, b"".join(lines), False


def read(data: bytes) -> list[Hand | HistoryParseError]:
    return list(read_stream(io.BytesIO(data), "fuzz.txt"))


@FUZZ
@given(mutations())
def test_damage_costs_only_the_damaged_hand(case: tuple[int, bytes, bool]) -> None:
    target, data, truncated = case
    items = read(data)  # never raises
    assert all(isinstance(item, Hand | HistoryParseError) for item in items)
    # One item per hand, in order: the damaged one read or rejected, the others read as before
    # (a history cut short ends with the damaged hand).
    assert len(items) == (target + 1 if truncated else len(CORPUS.spans)), [str(i) for i in items]
    for index, item in enumerate(items):
        if index != target:
            assert isinstance(item, Hand), str(item)
            assert write_hand(item) == write_hand(GOOD[index])
    damaged = items[target]
    if isinstance(damaged, HistoryParseError):
        first = CORPUS.spans[target][0] + 1
        assert damaged.entry_line == first
        assert damaged.line >= first and damaged.column >= 1
        assert str(damaged).startswith(f"fuzz.txt:{damaged.line}:{damaged.column}: ")
        assert "internal error" not in damaged.message  # the matcher and pyparsing agreed


@FUZZ
@given(st.binary(max_size=300), st.integers(0, len(CORPUS.lines)))
def test_random_bytes_between_hands_never_raise(junk: bytes, at: int) -> None:
    data = b"".join(CORPUS.lines[:at]) + junk + b"\n" + b"".join(CORPUS.lines[at:])
    items = read(data)
    assert all(isinstance(item, Hand | HistoryParseError) for item in items)
    # Every hand whose text the junk did not touch is still read.
    read_ids = {item.hand_id for item in items if isinstance(item, Hand)}
    for (first, end), hand in zip(CORPUS.spans, GOOD, strict=True):
        # Lines inserted after a hand's header and up to the next header belong to that hand.
        untouched = not first < at <= end
        if untouched and not HEADER.search(junk):
            assert hand.hand_id in read_ids, (hand.hand_id, junk, at)


def hand_texts(data: bytes) -> list[str]:
    """The text of every entry the reader sees: from one header line to the next."""
    text = data.decode("utf-8", "surrogateescape")
    chunks: list[list[str]] = []
    for line in text.split("\n"):
        if re.match(r"[ \t]*OFC[ \t]+Hand(?![A-Za-z0-9_])", line):
            chunks.append([])
        if chunks:
            chunks[-1].append(line)
    return ["\n".join(chunk) for chunk in chunks]


def grammar_accepts(text: str) -> bool:
    try:
        grammar.hand.parse_string(text, parse_all=True)
    except pp.ParseBaseException:
        return False
    return True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutations())
def test_the_reader_and_the_pyparsing_grammar_agree_on_every_hand(
    case: tuple[int, bytes, bool],
) -> None:
    data = case[1]
    items = read(data)
    texts = hand_texts(data)
    assert len(items) == len(texts)
    for item, text in zip(items, texts, strict=True):
        if isinstance(item, HistoryParseError) and item.kind == "encoding":
            continue  # the grammar reads text; bytes that are not UTF-8 are the reader's
        accepted = grammar_accepts(text)
        if isinstance(item, Hand):
            assert accepted, text
        elif item.kind == "syntax":
            assert not accepted, (str(item), text)
        else:
            # A context rule (street order, seats, rows): beyond the context-free grammar.
            assert item.kind == "context", item.kind
