"""``ofc-audit review``: the JSON of REVIEW.md, the terminal answer, exact costs, the
same output for any --jobs, and the exit status."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ofc_audit.cli.app import app
from ofc_audit.game.board import Board, evaluate_board
from ofc_audit.game.fantasyland import next_fantasyland
from ofc_audit.game.ruleset import FantasylandType, Ruleset, Variant
from ofc_audit.game.scoring import settle
from ofc_audit.simulate.simulator import SimulationOptions, simulate_text
from tests.support.histories import WORKED_EXAMPLE

# Two players, no Fantasyland player: bob (the button) places last, so his street-5
# decision finishes his board with alice's complete and face up: it is exact (REVIEW.md).
HEADS_UP = """\
OFC Hand #EX-1: Pineapple, progressive Fantasyland - 0.10 EUR/point - 2026-11-29 21:04:11 UTC
Table 'Tashkent 3' 2-max - Seat #2 is the button
Seat 1: alice (250)
Seat 2: bob (180)
*** STREET 1 ***
alice is dealt [Ah Kd 7c 7s 2h]
alice places top [Ah] middle [Kd 2h] bottom [7c 7s]
bob is dealt [Qs Qd 4c 9h 9d]
bob places top [Qs Qd] middle [9h 9d] bottom [4c]
*** STREET 2 ***
alice is dealt [3c 3d Js]
alice places middle [3c] bottom [3d], discards [Js]
bob is dealt [4d 4s 2s]
bob places bottom [4d 4s], discards [2s]
*** STREET 3 ***
alice is dealt [7h 6c Ts]
alice places top [6c] bottom [7h], discards [Ts]
bob is dealt [5d 5s Qh]
bob places middle [5d 5s], discards [Qh]
*** STREET 4 ***
alice is dealt [Ks 7d 9s]
alice places middle [Ks] bottom [7d], discards [9s]
bob is dealt [Jc Jd Tc]
bob places bottom [Jc Jd], discards [Tc]
*** STREET 5 ***
alice is dealt [6d 3s 6s]
alice places top [6d] middle [3s], discards [6s]
bob is dealt [5c 2d Ad]
bob places top [5c] middle [2d], discards [Ad]
"""
BOB_LAST = "bob places top [5c] middle [2d], discards [Ad]"
ALICE_FINAL = "Ah 6c 6d / Kd 2h 3c Ks 3s / 7c 7s 3d 7h 7d"
BOB_BEFORE = ("Qs Qd", "9h 9d 5d 5s", "4c 4d 4s Jc Jd")
FAST = ["--rollouts", "24", "--seed", "3"]


def _invoke(args: list[str]) -> Any:
    return CliRunner().invoke(app, ["review", *args])


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _bob_value(top: str, middle: str, fl_value: float = 15.0) -> float:
    """Bob's value of the hand finished with these cards, from the rules' own scoring
    (docs/RULES.md R-SCORE, R-FL-1): his points against alice plus fl_value if he enters."""
    ruleset = Ruleset().with_options(variant=Variant.PINEAPPLE,
                                     fantasyland=FantasylandType.PROGRESSIVE)
    rows = [f"{BOB_BEFORE[0]} {top}", f"{BOB_BEFORE[1]} {middle}", BOB_BEFORE[2]]
    bob = evaluate_board(Board.parse(" / ".join(r.strip() for r in rows)), ruleset)
    alice = evaluate_board(Board.parse(ALICE_FINAL), ruleset)
    points = settle([alice, bob], ruleset).points[1]
    assert points is not None
    enters = next_fantasyland(bob, ruleset.variant, ruleset.fantasyland) is not None
    return points + (fl_value if enters else 0.0)


def _bob_candidates() -> dict[tuple[str, str], float]:
    """Every candidate of bob's last decision (one card to the top, one to the middle, the
    third discarded), with its exact value."""
    values = {}
    for kept in itertools.permutations(["5c", "2d", "Ad"], 2):
        values[kept] = _bob_value(*kept)
    return values


def _last(document: dict[str, Any], player: str) -> dict[str, Any]:
    return [d for d in document["hands"][0]["decisions"] if d["player"] == player][-1]


def test_exact_last_decision_values_and_cost(tmp_path: Path) -> None:
    # 5c in the middle makes 555 99 over the bottom's 444 JJ: a foul.
    fouling = HEADS_UP.replace(BOB_LAST, "bob places top [2d] middle [5c], discards [Ad]")
    path = _write(tmp_path, "heads_up.txt", fouling)
    result = _invoke(["--json", *FAST, path])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    bob = _last(document, "bob")
    assert bob["street"] == 5 and bob["exact"] is True and bob["rollouts"] == 0
    values = _bob_candidates()
    got = {(c["placement"]["top"][0], c["placement"]["middle"][0]): c["ev"]
           for c in bob["candidates"]}
    assert got == pytest.approx(values)
    best = max(values.values())
    assert bob["candidates"][bob["best"]]["ev"] == pytest.approx(best)
    assert bob["cost"] == pytest.approx(best - values[("2d", "5c")]) and bob["cost"] > 6
    assert bob["ci95"] == 0.0
    played = next(c for c in bob["candidates"] if c["placement"] == bob["played"])
    assert played["foul"] == 1.0 and played["fantasyland"] == 0.0
    assert all(c["ci95"] == 0.0 and c["foul"] in (0.0, 1.0) for c in bob["candidates"])


def test_exact_last_decision_played_best_costs_nothing(tmp_path: Path) -> None:
    values = _bob_candidates()
    top, middle = max(values, key=lambda k: values[k])
    thrown = ({"5c", "2d", "Ad"} - {top, middle}).pop()
    text = HEADS_UP.replace(BOB_LAST, f"bob places top [{top}] middle [{middle}], "
                                      f"discards [{thrown}]")
    result = _invoke(["--json", *FAST, _write(tmp_path, "best.txt", text)])
    assert result.exit_code == 0, result.output
    bob = _last(json.loads(result.stdout), "bob")
    assert bob["exact"] is True and bob["cost"] == 0.0 and bob["ci95"] == 0.0


def test_json_shape_is_review_md(tmp_path: Path) -> None:
    path = _write(tmp_path, "worked.txt", WORKED_EXAMPLE)
    result = _invoke(["--json", *FAST, "--fl-value", "12", "--blunder", "2.5", path])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert list(document) == ["hands", "players", "skipped", "options"]
    assert document["options"] == {"fl_value": 12, "blunder": 2.5, "rollouts": 24, "seed": 3}
    assert document["skipped"] == []
    (hand,) = document["hands"]
    assert list(hand) == ["hand_id", "file", "line", "decisions"]
    assert (hand["hand_id"], hand["file"], hand["line"]) == ("PD-1001", path, 1)
    keys = ["player", "street", "line", "kind", "dealt", "played", "candidates", "best", "cost",
            "ci95", "exact", "rollouts"]
    lines = [d["line"] for d in hand["decisions"]]
    assert lines == sorted(lines) and len(lines) == 11
    for decision in hand["decisions"]:
        assert list(decision) == keys
        assert 0 <= decision["best"] < len(decision["candidates"])
        assert decision["cost"] >= 0
        for candidate in decision["candidates"]:
            assert list(candidate) == ["placement", "ev", "ci95", "foul", "fantasyland"]
            assert list(candidate["placement"]) == ["top", "middle", "bottom", "discard"]
            assert 0.0 <= candidate["foul"] <= 1.0 and 0.0 <= candidate["fantasyland"] <= 1.0
        played = decision["played"]
        placed = played["top"] + played["middle"] + played["bottom"] + played["discard"]
        assert sorted(placed) == sorted(decision["dealt"])
        assert any(c["placement"] == played for c in decision["candidates"]) or \
            decision["kind"] == "fantasyland"
    carol = hand["decisions"][0]
    assert (carol["player"], carol["kind"], carol["street"]) == ("carol", "fantasyland", None)
    assert len(carol["dealt"]) == 14 and carol["exact"] is True
    assert carol["played"]["discard"] == ["Kc"]
    assert carol["candidates"][0]["placement"] == carol["played"]
    assert len(carol["candidates"]) in (1, 2)
    # Every street decision lists every candidate: street 1 places 5 cards in 232 ways,
    # Pineapple street 2-5 keeps 2 of 3 (3 ways) in rows with room.
    alice_1 = hand["decisions"][1]
    assert (alice_1["player"], alice_1["street"], alice_1["kind"]) == ("alice", 1, "street")
    assert len(alice_1["candidates"]) == 232
    bob_5 = hand["decisions"][-1]
    # Bob's board before street 5: top 2 of 3, middle 4 of 5, bottom full: one card on top
    # and one in the middle, either way round, for each discard: 6.
    assert len(bob_5["candidates"]) == 6
    players = {p["name"]: p for p in document["players"]}
    assert list(players) == ["alice", "bob", "carol"]
    for name, totals in players.items():
        mine = [d for d in hand["decisions"] if d["player"] == name]
        assert list(totals) == ["name", "hands", "decisions", "exact", "cost", "cost_per_hand",
                                "blunders", "expected", "actual"]
        assert totals["hands"] == 1 and totals["decisions"] == len(mine)
        assert totals["exact"] == sum(d["exact"] for d in mine)
        assert totals["cost"] == pytest.approx(sum(d["cost"] for d in mine), abs=0.01)
        assert totals["blunders"] == sum(d["cost"] >= 2.5 for d in mine)
        first = mine[0]
        played = next(c for c in first["candidates"] if c["placement"] == first["played"])
        assert totals["expected"] == pytest.approx(played["ev"], abs=0.01)
    # The hand as it happened (the worked result of docs/FORMAT.md): points, plus fl_value for bob's
    # QQ entry; carol does not stay (AA on top is not a repeat).
    assert [players[n]["actual"] for n in ("alice", "bob", "carol")] == [-6, -2 + 12, 8]


def test_same_output_for_any_jobs(tmp_path: Path) -> None:
    text = simulate_text(SimulationOptions(Ruleset(), players=3, hands=3, seed=11))
    path = _write(tmp_path, "sim.txt", text)
    one = _invoke(["--json", *FAST, "--jobs", "1", path])
    two = _invoke(["--json", *FAST, "--jobs", "2", path])
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert one.stdout == two.stdout
    assert len(json.loads(one.stdout)["hands"]) == 3
    other_seed = _invoke(["--json", "--rollouts", "24", "--seed", "4", path])
    assert other_seed.stdout != one.stdout  # the seed is used


def test_terminal_answer(tmp_path: Path) -> None:
    fouling = HEADS_UP.replace(BOB_LAST, "bob places top [2d] middle [5c], discards [Ad]")
    text = fouling + "\n" + HEADS_UP.replace("#EX-1", "#EX-2").replace(
        "bob places bottom [4d 4s], discards [2s]", "bob places bottom [4d 4s 2s]")
    path = _write(tmp_path, "two.txt", text)
    result = _invoke([*FAST, "--player", "bob", path])
    assert result.exit_code == 1, result.output  # a hand with a violation is left out
    out = result.stdout
    assert "player" in out and "per hand" in out and "blunders" in out
    # Every line fits an 80-column terminal.
    assert max(len(line) for line in out.splitlines() if not line.startswith("  ")) <= 80
    block = out.split("Costliest decisions")[1].splitlines()
    # The foul (33 points, exact) is the costliest: the first block.
    assert block[1] == "1. EX-1 bob, street 5: cost 33.00 exact"
    assert block[2].split() == ["dealt", "5c", "2d", "Ad"]
    assert block[3].split(maxsplit=1) == ["played", "2d / 5c / -"]
    assert block[4].split()[0] == "best" and block[4] != block[3].replace("played", "best  ")
    assert "Left out:" in out and "1 hand with rule violations" in out and "#EX-2" in out


def test_player_hidden_cards_left_out(tmp_path: Path) -> None:
    text = simulate_text(SimulationOptions(Ruleset(), players=3, hands=1, seed=2,
                                           view="alice"))
    result = _invoke(["--json", *FAST, _write(tmp_path, "alice.txt", text)])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert {d["player"] for d in document["hands"][0]["decisions"]} == {"alice"}
    assert sorted((s["player"], s["reason"], s["decisions"]) for s in document["skipped"]) == [
        ("bob", "hidden cards", 5), ("carol", "hidden cards", 5)]


def test_exit_status(tmp_path: Path) -> None:
    empty = _write(tmp_path, "empty.txt", "")
    assert _invoke([empty]).exit_code == 2
    assert _invoke([*FAST, "--player", "nobody", _write(tmp_path, "h.txt", HEADS_UP)]
                   ).exit_code == 2
    assert _invoke([*FAST, "--hand", "NOPE", str(tmp_path / "h.txt")]).exit_code == 2
    rejected = _write(tmp_path, "bad.txt", HEADS_UP.replace("*** STREET 2 ***", "*** STREET"))
    result = _invoke(["--json", *FAST, rejected])
    # A file of hand headers is a history even when every hand is rejected (CLI.md).
    assert result.exit_code == 1
    assert json.loads(result.stdout)["hands"] == []
    both = _write(tmp_path, "both.txt", HEADS_UP.replace("#EX-1", "#EX-9") + "\n" +
                  HEADS_UP.replace("*** STREET 2 ***", "*** STREET"))
    result = _invoke(["--json", *FAST, "--player", "alice", both])
    assert result.exit_code == 1
    skipped = json.loads(result.stdout)["skipped"]
    assert [(s["hand_id"], s["reason"]) for s in skipped] == [(None, "rejected")]

