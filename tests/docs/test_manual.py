"""The generated pages of the manual: docs/CLI.md and docs/RULES.md are what the generator
writes now (the app, the JSON it prints, the rulebook), and the generator refuses a template
that leaves a command, a JSON key or a ruleset option undocumented."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import msgspec
import pytest
import typer

from ofc_audit.audit.json_doc import HandDocument, PlayerDocument
from ofc_audit.cli import manual as cli_manual
from ofc_audit.cli.manual import generated_pages
from ofc_audit.game.rulebook import all_rules
from ofc_audit.present import manual
from ofc_audit.present.manual import ManualError, json_key_paths
from ofc_audit.replay.results import Finding, Incomplete, Mismatch, PairResult

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return generated_pages(ROOT)


@pytest.mark.slow  # the pages run the commands on the sample histories
@pytest.mark.parametrize("name", ["docs/CLI.md", "docs/RULES.md"])
def test_the_committed_page_is_what_the_generator_writes(pages: dict[str, str], name: str) -> None:
    committed = (ROOT / name).read_text("utf-8")
    # On failure: python -m ofc_audit.cli.manual (from the repository's root) rewrites it.
    assert committed == pages[name], f"{name} is out of date: run python -m ofc_audit.cli.manual"


@pytest.mark.slow  # the pages run the commands on the sample histories
def test_every_command_has_its_section_usage_and_options(pages: dict[str, str]) -> None:
    text = pages["docs/CLI.md"]
    for command in ("score", "audit", "session", "simulate", "rules"):
        assert f"\n## ofc-audit {command}\n" in text
        assert f"\nofc-audit {command} [OPTIONS]" in text
    for option in ("`--rules PRESET|FILE`", "`--hand ID`", "`--html PAGE.html`",
                   "`--min-hands <int range>`", "`--fault-kinds <str>`", "`--version`"):
        assert option in text, option


def _struct_keys(struct: type[msgspec.Struct], prefix: str) -> set[str]:
    return {f"{prefix}.{name}" for name in struct.__struct_fields__}


@pytest.mark.slow  # the pages run the commands on the sample histories
def test_the_audit_keys_cover_every_field_of_the_json_structs(pages: dict[str, str]) -> None:
    # The audit document is printed from these structs: a field added to one and left out of
    # the manual would make the generator fail; this checks that the manual's run of the
    # audit reaches every one of them (violations, mismatches, incomplete hands included).
    text = pages["docs/CLI.md"]
    listed = set(re.findall(r"^- `(hands\[\][^`]*)`", text, flags=re.M))
    expected = (_struct_keys(HandDocument, "hands[]")
                | _struct_keys(PlayerDocument, "hands[].players[]")
                | _struct_keys(Finding, "hands[].violations[]")
                | _struct_keys(Mismatch, "hands[].recorded_mismatches[]")
                | _struct_keys(Incomplete, "hands[].incomplete")
                | _struct_keys(PairResult, "hands[].pairs[]"))
    assert expected <= listed, sorted(expected - listed)


@pytest.mark.slow  # the pages run the commands on the sample histories
def test_every_rule_has_its_heading_text_and_options(pages: dict[str, str]) -> None:
    text = pages["docs/RULES.md"]
    for rule in all_rules():
        heading = f"\n### {rule.id}: {rule.title}\n\n{rule.text}\n"
        assert heading in text, rule.id
        for option in rule.options:
            assert f"`{option}`" in text
        for preset in rule.presets:
            assert f"Preset {preset}" in text
    assert "| `round_hand_cap` | none | none | 20 |" in text  # the presets' values
    assert "| `button_moves_on_fantasyland` | false | true | false |" in text


# -- the generator's checks, on known answers ---------------------------------------------------


def test_key_paths_put_children_under_their_parent_whatever_item_shows_them() -> None:
    document = {"hands": [{"id": "A", "violations": []},
                          {"id": "B", "violations": [{"rule": "R-1"}], "extra": None}],
                "totals": {"hands": 2}}
    assert json_key_paths(document) == [
        "hands", "hands[].id", "hands[].violations", "hands[].violations[].rule",
        "hands[].extra", "totals", "totals.hands",
    ]
    assert json_key_paths([{"id": 1, "options": ["a"]}]) == ["[].id", "[].options"]
    assert json_key_paths({"rows": [[1, 2]]}) == ["rows"]


def _render(template: str, **names: object) -> str:
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    return environment.from_string(template).render(**names)


def test_a_key_without_a_meaning_or_a_meaning_without_a_key_stops_the_manual() -> None:
    class Documents:
        def get(self, name: str) -> object:
            return {"players": [{"name": "alice", "points": 3}]}

    def keys(name: str, caller: object) -> str:
        return manual._json_keys(Documents(), name, caller)  # type: ignore[arg-type]

    complete = ("{% call keys('x') %}players: the players.\nplayers[].name: the name.\n"
                "players[].points: its\n  points.\n{% endcall %}")
    assert _render(complete, keys=keys) == (
        "- `players`: the players.\n- `players[].name`: the name.\n"
        "- `players[].points`: its points.\n")
    with pytest.raises(ManualError, match=r"not described: players\[\]\.points"):
        _render(complete.replace("players[].points: its\n  points.\n", ""), keys=keys)
    with pytest.raises(ManualError, match=r"described but not there: players\[\]\.money"):
        _render(complete.replace("{% endcall %}", "players[].money: gone.\n{% endcall %}"),
                keys=keys)
    with pytest.raises(ManualError, match="expected 'KEY: meaning'"):
        _render(complete.replace("players: the players.", "players"), keys=keys)


def test_a_command_missing_from_the_template_stops_the_manual(tmp_path: Path) -> None:
    app = typer.Typer()

    @app.command()
    def one() -> None:
        """The first."""

    @app.command()
    def two() -> None:
        """The second."""

    commands = manual._Commands(app)
    manual._command_reference(commands, "one")
    with pytest.raises(ManualError, match="not described: two"):
        manual._check_same(commands.documented, commands.names(), "the commands")
    with pytest.raises(ManualError, match="'three', which is no command"):
        manual._command_reference(commands, "three")


def test_a_rule_family_without_a_heading_stops_the_manual(monkeypatch: pytest.MonkeyPatch) -> None:
    headings = dict(manual.FAMILY_HEADINGS)
    del headings["JOKER"]
    monkeypatch.setattr(manual, "FAMILY_HEADINGS", headings)
    with pytest.raises(ManualError, match="without a heading: JOKER"):
        manual.rule_families()


def test_check_names_a_stale_page_and_writes_nothing(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # The pages themselves are checked above; this is what the command does with them.
    pages = {"docs/CLI.md": "commands\n", "docs/RULES.md": "rules\n"}
    monkeypatch.setattr(cli_manual, "generated_pages", lambda root: pages)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "RULES.md").write_text("old\n", encoding="utf-8")
    assert cli_manual.main(["--check", "--root", str(tmp_path)]) == 1
    assert "out of date: docs/CLI.md, docs/RULES.md" in capsys.readouterr().err
    assert (tmp_path / "docs" / "RULES.md").read_text("utf-8") == "old\n"
    assert not (tmp_path / "docs" / "CLI.md").exists()
    assert cli_manual.main(["--root", str(tmp_path)]) == 0
    assert (tmp_path / "docs" / "CLI.md").read_text("utf-8") == "commands\n"
    assert (tmp_path / "docs" / "RULES.md").read_text("utf-8") == "rules\n"
    assert cli_manual.main(["--check", "--root", str(tmp_path)]) == 0


def test_a_manual_error_is_exit_2_with_its_message(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(root: Path) -> dict[str, str]:
        raise ManualError("the keys of rules --json: not described: [].id")

    monkeypatch.setattr(cli_manual, "generated_pages", refuse)
    assert cli_manual.main(["--root", str(tmp_path)]) == 2
    assert "manual: error: the keys of rules --json: not described: [].id" in (
        capsys.readouterr().err)
    assert not (tmp_path / "docs").exists()
