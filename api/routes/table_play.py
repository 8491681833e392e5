"""What the table page needs to play: the commands legal now, each with the JSON schema of its
body, so the page builds its forms from the ruleset's own command declarations (one schema
source for the OpenAPI document and the page) rather than from a copy kept in JavaScript.

Nothing here is stored or decided: the legal commands are the ones the encounter's state
already lists (`legal_commands`); `yours` says whether this caller may issue one (the GM
issues every command; a player the commands of the combatants they control).
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.command_base import DICE_FIELDS
from api.deps import RuntimeDep
from api.encounter_commands import COMMAND_BODIES
from api.encounter_views import reader_of
from api.routes.encounters import load_for
from api.security import READERS, PrincipalDep
from domain.encounter import aggregate as encounter
from domain.encounter.commands import LABELS as OWN_LABELS
from domain.encounter.rulesets import RULESETS

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])


class PlayableCommand(BaseModel):
    """One command legal now, with the body a client sends for it."""

    command: str
    issuer: str = Field(description="'gm', or 'controller' of the combatant.")
    combatant: str | None = Field(description="The combatant it is awaited of, if any.")
    yours: bool = Field(description="Whether this caller may issue it.")
    body_schema: dict[str, Any] = Field(
        description="JSON schema of the command's own fields (the dice fields left out)."
    )


class CommandLabel(BaseModel):
    """A command's name for the table, as its rule system declares it."""

    en: str
    ja: str


class PhaseLabel(BaseModel):
    """A phase's or step's name for the table, as its rule system declares it."""

    en: str = Field(description="Its name in English.")
    ja: str = Field(
        description="Its name in Japanese (the rule system's seed's, where it has one)."
    )


class Playable(BaseModel):
    version: int
    ruleset_id: str
    commands: list[PlayableCommand]
    labels: dict[str, CommandLabel] = Field(
        description="Every command of this encounter by name, with its name for the table in "
        "English and Japanese (the rule system's declarations: the page keeps no copy)."
    )
    phase_labels: dict[str, PhaseLabel] = Field(
        description="Every phase and step the rule system's procedure reports (the `phase` "
        "and `step` of the encounter's procedure), by id, with its name for the table in "
        "English and Japanese (the rule system's declarations: the page keeps no copy)."
    )
    options: dict[str, Any] = Field(description="The house rules this encounter runs under.")
    options_schema: dict[str, Any] = Field(
        description="JSON schema of the ruleset's house rules (each Interpretation, its default)."
    )


def _schema(ruleset_id: str, command: str) -> dict[str, Any]:
    body = COMMAND_BODIES.bodies.get(ruleset_id, {}).get(command)
    if body is None:  # a legal command the API has no body for: nothing to fill in
        return {"type": "object", "properties": {}, "required": []}
    schema = body.model_json_schema()
    properties = {k: v for k, v in schema.get("properties", {}).items() if k not in DICE_FIELDS}
    required = [k for k in schema.get("required", []) if k not in DICE_FIELDS]
    return schema | {"properties": properties, "required": required}


@router.get(
    "/{encounter_id}/playable",
    response_model=Playable,
    operation_id="listPlayableCommands",
    summary="The commands legal now, with their body schemas",
)
def playable(encounter_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> Playable:
    """The commands legal now with their body schemas, and which of them are this caller's."""
    state, version = load_for(runtime, who, encounter_id, READERS)
    reader = reader_of(who)
    controllers = {c.combatant_id: c.controller for c in state.combatants}
    commands = []
    for legal in encounter.legal_commands(state):
        controller = controllers.get(legal.combatant or "", "gm")
        yours = reader.is_gm or (
            who.role == "player" and legal.issuer != "gm" and reader.controls(controller)
        )
        commands.append(
            PlayableCommand(
                command=legal.command,
                issuer=legal.issuer,
                combatant=legal.combatant,
                yours=yours,
                body_schema=_schema(state.ruleset_id, legal.command),
            )
        )
    ruleset = RULESETS.get(state.ruleset_id)
    labels = {**OWN_LABELS, **(ruleset.labels if ruleset else {})}
    return Playable(
        version=version,
        ruleset_id=state.ruleset_id,
        commands=commands,
        labels={name: CommandLabel(en=en, ja=ja) for name, (en, ja) in labels.items()},
        phase_labels={
            word: PhaseLabel(en=en, ja=ja)
            for word, (en, ja) in (ruleset.phase_labels if ruleset else {}).items()
        },
        options=state.options,
        options_schema=ruleset.options_model.model_json_schema() if ruleset else {},
    )
