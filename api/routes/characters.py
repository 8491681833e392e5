"""Characters (pilot sheets): register, read, advance, equipment and skills."""

from __future__ import annotations

from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Header, Response, status
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.resources import not_modified, require_reader, require_writer
from api.security import WRITERS, PrincipalDep, require
from api.sheet_schemas import (
    PILOT_STATS,
    BaseStatsBody,
    CharacterPublic,
    ItemBody,
    SkillBody,
)
from api.writes import etag, guard, idempotency_key, if_match
from domain.campaign import character_commands as ch
from domain.campaign.bounds import Level
from infra.services import Idempotency, Write
from infra.services import describe_characters as describe

router = APIRouter(prefix="/v1", tags=["characters"])

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]
IfMatchDep = Annotated[int | None, Depends(if_match)]


class CharacterCreate(BaseModel):
    owner: str | None = Field(
        default=None,
        max_length=100,
        description="The member who plays the character; the caller when left out. "
        "A player may register only their own.",
        examples=["aoi"],
    )
    name: str = Field(min_length=1, max_length=200, examples=["蒼井ソラ"])
    level: Level = Field(default=1, examples=[1])
    base_stats: BaseStatsBody = Field(examples=[PILOT_STATS])


class CharacterAdvance(BaseModel):
    level: Level = Field(examples=[2])
    base_stats: BaseStatsBody = Field(examples=[PILOT_STATS | {"evasion": 14, "hp": 90}])


def public(answer: CharacterPublic, response: Response) -> CharacterPublic:
    """The service's typed answer as it is, with its version as the ETag."""
    etag(response, answer.version)
    return answer


def _writable(runtime: RuntimeDep, who: PrincipalDep, character_id: UUID) -> None:
    state, _ = runtime.characters.get(character_id)
    require_writer(who, state.campaign_id, state.owner)


@router.post(
    "/campaigns/{campaign_id}/characters",
    status_code=status.HTTP_201_CREATED,
    response_model=CharacterPublic,
    operation_id="registerCharacter",
    summary="Register a pilot at full HP",
)
def register_character(
    campaign_id: UUID,
    body: CharacterCreate,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    response: Response,
) -> CharacterPublic:
    """Register a pilot at full HP: the GM for anyone, a player only their own."""
    require(who, campaign_id, WRITERS)
    command = ch.RegisterCharacter(
        owner=body.owner or who.actor, name=body.name, level=body.level, base_stats=body.base_stats
    )
    answer = runtime.characters.register(campaign_id, who.actor, command, key)
    response.headers["Location"] = f"/v1/characters/{answer.id}"
    return public(answer, response)


@router.get(
    "/characters/{character_id}",
    response_model=CharacterPublic,
    responses={304: {"description": "Not modified (If-None-Match)"}},
    operation_id="getCharacter",
    summary="Read a pilot as stored",
)
def get_character(
    character_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    response: Response,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """The character as stored; ETag is its version (send it as If-Match to change it)."""
    state, version = runtime.characters.get(character_id)
    require_reader(who, state.campaign_id)
    return not_modified(if_none_match, str(version)) or public(describe(state, version), response)


@router.post(
    "/characters/{character_id}/advance",
    response_model=CharacterPublic,
    operation_id="advanceCharacter",
    summary="Raise a pilot's level and base stats",
)
def advance_character(
    character_id: UUID,
    body: CharacterAdvance,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> CharacterPublic:
    """A new level and base stats (GD-STAT-1); max HP is recomputed (GD-COST-1/2)."""
    _writable(runtime, who, character_id)
    command = ch.AdvanceCharacter(level=body.level, base_stats=body.base_stats)
    answer = runtime.characters.advance(character_id, who.actor, command, guard(key, version))
    return public(answer, response)


@router.post(
    "/characters/{character_id}/items",
    response_model=CharacterPublic,
    operation_id="equipCharacterItem",
    summary="Equip an item on a pilot",
)
def equip_item(
    character_id: UUID,
    body: ItemBody,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> CharacterPublic:
    """Equip an item; GD-COST-1 lowers max HP when the cost exceeds capacity."""
    _writable(runtime, who, character_id)
    answer = runtime.characters.equip(character_id, who.actor, body.domain(), guard(key, version))
    return public(answer, response)


@router.delete(
    "/characters/{character_id}/items/{item_name}",
    response_model=CharacterPublic,
    operation_id="unequipCharacterItem",
    summary="Take an item off a pilot",
)
def unequip_item(
    character_id: UUID,
    item_name: str,
    runtime: RuntimeDep,
    who: PrincipalDep,
    version: IfMatchDep,
    response: Response,
) -> CharacterPublic:
    """Take an item off; a higher max HP does not raise current HP (GD-COST-2)."""
    _writable(runtime, who, character_id)
    answer = runtime.characters.unequip(
        character_id, who.actor, item_name, Write(expected_version=version)
    )
    return public(answer, response)


@router.post(
    "/characters/{character_id}/skills",
    response_model=CharacterPublic,
    operation_id="learnSkill",
    summary="Learn a skill",
)
def learn_skill(
    character_id: UUID,
    body: SkillBody,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> CharacterPublic:
    """Learn a skill (its cost counts only while it is used, GD-COST-3)."""
    _writable(runtime, who, character_id)
    answer = runtime.characters.learn(character_id, who.actor, body.domain(), guard(key, version))
    return public(answer, response)


@router.delete(
    "/characters/{character_id}/skills/{skill_name}",
    response_model=CharacterPublic,
    operation_id="forgetSkill",
    summary="Forget a skill",
)
def forget_skill(
    character_id: UUID,
    skill_name: str,
    runtime: RuntimeDep,
    who: PrincipalDep,
    version: IfMatchDep,
    response: Response,
) -> CharacterPublic:
    """Forget a learned skill."""
    _writable(runtime, who, character_id)
    answer = runtime.characters.forget(
        character_id, who.actor, skill_name, Write(expected_version=version)
    )
    return public(answer, response)
