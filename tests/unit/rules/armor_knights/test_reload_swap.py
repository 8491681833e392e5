"""AK-RLD-1/2 (reload action, turn-end reload) and AK-SWP-1 (stow / equip, an acquired skill)."""

from __future__ import annotations

import pytest

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights.actions import swap_weapons
from domain.rules.armor_knights.procedure import legal_commands
from domain.rules.armor_knights.run import Run
from domain.rules.errors import RuleViolation
from domain.rules.records import Dice, DiceSource
from tests.unit.encounter.table import AT, ENCOUNTER
from tests.unit.rules.armor_knights.duel import P1, P2, Duel, knight, started, weapon

CANNON = weapon("cannon", load_turns=3)


def test_AK_RLD_1_declaring_starts_the_load_count_and_a_reload_lowers_it_by_one() -> None:
    table = started(red=knight(0, weapons=[CANNON]))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="cannon"), by=P1)
    assert table.u("red").loads == {"cannon": 3}  # AK-ORD-1: at the declaration
    table.do(cmd.ResolveAttack(hit=False, reason="GM: wide"))
    with pytest.raises(RuleViolation, match="AK-RLD-1"):
        table.do(cmd.DeclareAttack(unit_id="red", weapon="cannon"), by=P1)
    table.do(cmd.Reload(unit_id="red", weapon="cannon"), by=P1)
    assert (table.u("red").loads, table.u("red").active_points) == ({"cannon": 2}, 1)


def test_AK_RLD_1_only_a_loading_weapon_and_only_in_ones_own_phase() -> None:
    table = started(red=knight(0, weapons=[CANNON, weapon()]), blue=knight(3, weapons=[CANNON]))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="cannon"), by=P1)
    table.do(cmd.ResolveAttack(hit=False, reason="GM: wide"))
    with pytest.raises(RuleViolation, match="AK-RLD-1"):
        table.do(cmd.Reload(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.EndPhase(unit_id="red"), by=P1)
    table.do(cmd.DeclareAttack(unit_id="blue", weapon="cannon"), by=P2)
    table.do(cmd.ResolveAttack(hit=False, reason="GM: wide"))
    table.do(cmd.EndPhase(unit_id="blue"), by=P2)
    table.do(cmd.RollFirstMove(), faces=[1, 6])  # red first again
    with pytest.raises(RuleViolation, match="AK-TURN-1"):
        table.do(cmd.Reload(unit_id="blue", weapon="cannon"), by=P2)


def test_AK_RLD_2_every_load_count_drops_by_one_at_turn_end() -> None:
    table = started(red=knight(0, weapons=[weapon("gun", load_turns=1), CANNON]))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="gun"), by=P1)
    table.do(cmd.ResolveAttack(hit=False, reason="GM: wide"))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="cannon"), by=P1)
    table.do(cmd.ResolveAttack(hit=False, reason="GM: wide"))
    table.do(cmd.EndPhase(unit_id="red"), by=P1)
    table.do(cmd.EndPhase(unit_id="blue"), by=P2)
    assert table.u("red").loads == {"cannon": 2}  # the gun is loaded again
    table.do(cmd.RollFirstMove(), faces=[1, 6])
    table.do(cmd.DeclareAttack(unit_id="red", weapon="gun"), by=P1)


def test_AK_SWP_1_stowing_costs_one_active_point_per_weapon() -> None:
    arms = [weapon("a"), weapon("b"), weapon("c")]
    table = started(red=knight(0, weapons=arms))
    table.do(cmd.SwapWeapons(unit_id="red", direction="stow", weapons=("a", "b")), by=P1)
    assert (table.u("red").equipped, table.u("red").active_points) == (("c",), 1)
    with pytest.raises(RuleViolation, match="AK-SWP-1"):  # stowed counts as not equipped
        table.do(cmd.DeclareAttack(unit_id="red", weapon="a"), by=P1)
    with pytest.raises(RuleViolation, match="AK-TURN-3"):
        table.do(cmd.SwapWeapons(unit_id="red", direction="equip", weapons=("a", "b")), by=P1)
    table.do(cmd.SwapWeapons(unit_id="red", direction="equip", weapons=("a",)), by=P1)
    assert table.u("red").equipped == ("c", "a")


def test_AK_SWP_1_at_least_one_weapon_and_only_in_the_named_direction() -> None:
    table = started(red=knight(0, weapons=[weapon("a"), weapon("b", equipped=False)]))
    with pytest.raises(ValueError, match="at least 1"):
        cmd.SwapWeapons(unit_id="red", direction="stow", weapons=())
    with pytest.raises(RuleViolation, match="AK-SWP-1"):
        table.do(cmd.SwapWeapons(unit_id="red", direction="stow", weapons=("b",)), by=P1)
    with pytest.raises(RuleViolation, match="AK-SWP-1"):
        table.do(cmd.SwapWeapons(unit_id="red", direction="equip", weapons=("a",)), by=P1)


def test_AK_SWP_1_is_a_combat_skill_the_unit_must_have_acquired() -> None:
    table = started(red=knight(0, actions=["reload"], weapons=[weapon("a"), weapon("b")]))
    assert "SwapWeapons" not in offered(table)
    with pytest.raises(RuleViolation, match="AK-TURN-1"):  # not offered: not acquired
        table.do(cmd.SwapWeapons(unit_id="red", direction="stow", weapons=("a",)), by=P1)
    assert "SwapWeapons" in offered(started(red=knight(0, actions=["swap"])))


def test_AK_SWP_1_stowing_without_the_skill_is_refused_citing_AK_SWP_1() -> None:
    table = started(red=knight(0, actions=["reload"], weapons=[weapon("a"), weapon("b")]))
    dice = Dice(DiceSource(stream_id=ENCOUNTER, next_roll_seq=0, hand_faces=()), by="p1", at=AT)
    run = Run(state=table.ak, dice=dice, ctx=P1)
    stow = cmd.SwapWeapons(unit_id="red", direction="stow", weapons=("a",))
    with pytest.raises(RuleViolation, match="not acquired 'swap'") as refused:
        swap_weapons(run, stow)  # the handler itself, behind the procedure's gate
    assert refused.value.rule_id == "AK-SWP-1"


def offered(table: Duel) -> list[str]:
    return [c.command for c in legal_commands(table.ak) if c.combatant == "red"]
