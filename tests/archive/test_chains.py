"""The chain state a grown file goes on from: stored as JSON, read back the same."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ofc_audit.archive.importer import _state_json, _state_of, chains_json, restore_chains
from ofc_audit.game.ruleset import Ruleset
from ofc_audit.history.reader import Hand, read_hands
from ofc_audit.replay import Replayer
from ofc_audit.replay.state import TableState
from tests.archive.conftest import SAMPLES

names = st.text(min_size=1, max_size=8)
states = st.builds(
    TableState,
    hand_id=names, button_seat=st.integers(1, 9), match_id=st.none() | names,
    match_hand=st.none() | st.integers(1, 50), fl_players=st.frozensets(names),
    qualifiers=st.dictionaries(names, st.integers(13, 17)), qualifiers_known=st.booleans(),
    chain_entry=st.dictionaries(names, st.integers(13, 17)),
    stacks=st.dictionaries(names, st.none() | st.integers(0, 10_000)),
    busted=st.dictionaries(names, names), sat_out=st.dictionaries(names, names),
    pending_sit_out=st.dictionaries(names, names), disconnected=st.sets(names),
    round_players=st.frozensets(names), round_matches=st.integers(0, 99),
)


@given(states)
def test_any_state_comes_back(state: TableState) -> None:
    back = _state_of(json.loads(json.dumps(_state_json(state))))
    assert back == state
    assert list(back.stacks) == list(state.stacks)  # the order players were seen in


def test_a_player_named_like_a_set_kind() -> None:
    state = TableState("H1", 1, None, None, frozenset({"set"}), {"set": 14}, True,
                       {"frozenset": 14}, {"set": 10})
    assert _state_of(json.loads(json.dumps(_state_json(state)))) == state


def test_every_state_of_the_samples(simulated: Path) -> None:
    ruleset = Ruleset.load("standard")
    replayer = Replayer(ruleset)
    checked = 0
    for item in read_hands([str(SAMPLES), str(simulated)]):
        if not isinstance(item, Hand):
            continue
        replayer.replay(item)
        if checked % 50 == 0 or item.file != str(simulated):
            copy = Replayer(ruleset)
            restore_chains(copy, item.file, chains_json(replayer, item.file))
            assert copy.states == {k: v for k, v in replayer.states.items()
                                   if k[0] == item.file}
        checked += 1
    assert checked == 66 + 2000
