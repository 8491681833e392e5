"""Skills through the Encounter: GD-MAIN-4 B, GD-MAIN-5 B, GD-REACT-2, and GD-COST-3."""

from __future__ import annotations

from typing import Any

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.condition_events import SkillUsed
from domain.rules.glorious_drive.events import DamageApplied
from domain.rules.glorious_drive.position import Position
from domain.rules.records import RulingRecorded
from tests.unit.encounter.table import Table, names, of_type, player, sheet

BURST = {"name": "Burst", "skill_type": "active", "cost": 25, "uses": 1}
LEAP = {"name": "Leap", "skill_type": "movement", "uses": 2}
PARRY = {"name": "Parry", "skill_type": "counter"}


def ace_acting(options: dict[str, Any] | None = None, **ace: Any) -> Table:
    """Given: ace (EX-COST-3: max 80, capacity 100, equipment 125 → max 60) acts first."""
    fields = {
        "stats": {"hp": 60, "capacity": 100, "reaction": 20},
        "base_max_hp": 80,
        "equipment_cost": 125,
        "skills": [BURST, LEAP, PARRY],
    } | ace
    table = (
        Table()
        .open(**(options or {}))
        .join("ace", "p1", "pc", sheet(0, 0, **fields))
        .join("orc", "gm", "enemy", sheet(3, 0, reaction=1))
    )
    table.do(cmd.RollInitiative(), faces=[1, 1])
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
    return table


def test_GD_COST_3_EX_COST_3_a_costed_skill_lowers_max_hp_for_its_step_and_clamps_hp() -> None:
    table = ace_acting()
    events = table.do(cmd.UseActiveSkill(combatant_id="ace", skill="Burst"), by=player("p1"))
    cost, effect = of_type(events, RulingRecorded)
    assert cost.rule_ids == ("GD-COST-1", "GD-COST-3", "GD-COST-2")
    assert cost.outcome["step_max_hp"] == 40
    assert effect.rule_ids == ("GD-MAIN-5",)
    assert of_type(events, SkillUsed)[0].uses_left == 0
    assert table.c("ace").hp == 40  # GD-COST-3a: the clamp is not undone after the step
    assert table.gd.acting == "orc"


def test_GD_COST_3a_off_the_temporary_max_leaves_current_hp_alone() -> None:
    table = ace_acting({"skill_cost_clamps_hp": False})
    table.do(cmd.UseActiveSkill(combatant_id="ace", skill="Burst"), by=player("p1"))
    assert table.c("ace").hp == 60


def test_GD_MAIN_5_B_a_skill_with_no_uses_left_is_refused_and_nothing_changes() -> None:
    table = ace_acting()
    table.do(cmd.UseActiveSkill(combatant_id="ace", skill="Burst"), by=player("p1"))
    table.do(cmd.Wait(combatant_id="orc"))
    table.do(cmd.RollInitiative(), faces=[1, 1])
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.UseActiveSkill(combatant_id="ace", skill="Burst"), by=player("p1"))
    assert refused.value.rule_id == "GD-MAIN-5"
    assert "all 1 times" in refused.value.detail
    assert table.state == before


def test_GD_MAIN_5_B_a_skill_is_used_only_at_its_own_timing() -> None:
    table = ace_acting()
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.UseActiveSkill(combatant_id="ace", skill="Leap"), by=player("p1"))
    assert refused.value.rule_id == "GD-MAIN-5"


def test_GD_MAIN_4_B_a_movement_skill_moves_as_its_text_says_instead_of_a_move() -> None:
    table = ace_acting()
    events = table.do(
        cmd.UseMovementSkill(
            combatant_id="ace", skill="Leap", destination={"x": 9, "y": 0}, note="jump 9"
        ),
        by=player("p1"),
    )
    assert names(events) == ["SkillUsed", "RulingRecorded", "CombatantMoved"]
    assert table.c("ace").position == Position(x=9, y=0)
    assert table.c("ace").skill_uses["Leap"] == 1
    assert table.gd.step == "action"


def test_GD_REACT_2_a_counter_skill_that_does_not_stop_the_attack_leads_to_damage() -> None:
    table = ace_acting()
    table.do(cmd.ForgoAction(combatant_id="ace"), by=player("p1"))
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    with pytest.raises(RuleViolation) as refused:
        table.do(
            cmd.UseCounterSkill(combatant_id="ace", skill="Parry", negates_hit=True),
            by=player("p1"),
        )
    assert refused.value.rule_id == "GD-REACT-2"
    events = table.do(cmd.UseCounterSkill(combatant_id="ace", skill="Parry"), by=player("p1"))
    assert of_type(events, DamageApplied)[0].damage == 70


def test_GD_REACT_2_the_gm_may_rule_that_a_counter_skill_stops_the_hit() -> None:
    table = ace_acting()
    table.do(cmd.ForgoAction(combatant_id="ace"), by=player("p1"))
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    events = table.do(
        cmd.UseCounterSkill(combatant_id="ace", skill="Parry", negates_hit=True, note="parried")
    )
    assert not of_type(events, DamageApplied)
    assert table.c("ace").hp == 60
