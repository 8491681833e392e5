"""A scripted fight: two pilots in Assault Cores against three enemies, over three turns.

Every die is entered by hand so the story reads from the faces; at the end the whole log is
stored as JSON, read back through the registry and replayed to the identical state.
"""

from __future__ import annotations

import json
from typing import Any

from domain.catalog import registry
from domain.encounter import aggregate
from domain.encounter.commands import RevealSeed
from domain.events import DomainEvent
from domain.rules.glorious_drive import commands as cmd
from domain.rules.records import EncounterEnded
from tests.unit.encounter.table import ENCOUNTER, SEED, Table, of_type, player, sheet, weapon

P1, P2 = player("p1"), player("p2")
CORE = {"phys_atk": 150, "phys_def": 100, "evasion": 60, "ranged_hit": 70, "hp": 400}
CANNON = weapon("cannon", range=6, reload_interval=1, reload_time=2)
SHIELD = weapon("shield", reach="melee", range=0, attack=0, cut=10, guard_cost=5)
GRUNT = {"phys_atk": 90, "phys_def": 30, "evasion": 40, "hp": 80}


def at(x: int, y: int) -> dict[str, int]:
    return {"x": x, "y": y}


def core(x: int, y: int, reaction: int, arms: list[dict[str, Any]]) -> dict[str, Any]:
    return sheet(x, y, body="assault_core", stats=CORE | {"reaction": reaction}, weapons=arms)


def line_up() -> Table:
    grenade = weapon("grenade", range=6, area=1)
    brute = {"phys_atk": 100, "phys_def": 50, "evasion": 40, "hp": 200, "reaction": 4}
    return (
        Table()
        .open()
        .join("ace", "p1", "pc", core(1, 1, 10, [weapon()]))
        .join("bolt", "p2", "pc", core(1, 3, 9, [SHIELD, CANNON]) | {"sub_weapon": "cannon"})
        .join("grunt1", "gm", "enemy", sheet(5, 1, reaction=6, stats=GRUNT))
        .join("grunt2", "gm", "enemy", sheet(5, 3, reaction=5, stats=GRUNT))
        .join(
            "brute",
            "gm",
            "enemy",
            sheet(8, 2, weapons=[grenade], body="large_enemy", size=1, stats=brute),
        )
    )


def turn_1(t: Table) -> None:
    t.do(cmd.RollInitiative(), faces=[3, 2, 1, 1, 1])
    assert t.gd.order == ("ace", "bolt", "grunt1", "grunt2", "brute")
    t.do(cmd.Cleanup(combatant_id="ace"), by=P1)
    t.do(cmd.Move(combatant_id="ace", path=(at(2, 1), at(3, 1))), by=P1)
    t.do(cmd.DeclareAttack(combatant_id="ace", target="grunt1"), by=P1)
    t.do(cmd.Dodge(combatant_id="grunt1"), faces=[50, 10, 1, 1])  # hit; 170 − 30 → −60
    assert (t.c("grunt1").hp, t.c("grunt1").injury) == (-60, "critical")
    t.do(cmd.Cleanup(combatant_id="bolt"), by=P2)
    t.do(cmd.SwapWeapons(combatant_id="bolt"), by=P2)
    t.do(cmd.Move(combatant_id="bolt", path=(at(2, 3), at(3, 3))), by=P2)
    t.do(cmd.DeclareAttack(combatant_id="bolt", target="grunt2"), by=P2)
    # grunt2 faints; grunt1 (critical) is passed over, so grunt2's cleanup runs by itself
    # (issue 19) with a server die (issue 35 §6): at most 6 + 3 − 60, still fainted, and
    # brute acts.
    t.do(cmd.TakeHit(combatant_id="grunt2"), faces=[6, 90])
    assert t.c("grunt2").injury == "faint"
    assert t.gd.acting == "brute"
    t.do(cmd.Cleanup(combatant_id="brute"))
    t.do(cmd.DeclareAttack(combatant_id="brute", point=at(3, 2)))
    assert t.gd.pending is not None
    assert t.gd.pending.defenders == ("ace", "bolt")
    t.do(cmd.Dodge(combatant_id="ace"), by=P1)  # server dice this time
    t.do(cmd.Dodge(combatant_id="bolt"), faces=[1])  # the one hit roll is reused
    assert t.gd.phase == "initiative"


def turn_2(t: Table) -> None:
    t.do(cmd.RollInitiative(), faces=[4, 4, 2, 2])  # grunt1 no longer rolls
    t.do(cmd.Delay(combatant_id="ace", after="bolt"), by=P1)
    t.do(cmd.Cleanup(combatant_id="bolt"), by=P2)
    t.do(cmd.Reload(combatant_id="bolt"), by=P2)  # 1 of 2: the cannon stays locked
    t.do(cmd.Cleanup(combatant_id="ace"), by=P1)
    t.do(cmd.Move(combatant_id="ace", path=(at(4, 1), at(4, 2))), by=P1)
    t.do(cmd.DeclareAttack(combatant_id="ace", target="brute"), by=P1)
    t.do(
        cmd.GrantSituationModifier(
            defender="brute", percent=20, grade="small", reason="its flank is open"
        )
    )
    t.do(cmd.TakeHit(combatant_id="brute"))  # 170 × 1.2 = 204 − 50 = 154
    assert t.c("brute").hp == 46  # grunt2's cleanup then ran by itself: still fainted
    assert t.c("grunt2").injury == "faint"
    t.do(cmd.Cleanup(combatant_id="brute"))
    t.do(cmd.ForgoAction(combatant_id="brute", note="falls back behind the wreck"))


def turn_3(t: Table) -> None:
    t.do(cmd.RollInitiative(), faces=[5, 1, 1, 6])  # bolt and brute tie at 10: reaction 9 > 4
    assert t.gd.order == ("ace", "bolt", "brute", "grunt2")
    t.do(cmd.Cleanup(combatant_id="ace"), by=P1)
    t.do(cmd.DeclareAttack(combatant_id="ace", target="brute"), by=P1)
    t.do(cmd.Dodge(combatant_id="brute"), faces=[20, 20, 3, 60])  # hit → −74, faints
    t.do(cmd.Cleanup(combatant_id="bolt"), by=P2)
    # The reload ends bolt's phase; the fainted brute's and grunt2's cleanups then run by
    # themselves (issue 19, GD-INJ-1): both stay fainted and the turn ends.
    t.do(cmd.Reload(combatant_id="bolt"), by=P2)  # server dice: no face wakes them
    assert t.c("bolt").ammo["cannon"].shots_left == 1
    assert t.gd.phase == "initiative"
    t.do(cmd.EndCombat(clause="GD-END-3", reason="no enemy is left able to fight"))


def stored(events: list[DomainEvent]) -> list[DomainEvent]:
    """What the event store would give back: topic + JSON, decoded through the registry."""
    rows = [(registry.topic(e), json.loads(e.model_dump_json())) for e in events]
    return [registry.decode(topic, data) for topic, data in rows]


def test_a_three_turn_fight_of_two_assault_cores_against_three_enemies() -> None:
    table = line_up()
    turn_1(table)
    turn_2(table)
    turn_3(table)
    assert table.state.ended
    assert of_type(table.events, EncounterEnded)[0].rule_id == "GD-END-3"
    hp = {cid: c.hp for cid, c in table.gd.combatants.items()}
    assert hp["grunt1"] == -60
    assert hp["brute"] == -74
    assert table.c("ace").hp in (380, 400)  # the server decided ace's dodge


def test_the_fight_replays_from_its_stored_events_to_the_identical_state() -> None:
    table = line_up()
    turn_1(table)
    turn_2(table)
    turn_3(table)
    table.do(RevealSeed(server_seed=SEED.hex()))
    rebuilt = aggregate.KIND.rebuild(ENCOUNTER, stored(table.events))
    assert rebuilt == table.state
    assert rebuilt.version == len(table.events)
    checks = aggregate.audit(rebuilt, aggregate.rolls_of(table.events))
    assert all(check.ok for check in checks)
    assert any(check.verified for check in checks)  # ace's server dodge
