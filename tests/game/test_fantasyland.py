"""Known answers for Fantasyland (R-FL-1..3), written by hand from RULES.md."""

from __future__ import annotations

import pytest

from ofc_audit.game.board import Board, BoardResult, evaluate_board
from ofc_audit.game.fantasyland import entry_cards, next_fantasyland, repeat_cards, stays
from ofc_audit.game.ruleset import FantasylandType, Variant

FL = FantasylandType
PINEAPPLE_FAMILY = [Variant.PINEAPPLE, Variant.JOKER_PINEAPPLE]
CLASSIC_TURBO = [Variant.CLASSIC, Variant.TURBO]


def ev(text: str) -> BoardResult:
    board = Board.parse(text)
    natural = [c for c in board.cards if c.is_natural]
    assert len(set(natural)) == len(natural), f"test data error: duplicate card in {text}"
    return evaluate_board(board)


# Legal boards by top row (middle and bottom of no Fantasyland consequence).
QQ = ev("Qs Qd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jd")
KK = ev("Ks Kd 5c / As Ad 5d 5s 2d / 4c 4d 4s Jc Jd")
AA = ev("As Ad 5c / 2h 2d 2c 7s 8d / 4c 4d 4s Jc Jd")
TRIPS_222 = ev("2s 2d 2c / 3h 3d 3c 7s 8d / 4c 4d 4s Jc Jd")
TRIPS_AAA = ev("As Ad Ac / 2h 3h 4h 5h 6h / Tc Jc Qc Kc 9c")
JJ = ev("Js Jd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jh")
AK_HIGH = ev("As Kd 5c / 9h 9d 5d 5s 2d / 4c 4d 4s Jc Jh")
QQ_FOULED = ev("Qs Qd 7c / Qh Qc 6d 5s 4h / 2s 2d 2h 9c 9d")  # R-ORDER-2 example
TRIPS_FOULED = ev("Ks Kd Kc / Qs Qd 2c 3h 4d / As Ad 5c 6h 7d")  # KKK over QQ
# Stay candidates: nothing on top; full house in the middle; quads or better on the bottom.
FH_MIDDLE = ev("5s 6d 8c / 9h 9d 9c Ks Kd / Ts Th Tc Ad Ac")
QUADS_BOTTOM = ev("5s 6d 8c / 9h 9d 2c Ks Kd / Ts Th Tc Td Ac")
SF_BOTTOM = ev("5s 6d 8c / 9h 9d 2c Ks Kd / 3h 4h 5h 6h 7h")
FLUSH_MIDDLE = ev("5s 6d 8c / 2h 4h 7h 9h Jh / Ts Th Tc Ad Ac")


def test_boards_are_legal_or_fouled_as_intended() -> None:
    """Sanity of the data above: only the two *_FOULED boards are fouled."""
    for result in (QQ, KK, AA, TRIPS_222, TRIPS_AAA, JJ, AK_HIGH, FH_MIDDLE, QUADS_BOTTOM,
                   SF_BOTTOM, FLUSH_MIDDLE):
        assert not result.fouled, str(result.board)
    assert QQ_FOULED.fouled and TRIPS_FOULED.fouled
    assert FH_MIDDLE.middle.category == "full_house"
    assert QUADS_BOTTOM.bottom.category == "quads"
    assert SF_BOTTOM.bottom.category == "straight_flush"


# --- R-FL-1: entry ---------------------------------------------------------------------------


@pytest.mark.parametrize("result", [QQ, KK, AA, TRIPS_222, TRIPS_AAA], ids=str)
@pytest.mark.parametrize("variant", list(Variant))
def test_r_fl_1_qq_or_better_on_top_enters(result: BoardResult, variant: Variant) -> None:
    """R-FL-1: QQ or better on top (any trips included) in a legal hand enters Fantasyland."""
    assert entry_cards(result, variant, FL.STANDARD) is not None
    assert next_fantasyland(result, variant, FL.STANDARD) is not None


@pytest.mark.parametrize("result", [JJ, AK_HIGH, FH_MIDDLE, QUADS_BOTTOM], ids=str)
@pytest.mark.parametrize("fl_type", list(FL))
def test_r_fl_1_less_than_qq_does_not_enter(result: BoardResult, fl_type: FL) -> None:
    """R-FL-1: JJ, high card, or a strong middle/bottom alone do not enter."""
    for variant in Variant:
        assert entry_cards(result, variant, fl_type) is None


@pytest.mark.parametrize("result", [QQ_FOULED, TRIPS_FOULED], ids=str)
@pytest.mark.parametrize("fl_type", list(FL))
def test_r_fl_1_fouled_hand_never_enters(result: BoardResult, fl_type: FL) -> None:
    """R-FL-1: the hand must not be fouled: QQ or KKK on top of a fouled board earns nothing."""
    for variant in Variant:
        assert entry_cards(result, variant, fl_type) is None
        assert next_fantasyland(result, variant, fl_type) is None


def test_r_fl_1_type_none_never_enters() -> None:
    """R-FL-1 with `fantasyland = none`: no Fantasyland at all."""
    for variant in Variant:
        assert entry_cards(TRIPS_AAA, variant, FL.NONE) is None


# --- R-FL-2: card counts -----------------------------------------------------------------------

# (QQ, KK, AA, trips) per type, by hand from R-FL-2.
COUNTS = {
    (FL.STANDARD, Variant.PINEAPPLE): (14, 14, 14, 14),
    (FL.STANDARD, Variant.JOKER_PINEAPPLE): (14, 14, 14, 14),
    (FL.STANDARD, Variant.CLASSIC): (13, 13, 13, 13),
    (FL.STANDARD, Variant.TURBO): (13, 13, 13, 13),
    (FL.PROGRESSIVE, Variant.PINEAPPLE): (14, 15, 16, 17),
    (FL.PROGRESSIVE, Variant.JOKER_PINEAPPLE): (14, 15, 16, 17),
    (FL.PROGRESSIVE, Variant.CLASSIC): (14, 15, 16, 17),
    (FL.PROGRESSIVE, Variant.TURBO): (14, 15, 16, 17),
    (FL.ULTIMATE, Variant.PINEAPPLE): (14, 15, 16, 17),
    (FL.ULTIMATE, Variant.JOKER_PINEAPPLE): (14, 15, 16, 17),
    (FL.ULTIMATE, Variant.CLASSIC): (14, 15, 16, 17),
    (FL.ULTIMATE, Variant.TURBO): (14, 15, 16, 17),
    (FL.TOURNAMENT, Variant.PINEAPPLE): (13, 14, 15, 16),
    (FL.TOURNAMENT, Variant.JOKER_PINEAPPLE): (13, 14, 15, 16),
    (FL.TOURNAMENT, Variant.CLASSIC): (13, 14, 15, 16),
    (FL.TOURNAMENT, Variant.TURBO): (13, 14, 15, 16),
}


@pytest.mark.parametrize(("key", "expected"), list(COUNTS.items()), ids=str)
def test_r_fl_2_entry_counts(key: tuple[FL, Variant], expected: tuple[int, ...]) -> None:
    """R-FL-2: standard Pineapple 14, Classic/Turbo 13; progressive/ultimate 14/15/16/17;
    tournament 13/14/15/16 (QQ, KK, AA, any trips), for every variant."""
    fl_type, variant = key
    qq, kk, aa, trips = expected
    assert entry_cards(QQ, variant, fl_type) == qq
    assert entry_cards(KK, variant, fl_type) == kk
    assert entry_cards(AA, variant, fl_type) == aa
    assert entry_cards(TRIPS_222, variant, fl_type) == trips
    assert entry_cards(TRIPS_AAA, variant, fl_type) == trips  # any trips, 222 as AAA
    assert next_fantasyland(KK, variant, fl_type) == kk


# --- R-FL-3: staying -------------------------------------------------------------------------


@pytest.mark.parametrize("variant", PINEAPPLE_FAMILY)
@pytest.mark.parametrize("fl_type", [FL.STANDARD, FL.PROGRESSIVE, FL.ULTIMATE])
def test_r_fl_3_pineapple_family_stays(variant: Variant, fl_type: FL) -> None:
    """R-FL-3, Pineapple family: trips on top, or quads or better on the bottom, stay; a full
    house in the middle does not."""
    assert stays(TRIPS_222, variant, fl_type)
    assert stays(TRIPS_AAA, variant, fl_type)
    assert stays(QUADS_BOTTOM, variant, fl_type)
    assert stays(SF_BOTTOM, variant, fl_type)
    assert not stays(FH_MIDDLE, variant, fl_type)
    assert not stays(FLUSH_MIDDLE, variant, fl_type)


@pytest.mark.parametrize("variant", CLASSIC_TURBO)
@pytest.mark.parametrize("fl_type", [FL.STANDARD, FL.PROGRESSIVE, FL.ULTIMATE])
def test_r_fl_3_classic_and_turbo_stay(variant: Variant, fl_type: FL) -> None:
    """R-FL-3, Classic and Turbo: trips on top, or full house or better in the middle, or quads
    or better on the bottom ("and" reads "or"); a flush in the middle is not enough."""
    assert stays(TRIPS_222, variant, fl_type)
    assert stays(FH_MIDDLE, variant, fl_type)
    assert stays(QUADS_BOTTOM, variant, fl_type)
    assert stays(SF_BOTTOM, variant, fl_type)
    assert not stays(FLUSH_MIDDLE, variant, fl_type)


@pytest.mark.parametrize("variant", list(Variant))
def test_r_fl_3_tournament_never_stays(variant: Variant) -> None:
    """R-FL-3: tournament Fantasyland never repeats, not even with trips on top."""
    for result in (TRIPS_222, TRIPS_AAA, FH_MIDDLE, QUADS_BOTTOM, SF_BOTTOM):
        assert not stays(result, variant, FL.TOURNAMENT)
        assert next_fantasyland(result, variant, FL.TOURNAMENT, in_fantasyland=True) is None


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("fl_type", list(FL))
def test_r_fl_3_in_fantasyland_qq_alone_does_not_re_enter(variant: Variant, fl_type: FL) -> None:
    """R-FL-3: while in Fantasyland only the stay rule counts: QQ, KK or AA on top alone does
    not re-enter."""
    for result in (QQ, KK, AA):
        assert next_fantasyland(result, variant, fl_type, in_fantasyland=True) is None


@pytest.mark.parametrize("variant", list(Variant))
def test_r_fl_3_fouled_hand_never_stays(variant: Variant) -> None:
    """R-FL-3: the hand must not be fouled (KKK on top of a fouled board)."""
    for fl_type in FL:
        assert not stays(TRIPS_FOULED, variant, fl_type)
        assert next_fantasyland(TRIPS_FOULED, variant, fl_type, in_fantasyland=True) is None


@pytest.mark.parametrize(
    ("variant", "count"),
    [(Variant.PINEAPPLE, 14), (Variant.JOKER_PINEAPPLE, 14), (Variant.CLASSIC, 13),
     (Variant.TURBO, 13)],
)
@pytest.mark.parametrize("fl_type", [FL.STANDARD, FL.PROGRESSIVE])
def test_r_fl_3_repeat_counts(variant: Variant, count: int, fl_type: FL) -> None:
    """R-FL-3: a repeat gets 14 cards (13 in Classic and Turbo), even in progressive with AAA
    on top (the graded count is for entry only)."""
    assert next_fantasyland(TRIPS_AAA, variant, fl_type, in_fantasyland=True) == count
    assert next_fantasyland(TRIPS_AAA, variant, fl_type, True, chain_entry_cards=17) == count
    assert repeat_cards(variant, fl_type, 16) == count


@pytest.mark.parametrize("variant", list(Variant))
@pytest.mark.parametrize("entry", [14, 15, 16, 17])
def test_r_fl_2_ultimate_repeat_is_the_chains_entry_count(variant: Variant, entry: int) -> None:
    """R-FL-2 (ultimate): every repeat gets the same count as the chain's entry."""
    assert repeat_cards(variant, FL.ULTIMATE, entry) == entry
    assert next_fantasyland(QUADS_BOTTOM, variant, FL.ULTIMATE, True, entry) == entry
    # The stay rule itself still decides: QQ alone in Fantasyland does not repeat.
    assert next_fantasyland(QQ, variant, FL.ULTIMATE, True, entry) is None


def test_r_fl_2_ultimate_chain_from_entry_to_repeat() -> None:
    """R-FL-2 (ultimate): enter with AA (16 cards), then repeat with trips: still 16."""
    entry = entry_cards(AA, Variant.PINEAPPLE, FL.ULTIMATE)
    assert entry == 16
    assert next_fantasyland(TRIPS_222, Variant.PINEAPPLE, FL.ULTIMATE, True, entry) == 16
    # Progressive does not carry the entry count: the repeat is 14.
    assert next_fantasyland(TRIPS_222, Variant.PINEAPPLE, FL.PROGRESSIVE, True, entry) == 14
