"""Glorious Drive facts about a combatant's condition: statuses, faint recovery, skill uses."""

from __future__ import annotations

from typing import Literal

from domain.events import DomainEvent, registry, sample


class StatusInflicted(DomainEvent):
    """GD-CHK-2: a status with its effect value, as the GM ruled."""

    model_config = sample(combatant="ace", status="poison", effect_value=2)

    event_type = "gd.StatusInflicted"
    combatant: str
    status: str
    effect_value: int


class StatusExpired(DomainEvent):
    """GD-MAIN-2: a status ended (its duration ran out) or was shaken off (recovery check)."""

    model_config = sample(combatant="ace", status="poison", reason="recovered")

    event_type = "gd.StatusExpired"
    combatant: str
    status: str
    reason: Literal["duration_ended", "recovered"]


class StatusDurationElapsed(DomainEvent):
    """GD-MAIN-2: a status still running counts one turn down."""

    model_config = sample(combatant="ace", status="poison", turns_left=1)

    event_type = "gd.StatusDurationElapsed"
    combatant: str
    status: str
    turns_left: int


class FaintRecovered(DomainEvent):
    """GD-INJ-1: a fainted character passed its cleanup check and acts again."""

    model_config = sample(combatant="ace")

    event_type = "gd.FaintRecovered"
    combatant: str


class SkillUsed(DomainEvent):
    """GD-MAIN-4 B / GD-MAIN-5 B / GD-REACT-2 / GD-COST-3: a skill's use, uses left, HP after.

    `hp` is current HP after the GD-COST-3 clamp of the skill's step (option GD-COST-3a).
    """

    model_config = sample(combatant="ace", skill="Burst", uses_left=0, hp=40)

    event_type = "gd.SkillUsed"
    combatant: str
    skill: str
    uses_left: int | None
    hp: int


registry.register(StatusInflicted, StatusExpired, StatusDurationElapsed, FaintRecovered, SkillUsed)
