"""Rulesets: every option of docs/RULES.md, presets shipped as TOML, and the rule tables as data.

>>> Ruleset.preset("tonybet").variant, Ruleset.preset("tonybet").round_hand_cap
(<Variant.CLASSIC: 'classic'>, 20)
>>> Ruleset.from_mapping({"scoop_bonus": "x"})
Traceback (most recent call last):
...
ofc_audit.game.ruleset.RulesetError: scoop_bonus: expected a whole number >= 0, got 'x'
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any


class RulesetError(ValueError):
    """A ruleset option that is unknown or has a bad value; the message names both."""


class Variant(StrEnum):
    CLASSIC = "classic"
    PINEAPPLE = "pineapple"
    TURBO = "turbo"
    JOKER_PINEAPPLE = "joker-pineapple"

    @property
    def title(self) -> str:  # type: ignore[override]  # the header's name, not str.title()
        """The name a hand-history header uses (``Joker Pineapple``)."""
        return _VARIANT_TITLES[self]

    @classmethod
    def from_title(cls, title: str) -> Variant:
        return _TITLE_VARIANTS[title]

    @property
    def is_pineapple_family(self) -> bool:
        return self in (Variant.PINEAPPLE, Variant.JOKER_PINEAPPLE)

    @property
    def deck_size(self) -> int:
        return 54 if self is Variant.JOKER_PINEAPPLE else 52

    @property
    def max_players(self) -> int:
        """R-DEAL-2."""
        return 3 if self.is_pineapple_family else 4

    @property
    def streets(self) -> tuple[tuple[int, int], ...]:
        """(cards dealt, cards placed) per street, street 1 first (R-DEAL-1)."""
        return _STREETS[self]


_VARIANT_TITLES = {
    Variant.CLASSIC: "Classic",
    Variant.PINEAPPLE: "Pineapple",
    Variant.TURBO: "Turbo",
    Variant.JOKER_PINEAPPLE: "Joker Pineapple",
}
_TITLE_VARIANTS = {title: variant for variant, title in _VARIANT_TITLES.items()}
_STREETS = {
    Variant.CLASSIC: ((5, 5),) + ((1, 1),) * 8,
    Variant.PINEAPPLE: ((5, 5),) + ((3, 2),) * 4,
    Variant.JOKER_PINEAPPLE: ((5, 5),) + ((3, 2),) * 4,
    Variant.TURBO: ((5, 5),) + ((4, 4),) * 2,
}


class FantasylandType(StrEnum):
    NONE = "none"
    STANDARD = "standard"
    PROGRESSIVE = "progressive"
    ULTIMATE = "ultimate"
    TOURNAMENT = "tournament"


class RoyaltiesMode(StrEnum):
    ALL = "all"
    NONE = "none"


class JokerExcludes(StrEnum):
    ROW = "row"
    BOARD = "board"
    KNOWN = "known"


# Royalty tables (R-ROY-1..3), keyed by hand category name; the top row by made hand.
# Top: a pair of rank r (r = 2..14) and trips of rank r.
ROYALTY_TABLES: dict[str, dict[str, dict[str, int]]] = {
    "standard": {
        "bottom": {
            "straight": 2,
            "flush": 4,
            "full_house": 6,
            "quads": 10,
            "straight_flush": 15,
            "royal_flush": 25,
        },
        "middle": {
            "trips": 2,
            "straight": 4,
            "flush": 8,
            "full_house": 12,
            "quads": 20,
            "straight_flush": 30,
            "royal_flush": 50,
        },
        # "pair:6" is 66; "trips:2" is 222.
        "top": {
            **{f"pair:{r}": r - 5 for r in range(6, 15)},
            **{f"trips:{r}": r + 8 for r in range(2, 15)},
        },
    },
}


def _choice(enum: type[StrEnum], key: str, value: Any) -> Any:
    try:
        return enum(str(value).lower() if isinstance(value, str) else value)
    except ValueError:
        allowed = ", ".join(member.value for member in enum)
        raise RulesetError(f"{key}: expected one of {allowed}, got {value!r}") from None


def _whole(key: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RulesetError(f"{key}: expected a whole number >= {minimum}, got {value!r}")
    return value


def _flag(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RulesetError(f"{key}: expected true or false, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Ruleset:
    """All options of docs/RULES.md; defaults are the `standard` preset."""

    variant: Variant = Variant.PINEAPPLE
    fantasyland: FantasylandType = FantasylandType.STANDARD
    scoop_bonus: int = 3
    royalties: RoyaltiesMode = RoyaltiesMode.ALL
    royalty_table: str = "standard"
    stack_cap: bool = True
    button_moves_on_fantasyland: bool = False
    round_hand_cap: int | None = None
    joker_excludes: JokerExcludes = JokerExcludes.ROW
    name: str = "custom"

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any], name: str = "custom") -> Ruleset:
        known = {f.name for f in fields(cls)} - {"name"}
        values: dict[str, Any] = {}
        for key, value in options.items():
            if key not in known:
                raise RulesetError(
                    f"unknown ruleset option {key!r}; the options are {', '.join(sorted(known))}"
                )
            values[key] = _check(key, value)
        return cls(**values, name=name)

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        if name not in PRESETS:
            raise RulesetError(
                f"unknown ruleset preset {name!r}; the presets are {', '.join(PRESETS)}"
            )
        text = resources.files("ofc_audit").joinpath(f"presets/{name}.toml").read_text("utf-8")
        return cls.from_toml_text(text, name=name)

    @classmethod
    def from_toml_text(cls, text: str, name: str = "custom") -> Ruleset:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise RulesetError(f"ruleset is not valid TOML: {error}") from None
        return cls.from_mapping(data, name=name)

    @classmethod
    def load(cls, preset_or_path: str | None) -> Ruleset:
        """A preset name, or the path of a user's TOML file; None is `standard`."""
        if preset_or_path is None:
            return cls.preset("standard")
        if preset_or_path in PRESETS:
            return cls.preset(preset_or_path)
        path = Path(preset_or_path)
        if not path.is_file():
            raise RulesetError(
                f"{preset_or_path!r} is neither a preset ({', '.join(PRESETS)}) nor a TOML file"
            )
        return cls.from_toml_text(path.read_text("utf-8"), name=path.stem)

    def with_options(self, **options: Any) -> Ruleset:
        checked = {key: _check(key, value) for key, value in options.items() if value is not None}
        return replace(self, **checked)

    @property
    def royalty_values(self) -> dict[str, dict[str, int]]:
        return ROYALTY_TABLES[self.royalty_table]


def _check(key: str, value: Any) -> Any:
    if key == "variant":
        return _choice(Variant, key, value)
    if key == "fantasyland":
        return _choice(FantasylandType, key, value)
    if key == "royalties":
        return _choice(RoyaltiesMode, key, value)
    if key == "joker_excludes":
        return _choice(JokerExcludes, key, value)
    if key == "scoop_bonus":
        return _whole(key, value, 0)
    if key == "round_hand_cap":
        if value is None or (isinstance(value, str) and value.lower() == "none"):
            return None
        return _whole(key, value, 1)
    if key == "royalty_table":
        if value not in ROYALTY_TABLES:
            raise RulesetError(
                f"royalty_table: expected one of {', '.join(ROYALTY_TABLES)}, got {value!r}"
            )
        return value
    if key in ("stack_cap", "button_moves_on_fantasyland"):
        return _flag(key, value)
    raise RulesetError(f"unknown ruleset option {key!r}")  # pragma: no cover


PRESETS = ("standard", "pokerdom", "tonybet")
