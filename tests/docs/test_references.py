"""The project reads without files outside it: nothing but the tests refers to ../shared or
to a CLI.md, RULES.md or FORMAT.md other than docs/'s, every link of the manual and the
READMEs leads to a file and a heading that exist, and, where a copy of the original
specification stands next to the repository, the manual covers every rule id and JSON key
it names."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# OFC_AUDIT_SPEC names another copy (a worktree has none next to it).
SPEC = Path(os.environ.get("OFC_AUDIT_SPEC", ROOT.parent / "shared" / "spec"))
SKIPPED_DIRS = {".git", "tests", "__pycache__", ".venv", ".mypy_cache", ".ruff_cache",
                ".pytest_cache", ".hypothesis", "node_modules"}
PAGE = re.compile(r"(CLI|RULES|FORMAT)\.md")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _texts() -> list[tuple[Path, str]]:
    found = []
    for path in sorted(ROOT.rglob("*")):
        parts = set(path.relative_to(ROOT).parts)
        if not path.is_file() or parts & SKIPPED_DIRS or any(p.endswith(".egg-info")
                                                              for p in parts):
            continue
        try:
            found.append((path, path.read_text("utf-8")))
        except (UnicodeDecodeError, OSError):
            continue  # a binary file (charts, Parquet)
    return found


TEXTS = _texts()


def test_the_scan_sees_the_package_the_docs_and_the_samples() -> None:
    names = {path.relative_to(ROOT).as_posix() for path, _ in TEXTS}
    assert {"README.md", "docs/CLI.md", "ofc_audit/cli/app.py", "grammars/ofc-hh-v1.ebnf",
            "sample_histories/README.md"} <= names


def test_nothing_outside_the_tests_refers_to_the_shared_folder() -> None:
    offending = [f"{path.relative_to(ROOT)}:{n}" for path, text in TEXTS
                 for n, line in enumerate(text.splitlines(), 1)
                 if re.search(r"(\.\./|\b)shared/(spec|seeds)\b|\.\./shared\b", line)]
    assert offending == []


def _is_docs_reference(path: Path, line: str, start: int) -> bool:
    """Whether the page name at ``start`` of ``line`` is one of docs/'s pages: written as
    ``docs/NAME.md``, or, in a page of docs/ or a template of one, a link to its sibling or
    the template's own file name."""
    if line[:start].endswith("docs/"):
        return True
    in_docs = path.parent == ROOT / "docs" or path.suffixes[-2:] == [".md", ".j2"]
    if not in_docs and path.name != "manual.py":
        return False
    after = line[start:]
    return (line[:start].endswith("](") or line[:start].endswith("[")
            or re.match(r"(CLI|RULES|FORMAT)\.md\.j2", after) is not None)


def test_the_spec_pages_are_named_only_as_the_pages_of_docs() -> None:
    offending = []
    for path, text in TEXTS:
        for n, line in enumerate(text.splitlines(), 1):
            for match in PAGE.finditer(line):
                if match.start() > 0 and line[match.start() - 1] in "-_":
                    continue  # CLI-EXTENSIONS.md and the like
                if not _is_docs_reference(path, line, match.start()):
                    offending.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offending == []


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[`*_\[\]]|\]\([^)]*\)", "", heading.strip().lower())
    text = re.sub(r"\(([^)]*)\)", r"\1", text) if "](" not in heading else text
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.M | re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, flags=re.M)}


MARKDOWN = [path for path, _ in TEXTS if path.suffix == ".md"]


@pytest.mark.parametrize("page", MARKDOWN, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    text = re.sub(r"^```.*?^```", "", page.read_text("utf-8"), flags=re.M | re.S)
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # http:, mailto:
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(target)
    assert broken == []


def test_the_slug_is_githubs() -> None:
    assert _slug("R-SETTLE-2: The order in which pairs are settled") == (
        "r-settle-2-the-order-in-which-pairs-are-settled")
    assert _slug("Jokers (Joker Pineapple)") == "jokers-joker-pineapple"
    assert _slug("Hidden cards: a player's own history") == "hidden-cards-a-players-own-history"
    assert _slug("Time bank, automatic placement, disconnection") == (
        "time-bank-automatic-placement-disconnection")


# -- against the original specification, where a copy stands next to the repository ----------


def _spec(name: str) -> str:
    path = SPEC / name
    if not path.is_file():
        pytest.skip(f"no ../shared/spec/{name} next to the repository")
    return path.read_text("utf-8")


def test_every_rule_id_of_the_specification_has_its_section_in_docs() -> None:
    ids = re.findall(r"^- (R-[A-Z]+-[0-9]+) ", _spec("RULES.md"), flags=re.M)
    assert len(ids) > 40
    rules = (ROOT / "docs" / "RULES.md").read_text("utf-8")
    assert [i for i in ids if f"\n### {i}: " not in rules] == []


def test_every_option_and_preset_of_the_specification_is_in_docs() -> None:
    spec = _spec("RULES.md")
    options = re.findall(r"`([a-z_]+)` \[", spec)
    assert "round_hand_cap" in options and len(options) == 9
    rules = (ROOT / "docs" / "RULES.md").read_text("utf-8")
    assert [o for o in options if f"| `{o}` |" not in rules] == []
    for preset in ("standard", "pokerdom", "tonybet"):
        assert f"- `{preset}`: " in rules


def test_every_json_key_of_the_specification_is_documented_in_docs() -> None:
    spec = _spec("CLI.md")
    blocks = re.findall(r"^```\n(.*?)^```", spec, flags=re.M | re.S)
    keys = {key for block in blocks for key in re.findall(r'"([a-z_]+)":', block)}
    assert {"transfer_to_a", "recorded_mismatches", "fantasylands"} <= keys
    cli = (ROOT / "docs" / "CLI.md").read_text("utf-8")
    documented = {path.rsplit(".", 1)[-1].removeprefix("[]")
                  for path in re.findall(r"^- `([^`]+)`: ", cli, flags=re.M)}
    assert sorted(keys - documented) == []


def test_the_worked_example_of_the_specification_is_the_one_docs_works_through() -> None:
    # The spec's worked example is the hand docs/FORMAT.md works through.
    spec = _spec("FORMAT.md")
    example = re.search(r"^```\n(OFC Hand.*?)^```", spec, flags=re.M | re.S)
    assert example is not None
    assert example.group(1) in (ROOT / "docs" / "FORMAT.md").read_text("utf-8")
