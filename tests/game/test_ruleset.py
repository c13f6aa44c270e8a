"""Rulesets and presets (RULES.md "Rulesets and presets"), written by hand from RULES.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from ofc_audit.game.ruleset import (
    PRESETS,
    FantasylandType,
    JokerExcludes,
    RoyaltiesMode,
    Ruleset,
    RulesetError,
    Variant,
)

# The defaults of RULES.md, option by option.
DEFAULTS = {
    "variant": Variant.PINEAPPLE,
    "fantasyland": FantasylandType.STANDARD,
    "scoop_bonus": 3,
    "royalties": RoyaltiesMode.ALL,
    "royalty_table": "standard",
    "stack_cap": True,
    "button_moves_on_fantasyland": False,
    "round_hand_cap": None,
    "joker_excludes": JokerExcludes.ROW,
}


def options(ruleset: Ruleset) -> dict[str, object]:
    return {key: getattr(ruleset, key) for key in DEFAULTS}


def test_presets_ship() -> None:
    """The three presets of RULES.md."""
    assert set(PRESETS) == {"standard", "pokerdom", "tonybet"}


def test_preset_standard_is_the_defaults() -> None:
    """`standard`: the defaults of RULES.md; also what Ruleset() and load(None) give."""
    assert options(Ruleset.preset("standard")) == DEFAULTS
    assert options(Ruleset()) == DEFAULTS
    assert options(Ruleset.load(None)) == DEFAULTS
    assert Ruleset.load("standard").name == "standard"


def test_preset_pokerdom() -> None:
    """`pokerdom`: as standard, but the button moves on Fantasyland hands (R-FL-4)."""
    assert options(Ruleset.load("pokerdom")) == {**DEFAULTS, "button_moves_on_fantasyland": True}


def test_preset_tonybet() -> None:
    """`tonybet`: as standard, with variant classic and round_hand_cap 20 (R-MATCH-3)."""
    assert options(Ruleset.load("tonybet")) == {
        **DEFAULTS, "variant": Variant.CLASSIC, "round_hand_cap": 20,
    }


def test_unknown_preset_is_an_error() -> None:
    """A name that is neither a preset nor a file names the presets."""
    with pytest.raises(RulesetError) as info:
        Ruleset.load("partypoker")
    assert "partypoker" in str(info.value)
    for preset in PRESETS:
        assert preset in str(info.value)


def test_user_toml_file(tmp_path: Path) -> None:
    """A user's TOML file is accepted; options it omits keep their defaults."""
    path = tmp_path / "house.toml"
    path.write_text(
        'variant = "turbo"\nfantasyland = "progressive"\nscoop_bonus = 0\nstack_cap = false\n'
        'round_hand_cap = 12\njoker_excludes = "known"\nroyalties = "none"\n',
        encoding="utf-8",
    )
    ruleset = Ruleset.load(str(path))
    assert options(ruleset) == {
        **DEFAULTS,
        "variant": Variant.TURBO,
        "fantasyland": FantasylandType.PROGRESSIVE,
        "scoop_bonus": 0,
        "stack_cap": False,
        "round_hand_cap": 12,
        "joker_excludes": JokerExcludes.KNOWN,
        "royalties": RoyaltiesMode.NONE,
    }
    assert ruleset.name == "house"


def test_user_toml_file_every_option(tmp_path: Path) -> None:
    """Every option of RULES.md can be written in a file, including joker-pineapple."""
    path = tmp_path / "all.toml"
    path.write_text(
        'variant = "joker-pineapple"\nfantasyland = "ultimate"\nscoop_bonus = 5\n'
        'royalties = "all"\nroyalty_table = "standard"\nstack_cap = true\n'
        'button_moves_on_fantasyland = true\nround_hand_cap = "none"\njoker_excludes = "board"\n',
        encoding="utf-8",
    )
    ruleset = Ruleset.load(str(path))
    assert ruleset.variant is Variant.JOKER_PINEAPPLE
    assert ruleset.fantasyland is FantasylandType.ULTIMATE
    assert ruleset.scoop_bonus == 5
    assert ruleset.button_moves_on_fantasyland is True
    assert ruleset.round_hand_cap is None
    assert ruleset.joker_excludes is JokerExcludes.BOARD


def test_empty_user_toml_is_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text("", encoding="utf-8")
    assert options(Ruleset.load(str(path))) == DEFAULTS


def test_unknown_key_names_the_key_and_the_options(tmp_path: Path) -> None:
    """An unknown key raises RulesetError naming it and the allowed options."""
    path = tmp_path / "typo.toml"
    path.write_text("scoop_bonsu = 3\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        Ruleset.load(str(path))
    message = str(info.value)
    assert "scoop_bonsu" in message
    for key in DEFAULTS:
        assert key in message


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("variant", '"omaha"', ["classic", "pineapple", "turbo", "joker-pineapple"]),
        ("fantasyland", '"super"', ["none", "standard", "progressive", "ultimate", "tournament"]),
        ("royalties", '"some"', ["all", "none"]),
        ("joker_excludes", '"deck"', ["row", "board", "known"]),
        ("royalty_table", '"fancy"', ["standard"]),
        ("scoop_bonus", "-1", [">= 0"]),
        ("scoop_bonus", '"three"', [">= 0"]),
        ("scoop_bonus", "1.5", [">= 0"]),
        ("scoop_bonus", "true", [">= 0"]),
        ("stack_cap", '"yes"', ["true", "false"]),
        ("stack_cap", "1", ["true", "false"]),
        ("button_moves_on_fantasyland", '"no"', ["true", "false"]),
        ("round_hand_cap", "0", [">= 1"]),
        ("round_hand_cap", '"many"', [">= 1"]),
    ],
)
def test_bad_value_names_the_key_and_the_allowed_values(
    tmp_path: Path, key: str, value: str, allowed: list[str]
) -> None:
    """A bad value raises RulesetError naming the key and what it allows."""
    path = tmp_path / "bad.toml"
    path.write_text(f"{key} = {value}\n", encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        Ruleset.load(str(path))
    message = str(info.value)
    assert key in message
    for word in allowed:
        assert word in message


def test_invalid_toml_is_a_ruleset_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text("variant = \n", encoding="utf-8")
    with pytest.raises(RulesetError, match="TOML"):
        Ruleset.load(str(path))


def test_missing_file_is_a_ruleset_error(tmp_path: Path) -> None:
    with pytest.raises(RulesetError):
        Ruleset.load(str(tmp_path / "nowhere.toml"))


def test_ruleset_error_is_a_value_error() -> None:
    assert issubclass(RulesetError, ValueError)


def test_with_options_overrides_and_checks() -> None:
    """`score --variant/--fantasyland` override the ruleset's fields; values are checked."""
    ruleset = Ruleset.load("tonybet").with_options(variant="turbo", fantasyland=None)
    assert ruleset.variant is Variant.TURBO
    assert ruleset.fantasyland is FantasylandType.STANDARD  # None leaves the field alone
    assert ruleset.round_hand_cap == 20
    with pytest.raises(RulesetError, match="fantasyland"):
        Ruleset().with_options(fantasyland="everlasting")


def test_from_mapping_validates() -> None:
    with pytest.raises(RulesetError, match="scoop_bonus"):
        Ruleset.from_mapping({"scoop_bonus": "x"})
    assert Ruleset.from_mapping({"variant": "classic"}).variant is Variant.CLASSIC


def test_royalty_table_standard_values() -> None:
    """R-ROY-1..3 as data: the standard table."""
    table = Ruleset().royalty_values
    assert table["bottom"] == {
        "straight": 2, "flush": 4, "full_house": 6, "quads": 10, "straight_flush": 15,
        "royal_flush": 25,
    }
    assert table["middle"] == {
        "trips": 2, "straight": 4, "flush": 8, "full_house": 12, "quads": 20,
        "straight_flush": 30, "royal_flush": 50,
    }
    top = table["top"]
    assert [top[f"pair:{r}"] for r in range(6, 15)] == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert [top[f"trips:{r}"] for r in range(2, 15)] == list(range(10, 23))
    assert all(top.get(f"pair:{r}", 0) == 0 for r in range(2, 6))
