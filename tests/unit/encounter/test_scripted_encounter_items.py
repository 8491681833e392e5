"""A recorded two-turn fight through every GD-MAIN-5 C/D/F, GD-MAIN-6/7/8 command, replayed.

Issued by name and JSON payload (as the HTTP API issues them) and recorded before their
effects; the stored log rebuilds the same state, and a replay re-decides every command to
the same state. Turn 1: a declined then an accepted loan (GD-MAIN-5 C), the borrower's spent
step, an item used in the reaction step (GD-MAIN-8); turn 2: an equipment swap, an item used,
the GM's other action with a check (GD-MAIN-5 F), an unarmed blow (GD-MAIN-6) and a throw
(GD-MAIN-7).
"""

from __future__ import annotations

import json

from domain.catalog import registry
from domain.encounter import aggregate
from domain.encounter.replay import replay
from domain.rules.glorious_drive import events as ev
from domain.rules.glorious_drive.state import GdState
from tests.unit.encounter.log import FIGHT, Log
from tests.unit.encounter.table import of_type, sheet, weapon

MEDKIT = {"name": "medkit", "kind": "general", "rules": "heal 20"}
SMOKE = {"name": "smoke", "kind": "general", "timing": "reaction"}
ROCK = {"name": "rock", "kind": "general", "phys_atk": 70, "range": 3}
GOGGLES = {"name": "goggles", "kind": "general"}
RADIO = {"name": "radio", "kind": "general", "rules": "calls support"}


def fight() -> Log:
    log = Log()
    ace = sheet(0, 0, reaction=20, items=[MEDKIT, GOGGLES, RADIO], equipped_items=["goggles"])
    bob = sheet(1, 0, reaction=10, weapons=[], items=[SMOKE, ROCK], equipped_items=["smoke"])
    log.join("ace", "p1", "pc", ace)
    log.join("bob", "p2", "pc", bob)
    log.join("orc", "gm", "enemy", sheet(2, 0, reaction=1, weapons=[weapon(range=3)]))
    # turn 1: ace 20+1, bob 10+1, orc 1+1
    log.do("RollInitiative", {}, faces=[1, 1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    lend = {"combatant_id": "ace", "item": "medkit", "borrower": "bob"}
    log.do("LendItem", lend, by="p1")
    log.do("DeclineLoan", {"combatant_id": "bob"}, by="p2")
    log.do("LendItem", lend, by="p1")
    log.do("AcceptLoan", {"combatant_id": "bob"}, by="p2")
    log.do("Cleanup", {"combatant_id": "bob"}, by="p2")
    log.do("ForgoAction", {"combatant_id": "bob", "note": "spent on the loan"}, by="p2")
    log.do("Cleanup", {"combatant_id": "orc"})
    log.do("DeclareAttack", {"combatant_id": "orc", "target": "bob"})
    log.do("UseItem", {"combatant_id": "bob", "item": "smoke", "negates_hit": True})
    # turn 2
    log.do("RollInitiative", {}, faces=[1, 1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    swap = {"combatant_id": "ace", "equip": ["radio"], "unequip": ["goggles"]}
    log.do("SwapEquipment", swap, by="p1")
    log.do("Cleanup", {"combatant_id": "bob"}, by="p2")
    log.do("AttackUnarmed", {"combatant_id": "bob", "target": "orc"}, by="p2")
    log.do("TakeHit", {"combatant_id": "orc"})
    log.do("Cleanup", {"combatant_id": "orc"})
    check = {"combatant_id": "orc", "action": "kick the door", "check_stat": "phys_atk"}
    log.do("TakeOtherAction", check | {"difficulty": 150}, faces=[60])
    log.do("RollInitiative", {}, faces=[1, 1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("UseItem", {"combatant_id": "ace", "item": "radio"}, by="p1")
    log.do("Cleanup", {"combatant_id": "bob"}, by="p2")
    log.do("ThrowItem", {"combatant_id": "bob", "target": "orc", "item": "rock"}, by="p2")
    log.do("TakeHit", {"combatant_id": "orc"})
    return log


def test_a_recorded_item_fight_rebuilds_from_stored_json_and_replays_to_the_same_state() -> None:
    log = fight()
    rules = log.state.rules
    assert isinstance(rules, GdState)
    assert rules.combatants["ace"].equipped_items == ("radio",)
    assert rules.combatants["bob"].item("medkit") is not None
    assert rules.combatants["bob"].item("rock") is None  # thrown
    # unarmed 100 − 50 = 50, then the rock 70 − 50 = 20
    assert [d.damage for d in of_type(log.events, ev.DamageApplied)] == [50, 20]
    assert {e.reaction for e in of_type(log.events, ev.ReactionDeclared)} == {"item", "wait"}

    rows = [(registry.topic(e), json.loads(e.model_dump_json())) for e in log.events]
    rebuilt = aggregate.KIND.rebuild(FIGHT, [registry.decode(t, d) for t, d in rows])
    assert rebuilt == log.state
    again = replay(FIGHT, log.events)
    assert again.divergence is None
    assert again.state is not None
    assert again.state.rules == rules
