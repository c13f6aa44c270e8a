"""The rules inside the tool: every rule id with a title and the project's own text of it,
shipped as package data (``data/rules.toml``) so a ``pip install`` has them; docs/RULES.md is
generated from them.

>>> rule_title("r-fl-4")
'The button at a Fantasyland hand'
>>> closest_ids("r-setle-3")[:1]
['R-SETTLE-3']
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class RuleText:
    id: str  # "R-FL-4"
    title: str  # one line
    text: str  # the full rule, several sentences
    options: tuple[str, ...]  # ruleset options the rule depends on
    presets: tuple[str, ...]  # sentences: which presets change it and how


@cache
def _rules() -> dict[str, RuleText]:
    """By upper-case id, in the order of the data file (and of docs/RULES.md)."""
    text = resources.files("ofc_audit").joinpath("data/rules.toml").read_text("utf-8")
    rules: dict[str, RuleText] = {}
    for entry in tomllib.loads(text)["rule"]:
        rule = RuleText(
            id=entry["id"],
            title=entry["title"],
            text=entry["text"].strip(),
            options=tuple(entry["options"]),
            presets=tuple(entry["presets"]),
        )
        rules[rule.id.upper()] = rule
    return rules


def all_rules() -> list[RuleText]:
    """Every rule, in the rulebook's order (docs/RULES.md's)."""
    return list(_rules().values())


def rule_text(rule_id: str) -> RuleText:
    """The rule of an id (any case); KeyError for an id the rulebook does not have."""
    try:
        return _rules()[rule_id.strip().upper()]
    except KeyError:
        raise KeyError(rule_id) from None


def rule_title(rule_id: str) -> str:
    """The one-line title of a rule; "" for an unknown id."""
    rule = _rules().get(rule_id.strip().upper())
    return rule.title if rule else ""


def cited(rule_id: str) -> str:
    """A rule id with its title for people: ``R-FL-4 (The button at a Fantasyland hand)``."""
    title = rule_title(rule_id)
    return f"{rule_id} ({title})" if title else rule_id


def closest_ids(word: str, n: int = 3) -> list[str]:
    """The rule ids nearest to a mistyped one, best first (ids of the same group first)."""
    ids = list(_rules())
    key = word.strip().upper()
    if not key.startswith("R-"):
        key = "R-" + key
    near = difflib.get_close_matches(key, ids, n=n, cutoff=0.0)
    group = key.rsplit("-", 1)[0] + "-"
    same_group = [i for i in ids if i.startswith(group)]
    if same_group:
        # A mistyped Fantasyland id should offer the FL ids before ROW ones that look as close.
        ranked = difflib.get_close_matches(key, same_group, n=n, cutoff=0.0)
        near = ranked + [i for i in near if i not in ranked]
    return near[:n]


def with_rule_titles(violations: pd.DataFrame) -> pd.DataFrame:
    """A violations table (a ``rule`` column) with each rule's title in a ``title`` column
    after the id, for the tables people read; the files for programs keep docs/CLI.md's columns."""
    out = violations.copy()
    out.insert(list(out.columns).index("rule") + 1, "title",
               out["rule"].map(rule_title).astype("string"))
    return out
