"""What an encounter looks like over HTTP, and what each caller may see of it.

The GM sees everything. Anyone else does not see the sheet (stats, weapons, skills) nor the
HP of a combatant the GM brought in `hidden`, unless they control it; the server seed is only
ever shown once revealed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, JsonValue

from domain.encounter import aggregate as encounter
from domain.encounter.events import CombatantJoined
from domain.encounter.record import CommandIssued
from domain.events import DomainEvent
from domain.rules.ruleset import Entrant
from infra.services.campaigns import Principal
from infra.store.mapper import Recorded

# What a hidden combatant still shows of its live state: where it is and how it fares.
_VISIBLE_WHEN_HIDDEN = ("position", "injury", "statuses")


class Awaited(BaseModel):
    command: str
    issuer: str = Field(description="'gm', or 'controller' of the combatant.")
    combatant: str | None = None


class Procedure(BaseModel):
    turn: int
    phase: str
    step: str | None
    acting: str | None
    awaiting: list[Awaited]


class Combatant(BaseModel):
    combatant_id: str
    name: str
    side: str
    controller: str
    hidden: bool
    sheet: dict[str, JsonValue] | None = Field(description="None when the GM keeps it hidden.")
    status: dict[str, JsonValue] | None = Field(description="The ruleset's live state of it.")


class EncounterPublic(BaseModel):
    id: str
    version: int
    campaign_id: str | None
    scenario_id: str | None
    ruleset_id: str
    ruleset_version: str
    options: dict[str, JsonValue]
    battle_map: dict[str, JsonValue]
    commitment: str = Field(description="sha256 of the server seed, published at opening.")
    revealed_seed: str | None = Field(description="The server seed, once the GM revealed it.")
    roll_count: int
    rulings: int
    ended: bool
    procedure: Procedure
    legal_commands: list[Awaited]
    combatants: list[Combatant]


class EventPublic(BaseModel):
    type: str
    version: int = Field(description="The encounter's version after this event (the cursor).")
    position: int | None = Field(description="Position in the chained log.")
    at: datetime
    by: str
    payload: dict[str, JsonValue]


def sees_all_of(who: Principal, controller: str) -> bool:
    return who.role == "gm" or (who.member_id is not None and who.member_id == controller)


def describe(state: encounter.Encounter, version: int, who: Principal) -> EncounterPublic:
    point = encounter.procedure(state)
    live = getattr(state.rules, "combatants", {})
    return EncounterPublic(
        id=str(state.id),
        version=version,
        campaign_id=str(state.campaign_id) if state.campaign_id else None,
        scenario_id=str(state.scenario_id) if state.scenario_id else None,
        ruleset_id=state.ruleset_id,
        ruleset_version=state.ruleset_version,
        options=state.options,
        battle_map=state.battle_map,
        commitment=state.commitment,
        revealed_seed=state.revealed_seed,
        roll_count=state.roll_count,
        rulings=state.rulings,
        ended=state.ended,
        procedure=Procedure.model_validate(point.model_dump()),
        legal_commands=[Awaited(**c.model_dump()) for c in encounter.legal_commands(state)],
        combatants=[_combatant(c, live.get(c.combatant_id), who) for c in state.combatants],
    )


def _combatant(entrant: Entrant, live: BaseModel | None, who: Principal) -> Combatant:
    status: dict[str, Any] | None = None if live is None else live.model_dump(mode="json")
    status = status and {k: v for k, v in status.items() if k != "sheet"}
    shown = not entrant.hidden or sees_all_of(who, entrant.controller)
    if not shown and status is not None:
        status = {k: v for k, v in status.items() if k in _VISIBLE_WHEN_HIDDEN}
    return Combatant(
        combatant_id=entrant.combatant_id,
        name=entrant.name,
        side=entrant.side,
        controller=entrant.controller,
        hidden=entrant.hidden,
        sheet=entrant.sheet if shown else None,
        status=status,
    )


def event_public(recorded: Recorded, who: Principal) -> EventPublic:
    """One stored event as a caller may see it (a hidden sheet stays with the GM)."""
    event = recorded.event
    payload = event.model_dump(mode="json", exclude={"at", "by"})
    if _hides_a_sheet(event) and not sees_all_of(who, _controller(event)):
        if isinstance(event, CommandIssued):
            payload["payload"] = dict(payload["payload"]) | {"sheet": None}
        else:
            payload["sheet"] = None
    return EventPublic(
        type=event.event_type,
        version=recorded.version,
        position=recorded.position,
        at=event.at,
        by=event.by,
        payload=payload,
    )


def _hides_a_sheet(event: DomainEvent) -> bool:
    """A hidden combatant's join, as the fact or as the recorded command (which carries it)."""
    if isinstance(event, CombatantJoined):
        return event.hidden
    return (
        isinstance(event, CommandIssued)
        and event.command_type == "JoinCombatant"
        and bool(event.payload.get("hidden"))
    )


def _controller(event: DomainEvent) -> str:
    if isinstance(event, CombatantJoined):
        return event.controller
    assert isinstance(event, CommandIssued)
    return str(event.payload.get("controller", ""))
