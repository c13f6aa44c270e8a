"""Golden corpus: every history under sample_histories/ has an expected-results sidecar
(``NAME.expected.json``, the audit JSON of that file alone) next to it, and every history
under sample_histories/disputes/ the visible text of its dispute page (the page of the
file's first hand with a problem) in ``NAME.expected.page`` (not ``.txt``: every ``*.txt``
of a folder is read as a history). ``--update`` also writes those pages to
``reports/hands/ID.html`` (the examples the README links, named as ``session --out
reports/`` names them).

Regenerate after a deliberate change, then read the diff by hand before committing:

    python -m tests.support.golden --update
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ofc_audit.audit.driver import audit_paths, write_audit_json
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import HistoryParseError, read_path
from ofc_audit.present.dispute import HandPage, Sources, build_pages, render_page
from ofc_audit.present.hand_pages import page_name
from ofc_audit.replay import Replayer

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_histories"
DISPUTES = CORPUS / "disputes"
EXAMPLES = ROOT / "reports" / "hands"


def histories() -> list[Path]:
    return sorted(CORPUS.rglob("*.txt"))


def sidecar(history: Path) -> Path:
    return history.with_name(history.stem + ".expected.json")


def audit_document(history: Path) -> dict[str, Any]:
    """The audit JSON of one file, with the path as seen from the repository's root."""
    relative = history.relative_to(ROOT).as_posix()
    out = io.StringIO()
    with at_root():
        write_audit_json(audit_paths([relative], Ruleset()), out)
    document: dict[str, Any] = json.loads(out.getvalue())
    return document


@contextmanager
def at_root() -> Iterator[None]:
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(cwd)


def dispute_histories() -> list[Path]:
    return sorted(DISPUTES.glob("*.txt"))


def page_sidecar(history: Path) -> Path:
    return history.with_name(history.stem + ".expected.page")


def example_name(history: Path) -> str:
    """The example page's file name: the one ``session --out reports/`` gives the hand."""
    hand = re.search(r"(?m)^Hand #(\S+)", page_sidecar(history).read_text(encoding="utf-8"))
    assert hand, history
    return page_name(hand.group(1), set())


def dispute_page(history: Path) -> str:
    """The dispute page of the first hand of ``history`` with a violation or a mismatch,
    with the file named as from the repository's root."""
    relative = history.relative_to(ROOT).as_posix()
    with at_root():
        replayer = Replayer(Ruleset(), explain=True)
        for item in read_path(relative):
            if isinstance(item, HistoryParseError):
                replayer.reject(item)
                continue
            result = replayer.replay(item)
            if result.violations or result.mismatches:
                page = build_pages(Sources(), relative, [(item, result, "h1")])[0]
                assert isinstance(page, HandPage)
                return render_page([page], f"OFC hand #{page.hand_id}")
    raise AssertionError(f"{relative} has no hand with a problem")


_BLOCKS = {"p", "div", "section", "article", "h1", "h2", "h3", "tr", "li", "table", "ul",
           "ol", "dl", "details", "summary", "thead", "tbody", "main", "br"}


class _Text(HTMLParser):
    """The text a reader sees, roughly as a browser's innerText: no style or script, no
    content of a closed ``<details>`` but its summary, blocks on lines of their own, table
    cells separated by a tab."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.closed_details = 0  # depth inside closed <details>
        self.in_summary = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script", "title"):
            self.skip += 1
        elif tag == "details":
            if self.closed_details or not any(k == "open" for k, _ in attrs):
                self.closed_details += 1
        elif tag == "summary":
            self.in_summary = True
        if tag in ("td", "th", "dt", "dd"):
            self.parts.append("\t")
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "title"):
            self.skip -= 1
        elif tag == "details" and self.closed_details:
            self.closed_details -= 1
        elif tag == "summary":
            self.in_summary = False
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip or (self.closed_details and not self.in_summary):
            return
        self.parts.append(re.sub(r"\s+", " ", data))

    def text(self) -> str:
        lines = []
        for line in "".join(self.parts).split("\n"):
            cells = [c.strip() for c in line.split("\t")]
            joined = "\t".join(c for c in cells if c)
            if joined:
                lines.append(joined)
        return "\n".join(lines) + "\n"


def visible_text(page: str) -> str:
    """What a reader sees of a page, one block a line (deterministic, no browser)."""
    parser = _Text()
    parser.feed(page)
    parser.close()
    return parser.text()


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """``{"hands[0].players[1].points": -2, ...}``: the fields a diff names."""
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(flatten(item, f"{prefix}.{key}" if prefix else key))
        return flat or {prefix: {}}
    if isinstance(value, list):
        flat = {}
        for i, item in enumerate(value):
            flat.update(flatten(item, f"{prefix}[{i}]"))
        return flat or {prefix: []}
    return {prefix: value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--update", action="store_true", help="rewrite every sidecar")
    args = parser.parse_args()
    for history in histories():
        document = audit_document(history)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        path = sidecar(history)
        if args.update:
            path.write_text(text, encoding="utf-8")
        print(f"{'wrote' if args.update else 'checked'} {path.relative_to(ROOT)}")
    for history in dispute_histories():
        page = dispute_page(history)
        path = page_sidecar(history)
        if args.update:
            path.write_text(visible_text(page), encoding="utf-8")
            EXAMPLES.mkdir(parents=True, exist_ok=True)
            (EXAMPLES / example_name(history)).write_text(page, encoding="utf-8")
        print(f"{'wrote' if args.update else 'checked'} {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
