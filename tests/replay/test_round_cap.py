"""R-MATCH-3 (``round_hand_cap``): a round is a run of matches at one table with the same
seated players; the first match past the cap, with them still seated, is cited once, at its
header. A Fantasyland hand belongs to the match that earned it. Answers by hand from RULES.md."""

from __future__ import annotations

from ofc_audit.game.ruleset import Ruleset
from tests.replay.test_replay import audit_text, session
from tests.support.histories import Player, pineapple_hand

# Two fouled boards (a pair on top over a high-card middle): nobody scores a point, nobody
# qualifies for Fantasyland, so stacks stay put and the button simply alternates.
FOULED_A = "As Ah 2c / 3d 4h 6s 8c Tc / Jd Qd 5h 7h 9s"
FOULED_B = "Ks Kh 2d / 3c 4d 6h 8d Td / Jc Qc 5s 7c 9h"


def _hands(seated: list[tuple[str, str]], first: int = 1) -> list[str]:
    """One match per entry (hand ids H<first>...), each with the two players named, at seats
    1 and 2, the button alternating."""
    texts = []
    for k, (a, b) in enumerate(seated, start=first):
        players = [Player(1, a, 100, FOULED_A, "2s 3s 4s 6d"),
                   Player(2, b, 100, FOULED_B, "8s 8h Ts Th")]
        texts.append(pineapple_hand(f"H{k}", players, button=1 + k % 2,
                                    timestamp=f"2026-11-29 21:{k:02d}:00 UTC"))
    return texts


def _header_line(text: str, hand_id: str) -> int:
    lines = text.splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(f"OFC Hand #{hand_id}:"))


def _cited(text: str, cap: int | None) -> list[tuple[str, int]]:
    results = audit_text(text, Ruleset().with_options(round_hand_cap=cap))
    return [(r.hand_id, v.line) for r in results for v in r.violations if v.rule == "R-MATCH-3"]


def test_the_first_match_past_the_cap_is_cited_once_at_its_header() -> None:
    text = "\n".join(_hands([("alice", "bob")] * 5))
    assert _cited(text, None) == []
    assert _cited(text, 5) == []
    assert _cited(text, 3) == [("H4", _header_line(text, "H4"))]  # not H5 again
    assert _cited(text, 1) == [("H2", _header_line(text, "H2"))]


def test_the_cap_breaks_no_other_rule() -> None:
    text = "\n".join(_hands([("alice", "bob")] * 4))
    results = audit_text(text, Ruleset().with_options(round_hand_cap=3))
    assert [sorted({v.rule for v in r.violations}) for r in results] == [
        [], [], [], ["R-MATCH-3"]
    ]


def test_a_change_of_players_starts_a_new_round() -> None:
    # alice and bob play 3 matches; then carol takes bob's seat: a new round of 4 matches.
    seated = [("alice", "bob")] * 3 + [("alice", "carol")] * 4
    text = "\n".join(_hands(seated))
    assert _cited(text, 3) == [("H7", _header_line(text, "H7"))]
    assert _cited(text, 4) == []


def test_a_fantasyland_hand_counts_with_the_hand_that_earned_it() -> None:
    # test_replay's session: match M1 is H1 and its Fantasyland hand H2; H3 opens match M2.
    text = session()
    assert _cited(text, 2) == []
    assert _cited(text, 1) == [("H3", _header_line(text, "H3"))]
