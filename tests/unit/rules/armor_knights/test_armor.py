"""AK-ARM-1/2: "treated as reduced" versus "reduced", durations, and shot down at −5."""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights.condition_events import SideWon, UnitShotDown
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, P2, Duel, started


def effect(amount: int, mode: str, lasts: str = "turn") -> cmd.ApplyArmorEffect:
    return cmd.ApplyArmorEffect.model_validate(
        {
            "target": "blue",
            "armor": "physical",
            "amount": amount,
            "mode": mode,
            "lasts": lasts,
            "reason": "GM: the hit's effect",
        }
    )


def end_turn(table: Duel) -> None:
    table.do(cmd.EndPhase(unit_id="red"), by=P1)
    table.do(cmd.EndPhase(unit_id="blue"), by=P2)


def test_AK_ARM_1_treated_as_reduced_changes_only_what_a_check_sees() -> None:
    table = started()
    table.do(effect(-5, "treated"))
    blue = table.u("blue")
    assert (blue.armor["physical"], blue.effective("physical")) == (10, 5)
    end_turn(table)
    assert table.u("blue").effective("physical") == 10


def test_AK_ARM_1_reduced_changes_the_stored_value_for_this_turn() -> None:
    table = started()
    table.do(effect(-4, "reduced"))
    assert table.u("blue").armor["physical"] == 6
    end_turn(table)
    assert table.u("blue").armor["physical"] == 10


def test_AK_ARM_1_until_shot_down_outlasts_the_turn() -> None:
    table = started()
    table.do(effect(-3, "reduced", "until_shot_down"))
    table.do(effect(-2, "treated", "until_shot_down"))
    end_turn(table)
    assert (table.u("blue").armor["physical"], table.u("blue").effective("physical")) == (7, 5)


def test_AK_ARM_2_a_stored_value_of_minus_5_shoots_the_unit_down_and_wins() -> None:
    table = started()
    table.do(effect(-15, "reduced"))
    assert of_type(table.events, UnitShotDown)[0].value == -5
    assert of_type(table.events, SideWon)[0].condition == "shot_down"
    assert (table.ak.winner, table.state.ended) == ("red", True)


def test_AK_ARM_2_treated_as_minus_5_does_not_shoot_down() -> None:
    table = started()
    table.do(effect(-20, "treated"))
    assert table.u("blue").effective("physical") == -10
    assert not table.u("blue").shot_down
    assert not table.state.ended


def test_AK_ARM_2_only_the_stored_value_shoots_down_however_low_a_check_sees_it() -> None:
    table = started()
    table.do(effect(-20, "treated"))  # checked as −10, stored 10
    table.do(effect(-14, "reduced"))  # stored −4, checked as −24
    blue = table.u("blue")
    assert (blue.armor["physical"], blue.effective("physical")) == (-4, -24)
    assert not of_type(table.events, UnitShotDown)
    assert not table.state.ended
    table.do(effect(-1, "reduced"))  # stored −5
    assert [e.value for e in of_type(table.events, UnitShotDown)] == [-5]
    assert table.ak.winner == "red"
