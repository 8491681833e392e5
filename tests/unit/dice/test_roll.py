"""Rolling server dice and entering physical dice: what a roll records."""

from __future__ import annotations

import hashlib
from uuid import UUID

import pytest
from pydantic import ValidationError

from domain.dice import (
    DiceEntryError,
    DiceExpression,
    DiceSyntaxError,
    DiceTerm,
    Rand,
    RollResult,
    enter_by_hand,
    fair_die,
    roll,
)

SEED = hashlib.sha256(b"encounter seed").digest()
STREAM = UUID("0193a5d2-7c1e-7000-8000-0000000000aa")


def server_roll(
    expr: str | DiceExpression, roll_seq: int = 0, client: str | None = None
) -> RollResult:
    return roll(
        expr,
        server_seed=SEED,
        stream_id=STREAM,
        roll_seq=roll_seq,
        purpose="GD-INIT-1",
        client_seed=client,
    )


def test_every_die_is_recorded_in_rolling_order_with_its_sides() -> None:
    result = server_roll("2D6+1D4-2+D66", roll_seq=5, client="player-1")
    assert [rand.sides for rand in result.rands] == [6, 6, 4, 6, 6]
    assert [rand.value for rand in result.rands] == [
        fair_die(SEED, STREAM, 5, index, sides, "player-1")
        for index, sides in enumerate([6, 6, 4, 6, 6])
    ]
    assert all(rand.kind == "normal" for rand in result.rands)


def test_the_total_adds_the_signed_terms() -> None:
    result = server_roll("2D6+1D4-2+D66", roll_seq=5)
    six_a, six_b, four, tens, units = (rand.value for rand in result.rands)
    assert [term.subtotal for term in result.terms] == [six_a + six_b, four, -2, tens * 10 + units]
    assert [term.notation for term in result.terms] == ["2D6", "+1D4", "-2", "+D66"]
    assert result.total == six_a + six_b + four - 2 + tens * 10 + units
    assert result.success is None


def test_d66_reads_tens_then_units() -> None:
    assert enter_by_hand("D66", [5, 2], roll_seq=0, purpose="table").total == 52


def test_d66_from_the_server_is_not_sorted() -> None:
    # Find a roll whose first die is higher: sorting would have turned e.g. 52 into 25.
    for roll_seq in range(100):
        result = server_roll("D66", roll_seq=roll_seq)
        tens, units = (rand.value for rand in result.rands)
        if tens > units:
            assert result.total == tens * 10 + units
            return
    pytest.fail("no D66 with a higher tens die in 100 rolls")


@pytest.mark.parametrize(
    ("expr", "faces", "text"),
    [
        ("2D6+3>=10", [3, 4], "(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"),
        ("2D6+3>=10", [1, 2], "(2D6+3>=10) ＞ 3[1,2]+3 ＞ 6 ＞ 失敗"),
        ("1D100<=65", [42], "(1D100<=65) ＞ 42 ＞ 成功"),
        ("2D6", [3, 4], "(2D6) ＞ 7[3,4] ＞ 7"),
        ("D66", [3, 5], "(D66) ＞ 35"),
        ("1D6+1D4-2", [3, 2], "(1D6+1D4-2) ＞ 3[3]+2[2]-2 ＞ 3"),
        ("1D6-1D4", [1, 4], "(1D6-1D4) ＞ 1[1]-4[4] ＞ -3"),
        ("-22+1D100", [5], "(-22+1D100) ＞ -22+5[5] ＞ -17"),
        ("D66+2D6", [6, 1, 2, 2], "(D66+2D6) ＞ 61[6,1]+4[2,2] ＞ 65"),
        ("-1D6", [4], "(-1D6) ＞ -4"),
    ],
)
def test_the_text_line_reads_like_bcdice(expr: str, faces: list[int], text: str) -> None:
    assert enter_by_hand(expr, faces, roll_seq=0, purpose="test").text == text


@pytest.mark.parametrize(
    ("op", "success"),
    [(">=", True), ("<=", True), (">", False), ("<", False), ("=", True), ("<>", False)],
)
def test_success_follows_the_comparison(op: str, success: bool) -> None:
    assert enter_by_hand(f"2D6{op}7", [3, 4], roll_seq=0, purpose="test").success is success


def test_a_server_roll_records_why_who_and_how() -> None:
    result = server_roll("２ｄ６＋３＞＝１０ 攻撃", roll_seq=9, client="seed from player")
    assert result.expression == "2D6+3>=10"
    assert result.comment == "攻撃"
    assert result.purpose == "GD-INIT-1"
    assert result.source == "server"
    assert result.client_seed == "seed from player"
    assert result.roll_seq == 9


def test_a_client_seed_changes_the_dice() -> None:
    assert server_roll("10D6").rands != server_roll("10D6", client="mine").rands


def test_the_same_roll_is_reproduced_exactly() -> None:
    assert server_roll("5D10+2", roll_seq=3) == server_roll("5D10+2", roll_seq=3)


def test_two_hundred_dice_can_be_rolled_at_once() -> None:
    assert len(server_roll("100D6+100D10").rands) == 200


def test_bad_notation_is_a_dice_syntax_error() -> None:
    with pytest.raises(DiceSyntaxError, match="at least 2 sides"):
        server_roll("1D1")


def test_an_expression_built_in_code_is_held_to_the_same_limits() -> None:
    with pytest.raises(DiceSyntaxError, match="at most 200 dice"):
        server_roll(DiceExpression((DiceTerm(10_000, 6),)))


def test_an_expression_built_in_code_keeps_its_comment() -> None:
    result = server_roll(DiceExpression((DiceTerm(1, 6),), comment="回避"))
    assert (result.expression, result.comment) == ("1D6", "回避")


def test_a_recorded_roll_cannot_be_changed() -> None:
    result = server_roll("2D6")
    with pytest.raises(ValidationError):
        result.total = 12  # type: ignore[misc]


def test_a_recorded_roll_survives_json_in_the_bcdice_rands_shape() -> None:
    result = server_roll("2D6+3>=10 攻撃")
    stored = result.model_dump(mode="json")
    assert stored["rands"][0] == {"kind": "normal", "sides": 6, "value": result.rands[0].value}
    assert RollResult.model_validate_json(result.model_dump_json()) == result
    assert RollResult.model_validate(stored) == result


def test_rands_refuse_unknown_kinds() -> None:
    with pytest.raises(ValidationError):
        Rand.model_validate({"kind": "tens_d10", "sides": 10, "value": 3})


# --- dice entered by hand -----------------------------------------------------------------


def test_hand_entered_dice_are_marked_as_entered_by_hand() -> None:
    result = enter_by_hand("2D6+3 回避", [6, 5], roll_seq=4, purpose="GD-REACT-1")
    assert result.source == "hand"
    assert result.client_seed is None
    assert [rand.value for rand in result.rands] == [6, 5]
    assert (result.total, result.comment, result.roll_seq) == (14, "回避", 4)


@pytest.mark.parametrize(
    ("expr", "faces", "message"),
    [
        ("2D6", [3], "2D6: expected 2 die faces (one per die, in order), got 1"),
        ("2D6", [3, 4, 5], "expected 2 die faces"),
        ("D66", [3], "expected 2 die faces"),
        ("1D6", [0], "1D6: die 1 is a d6 and cannot show 0; enter a face from 1 to 6"),
        ("2D6", [3, 7], "2D6: die 2 is a d6 and cannot show 7; enter a face from 1 to 6"),
        ("D66", [6, 7], "die 2 is a d6 and cannot show 7"),
        ("1D100", [-5], "cannot show -5"),
        ("1D6", [True], "cannot show True"),
    ],
)
def test_hand_entered_faces_must_fit_the_dice(expr: str, faces: list[int], message: str) -> None:
    with pytest.raises(DiceEntryError) as caught:
        enter_by_hand(expr, faces, roll_seq=0, purpose="test")
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)
