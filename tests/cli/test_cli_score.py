"""`ofc-audit score` against CLI.md's contract, with answers worked out by hand from RULES.md."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ofc_audit.cli.app import app


def make_runner() -> CliRunner:
    """A runner that keeps standard error apart from standard output (click < 8.2 needs
    mix_stderr=False; newer versions always separate them)."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


runner = make_runner()

EX1 = "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"
EX2 = "Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd"
EX3 = "As Ac Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h"
WORKED = ["score", EX1, EX2, EX3, "--stacks", "250,180,300", "--in-fantasyland", "3"]

FOUL = "Qs Qd 7c / Qh Qc 6d 5s 4h / 2s 2d 2h 9c 9d"  # the first R-ORDER-2 example
LIVE = "Kh Kd 3c / As Ad 7h 7d 3h / 8s 8h 8c 4d 4c"  # KK 8 + FH 6 = 14 royalties

PLAYER_KEYS = {"position", "fouled", "rows", "royalties", "points", "stack_before",
               "stack_after", "fantasyland_next"}
PAIR_KEYS = {"a", "b", "rows", "scoop", "royalties", "points_a", "transfer_to_a"}
CATEGORIES = {"high_card", "pair", "two_pair", "trips", "straight", "flush", "full_house",
              "quads", "straight_flush", "royal_flush"}


def run(*args: str) -> Any:
    return runner.invoke(app, list(args))


def run_json(*args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    document: dict[str, Any] = json.loads(result.stdout)  # nothing but JSON on stdout
    return document


# --- the worked example ----------------------------------------------------------------------


def test_worked_example_points_stacks_and_fantasyland() -> None:
    """CLI.md / R-SCORE-5 / R-SETTLE-3 / R-FL-1..3: points -6, -2, +8; stacks 244, 178, 308;
    only board 2 (QQ) qualifies, for 14 cards; board 3 (AA) is already in Fantasyland and
    does not stay."""
    doc = run_json(*WORKED)
    players = doc["players"]
    assert [p["position"] for p in players] == [1, 2, 3]
    assert [p["points"] for p in players] == [-6, -2, 8]
    assert [p["stack_before"] for p in players] == [250, 180, 300]
    assert [p["stack_after"] for p in players] == [244, 178, 308]
    assert [p["fouled"] for p in players] == [False, False, False]
    assert [p["fantasyland_next"] for p in players] == [
        {"qualifies": False, "cards": None},
        {"qualifies": True, "cards": 14},
        {"qualifies": False, "cards": None},
    ]


def test_worked_example_json_keys_follow_cli_md() -> None:
    """CLI.md: every key of the contract is there with its documented name and type."""
    doc = run_json(*WORKED)
    assert {"players", "pairs"} <= set(doc)
    for player in doc["players"]:
        assert PLAYER_KEYS <= set(player)
        assert set(player["rows"]) == {"top", "middle", "bottom"}
        for row in player["rows"].values():
            assert set(row) >= {"category", "cards"}
            assert row["category"] in CATEGORIES
        assert set(player["royalties"]) >= {"top", "middle", "bottom", "total"}
        assert set(player["fantasyland_next"]) >= {"qualifies", "cards"}
        assert isinstance(player["fouled"], bool)
    for pair in doc["pairs"]:
        assert PAIR_KEYS <= set(pair)


def test_worked_example_rows_and_royalties() -> None:
    """R-RANK-1 / R-ROY-1..3: categories, cards in input order, royalties 11, 13, 15."""
    players = run_json(*WORKED)["players"]
    assert players[0]["rows"]["top"] == {"category": "pair", "cards": ["Ah", "6c", "6d"]}
    assert players[0]["rows"]["middle"] == {
        "category": "two_pair", "cards": ["Kd", "2h", "3c", "Ks", "3s"],
    }
    assert players[0]["rows"]["bottom"] == {
        "category": "quads", "cards": ["7c", "7s", "3d", "7h", "7d"],
    }
    assert [[p["rows"][r]["category"] for r in ("top", "middle", "bottom")] for p in players] == [
        ["pair", "two_pair", "quads"],
        ["pair", "two_pair", "full_house"],
        ["pair", "trips", "flush"],
    ]
    assert [p["royalties"] for p in players] == [
        {"top": 1, "middle": 0, "bottom": 10, "total": 11},
        {"top": 7, "middle": 0, "bottom": 6, "total": 13},
        {"top": 9, "middle": 2, "bottom": 4, "total": 15},
    ]


def test_worked_example_pairs() -> None:
    """R-SCORE-1..4 / R-SETTLE-2: the three pairs in order (P1,P2), (P1,P3), (P2,P3)."""
    pairs = run_json(*WORKED)["pairs"]
    assert pairs == [
        {"a": 1, "b": 2, "rows": [-1, 1, 1], "scoop": 0, "royalties": -2, "points_a": -1,
         "transfer_to_a": -1},
        {"a": 1, "b": 3, "rows": [-1, -1, 1], "scoop": 0, "royalties": -4, "points_a": -5,
         "transfer_to_a": -5},
        {"a": 2, "b": 3, "rows": [-1, -1, 1], "scoop": 0, "royalties": -2, "points_a": -3,
         "transfer_to_a": -3},
    ]


def test_worked_example_without_in_fantasyland_board_3_qualifies() -> None:
    """R-FL-1: outside Fantasyland, AA on top of board 3 enters too."""
    doc = run_json("score", EX1, EX2, EX3)
    assert [p["fantasyland_next"]["cards"] for p in doc["players"]] == [None, 14, 14]


def test_without_stacks_stack_fields_are_null() -> None:
    """CLI.md: stack_* and transfer_to_a are null without --stacks; points still computed."""
    doc = run_json("score", EX1, EX2, EX3)
    assert [p["points"] for p in doc["players"]] == [-6, -2, 8]
    for player in doc["players"]:
        assert player["stack_before"] is None and player["stack_after"] is None
    for pair in doc["pairs"]:
        assert pair["transfer_to_a"] is None
        assert pair["points_a"] is not None


# --- fouls, caps, options ---------------------------------------------------------------------


def test_fouled_board_against_live() -> None:
    """R-SCORE-3 / R-ROY-4 / CLI.md: rows [-1,-1,-1], scoop -3, royalty fields 0, pays the
    opponent's 14 royalties: -20."""
    doc = run_json("score", FOUL, LIVE)
    fouled, live = doc["players"]
    assert fouled["fouled"] is True and live["fouled"] is False
    assert fouled["royalties"] == {"top": 0, "middle": 0, "bottom": 0, "total": 0}
    assert live["royalties"] == {"top": 8, "middle": 0, "bottom": 6, "total": 14}
    assert doc["pairs"] == [
        {"a": 1, "b": 2, "rows": [-1, -1, -1], "scoop": -3, "royalties": -14, "points_a": -20,
         "transfer_to_a": None},
    ]
    assert [p["points"] for p in doc["players"]] == [-20, 20]
    # The fouled QQ on top does not earn Fantasyland either (R-FL-1).
    assert fouled["fantasyland_next"] == {"qualifies": False, "cards": None}


def test_stack_cap_shows_in_transfer_and_stack_after_only() -> None:
    """R-SETTLE-3 / CLI.md: points are before the cap; the cap shows in transfer_to_a and
    stack_after."""
    doc = run_json("score", FOUL, LIVE, "--stacks", "5,100")
    assert [p["points"] for p in doc["players"]] == [-20, 20]
    assert doc["pairs"][0]["points_a"] == -20
    assert doc["pairs"][0]["transfer_to_a"] == -5
    assert [p["stack_after"] for p in doc["players"]] == [0, 105]


def test_user_ruleset_without_cap_and_other_scoop_bonus(tmp_path: Path) -> None:
    """--rules FILE.toml: stack_cap false (R-SETTLE-4) and scoop_bonus 5 (R-SCORE-2)."""
    path = tmp_path / "house.toml"
    path.write_text("stack_cap = false\nscoop_bonus = 5\n", encoding="utf-8")
    doc = run_json("score", FOUL, LIVE, "--stacks", "5,100", "--rules", str(path))
    assert doc["pairs"][0]["scoop"] == -5
    assert doc["pairs"][0]["points_a"] == -22
    assert doc["pairs"][0]["transfer_to_a"] == -22
    assert [p["stack_after"] for p in doc["players"]] == [-17, 122]


@pytest.mark.parametrize(
    ("args", "counts"),
    [
        (["--rules", "tonybet"], [None, 13, 13]),  # Classic standard: 13
        (["--variant", "turbo"], [None, 13, 13]),
        (["--fantasyland", "progressive"], [None, 14, 16]),  # QQ 14, AA 16
        (["--fantasyland", "tournament"], [None, 13, 15]),  # QQ 13, AA 15
        (["--fantasyland", "none"], [None, None, None]),
        (["--rules", "pokerdom"], [None, 14, 14]),
    ],
)
def test_ruleset_options_change_fantasyland_counts(args: list[str], counts: list[Any]) -> None:
    """R-FL-2 through --rules, --variant and --fantasyland."""
    doc = run_json("score", EX1, EX2, EX3, *args)
    assert [p["fantasyland_next"]["cards"] for p in doc["players"]] == counts
    assert [p["fantasyland_next"]["qualifies"] for p in doc["players"]] == [
        c is not None for c in counts
    ]


def test_in_fantasyland_trips_on_top_stays() -> None:
    """R-FL-3 via --in-fantasyland: trips on top repeat (14 in Pineapple); QQ alone does not."""
    trips = "2s 2d 2c / 3h 3d 3c 7s 8d / 4c 4d 4s Jc Jd"
    qq = "Qs Qd 5c / 9h 9d 5d 5s 2h / Th Tc Ts Ah Ad"
    doc = run_json("score", trips, qq, "--in-fantasyland", "1", "--in-fantasyland", "2")
    assert [p["fantasyland_next"]["cards"] for p in doc["players"]] == [14, None]


# --- jokers -------------------------------------------------------------------------------------

JOKER_BOARD = "Ks Kd JK1 / As Ad 2c 3h 4d / 9s 9h 9c 5s 5d"
OTHER_BOARD = "Ah Jc 2d / Kh Kc 8c 9d 3s / 6s 6h 6c 5c 4h"


@pytest.mark.parametrize(("excludes", "card"), [("row", "As"), ("board", "Ah"), ("known", "Ac")])
def test_jokers_shown_as_assigned_cards(tmp_path: Path, excludes: str, card: str) -> None:
    """R-JOKER-1/2 / CLI.md: the joker (best kicker of KK, KKK would foul) is shown as the card
    it stands for, in place: As (`row`), Ah (`board`: As Ad are on the board), Ac (`known`: Ah
    is on the other board)."""
    path = tmp_path / "jokers.toml"
    path.write_text(f'variant = "joker-pineapple"\njoker_excludes = "{excludes}"\n',
                    encoding="utf-8")
    doc = run_json("score", JOKER_BOARD, OTHER_BOARD, "--rules", str(path))
    player = doc["players"][0]
    assert player["rows"]["top"] == {"category": "pair", "cards": ["Ks", "Kd", card]}
    assert player["fouled"] is False
    assert player["royalties"] == {"top": 8, "middle": 0, "bottom": 6, "total": 14}
    assert "JK1" not in json.dumps(doc)


def test_joker_variant_option() -> None:
    """--variant joker-pineapple scores a joker board; the other board stays as given."""
    doc = run_json("score", JOKER_BOARD, OTHER_BOARD, "--variant", "joker-pineapple")
    assert doc["players"][0]["rows"]["top"]["cards"] == ["Ks", "Kd", "As"]
    assert doc["players"][1]["rows"]["top"]["cards"] == ["Ah", "Jc", "2d"]


# --- errors and warnings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "token"),
    [
        ("Ax 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d", "Ax"),
        ("Ah 6c 6d / Kd 1h 3c Ks 3s / 7c 7s 3d 7h 7d", "1h"),
        ("Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h JK3", "JK3"),
    ],
)
def test_bad_card_exits_2_with_a_message(board: str, token: str) -> None:
    """CLI.md / R-CARD-1: a bad card is a usage error: exit 2, the token named on stderr."""
    result = run("score", board, EX2, "--json")
    assert result.exit_code == 2
    assert token in result.stderr
    assert "not a card" in result.stderr
    assert result.stdout == ""


def test_board_without_three_rows_exits_2() -> None:
    result = run("score", "Ah 6c 6d Kd 2h 3c Ks 3s 7c 7s 3d 7h 7d")
    assert result.exit_code == 2
    assert "TOP / MIDDLE / BOTTOM" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--stacks", "250,180"],  # two stacks for three boards
        ["--stacks", "250,x,300"],
        ["--rules", "no-such-preset"],
        ["--in-fantasyland", "4"],
    ],
)
def test_bad_options_exit_2(args: list[str]) -> None:
    result = run("score", EX1, EX2, EX3, *args)
    assert result.exit_code == 2
    assert result.stderr.strip()


def test_card_typed_twice_is_an_input_error_naming_both_places() -> None:
    """CLI.md: a card typed twice across the boards is a typo, not a result: exit 2, the board
    and the position of both copies named, nothing on stdout."""
    duplicated = EX2.replace("Qs Qd 5c", "Qs Qd Ah")  # Ah is also board 1's first card
    result = run("score", EX1, duplicated, EX3, "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "board 2, top row, card 3: Ah is typed twice (also board 1, top row, card 1)" in (
        result.stderr
    )


def test_the_two_jokers_are_two_cards_but_one_joker_twice_is_a_typo() -> None:
    both = "JK1 JK2 Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h"
    assert run("score", both, EX2, "--variant", "joker-pineapple").exit_code == 0
    twice = "JK1 JK1 Kh / 8s 8c 8d 6h 5h / Jh Th 8h 4h 3h"
    result = run("score", twice, EX2, "--variant", "joker-pineapple")
    assert result.exit_code == 2
    assert "board 1, top row, card 2: JK1 is typed twice (also board 1, top row, card 1)" in (
        result.stderr
    )


@pytest.mark.parametrize(
    ("board", "message"),
    [
        # A 4-card top: a typo, not a foul (R-ROW-3 is for histories).
        ("Ah 6c 6d 2c / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d",
         "board 1: the top row has 4 cards; a board's rows hold 3, 5 and 5"),
        ("Ah 6c / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d",
         "board 1: the top row has 2 cards; a board's rows hold 3, 5 and 5"),
        (" / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d",
         "board 1: the top row has 0 cards; a board's rows hold 3, 5 and 5"),
        ("Ah 6c 6d / Kd 2h 3c Ks / 7c 7s 3d 7h 7d 2c",
         "board 1: the middle row has 4 cards; a board's rows hold 3, 5 and 5"),
        ("Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h",
         "board 1: the bottom row has 4 cards; a board's rows hold 3, 5 and 5"),
    ],
)
def test_rows_that_are_not_3_5_5_are_input_errors(board: str, message: str) -> None:
    result = run("score", board, EX2, "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_a_bad_card_names_its_board_row_and_place() -> None:
    result = run("score", EX1, "Qs Qd 5c / 9h 9d 5x 5s 2d / 4c 4d 4s Jc Jd")
    assert result.exit_code == 2
    assert "board 2, middle row, card 3: '5x' is not a card" in result.stderr


def test_cards_as_the_pages_print_them() -> None:
    """CLI.md: 10h for Th and the suit symbols read as the history format's letters: the
    worked example typed that way scores exactly as typed in letters."""
    symbols = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}

    def as_printed(board: str) -> str:
        cards = []
        for token in board.split():
            if token == "/":
                cards.append(token)
                continue
            rank = "10" if token[0] == "T" else token[0]
            cards.append(rank + symbols[token[1]])
        return " ".join(cards)

    printed = [as_printed(b) for b in (EX1, EX2, EX3)]
    assert printed[2] == "A♠ A♣ K♥ / 8♠ 8♣ 8♦ 6♥ 5♥ / J♥ 10♥ 8♥ 4♥ 3♥"
    options = ["--stacks", "250,180,300", "--in-fantasyland", "3"]
    assert run_json("score", *printed, *options) == run_json("score", EX1, EX2, EX3, *options)
    # The emoji form of a suit (with its variation selector) and a lower-case rank read too.
    assert run_json("score", EX1, "q\u2660\ufe0f Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd") == (
        run_json("score", EX1, EX2)
    )


# --- readable output ----------------------------------------------------------------------------


def test_readable_output_has_rows_categories_and_settlement() -> None:
    """CLI.md: the default output is readable tables: rows, categories, settlement."""
    result = run(*WORKED)
    assert result.exit_code == 0
    out = result.stdout
    for cards in (EX1, EX2, EX3):
        for row in cards.split(" / "):
            assert row in out
    for category in ("pair", "two.pair", "quads", "full.house", "trips", "flush"):
        assert re.search(category, out), category
    for number in ("-6", "-2", "+8", "244", "178", "308", "250", "180", "300"):
        assert re.search(rf"(?<![\d+-]){re.escape(number)}(?!\d)", out), number
    assert "14" in out  # board 2's Fantasyland card count
    assert not out.lstrip().startswith("{")


def test_readable_output_shows_a_foul() -> None:
    result = run("score", FOUL, LIVE)
    assert result.exit_code == 0
    assert re.search("foul", result.stdout, re.IGNORECASE)
    # Q Q 7 over Q Q 6 5 4: the top's kicker 7 beats the middle's 6 (R-ORDER-2's example).
    assert ("Board 1, P1: FOULED (R-ORDER-2, Comparing the 3-card top with the 5-card middle): "
            "top is stronger than middle") in result.stdout
    assert "-20" in result.stdout and "+20" in result.stdout
