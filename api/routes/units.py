"""Units (Assault Cores and carriers): register for a pilot, read, equipment."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Header, Response, status
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.resources import not_modified, require_reader, require_writer
from api.security import WRITERS, PrincipalDep, require
from api.sheet_schemas import CORE_STATS, STATS_DOC, BaseStatsBody, ItemBody, UnitPublic
from api.writes import etag, guard, idempotency_key, if_match
from domain.aggregate import NotFound
from domain.campaign import unit_commands as uc
from infra.services import Idempotency, Write
from infra.services import describe_units as describe

router = APIRouter(prefix="/v1", tags=["units"])

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]
IfMatchDep = Annotated[int | None, Depends(if_match)]


class UnitCreate(BaseModel):
    pilot_id: UUID = Field(
        description="The character who owns and pilots the unit.",
        examples=["6f1c2a3e-0000-4000-8000-000000000001"],
    )
    name: str = Field(min_length=1, max_length=200, examples=["紅"])
    kind: Literal["assault_core", "carrier"] = "assault_core"
    base_stats: BaseStatsBody = Field(
        description=STATS_DOC + " Before the pilot's piloting boost (GD-STAT-2).",
        examples=[CORE_STATS],
    )


def public(answer: UnitPublic, response: Response) -> UnitPublic:
    """The service's typed answer as it is, with its version as the ETag."""
    etag(response, answer.version)
    return answer


def _writable(runtime: RuntimeDep, who: PrincipalDep, unit_id: UUID) -> None:
    state, _ = runtime.units.get(unit_id)
    require_writer(who, state.campaign_id, runtime.units.pilot(state.pilot_id).owner)


@router.post(
    "/campaigns/{campaign_id}/units",
    status_code=status.HTTP_201_CREATED,
    response_model=UnitPublic,
    operation_id="registerUnit",
    summary="Register an Assault Core for a pilot",
)
def register_unit(
    campaign_id: UUID,
    body: UnitCreate,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    response: Response,
) -> UnitPublic:
    """Register an Assault Core (or carrier) for a pilot: the GM any, a player their own."""
    require(who, campaign_id, WRITERS)
    pilot = runtime.units.pilot(body.pilot_id)
    if pilot.campaign_id != campaign_id:
        raise NotFound(f"no character {body.pilot_id} in campaign {campaign_id}")
    require_writer(who, campaign_id, pilot.owner)
    command = uc.RegisterUnit(name=body.name, kind=body.kind, base_stats=body.base_stats)
    answer = runtime.units.register(campaign_id, who.actor, body.pilot_id, command, key)
    response.headers["Location"] = f"/v1/units/{answer.id}"
    return public(answer, response)


@router.get(
    "/units/{unit_id}",
    response_model=UnitPublic,
    responses={304: {"description": "Not modified (If-None-Match)"}},
    operation_id="getUnit",
    summary="Read a unit as stored",
)
def get_unit(
    unit_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    response: Response,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """The unit as stored; ETag is its version (send it as If-Match to change it)."""
    state, version = runtime.units.get(unit_id)
    require_reader(who, state.campaign_id)
    return not_modified(if_none_match, str(version)) or public(describe(state, version), response)


@router.post(
    "/units/{unit_id}/items",
    response_model=UnitPublic,
    operation_id="equipUnitItem",
    summary="Equip an item on a unit",
)
def equip_unit_item(
    unit_id: UUID,
    body: ItemBody,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> UnitPublic:
    """Equip an item; max HP under the pilot's boost (GD-STAT-2) and cost (GD-COST-1/2)."""
    _writable(runtime, who, unit_id)
    answer = runtime.units.equip(unit_id, who.actor, body.domain(), guard(key, version))
    return public(answer, response)


@router.delete(
    "/units/{unit_id}/items/{item_name}",
    response_model=UnitPublic,
    operation_id="unequipUnitItem",
    summary="Take an item off a unit",
)
def unequip_unit_item(
    unit_id: UUID,
    item_name: str,
    runtime: RuntimeDep,
    who: PrincipalDep,
    version: IfMatchDep,
    response: Response,
) -> UnitPublic:
    """Take an item off the unit (GD-COST-2)."""
    _writable(runtime, who, unit_id)
    answer = runtime.units.unequip(unit_id, who.actor, item_name, Write(expected_version=version))
    return public(answer, response)
