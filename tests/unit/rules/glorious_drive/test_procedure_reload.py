"""GD-RLD-1..4 through the Encounter: shots spent, reload actions across turns, the lock."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import WeaponReloaded
from tests.unit.encounter.table import Table, of_type, player, sheet, weapon

CANNON = weapon("cannon", range=6, reload_interval=1, reload_time=2)


def ace_with(*arms: dict[str, object]) -> Table:
    """Given: ace acts first each turn (orc waits); ace has had its cleanup."""
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, reaction=20, weapons=list(arms)))
        .join("orc", "gm", "enemy", sheet(3, 0, reaction=1))
    )
    next_turn(table)
    return table


def next_turn(table: Table) -> None:
    """The rest of the turn passes (orc waits) and ace's next phase reaches its action step."""
    if table.gd.acting == "orc":
        table.do(cmd.Wait(combatant_id="orc"))
    table.do(cmd.RollInitiative(), faces=[1, 1])
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))


def shoot(table: Table) -> None:
    table.do(cmd.DeclareAttack(combatant_id="ace", target="orc"), by=player("p1"))
    table.do(cmd.Dodge(combatant_id="orc"), faces=[1, 100])


def test_GD_RLD_1_after_n_attacks_the_weapon_is_out_of_ammunition() -> None:
    table = ace_with(CANNON)
    shoot(table)
    next_turn(table)
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.DeclareAttack(combatant_id="ace", target="orc"), by=player("p1"))
    assert refused.value.rule_id == "GD-RLD-1"
    assert table.state == before


def test_GD_RLD_2_3_a_two_action_reload_locks_the_weapon_until_it_completes() -> None:
    table = ace_with(weapon("smg", range=6, reload_interval=3, reload_time=2))
    events = table.do(cmd.Reload(combatant_id="ace"), by=player("p1"))  # not empty: allowed
    assert of_type(events, WeaponReloaded)[0].reloads_done == 1
    next_turn(table)
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.DeclareAttack(combatant_id="ace", target="orc"), by=player("p1"))
    assert refused.value.rule_id == "GD-RLD-3"
    (done,) = of_type(table.do(cmd.Reload(combatant_id="ace"), by=player("p1")), WeaponReloaded)
    assert (done.shots_left, done.reloads_done) == (3, 0)
    next_turn(table)
    shoot(table)
    assert table.c("ace").ammo["smg"].shots_left == 2


def test_GD_RLD_4_a_weapon_without_a_reload_interval_never_needs_one() -> None:
    table = ace_with(weapon("blade", reach="melee", range=3))
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Reload(combatant_id="ace"), by=player("p1"))
    assert refused.value.rule_id == "GD-RLD-4"
