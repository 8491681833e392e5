"""Issue 19 item 5: a refusal names the rule that refuses, not the turn procedure.

Given a combatant that a rule keeps from acting (fainted, critical, shut down, collapsed,
surrendered, held by a status, shot down, out of response points), when it issues a
command, then the refusal cites that rule first and says why; a combatant merely out of
turn is still refused by the procedure rule.
"""

from __future__ import annotations

import pytest

from domain.encounter.errors import WrongState
from domain.rules.armor_knights import commands as ak
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as gd
from domain.rules.wizardry_round import commands as wz
from tests.unit.rules.armor_knights.duel import P1, P2, knight, started
from tests.unit.rules.glorious_drive.test_procedure_injury import hit_down_to
from tests.unit.rules.wizardry_round.table import P1 as WZ_P1
from tests.unit.rules.wizardry_round.test_fatigue import rounds_played, tired
from tests.unit.rules.wizardry_round.test_procedure_action import rolled


def test_GD_INJ_1_a_fainted_characters_declaration_is_refused_by_the_faint_rule() -> None:
    table = hit_down_to(-8)
    table.do(gd.TakeHit(combatant_id="ace"), faces=[4], then=[4])  # −1: fainted, stays so
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(gd.DeclareAttack(combatant_id="ace", target="orc"))
    assert refused.value.rule_id == "GD-INJ-1"
    assert "has fainted and acts in no phase" in refused.value.detail
    assert "DeclareAttack is refused" in refused.value.detail
    assert table.state == before


def test_GD_INJ_1_a_shut_down_assault_core_is_refused_by_the_faint_rule() -> None:
    table = hit_down_to(-30, body="assault_core")
    table.do(gd.TakeHit(combatant_id="ace"), faces=[1])
    with pytest.raises(RuleViolation) as refused:
        table.do(gd.Cleanup(combatant_id="ace"))
    assert refused.value.rule_id == "GD-INJ-1"
    assert "shut down" in refused.value.detail


def test_GD_INJ_2_a_critical_character_is_refused_by_the_critical_rule() -> None:
    table = hit_down_to(-22)
    table.do(gd.TakeHit(combatant_id="ace"), faces=[1, 1])  # faint, then critical
    with pytest.raises(RuleViolation) as refused:
        table.do(gd.Wait(combatant_id="ace"))
    assert refused.value.rule_id == "GD-INJ-2"
    assert "out of action until the scenario ends" in refused.value.detail


def test_GD_TURN_1_a_character_merely_out_of_turn_is_still_refused_by_the_procedure() -> None:
    table = hit_down_to(-8)
    table.do(gd.TakeHit(combatant_id="ace"), faces=[5])  # no injury: ace acts next
    with pytest.raises(RuleViolation) as refused:
        table.do(gd.Wait(combatant_id="orc"))
    assert refused.value.rule_id == "GD-TURN-1"


def test_WZ_3_a_collapsed_characters_declaration_is_refused_by_the_fatigue_rule() -> None:
    table = tired()
    rounds_played(table, 5)  # round 6: five steps, +10: collapsed
    with pytest.raises(RuleViolation) as refused:
        table.declare("tired", 5)
    assert refused.value.rule_id == "WZ-3"
    assert "collapsed from fatigue" in refused.value.detail


def test_WZ_8_a_character_held_by_a_status_is_refused_naming_the_status() -> None:
    table = rolled(10, 10)  # 15 fighter, 13 mage, 11 goblin
    table.do(wz.InflictStatus(target="mage", status="sleep", incapacitating=True))
    table.do(wz.Act(combatant_id="fighter"), by=WZ_P1)  # the sleep lands at the inning's end
    with pytest.raises(RuleViolation) as refused:
        table.do(wz.Act(combatant_id="mage"))
    assert refused.value.rule_id == "WZ-8"
    assert "cannot act under sleep" in refused.value.detail


def test_WZ_8_F_a_surrendered_character_acts_no_more() -> None:
    table = rolled(10, 10)
    table.do(wz.DropDeclaration(combatant_id="fighter", fallback="surrender"), by=WZ_P1)
    with pytest.raises(RuleViolation) as refused:
        table.do(wz.Act(combatant_id="fighter"), by=WZ_P1)
    assert refused.value.rule_id == "WZ-8"
    assert "has surrendered" in refused.value.detail


def test_AK_ARM_2_a_shot_down_unit_is_refused_by_the_shot_down_rule() -> None:
    table = started()
    table.do(
        ak.ApplyArmorEffect.model_validate(
            {
                "target": "blue",
                "armor": "physical",
                "amount": -15,
                "mode": "reduced",
                "lasts": "turn",
                "reason": "GM: armour-piercing hit",
            }
        )
    )
    with pytest.raises(RuleViolation) as refused:
        table.do(ak.EndPhase(unit_id="blue"), by=P2)
    assert refused.value.rule_id == "AK-ARM-2"
    assert "was shot down" in refused.value.detail
    assert "the encounter has ended" in refused.value.detail
    with pytest.raises(WrongState):  # red won: the duel is over, but no rule took red out
        table.do(ak.EndPhase(unit_id="red"), by=P1)


def test_AK_TURN_3_a_target_out_of_response_points_cannot_evade() -> None:
    table = started(red=knight(0), blue=knight(3, response_points=0))
    table.do(ak.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    with pytest.raises(RuleViolation) as refused:
        table.do(ak.Evade(unit_id="blue"), by=P2)
    assert refused.value.rule_id == "AK-TURN-3"
    assert "0 response points" in refused.value.detail
