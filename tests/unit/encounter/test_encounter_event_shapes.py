"""Stored JSON of every Encounter and Glorious Drive event: each golden file loads unchanged.

The shared test (tests/unit/test_stored_event_shapes.py) asks that every registered type has
a golden file; this one checks that each file still decodes to the same event.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.catalog import registry
from domain.dice import commitment, enter_by_hand
from domain.encounter.events import CombatantJoined, EncounterOpened, EncounterSeedRevealed
from domain.events import DomainEvent
from domain.rules.glorious_drive import condition_events as cev
from domain.rules.glorious_drive import events as gd
from domain.rules.glorious_drive.position import Position
from domain.rules.records import EncounterDiceRolled, EncounterEnded, RulingRecorded
from tests.unit.encounter.table import AT, SEED, sheet

GOLDEN = Path(__file__).parents[2] / "golden" / "events"
M = {"at": AT, "by": "gm"}
HERE = Position(x=1, y=2)

SAMPLES: list[DomainEvent] = [
    EncounterOpened(
        ruleset_id="glorious_drive",
        ruleset_version="1",
        options={"faint_rule": "example"},
        battle_map={"width": 12, "height": 12},
        commitment=commitment(SEED),
        **M,
    ),
    CombatantJoined(
        combatant_id="ace", name="Ace", side="pc", controller="p1", sheet=sheet(1, 2), **M
    ),
    EncounterSeedRevealed(server_seed=SEED.hex(), **M),
    EncounterDiceRolled(
        result=enter_by_hand("1D6", [4], roll_seq=0, purpose="GD-INIT-1 ace"),
        entered_by="p1",
        **M,
    ),
    RulingRecorded(
        rule_ids=("GD-INIT-1",),
        inputs={"rolls": ({"combatant_id": "ace", "reaction": 5, "die": 4},)},
        outcome={"order": ("ace",)},
        roll_seqs=(0,),
        options={"faint_rule": "example"},
        summary_en="initiative order: ace",
        summary_ja="行動順：ace",
        **M,
    ),
    EncounterEnded(rule_id="GD-END-3", reason="no enemy left", **M),
    gd.InitiativeOrdered(turn=1, order=("ace", "orc"), **M),
    gd.ActionDelayed(combatant="ace", after="orc", order=("orc", "ace"), **M),
    gd.CombatantWaited(combatant="ace", **M),
    gd.CleanupCompleted(combatant="ace", **M),
    cev.StatusInflicted(combatant="ace", status="poison", effect_value=2, **M),
    cev.StatusExpired(combatant="ace", status="poison", reason="recovered", **M),
    cev.StatusDurationElapsed(combatant="ace", status="poison", turns_left=1, **M),
    cev.FaintRecovered(combatant="ace", **M),
    gd.WeaponsSwapped(combatant="ace", main_weapon="cannon", sub_weapon="shield", **M),
    gd.CombatantMoved(combatant="ace", path=(HERE,), cost=1, **M),
    gd.AttackDeclared(
        attacker="ace",
        weapon="grenade",
        attack_type="physical",
        reach="ranged",
        attack=120,
        hit=50,
        defenders=("orc",),
        point=HERE,
        area=1,
        **M,
    ),
    gd.SituationModifierGranted(
        defender="orc", percent=20, grade="small", reason="flank open", **M
    ),
    gd.ReactionDeclared(combatant="bob", reaction="intercept", instead_of="ace", guard=True, **M),
    gd.HitRolled(attacker="ace", die=50, roll_seq=3, **M),
    gd.GuardCostPaid(combatant="bob", cost=5, hp=95, **M),
    gd.DamageApplied(combatant="orc", damage=70, hp=-8, **M),
    gd.InjurySuffered(combatant="orc", injury="faint", **M),
    gd.DefenceResolved(combatant="orc", hit=True, **M),
    gd.WeaponReloaded(combatant="ace", weapon="cannon", shots_left=1, reloads_done=0, **M),
    cev.SkillUsed(combatant="ace", skill="Burst", uses_left=0, hp=40, **M),
    gd.LoanOffered(lender="ace", borrower="bob", item="medkit", **M),
    gd.LoanDeclined(lender="ace", borrower="bob", item="medkit", **M),
    gd.ItemLent(lender="ace", borrower="bob", item="medkit", **M),
    gd.EquipmentSwapped(combatant="ace", sub_weapon="knife", equipped_items=("goggles",), **M),
    gd.MainActionEnded(combatant="ace", **M),
    gd.TurnEnded(turn=1, **M),
]


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_of_each_encounter_event_still_loads_to_the_same_event(
    event: DomainEvent,
) -> None:
    path = GOLDEN / f"{registry.topic(event)}.json"
    current = json.loads(event.model_dump_json())
    if not path.exists():
        pytest.fail(
            f"no golden file; create {path} with:\n{json.dumps(current, ensure_ascii=False)}"
        )
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert registry.decode(registry.topic(event), stored) == event


def test_every_encounter_event_type_has_a_sample() -> None:
    sampled = {e.event_type for e in SAMPLES}
    ours = {t for t in registry.known_types() if t.startswith("gd.")}
    assert ours <= sampled


def test_a_v1_die_reads_as_v2_with_who_entered_it_not_recorded() -> None:
    """Issue 33 §3: v2 records who entered a hand face; a v1 die did not record it."""
    stored = json.loads((GOLDEN / "EncounterDiceRolled.v1.json").read_text(encoding="utf-8"))
    event = registry.decode("EncounterDiceRolled.v1", stored)
    assert isinstance(event, EncounterDiceRolled)
    assert (event.result.total, event.entered_by) == (4, None)
