"""What an encounter looks like over HTTP, and what each caller may see of it.

The GM sees everything. Anyone else does not see the sheet (stats, weapons, skills) nor the
HP of a combatant the GM brought in `hidden`, unless they control it; the server seed is only
ever shown once revealed. What is withheld is decided in one place, `domain.visibility`
(docs/visibility.md); this module and every read route apply it through a `Lens`.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any
from uuid import UUID

from pydantic import BaseModel, Field, JsonValue

from domain.encounter import aggregate as encounter
from domain.rules.ruleset import Entrant
from domain.visibility.encounter import Policy, Reader
from infra.services import (
    Awaited,
    AwaitedDiePublic,
    EventLog,
    EventPublic,
    Lens,
    LogEntry,
    LogLine,
    Principal,
    Recorded,
    Runtime,
    awaited_die_of,
    line_of,
    payload_of,
)


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
    dice: str = Field(description="Whose dice: 'server', 'hand' or 'per_roll'.")
    awaited_die: AwaitedDiePublic | None = Field(
        description="The hand die awaited now (None: none); the procedure awaits its entry."
    )
    procedure: Procedure
    legal_commands: list[Awaited]
    combatants: list[Combatant]


def reader_of(who: Principal) -> Reader:
    return Reader(who.role, who.member_id)


def lens_for(runtime: Runtime, who: Principal, encounter_id: UUID) -> Lens:
    """`who`'s view of the encounter as it stands now. Make it *after* reading what it is
    to redact: the state it reads then knows every combatant those events could name."""
    reader = reader_of(who)
    if reader.is_gm:
        return Lens(Policy())  # the GM sees everything: nothing to load
    state, _ = runtime.encounters.state(encounter_id)
    return runtime.visibility.lens(state, reader)


def lens_since(runtime: Runtime, who: Principal, encounter_id: UUID, version: int) -> Lens:
    """`lens_for`, made from a state at least as new as `version` (the last of the events
    to redact): the one this process holds when it is that new, else read."""
    reader = reader_of(who)
    if reader.is_gm:
        return Lens(Policy())
    state = runtime.encounters.at_least(encounter_id, version)
    return runtime.visibility.lens(state, reader)


def sees_all_of(who: Principal, controller: str) -> bool:
    return reader_of(who).is_gm or reader_of(who).controls(controller)


def describe(state: encounter.Encounter, version: int, who: Principal) -> EncounterPublic:
    point = encounter.procedure(state)
    live = getattr(state.rules, "combatants", {})
    policy = Policy.for_reader(reader_of(who), state.combatants)
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
        dice=state.dice_mode,
        awaited_die=awaited_die_of(state),
        procedure=Procedure.model_validate(point.model_dump()),
        legal_commands=[Awaited(**c.model_dump()) for c in encounter.legal_commands(state)],
        combatants=[_combatant(c, live.get(c.combatant_id), policy) for c in state.combatants],
    )


def _combatant(entrant: Entrant, live: BaseModel | None, policy: Policy) -> Combatant:
    status: dict[str, Any] | None = None if live is None else live.model_dump(mode="json")
    status = status and {k: v for k, v in status.items() if k != "sheet"}
    shown = policy.shows(entrant.combatant_id)
    return Combatant(
        combatant_id=entrant.combatant_id,
        name=entrant.name,
        side=entrant.side,
        controller=entrant.controller,
        hidden=entrant.hidden,
        sheet=entrant.sheet if shown else None,
        status=None if status is None else policy.state(entrant.combatant_id, status),
    )


def event_public(recorded: Recorded, lens: Lens, log: LogEntry | None = None) -> EventPublic:
    """One stored event as a caller may see it (the lens: their view of this encounter), with
    its leaf in the shard's tree."""
    event = recorded.event
    payload = lens.event(recorded.version, event.event_type, payload_of(event))
    assert isinstance(payload, dict)
    return EventPublic(
        type=event.event_type,
        version=recorded.version,
        position=recorded.position,
        at=event.at,
        by=event.by,
        payload=payload,
        line=seen_line(lens, recorded.version, line_of(event)),
        log=None if log is None else EventLog(**asdict(log)),
    )


def seen_line(lens: Lens, version: int, line: LogLine) -> LogLine:
    """An event's line as the reader may see it: withheld exactly as the log read model's."""
    return LogLine(en=lens.text(version, line.en), ja=lens.text(version, line.ja))
