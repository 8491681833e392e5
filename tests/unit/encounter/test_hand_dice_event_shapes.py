"""Stored JSON of the hand-dice facts (issue 19): each golden file loads to the same event, and
an encounter stored before dice modes existed still reads, with the server's dice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.catalog import registry
from domain.dice import commitment
from domain.encounter.awaited import (
    AwaitedRollWithdrawn,
    PendingCommand,
    RollAwaited,
    awaited_die,
    purpose_ja,
)
from domain.encounter.events import EncounterOpened
from domain.events import DomainEvent
from projections.render import render
from tests.unit.encounter.table import AT, SEED

GOLDEN = Path(__file__).parents[2] / "golden" / "events"
M = {"at": AT, "by": "gm"}

SAMPLES: list[DomainEvent] = [
    RollAwaited(
        pending=PendingCommand(
            command_type="Dodge",
            payload={"combatant_id": "brute"},
            by="gm",
            is_gm=True,
            faces=(20, 20),
            entered_by=("gm", "aoi"),
        ),
        # As the golden was recorded: its Japanese text still had the English word.
        die=awaited_die(6, "GD-INJ-1 faint", "brute", "gm").model_copy(
            update={"text_ja": "bruteのfaint（1D6、GD-INJ-1）"}
        ),
        **M,
    ),
    AwaitedRollWithdrawn(command_type="Dodge", reason="declared by mistake", **M),
]

HAND_OPENED = EncounterOpened(
    ruleset_id="glorious_drive",
    ruleset_version="1",
    options={"faint_rule": "example"},
    battle_map={"width": 12, "height": 12},
    commitment=commitment(SEED),
    dice="hand",
    **M,
)


def _golden(name: str, event: DomainEvent) -> dict[str, object]:
    path = GOLDEN / name
    if not path.exists():
        current = json.dumps(json.loads(event.model_dump_json()), ensure_ascii=False)
        pytest.fail(f"no golden file; create {path} with:\n{current}")
    loaded: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_of_each_hand_dice_fact_still_loads_to_the_same_event(
    event: DomainEvent,
) -> None:
    stored = _golden(f"{registry.topic(event)}.json", event)
    assert registry.decode(registry.topic(event), stored) == event


def test_an_encounter_opened_with_hand_dice_is_stored_with_its_dice_mode() -> None:
    stored = _golden("EncounterOpened.v1.hand-dice.json", HAND_OPENED)
    assert stored["dice"] == "hand"
    assert registry.decode("EncounterOpened.v1", stored) == HAND_OPENED


def test_an_encounter_stored_before_dice_modes_reads_with_the_servers_dice() -> None:
    stored = json.loads((GOLDEN / "EncounterOpened.v1.json").read_text(encoding="utf-8"))
    assert "dice" not in stored
    event = registry.decode("EncounterOpened.v1", stored)
    assert isinstance(event, EncounterOpened)
    assert event.dice == "server"


def test_the_encounter_log_reads_a_wait_and_a_withdrawal() -> None:
    """Issue 35 §4: the die's words in Japanese, even for a wait recorded with English ones."""
    waited, withdrawn = (render(e) for e in SAMPLES)
    assert waited == (
        "Waiting for 1D6 faint for brute, GD-INJ-1: the GM enters it",
        "bruteの気絶（1D6、GD-INJ-1）の入力待ち：GMが入力",
    )
    assert withdrawn[0] == "gm withdrew Dodge, which waited for a die: declared by mistake"


def test_a_v1_wait_reads_as_v2_with_who_entered_its_faces_not_recorded() -> None:
    """Issue 33 §3: v2 records who entered each face so far; v1 did not."""
    stored = json.loads((GOLDEN / "RollAwaited.v1.json").read_text(encoding="utf-8"))
    event = registry.decode("RollAwaited.v1", stored)
    assert isinstance(event, RollAwaited)
    assert (event.pending.faces, event.pending.entered_by) == ((20, 20), (None, None))


def test_a_die_awaited_is_asked_in_the_seeds_words_in_japanese() -> None:
    """Issue 35 §4: "aceのroll", "aceのhit" read as a Japanese table says them."""
    assert awaited_die(6, "GD-INIT-1 ace", "ace", "aoi").text_ja == "aceのダイス（1D6、GD-INIT-1）"
    assert awaited_die(100, "GD-REACT-1 hit ace", "ace", "aoi").text_ja == (
        "aceの命中（1D100、GD-REACT-1）"
    )
    assert awaited_die(100, "GD-REACT-1 evasion", "nm", None).text_ja == (
        "nmの回避（1D100、GD-REACT-1）"
    )
    assert purpose_ja("GD-INJ-2 critical nm") == "GD-INJ-2 重体 nm"
