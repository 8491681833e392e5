"""Golden JSON for the command record, a command refused after its dice, and dispute facts
(stored shapes never change in place)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.catalog import registry
from domain.encounter.dispute_events import (
    CombatantCorrected,
    DisputeAmended,
    DisputeUpheld,
    RulingDisputed,
)
from domain.encounter.record import CommandIssued
from domain.events import DomainEvent
from domain.rules.records import CommandRefusedAfterDice
from tests.unit.encounter.table import AT

GOLDEN = Path(__file__).parents[2] / "golden" / "events"

SAMPLES: list[DomainEvent] = [
    CommandIssued(
        command_type="TakeHit",
        payload={"combatant_id": "brute"},
        is_gm=True,
        client_seed=None,
        hand_faces=(4,),
        at=AT,
        by="gm",
    ),
    # Issue 33 §1: its dice are the EncounterDiceRolled events just before it (roll 3 and 4).
    CommandRefusedAfterDice(
        command_type="DeclareAttack", rule_id="GD-ATK-2", roll_seqs=(3, 4), at=AT, by="p1"
    ),
    RulingDisputed(
        dispute_id="0badc0de", ruling_version=12, reason="the text says below −1", at=AT, by="p1"
    ),
    DisputeUpheld(dispute_id="0badc0de", note="the example decides", at=AT, by="gm"),
    DisputeAmended(
        dispute_id="0badc0de",
        note="text reading",
        options={"faint_rule": "text"},
        divergence_version=11,
        at=AT,
        by="gm",
    ),
    CombatantCorrected(
        dispute_id="0badc0de",
        combatant_id="brute",
        changes={"injury": "none"},
        previous={"injury": "faint"},
        at=AT,
        by="gm",
    ),
]


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_still_loads_to_the_same_event(event: DomainEvent) -> None:
    path = GOLDEN / f"{registry.topic(event)}.json"
    if not path.exists():
        current = json.dumps(json.loads(event.model_dump_json()), ensure_ascii=False, indent=2)
        pytest.fail(f"no golden file; create {path} with:\n{current}")
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert registry.decode(registry.topic(event), stored) == event


def test_a_refusal_after_dice_by_no_game_rule_still_loads() -> None:
    """Its rule is null: the command did not fit the state, or its issuer might not."""
    event = CommandRefusedAfterDice(
        command_type="Cleanup", rule_id=None, roll_seqs=(7,), at=AT, by="gm"
    )
    path = GOLDEN / "CommandRefusedAfterDice.v1.no-rule.json"
    if not path.exists():
        pytest.fail(f"create {path} with:\n{event.model_dump_json(indent=2)}")
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert registry.decode("CommandRefusedAfterDice.v1", stored) == event
