"""After the reveal, anyone can recompute every recorded roll; tampering shows up."""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.dice import (
    Rand,
    RollResult,
    Verification,
    commitment,
    derive_server_seed,
    enter_by_hand,
    roll,
    verify,
)

MASTER_KEY = bytes(range(32, 64))
STREAM = UUID("0193a5d2-7c1e-7000-8000-0000000000bb")
SEED = derive_server_seed(MASTER_KEY, STREAM)
PUBLISHED = commitment(SEED)  # what the encounter showed when it opened


def encounter_rolls() -> list[RollResult]:
    expressions = ["1D100", "2D6+3>=10 命中", "D66", "1D6+1D4-2", "3D6<=10", "50+1D100>=100"]
    return [
        roll(
            expr,
            server_seed=SEED,
            stream_id=STREAM,
            roll_seq=seq,
            purpose="GD-REACT-1",
            client_seed=None if seq % 2 else f"player-{seq}",
        )
        for seq, expr in enumerate(expressions)
    ]


def check(result: RollResult, seed: bytes = SEED, stream: UUID = STREAM) -> Verification:
    return verify(result, server_seed=seed, stream_id=stream)


def test_after_the_reveal_every_recorded_roll_recomputes() -> None:
    for result in encounter_rolls():
        verification = verify(result, server_seed=SEED, stream_id=STREAM, commitment=PUBLISHED)
        assert verification.problems == ()
        assert verification.verified
        assert verification.roll_seq == result.roll_seq


def test_a_roll_read_back_from_stored_json_still_verifies() -> None:
    for result in encounter_rolls():
        assert check(RollResult.model_validate_json(result.model_dump_json())).verified


def test_a_wrong_seed_is_caught() -> None:
    result = roll("10D6", server_seed=SEED, stream_id=STREAM, roll_seq=0, purpose="test")
    other_seed = derive_server_seed(bytes(32), STREAM)
    verification = check(result, seed=other_seed)
    assert not verification.ok
    assert any(problem.startswith("die ") for problem in verification.problems)


def test_a_seed_from_another_encounter_is_caught() -> None:
    result = roll("10D6", server_seed=SEED, stream_id=STREAM, roll_seq=0, purpose="test")
    other_stream = UUID(int=STREAM.int + 1)
    assert not check(result, seed=derive_server_seed(MASTER_KEY, other_stream)).ok
    assert not check(result, stream=other_stream).ok


def test_a_revealed_seed_that_breaks_the_commitment_is_reported() -> None:
    result = encounter_rolls()[0]
    verification = verify(result, server_seed=SEED, stream_id=STREAM, commitment="00" * 32)
    assert verification.problems == (
        "the revealed server seed does not match the published commitment",
    )


def _edited_first_face(result: RollResult) -> RollResult:
    first = result.rands[0]
    changed = Rand(sides=first.sides, value=first.value % first.sides + 1)
    return result.model_copy(update={"rands": (changed, *result.rands[1:])})


def test_an_edited_face_is_caught() -> None:
    result = encounter_rolls()[1]
    problems = check(_edited_first_face(result)).problems
    assert problems[0].startswith(f"die 1: recorded {result.rands[0].value % 6 + 1} on a d6")


def test_an_edited_total_is_caught() -> None:
    result = encounter_rolls()[1]
    edited = result.model_copy(update={"total": result.total + 1})
    assert check(edited).problems == (
        f"total: recorded {result.total + 1}, recomputed {result.total}",
    )


def test_an_edited_success_is_caught() -> None:
    result = encounter_rolls()[1]
    assert result.success is not None
    edited = result.model_copy(update={"success": not result.success})
    assert check(edited).problems == (
        f"success: recorded {not result.success}, recomputed {result.success}",
    )


def test_an_edited_text_is_caught() -> None:
    edited = encounter_rolls()[0].model_copy(update={"text": "(1D100) ＞ 100"})
    assert [p.split(":")[0] for p in check(edited).problems] == ["text"]


@pytest.mark.parametrize(
    "update",
    [
        {"roll_seq": 99},
        {"client_seed": "someone else"},
        {"expression": "1D99"},
    ],
)
def test_moving_a_roll_to_other_inputs_is_caught(update: dict[str, object]) -> None:
    result = encounter_rolls()[0]
    assert not check(result.model_copy(update=update)).ok


def test_a_roll_with_dice_missing_is_caught() -> None:
    result = encounter_rolls()[1]
    edited = result.model_copy(update={"rands": result.rands[:1]})
    assert check(edited).problems == ("1 dice recorded but 2D6+3>=10 rolls 2",)


def test_an_unreadable_expression_is_a_problem_not_a_crash() -> None:
    edited = encounter_rolls()[0].model_copy(update={"expression": "1D"})
    assert "cannot be read" in check(edited).problems[0]


def test_a_non_canonical_expression_is_reported() -> None:
    edited = encounter_rolls()[0].model_copy(update={"expression": "D100"})
    problems = check(edited).problems
    assert "expression 'D100' is not canonical" in problems


def test_hand_entered_rolls_are_reported_unverifiable_not_failed() -> None:
    result = enter_by_hand("2D6+3>=10", [3, 4], roll_seq=7, purpose="GD-REACT-1")
    verification = check(result)
    assert verification.ok
    assert not verification.verified
    assert verification.unverifiable is not None
    assert "entered by hand" in verification.unverifiable


def test_a_hand_entered_roll_still_has_its_arithmetic_checked() -> None:
    result = enter_by_hand("2D6+3>=10", [3, 4], roll_seq=7, purpose="GD-REACT-1")
    edited = result.model_copy(update={"total": 9, "success": False})
    assert check(edited).problems == (
        "total: recorded 9, recomputed 10",
        "success: recorded False, recomputed True",
    )


def test_a_hand_entered_face_no_die_can_show_is_caught() -> None:
    result = enter_by_hand("2D6", [3, 4], roll_seq=7, purpose="test")
    edited = result.model_copy(update={"rands": (Rand(sides=6, value=7), result.rands[1])})
    assert "cannot show 7" in check(edited).problems[0]
