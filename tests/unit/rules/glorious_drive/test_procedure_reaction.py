"""GD-REACT-1..6 and GD-DMG-1..4 through the Encounter: reactions, damage, situation modifiers;
GD-RNG-1/2 (range, height) when an attack is declared."""

from __future__ import annotations

from typing import Any

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import (
    DamageApplied,
    GuardCostPaid,
    HitRolled,
    ReactionDeclared,
)
from domain.rules.records import RulingRecorded
from tests.unit.encounter.table import Table, names, of_type, player, sheet, weapon

SHIELD = weapon("shield", reach="melee", range=0, attack=0, cut=10, guard_cost=5)


def attacked(target_sheet: dict[str, Any] | None = None, **attacker: Any) -> Table:
    """Given: orc (attack 100+20 physical, hit 50) has declared an attack on ace."""
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", target_sheet or sheet(0, 0))
        .join("orc", "gm", "enemy", sheet(3, 0, reaction=9, **attacker))
    )
    table.do(cmd.RollInitiative(), faces=[1, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    return table


def rulings(events: list[Any]) -> list[RulingRecorded]:
    return of_type(events, RulingRecorded)


def test_GD_REACT_1_a_tie_goes_to_the_attacker() -> None:
    table = attacked()
    events = table.do(cmd.Dodge(combatant_id="ace"), faces=[30, 30])  # 50+30 vs 50+30
    assert rulings(events)[0].outcome["dodged"] is False
    assert of_type(events, DamageApplied)[0].damage == 70  # 120 − 50
    assert table.c("ace").hp == 30


def test_GD_REACT_1_a_strictly_higher_evasion_dodges_and_no_damage_is_dealt() -> None:
    table = attacked()
    events = table.do(cmd.Dodge(combatant_id="ace"), faces=[30, 31])
    assert names(events) == [
        "ReactionDeclared",
        "EncounterDiceRolled",
        "EncounterDiceRolled",
        "RulingRecorded",
        "HitRolled",
        "DefenceResolved",
        "MainActionEnded",
    ]
    assert table.c("ace").hp == 100
    assert table.gd.acting == "ace"


def test_GD_REACT_5_waiting_means_the_attack_hits() -> None:
    table = attacked()
    events = table.do(cmd.TakeHit(combatant_id="ace"), by=player("p1"))
    assert of_type(events, ReactionDeclared)[0].reaction == "wait"
    assert table.c("ace").hp == 30


def test_GD_DMG_2_the_minimum_guaranteed_damage_applies_through_the_procedure() -> None:
    table = attacked(sheet(0, 0, stats={"phys_def": 300}))
    table.do(cmd.TakeHit(combatant_id="ace"), by=player("p1"))
    assert table.c("ace").hp == 100 - 12  # ceil(120 / 10)


def test_GD_REACT_4_EX_DMG_4_guard_pays_its_cost_then_the_cut_can_reach_zero() -> None:
    ace = sheet(0, 0, stats={"phys_def": 300}, weapons=[SHIELD])
    table = attacked(ace, stats={"phys_atk": 60})  # attack 80 → minimum 8
    events = table.do(cmd.Guard(combatant_id="ace"), by=player("p1"))
    assert of_type(events, GuardCostPaid)[0].cost == 5
    assert of_type(events, DamageApplied)[0].damage == 0
    assert table.c("ace").hp == 95  # HP loss 5 in all, not 8 − 10 + 5


def test_GD_REACT_4_a_guard_whose_cost_would_leave_negative_hp_is_refused() -> None:
    ace = sheet(0, 0, weapons=[SHIELD], hp=100) | {"hp": 4}
    table = attacked(ace)
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Guard(combatant_id="ace"), by=player("p1"))
    assert refused.value.rule_id == "GD-REACT-4"
    assert table.state == before


def test_GD_REACT_4_guard_needs_a_cut_value() -> None:
    table = attacked()
    with pytest.raises(RuleViolation, match="not legal now"):
        table.do(cmd.Guard(combatant_id="ace"), by=player("p1"))


def test_GD_DMG_4_a_situation_modifier_raises_the_attack_and_is_recorded_with_its_reason() -> None:
    table = attacked()
    table.do(
        cmd.GrantSituationModifier(
            defender="ace", percent=50, grade="medium", reason="surrounded on three sides"
        )
    )
    events = table.do(cmd.TakeHit(combatant_id="ace"), by=player("p1"))
    damage, injury, *_ = rulings(events)  # 100 − 130 = −30: the injury checks follow
    assert "GD-DMG-4" in damage.rule_ids
    assert injury.rule_ids == ("GD-INJ-1", "GD-INJ-2")
    assert damage.inputs["situation_percent"] == 50
    assert of_type(events, DamageApplied)[0].damage == 180 - 50


def test_GD_DMG_4_a_percentage_outside_its_grade_is_refused() -> None:
    table = attacked()
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.GrantSituationModifier(defender="ace", percent=80, grade="small", reason="x"))
    assert refused.value.rule_id == "GD-DMG-4"


def test_GD_REACT_3_a_character_across_the_line_of_fire_takes_the_attack_instead() -> None:
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0))
        .join("bulwark", "p2", "pc", sheet(2, 0, weapons=[SHIELD]))
        .join("orc", "gm", "enemy", sheet(4, 0, reaction=9))
    )
    table.do(cmd.RollInitiative(), faces=[1, 2, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    events = table.do(
        cmd.Intercept(combatant_id="bulwark", target="ace", guard=True), by=player("p2")
    )
    assert of_type(events, ReactionDeclared)[0].instead_of == "ace"
    assert table.c("ace").hp == 100
    assert table.c("bulwark").hp == 100 - 5 - (70 - 10)
    assert table.gd.pending is None


def test_GD_REACT_3_only_a_character_across_the_attack_may_intercept() -> None:
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0))
        .join("aside", "p2", "pc", sheet(2, 3))
        .join("orc", "gm", "enemy", sheet(4, 0, reaction=9))
    )
    table.do(cmd.RollInitiative(), faces=[1, 2, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    table.do(cmd.DeclareAttack(combatant_id="orc", target="ace"))
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Intercept(combatant_id="aside", target="ace"), by=player("p2"))
    assert refused.value.rule_id == "GD-TURN-1"


def test_GD_RNG_1_a_target_out_of_range_is_refused() -> None:
    table = Table().open().join("ace", "p1", "pc", sheet(0, 0)).join("orc", "gm", "e", sheet(9, 0))
    table.do(cmd.RollInitiative(), faces=[6, 1])
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.DeclareAttack(combatant_id="ace", target="orc"), by=player("p1"))
    assert refused.value.rule_id == "GD-RNG-1"
    assert "9 squares" in refused.value.detail


def test_GD_RNG_2_height_adds_to_the_range_needed_range_4_misses_a_flyer_3_away_2_up() -> None:
    """EX-RNG-1 through the procedure: 3 squares away and 2 up needs range 5."""
    flyer = sheet(3, 0) | {"position": {"x": 3, "y": 0, "z": 2}}

    def declared(rifle_range: int) -> Table:
        ace = sheet(0, 0, weapons=[weapon(range=rifle_range)])
        table = Table().open().join("ace", "p1", "pc", ace).join("bird", "gm", "e", flyer)
        table.do(cmd.RollInitiative(), faces=[6, 1])
        table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
        table.do(cmd.DeclareAttack(combatant_id="ace", target="bird"), by=player("p1"))
        return table

    with pytest.raises(RuleViolation) as refused:
        declared(4)
    assert refused.value.rule_id == "GD-RNG-2"
    assert "5 squares away, 2 of them height" in refused.value.detail
    (aimed,) = [r for r in rulings(declared(5).events) if "GD-RNG-2" in r.rule_ids]
    assert aimed.inputs["distance"] == 5


def area_attack() -> tuple[Table, list[Any]]:
    """Given: a grenade (area 1) lands on a square between ace and bob, both in the area."""
    grenade = weapon("grenade", range=6, area=1)
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(4, 0))
        .join("bob", "p2", "pc", sheet(4, 2))
        .join("far", "p2", "pc", sheet(9, 9))
        .join("orc", "gm", "enemy", sheet(0, 1, reaction=9, weapons=[grenade]))
    )
    table.do(cmd.RollInitiative(), faces=[1, 2, 3, 6])
    table.do(cmd.Cleanup(combatant_id="orc"))
    events = table.do(cmd.DeclareAttack(combatant_id="orc", point={"x": 4, "y": 1}))
    return table, events


def test_GD_REACT_6_an_area_attack_hits_everyone_in_the_area_and_each_reacts() -> None:
    table, _ = area_attack()
    assert table.gd.pending is not None
    assert table.gd.pending.defenders == ("ace", "bob")
    table.do(cmd.TakeHit(combatant_id="bob"), by=player("p2"))
    assert table.gd.pending.defenders == ("ace",)
    table.do(cmd.Dodge(combatant_id="ace"), faces=[40, 99])
    assert table.gd.pending is None
    assert (table.c("ace").hp, table.c("bob").hp) == (100, 30)


def test_GD_REACT_6_the_attacker_rolls_hit_once_and_every_dodge_meets_it() -> None:
    table, _ = area_attack()
    first = table.do(cmd.Dodge(combatant_id="ace"), faces=[40, 99])
    (hit,) = of_type(first, HitRolled)
    second = table.do(cmd.Dodge(combatant_id="bob"), faces=[10])  # only the evasion die
    (ruling,) = [r for r in rulings(second) if "GD-REACT-1" in r.rule_ids]
    assert ruling.roll_seqs == (hit.roll_seq, hit.roll_seq + 2)
    assert ruling.outcome["hit_total"] == 50 + 40
