"""What the table page needs beside the encounter itself: who rides which Assault Core, and
where the procedure stood at each version (for the history slider's turn/phase/step stops).

An encounter's combatants are ad-hoc sheets; the pilot inside an Assault Core lives in the
scenario (its participants and their HP in). The link is the combatant's id: a combatant that
joined under a participant's unit id is that unit, one under the pilot's character id is the
pilot on foot. Nothing here is stored; both answers are computed from the aggregates.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field, ValidationError

from api.deps import RuntimeDep
from api.encounter_views import sees_all_of
from api.routes.encounters import load_for
from api.security import READERS, PrincipalDep
from api.sheet_schemas import RatioPublic
from domain.campaign.scenario import ParticipantEntry, Scenario
from domain.encounter.aggregate import KIND, procedure
from domain.encounter.state import Encounter
from domain.rules.glorious_drive.hp_share import carried_ratio, entering_hp
from domain.rules.glorious_drive.options import GloriousDriveOptions
from infra.services import Principal, Runtime

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])


class Crew(BaseModel):
    """A combatant that is a scenario participant's unit (or the pilot on foot)."""

    combatant_id: str
    character_id: str
    pilot_name: str
    unit_id: str | None = Field(description="None: the combatant is the pilot on foot.")
    unit_name: str | None
    pilot_max_hp: int | None = Field(description="As the pilot entered the scenario.")
    pilot_hp: int | None = Field(
        description="GD-HPS-1: the pilot's HP at the unit's HP ratio now (what the pilot "
        "would carry out if the scenario ended here); None when the caller may not see it."
    )
    ratio: RatioPublic | None = Field(description="The unit's HP ratio now, shared (GD-HPS-1).")


class ProcedurePoint(BaseModel):
    """The first version at which the procedure reached this turn, phase, step and actor."""

    version: int
    turn: int
    phase: str
    step: str | None
    acting: str | None


@router.get(
    "/{encounter_id}/crews",
    response_model=list[Crew],
    operation_id="listEncounterCrews",
    summary="Which combatant rides which Assault Core",
)
def crews(
    encounter_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    version: Annotated[int | None, Query(ge=1, description="As at this version.")] = None,
) -> list[Crew]:
    """Which combatants are a pilot's Assault Core (or the pilot), with both HP (GD-HPS)."""
    state, _ = load_for(runtime, who, encounter_id, READERS, version)
    if state.scenario_id is None or state.ruleset_id != "glorious_drive":
        return []
    scenario, _ = runtime.scenarios.get(state.scenario_id)
    try:
        options = GloriousDriveOptions.model_validate(state.options)
    except ValidationError:  # options of another ruleset version: the defaults still share
        options = GloriousDriveOptions()
    return [
        crew
        for entrant in state.combatants
        if (crew := _crew(runtime, state, scenario, entrant.combatant_id, who, options))
    ]


def _crew(
    runtime: Runtime,
    state: Encounter,
    scenario: Scenario,
    combatant_id: str,
    who: Principal,
    options: GloriousDriveOptions,
) -> Crew | None:
    for part in scenario.participants:
        in_unit = part.unit_id is not None and combatant_id == str(part.unit_id)
        if not in_unit and combatant_id != str(part.character_id):
            continue
        pilot, _ = runtime.characters.get(part.character_id)
        unit_name = runtime.units.get(part.unit_id)[0].name if in_unit and part.unit_id else None
        entry = scenario.entry(part.character_id)
        crew = Crew(
            combatant_id=combatant_id,
            character_id=str(part.character_id),
            pilot_name=pilot.name,
            unit_id=str(part.unit_id) if in_unit else None,
            unit_name=unit_name,
            pilot_max_hp=entry.pilot_max_hp if entry else pilot.max_hp,
            pilot_hp=None,
            ratio=None,
        )
        return _shared(crew, state, combatant_id, who, entry, options) if in_unit else crew
    return None


def _shared(
    crew: Crew,
    state: Encounter,
    combatant_id: str,
    who: Principal,
    entry: ParticipantEntry | None,
    options: GloriousDriveOptions,
) -> Crew:
    """The unit's ratio now and the pilot's HP at it, unless the unit is hidden from `who`."""
    entrant = next(c for c in state.combatants if c.combatant_id == combatant_id)
    if entrant.hidden and not sees_all_of(who, entrant.controller):
        return crew
    live: Any = getattr(state.rules, "combatants", {}).get(combatant_id)
    if live is None or crew.pilot_max_hp is None or crew.pilot_max_hp < 1:
        return crew
    ratio = carried_ratio(live.hp, live.sheet.stats.hp)
    pilot_max = entry.pilot_max_hp if entry else crew.pilot_max_hp
    return crew.model_copy(
        update={"pilot_hp": entering_hp(pilot_max, ratio, options), "ratio": _ratio(ratio)}
    )


def _ratio(value: Fraction) -> RatioPublic:
    return RatioPublic(numerator=value.numerator, denominator=value.denominator, value=float(value))


@router.get(
    "/{encounter_id}/points",
    response_model=list[ProcedurePoint],
    operation_id="listEncounterPoints",
    summary="Every procedure point an encounter went through",
)
def points(encounter_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> list[ProcedurePoint]:
    """Every turn/phase/step (and actor) the encounter went through, with the version it
    began at: the stops of the table page's history slider (`?version=` redraws each)."""
    load_for(runtime, who, encounter_id, READERS)
    found: list[ProcedurePoint] = []
    state = KIND.initial(encounter_id)
    for event in runtime.disputes.events(encounter_id):
        state = KIND.evolve(state, event)
        if not state.opened or state.rules is None:
            continue
        point = procedure(state)
        here = (point.turn, point.phase, point.step, point.acting)
        last = found[-1] if found else None
        if last is None or (last.turn, last.phase, last.step, last.acting) != here:
            found.append(
                ProcedurePoint(
                    version=state.version,
                    turn=point.turn,
                    phase=point.phase,
                    step=point.step,
                    acting=point.acting,
                )
            )
    return found
