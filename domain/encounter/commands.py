"""Commands the Encounter handles itself; the rest go to its ruleset."""

from __future__ import annotations

from uuid import UUID

from pydantic import Field

from domain.events import JsonObject
from domain.rules.ruleset import Command


class OpenEncounter(Command):
    """The GM opens a fight: ruleset, house-rule options, map, and the dice commitment."""

    command_type = "OpenEncounter"
    ruleset_id: str
    options: JsonObject = Field(default_factory=dict)
    battle_map: JsonObject = Field(default_factory=dict)
    commitment: str = Field(pattern=r"^[0-9a-f]{64}$")
    campaign_id: UUID | None = None
    scenario_id: UUID | None = None


class JoinCombatant(Command):
    """The GM brings a combatant in, with the sheet the ruleset reads."""

    command_type = "JoinCombatant"
    combatant_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    side: str = Field(min_length=1)
    controller: str = Field(min_length=1)
    sheet: JsonObject
    hidden: bool = False  # the GM keeps its sheet from players (an enemy's stats)


class RevealSeed(Command):
    """The GM reveals the server seed (at the end, or to settle a dispute)."""

    command_type = "RevealSeed"
    server_seed: str = Field(pattern=r"^[0-9a-f]{64}$")


COMMANDS: tuple[type[Command], ...] = (OpenEncounter, JoinCombatant, RevealSeed)
