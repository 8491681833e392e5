"""The Encounter's own facts; the ruleset's facts live with the ruleset (domain/rules)."""

from __future__ import annotations

from uuid import UUID

from domain.encounter.awaited import DiceMode
from domain.events import DomainEvent, JsonObject, registry


class EncounterOpened(DomainEvent):
    """A fight opens under a ruleset version and options, on a map, with a dice commitment."""

    event_type = "EncounterOpened"
    ruleset_id: str
    ruleset_version: str
    options: JsonObject  # every option in force, defaults filled in
    battle_map: JsonObject
    commitment: str  # sha256(server_seed), hex
    # Where the fight belongs (who may see and act in it); absent in a free-standing fight.
    # Added with a default, so the stored v1 shape still reads unchanged.
    campaign_id: UUID | None = None
    scenario_id: UUID | None = None
    # Whose dice (issue 19); added with a default, so the stored v1 shape reads as "server".
    dice: DiceMode = "server"


class CombatantJoined(DomainEvent):
    """A combatant joins: who controls it, its side, and a snapshot of its sheet."""

    event_type = "CombatantJoined"
    combatant_id: str
    name: str
    side: str
    controller: str
    sheet: JsonObject
    # The GM keeps the sheet from players; added with a default, so v1 still reads unchanged.
    hidden: bool = False


class EncounterSeedRevealed(DomainEvent):
    """The server seed, revealed so anyone can recompute every die (it must match)."""

    event_type = "EncounterSeedRevealed"
    server_seed: str  # hex


registry.register(EncounterOpened, CombatantJoined, EncounterSeedRevealed)
