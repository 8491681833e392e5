"""Scenarios: open, join, start (HP in, GD-HPS-2/3) and close (HP out, GD-HPS-1, once)."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Header, Response, status
from pydantic import BaseModel, ConfigDict, Field

from api.deps import RuntimeDep
from api.resources import not_modified, require_gm, require_reader, require_writer
from api.security import GM_ONLY, PrincipalDep, require
from api.sheet_schemas import Injury
from api.writes import etag, guard, idempotency_key, if_match
from domain.campaign import scenario_commands as sc
from domain.campaign.bounds import HpFigure
from infra.services import Idempotency, ScenarioPublic
from infra.services import describe_scenarios as describe

router = APIRouter(prefix="/v1", tags=["scenarios"])

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]
IfMatchDep = Annotated[int | None, Depends(if_match)]


class ScenarioCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200, examples=["第1話 紅の空"])


class JoinBody(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "character_id": "6f1c2a3e-0000-4000-8000-000000000001",
                    "unit_id": "6f1c2a3e-0000-4000-8000-000000000002",
                }
            ]
        }
    )

    character_id: UUID
    unit_id: UUID | None = Field(default=None, description="The pilot's own unit; none on foot.")


class ParticipantEndBody(BaseModel):
    """How a participant ended: HP of the unit last fought in, and the pilot's injury."""

    character_id: UUID
    end_hp: HpFigure = Field(examples=[100])
    ended_on_foot: bool = Field(
        default=False, description="The pilot left the unit and fought on foot last (GD-HPS-3)."
    )
    injury: Injury = "none"


class CloseBody(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "results": [
                        {
                            "character_id": "6f1c2a3e-0000-4000-8000-000000000001",
                            "end_hp": 100,
                            "ended_on_foot": False,
                            "injury": "none",
                        }
                    ]
                }
            ]
        }
    )

    results: list[ParticipantEndBody] = Field(
        max_length=100, description="Exactly one per participant."
    )


def public(answer: ScenarioPublic, response: Response) -> ScenarioPublic:
    """The service's typed answer as it is, with its version as the ETag."""
    etag(response, answer.version)
    return answer


def _gm(runtime: RuntimeDep, who: PrincipalDep, scenario_id: UUID) -> None:
    state, _ = runtime.scenarios.get(scenario_id)
    require_gm(who, state.campaign_id)


@router.post(
    "/campaigns/{campaign_id}/scenarios",
    status_code=status.HTTP_201_CREATED,
    response_model=ScenarioPublic,
    operation_id="openScenario",
    summary="Open a scenario",
)
def open_scenario(
    campaign_id: UUID,
    body: ScenarioCreate,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    response: Response,
) -> ScenarioPublic:
    """The GM opens a scenario; pilots join it until it starts."""
    require(who, campaign_id, GM_ONLY)
    answer = runtime.scenarios.open(campaign_id, who.actor, body.name, key)
    response.headers["Location"] = f"/v1/scenarios/{answer.id}"
    return public(answer, response)


@router.get(
    "/scenarios/{scenario_id}",
    response_model=ScenarioPublic,
    responses={304: {"description": "Not modified (If-None-Match)"}},
    operation_id="getScenario",
    summary="Read a scenario with HP in and HP out",
)
def get_scenario(
    scenario_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    response: Response,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """The scenario with its participants, HP in and HP out; ETag is its version."""
    state, version = runtime.scenarios.get(scenario_id)
    require_reader(who, state.campaign_id)
    return not_modified(if_none_match, str(version)) or public(describe(state, version), response)


@router.post(
    "/scenarios/{scenario_id}/participants",
    response_model=ScenarioPublic,
    operation_id="joinScenario",
    summary="Join a pilot (on foot or in a unit) to a scenario",
)
def join_scenario(
    scenario_id: UUID,
    body: JoinBody,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> ScenarioPublic:
    """A pilot joins, on foot or in their own unit: the GM any, a player their own."""
    state, _ = runtime.scenarios.get(scenario_id)
    pilot, _ = runtime.characters.get(body.character_id)
    require_writer(who, state.campaign_id, pilot.owner)
    command = sc.JoinScenario(character_id=body.character_id, unit_id=body.unit_id)
    answer = runtime.scenarios.join(scenario_id, who.actor, command, guard(key, version))
    return public(answer, response)


@router.post(
    "/scenarios/{scenario_id}/start",
    response_model=ScenarioPublic,
    operation_id="startScenario",
    summary="Start a scenario (HP enters at the carried ratio)",
)
def start_scenario(
    scenario_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> ScenarioPublic:
    """The GM starts it: each pilot and unit enters at the pilot's carried ratio (GD-HPS-2/3)."""
    _gm(runtime, who, scenario_id)
    answer = runtime.scenarios.start(scenario_id, who.actor, guard(key, version))
    return public(answer, response)


@router.post(
    "/scenarios/{scenario_id}/close",
    response_model=ScenarioPublic,
    operation_id="closeScenario",
    summary="Close a scenario (carried HP is saved)",
)
def close_scenario(
    scenario_id: UUID,
    body: CloseBody,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> ScenarioPublic:
    """The GM closes it: each pilot's and unit's carried HP is saved with the close, atomically
    and once (GD-HPS-1/3). Closing a closed scenario changes nothing."""
    _gm(runtime, who, scenario_id)
    command = sc.CloseScenario.model_validate(body.model_dump())
    answer = runtime.scenarios.close(scenario_id, who.actor, command, guard(key, version))
    return public(answer, response)
