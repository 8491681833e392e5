"""Stored JSON of every Encounter event: each golden file loads unchanged (a rule system's
facts have their samples and goldens in its own folder: tests/unit/rules/test_event_shapes.py).

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
from domain.rules.records import EncounterDiceRolled, EncounterEnded, RulingRecorded
from tests.support.golden import assert_loads_to
from tests.unit.encounter.table import AT, SEED, sheet

GOLDEN = Path(__file__).parents[2] / "golden" / "events"
M = {"at": AT, "by": "gm"}

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
]


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_of_each_encounter_event_still_loads_to_the_same_event(
    event: DomainEvent,
) -> None:
    path = GOLDEN / f"{registry.topic(event)}.json"
    assert_loads_to(path, event)


def test_a_v1_die_reads_as_v2_with_who_entered_it_not_recorded() -> None:
    """Issue 33 §3: v2 records who entered a hand face; a v1 die did not record it."""
    stored = json.loads((GOLDEN / "EncounterDiceRolled.v1.json").read_text(encoding="utf-8"))
    event = registry.decode("EncounterDiceRolled.v1", stored)
    assert isinstance(event, EncounterDiceRolled)
    assert (event.result.total, event.entered_by) == (4, None)
