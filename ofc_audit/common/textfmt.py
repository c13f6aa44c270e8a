"""Plain-text tables for people (the CLI's default output)."""

from __future__ import annotations

import textwrap
import unicodedata
from collections.abc import Sequence
from decimal import Decimal


def signed(value: int | None) -> str:
    """``+1,250``, ``-6``, ``0``; ``-`` for unknown."""
    if value is None:
        return "-"
    return f"{value:+,d}" if value else "0"


def number(value: int) -> str:
    """A count as people read it, with thousands separators: ``50,000``."""
    return f"{value:,}"


def plural(count: int, singular: str, many: str | None = None) -> str:
    """The word for ``count`` things: ``singular`` for one (or minus one), else ``many``
    (``singular + "s"`` when not given: ``hand``/``hands``, but ``match``/``matches``)."""
    if abs(count) == 1:
        return singular
    return many if many is not None else singular + "s"


def quantity(count: int, unit: str, sign: bool = False, many: str | None = None) -> str:
    """``1 point``, ``6 royalty points``, ``50,000 hands``, ``2 mismatches`` (with
    ``many="mismatches"``); with ``sign``, ``+1 point`` and ``-6 points``. The one way
    this project writes a count in words: never ``point(s)``."""
    return f"{signed(count) if sign else number(count)} {plural(count, unit, many)}"


def and_list(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def hands_sentence(hands: int, valid: int, with_violations: int, among: Sequence[str],
                   rejected: int) -> str:
    """``66 hands: 58 valid, 8 with violations; 4 with recorded mismatches and 1 incomplete,
    valid or not; 0 rejected``. Valid and with violations split the hands; ``among`` (each
    worded with its count) are counted among all of them, which "valid or not" says, so the
    counts are never read as parts that fail to add up."""
    extra = f"; {and_list(list(among))}, valid or not" if among else ""
    return (f"{quantity(hands, 'hand')}: {number(valid)} valid, {number(with_violations)} "
            f"with violations{extra}; {number(rejected)} rejected")


def money_text(value: float | Decimal) -> str:
    """At least two decimals, more when a small stake needs them (0.005), no float noise."""
    text = f"{value:,.8f}".rstrip("0")
    whole, _, decimals = text.partition(".")
    return f"{whole}.{decimals.ljust(2, '0')}"


def signed_money(value: float | Decimal) -> str:
    """Money with its sign, as every page and table shows it: ``+12.50``, ``-0.60``,
    ``0.00`` (:func:`money_text` after the sign)."""
    shown = money_text(value)
    return "+" + shown if value > 0 else shown


#: Emoji presentation selector: the character before it is drawn as an emoji, two cells wide.
_EMOJI_PRESENTATION = "\ufe0f"


def char_cells(char: str) -> int:
    """The terminal cells one character takes: 0 for a combining mark, an enclosing mark or a
    format character (they draw on the character before), 2 for a wide or full-width East
    Asian character (CJK, most emoji), 1 otherwise."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """How many terminal columns ``text`` takes (its display cells, not its characters):
    ``len`` counts "é" written as e + combining accent as 2 and "李" as 1; a terminal draws
    them in 1 and 2 cells. A narrow symbol followed by the emoji presentation selector
    (``❤️``) is an emoji, drawn two cells wide."""
    width = 0
    previous = ""
    for char in text:
        if (char == _EMOJI_PRESENTATION and previous
                and unicodedata.category(previous) == "So" and char_cells(previous) == 1):
            width += 1  # the symbol before, now an emoji
            previous = ""
            continue
        cells = char_cells(char)
        width += cells
        if cells:
            previous = char
    return width


def pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` display cells (:func:`display_width`), on the
    left with ``right`` (numbers), else on the right."""
    fill = " " * max(0, width - display_width(text))
    return fill + text if right else text + fill


def text_table(headers: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "") -> str:
    """Columns padded to their widest cell in display cells (:func:`display_width`: a wide
    or combining character does not shift its row); numbers right-aligned, text
    left-aligned."""
    cells = [[("-" if v is None else str(v)) for v in row] for row in rows]
    widths = [display_width(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], display_width(cell))
    numeric = [
        all(_is_number(row[i]) for row in cells if row[i] != "-")
        and any(row[i] != "-" for row in cells)
        for i in range(len(headers))
    ]

    def fmt(row: Sequence[str]) -> str:
        parts = [
            pad(cell, widths[i], right=numeric[i])
            for i, cell in enumerate(row)
        ]
        return (indent + "  ".join(parts)).rstrip()

    lines = [fmt(list(headers)), indent + "  ".join("-" * w for w in widths)]
    lines.extend(fmt(row) for row in cells)
    return "\n".join(lines)


def _is_number(text: str) -> bool:
    stripped = text.lstrip("+-").replace(".", "", 1).replace(",", "")
    return stripped.isdigit()


def rule_block(
    rule_id: str, title: str, text: str, options: Sequence[str], presets: Sequence[str],
    width: int = 88,
) -> str:
    """One rule for the terminal: the id and title, the text wrapped, its options and the
    presets that change it."""
    lines = [f"{rule_id}  {title}", *textwrap.wrap(text, width, initial_indent="  ",
                                                   subsequent_indent="  ",
                                                   break_on_hyphens=False)]
    if options:
        lines.append("  Options: " + ", ".join(options))
    if presets:
        lines.append("  Presets:")
    for sentence in presets:
        lines.extend(textwrap.wrap(sentence, width, initial_indent="    - ",
                                   subsequent_indent="      ", break_on_hyphens=False))
    return "\n".join(lines)


def printable(text: str) -> str:
    """``text`` with every character that is not printable (controls, right-to-left and
    other direction marks) as its escape: what a file holds cannot reorder, recolour or
    clear the terminal line it is shown in."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                   for c in text)
