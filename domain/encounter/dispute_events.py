"""Dispute facts: a ruling challenged, upheld or amended, and the corrections an amendment makes.

Kept apart from the deciding functions so the Encounter's state can apply them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from domain.events import DomainEvent, JsonObject, registry

# What a correction may change: the fight state of a combatant, never its sheet or identity.
CORRECTABLE = frozenset({"hp", "injury", "statuses", "position", "ammo", "skill_uses"})


class RulingDisputed(DomainEvent):
    event_type = "RulingDisputed"
    dispute_id: str = Field(pattern=r"^[0-9a-f]{8,32}$")
    ruling_version: int = Field(ge=1)
    reason: str = Field(min_length=1, max_length=2000)


class DisputeUpheld(DomainEvent):
    event_type = "DisputeUpheld"
    dispute_id: str
    note: str = ""


class DisputeAmended(DomainEvent):
    """The GM adopts a replay: what was replayed, and where it first diverged."""

    event_type = "DisputeAmended"
    dispute_id: str
    note: str = ""
    options: JsonObject = Field(default_factory=dict)
    amended_command: int | None = None
    amended_payload: JsonObject | None = None
    divergence_version: int | None = None
    extra_dice: list[dict[str, JsonValue]] = Field(default_factory=list)


class CombatantCorrected(DomainEvent):
    """A correction from an amended dispute: new values of some fields, and the old ones."""

    event_type = "CombatantCorrected"
    dispute_id: str
    combatant_id: str
    changes: dict[str, JsonValue]
    previous: dict[str, JsonValue]


registry.register(RulingDisputed, DisputeUpheld, DisputeAmended, CombatantCorrected)


class Dispute(BaseModel):
    model_config = ConfigDict(frozen=True)

    dispute_id: str
    ruling_version: int
    reason: str
    filed_by: str
    status: str = "open"  # open | upheld | amended
