"""Encounter-shaped events built by hand: the generic read models must take any ruleset's."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from domain.encounter.events import CombatantJoined, EncounterOpened
from domain.events import DomainEvent
from domain.rules.records import EncounterEnded, RulingRecorded
from tests.support.story import Logged

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ENCOUNTER = uuid.UUID("00000000-0000-4000-8000-0000000000e1")
PILOT = uuid.UUID("00000000-0000-4000-8000-0000000000a1")


class MysteryHappened(DomainEvent):
    """An event no renderer knows (a ruleset not written yet)."""

    event_type = "xx.MysteryHappened"
    combatant: str
    rule_ids: tuple[str, ...] = ("XX-1",)


class RulingDisputed(DomainEvent):
    """The shape the dispute hook expects: which ruling of the stream, and why."""

    event_type = "RulingDisputed"
    ruling_version: int
    reason: str


def opened() -> EncounterOpened:
    return EncounterOpened(
        ruleset_id="glorious_drive",
        ruleset_version="1",
        options={},
        battle_map={},
        commitment="ab" * 32,
        at=AT,
        by="gm",
    )


def joined(combatant: str, **sheet: Any) -> CombatantJoined:
    return CombatantJoined(
        combatant_id=combatant, name=combatant.title(), side="blue", controller="p1",
        sheet=sheet, at=AT, by="gm",
    )  # fmt: skip


def ruling(attacker: str, *rules: str) -> RulingRecorded:
    return RulingRecorded(
        rule_ids=rules,
        inputs={"attacker": attacker, "hit": 70},
        outcome={"hits": True},
        roll_seqs=(0,),
        summary_en=f"{attacker} hits",
        summary_ja=f"{attacker}の命中",
        at=AT,
        by="gm",
    )


def ended() -> EncounterEnded:
    return EncounterEnded(rule_id="GD-END-1", reason="one side left", at=AT, by="gm")


def in_stream(stream: uuid.UUID, *events: DomainEvent, first_position: int = 1) -> list[Logged]:
    return [
        Logged(stream, version, event, first_position + version - 1)
        for version, event in enumerate(events, start=1)
    ]


def encounter(*events: DomainEvent) -> list[Logged]:
    """An encounter stream: opened, then `events`."""
    return in_stream(ENCOUNTER, opened(), *events)
