"""GD-MAIN-6 unarmed and bashing, GD-MAIN-7 throwing, GD-INJ-4 no attack on the dead."""

from __future__ import annotations

from typing import Any

import pytest

from domain.encounter import aggregate
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import AttackDeclared, DamageApplied, InjurySuffered
from domain.rules.glorious_drive.injury import Injury
from domain.rules.records import RulingRecorded
from tests.unit.encounter.table import AT, GM, Table, of_type, player, sheet, weapon

PIPE = {"name": "pipe", "kind": "general", "phys_atk": 60, "range": 2}
GUN = weapon("gun", attack=20, hit=10, reload_interval=2)
SLASH = {"name": "Slash", "skill_type": "active", "weapon_type": "sword"}


def acting(orc: tuple[int, int] = (1, 0), **ace: Any) -> Table:
    """Given: ace (phys_atk 100, melee 70, ranged 50) acts first; orc (phys_def 50) nearby."""
    fields = {"reaction": 9, "stats": {"melee_hit": 70}} | ace
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, **fields))
        .join("orc", "gm", "enemy", sheet(*orc, reaction=1))
    )
    table.do(cmd.RollInitiative(), faces=[6, 1])
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
    return table


def refused(table: Table, command: cmd.Command, by: Any = None) -> RuleViolation:
    before = table.state
    with pytest.raises(RuleViolation) as refusal:
        table.do(command, by=by or player("p1"))
    assert table.state == before
    return refusal.value


def test_GD_MAIN_6_with_no_weapon_the_attack_uses_phys_atk_and_melee_hit_alone() -> None:
    table = acting(weapons=[])
    events = table.do(cmd.AttackUnarmed(combatant_id="ace", target="orc"), by=player("p1"))
    (declared,) = of_type(events, AttackDeclared)
    assert (declared.means, declared.reach, declared.attack, declared.hit) == (
        "unarmed",
        "melee",
        100,
        70,
    )
    assert of_type(events, RulingRecorded)[0].rule_ids[0] == "GD-MAIN-6"
    hit = table.do(cmd.TakeHit(combatant_id="orc"))
    assert of_type(hit, DamageApplied)[0].damage == 50  # 100 − 50


def test_GD_MAIN_6_bashing_with_a_ranged_weapon_drops_its_contribution_and_fires_nothing() -> None:
    table = acting(weapons=[GUN])
    events = table.do(cmd.AttackUnarmed(combatant_id="ace", target="orc"), by=player("p1"))
    (declared,) = of_type(events, AttackDeclared)
    assert (declared.means, declared.weapon, declared.attack, declared.hit) == (
        "bash",
        "gun",
        100,
        70,
    )
    assert table.c("ace").ammo["gun"].shots_left == 2


def test_GD_MAIN_6_a_melee_weapon_is_attacked_with_not_set_aside() -> None:
    table = acting(weapons=[weapon("blade", reach="melee", range=1)])
    assert refused(table, cmd.AttackUnarmed(combatant_id="ace", target="orc")).rule_id == (
        "GD-MAIN-6"
    )


def test_GD_MAIN_6_an_unarmed_attack_reaches_an_adjacent_square_only() -> None:
    table = acting(orc=(2, 0), weapons=[])
    assert refused(table, cmd.AttackUnarmed(combatant_id="ace", target="orc")).rule_id == (
        "GD-RNG-1"
    )


def test_GD_MAIN_6_a_skill_requiring_a_weapon_type_is_refused_when_unarmed() -> None:
    table = acting(weapons=[], skills=[SLASH])
    refusal = refused(table, cmd.UseActiveSkill(combatant_id="ace", skill="Slash"))
    assert refusal.rule_id == "GD-MAIN-6"


def test_GD_MAIN_6_a_skill_requiring_a_weapon_type_needs_that_type_in_hand() -> None:
    sword = weapon("sword", reach="melee", range=1, weapon_type="sword")
    table = acting(weapons=[GUN, sword], skills=[SLASH])
    assert refused(table, cmd.UseActiveSkill(combatant_id="ace", skill="Slash")).rule_id == (
        "GD-MAIN-5"
    )
    other = acting(weapons=[sword], skills=[SLASH])
    other.do(cmd.UseActiveSkill(combatant_id="ace", skill="Slash"), by=player("p1"))
    assert other.gd.acting == "orc"


def test_GD_MAIN_7_a_thrown_item_hits_with_ranged_hit_alone_and_deals_its_own_attack() -> None:
    table = acting(orc=(2, 0), weapons=[GUN], items=[PIPE])
    events = table.do(cmd.ThrowItem(combatant_id="ace", target="orc", item="pipe"), by=player("p1"))
    (declared,) = of_type(events, AttackDeclared)
    assert (declared.means, declared.reach, declared.attack, declared.hit) == (
        "thrown",
        "ranged",
        60,
        50,
    )
    assert table.c("ace").item("pipe") is None  # it left the thrower's hand
    hit = table.do(cmd.TakeHit(combatant_id="orc"))
    assert of_type(hit, DamageApplied)[0].damage == 10  # 60 − 50


def test_GD_MAIN_7_the_gm_may_lower_the_items_attack_and_it_is_recorded() -> None:
    table = acting(orc=(2, 0), items=[PIPE])
    lowered = cmd.ThrowItem(combatant_id="ace", target="orc", item="pipe", item_attack=30)
    assert refused(table, lowered).rule_id == "GD-MAIN-7"  # not the player's to set
    raised = cmd.ThrowItem(combatant_id="ace", target="orc", item="pipe", item_attack=90)
    assert refused(table, raised, GM).rule_id == "GD-MAIN-7"
    events = table.do(lowered)
    assert of_type(events, AttackDeclared)[0].attack == 30
    ruling = of_type(events, RulingRecorded)[0]
    assert ruling.inputs["item_attack"] == 60
    assert ruling.inputs["lowered_by_gm"] is True


def test_GD_MAIN_7_a_nearby_item_is_thrown_with_the_attack_the_gm_gives_it() -> None:
    table = acting()
    rock = cmd.ThrowItem(combatant_id="ace", target="orc", item="rock")
    assert refused(table, rock).rule_id == "GD-MAIN-7"
    events = table.do(rock.model_copy(update={"item_attack": 25}))
    assert of_type(events, AttackDeclared)[0].attack == 25


def test_GD_MAIN_7_an_equipped_item_is_not_thrown() -> None:
    table = acting(items=[PIPE], equipped_items=["pipe"])
    throw = cmd.ThrowItem(combatant_id="ace", target="orc", item="pipe")
    assert refused(table, throw).rule_id == "GD-MAIN-7"


def with_injury(table: Table, cid: str, injury: Injury) -> Table:
    """Given: `cid` already suffered `injury` (as the injury step would have recorded)."""
    event = InjurySuffered(combatant=cid, injury=injury, at=AT, by="gm")
    table.state = aggregate.evolve(table.state, event)
    return table


def test_GD_INJ_4_a_dead_combatant_cannot_be_the_target_of_an_attack() -> None:
    table = with_injury(acting(orc=(2, 0), items=[PIPE]), "orc", "dead")
    for attack in (
        cmd.DeclareAttack(combatant_id="ace", target="orc"),
        cmd.ThrowItem(combatant_id="ace", target="orc", item="pipe"),
    ):
        refusal = refused(table, attack)
        assert refusal.rule_id == "GD-INJ-4"


def test_GD_INJ_2_a_critical_combatant_is_out_of_action_but_still_a_target() -> None:
    table = with_injury(acting(), "orc", "critical")
    events = table.do(cmd.DeclareAttack(combatant_id="ace", target="orc"), by=player("p1"))
    assert of_type(events, DamageApplied)[0].combatant == "orc"  # hit with no reaction


def test_GD_MAIN_6_GD_MAIN_7_an_attack_must_name_its_target_and_item() -> None:
    table = acting(weapons=[], items=[PIPE])
    assert refused(table, cmd.AttackUnarmed(combatant_id="ace")).rule_id == "GD-MAIN-6"
    assert refused(table, cmd.ThrowItem(combatant_id="ace", target="orc")).rule_id == "GD-MAIN-7"
