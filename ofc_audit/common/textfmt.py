"""Plain-text tables for people (the CLI's default output)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from decimal import Decimal


def signed(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value:+d}" if value else "0"


def quantity(count: int, unit: str, sign: bool = False) -> str:
    """``1 point``, ``6 royalty points``; with ``sign``, ``+1 point`` and ``-6 points``."""
    return f"{signed(count) if sign else count} {unit}{'' if abs(count) == 1 else 's'}"


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


def text_table(headers: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "") -> str:
    """Columns padded to their widest cell; numbers right-aligned, text left-aligned."""
    cells = [[("-" if v is None else str(v)) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))
    numeric = [
        all(_is_number(row[i]) for row in cells if row[i] != "-")
        and any(row[i] != "-" for row in cells)
        for i in range(len(headers))
    ]

    def fmt(row: Sequence[str]) -> str:
        parts = [
            cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i])
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
