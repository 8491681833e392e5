"""Campaigns, their members, house rules and access tokens."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from uuid import UUID

from fastapi import APIRouter, Depends, Header, HTTPException, Response, status
from pydantic import BaseModel, Field, JsonValue

from api.deps import RuntimeDep
from api.openapi import answered
from api.security import GM_ONLY, MEMBERS, READERS, PrincipalDep, require
from api.writes import etag, guard, idempotency_key, if_match
from domain.campaign.bounds import Id
from infra.services import (
    CampaignCreated,
    CampaignPublic,
    Idempotency,
    NotBuilt,
    Principal,
    PrincipalRole,
    Role,
    Ruleset,
    TokenIssued,
    Write,
)
from infra.services import describe_campaigns as describe

router = APIRouter(prefix="/v1/campaigns", tags=["campaigns"])

KeyDep = Annotated[Idempotency, Depends(idempotency_key)]
IfMatchDep = Annotated[int | None, Depends(if_match)]


class CampaignCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200, examples=["蒼穹のアサルトコア"])
    ruleset: Ruleset = "glorious_drive"
    options: dict[str, JsonValue] = Field(
        default_factory=dict,
        description="House rules: any Interpretation of RULES.md (e.g. faint_rule).",
        examples=[{"faint_rule": "text"}],
    )
    gm_member_id: str = Field(min_length=1, max_length=100, examples=["gm-akasaka"])


class MemberCreate(BaseModel):
    member_id: str = Field(min_length=1, max_length=100, examples=["player-aoi"])
    role: Role = "player"


class MemberPatch(BaseModel):
    role: Role


class OptionsPut(BaseModel):
    options: dict[str, JsonValue]


class TokenCreate(BaseModel):
    kind: Literal["member", "site", "roller"] = "member"
    member_id: Id | None = Field(default=None, description="Required for a member token.")
    roll_log_id: UUID | None = Field(
        default=None,
        description="Required for a roller token: the campaign's roll log it rolls in, through "
        "the BCDice-API address /bcdice/{token}/v2/… (its clients cannot send headers).",
    )
    label: str = Field(default="", max_length=200, examples=["Aoi's phone"])


class TokenPublic(BaseModel):
    token_id: str
    kind: Literal["member", "site", "roller"]
    roll_log_id: UUID | None = None
    member_id: str | None
    label: str
    issued_by: str
    revoked: bool


def _public(answer: CampaignPublic, response: Response) -> CampaignPublic:
    """The service's typed answer as it is, with its version as the ETag."""
    etag(response, answer.version)
    return answer


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=CampaignCreated,
    operation_id="createCampaign",
    summary="Open a campaign (answers the GM's first token)",
)
def create_campaign(
    body: CampaignCreate, runtime: RuntimeDep, key: KeyDep, response: Response
) -> CampaignCreated:
    """Open a campaign; the answer carries its GM's first token, shown this once."""
    answer = runtime.campaigns.open(
        body.name, body.ruleset, body.options, gm=body.gm_member_id, idempotency=key
    )
    etag(response, answer.version)
    response.headers["Location"] = f"/v1/campaigns/{answer.id}"
    return answer


@router.get(
    "/{campaign_id}",
    response_model=CampaignPublic,
    responses={304: {"description": "Not modified (If-None-Match)"}},
    operation_id="getCampaign",
    summary="Read a campaign, its members and house rules",
)
def get_campaign(
    campaign_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    response: Response,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Any:
    """The campaign, its members and house rules; ETag is its version."""
    require(who, campaign_id, READERS)
    state, version = runtime.campaigns.get(campaign_id)
    if if_none_match == f'"{version}"':
        return Response(status_code=304, headers={"ETag": f'"{version}"'})
    return _public(describe(state, version), response)


@router.post(
    "/{campaign_id}/members",
    response_model=CampaignPublic,
    operation_id="addMember",
    summary="Add a member with a role",
)
def add_member(
    campaign_id: UUID,
    body: MemberCreate,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    version: IfMatchDep,
    response: Response,
) -> CampaignPublic:
    """The GM adds a member with a role."""
    require(who, campaign_id, GM_ONLY)
    answer = runtime.campaigns.add_member(
        campaign_id, who.actor, body.member_id, body.role, guard(key, version)
    )
    return _public(answer, response)


@router.patch(
    "/{campaign_id}/members/{member_id}",
    response_model=CampaignPublic,
    operation_id="changeMemberRole",
    summary="Change a member's role",
)
def change_role(
    campaign_id: UUID,
    member_id: str,
    body: MemberPatch,
    runtime: RuntimeDep,
    who: PrincipalDep,
    version: IfMatchDep,
    response: Response,
) -> CampaignPublic:
    """The GM changes a member's role (a campaign always keeps one GM)."""
    require(who, campaign_id, GM_ONLY)
    answer = runtime.campaigns.change_role(
        campaign_id, who.actor, member_id, body.role, Write(expected_version=version)
    )
    return _public(answer, response)


@router.delete(
    "/{campaign_id}/members/{member_id}",
    response_model=CampaignPublic,
    operation_id="removeMember",
    summary="Remove a member (or leave)",
)
def remove_member(
    campaign_id: UUID,
    member_id: str,
    runtime: RuntimeDep,
    who: PrincipalDep,
    version: IfMatchDep,
    response: Response,
) -> CampaignPublic:
    """The GM removes a member, or a member leaves; their tokens stop working."""
    require(who, campaign_id, MEMBERS)
    answer = runtime.campaigns.remove_member(
        campaign_id, who.actor, member_id, Write(expected_version=version)
    )
    return _public(answer, response)


@router.put(
    "/{campaign_id}/options",
    response_model=CampaignPublic,
    operation_id="changeHouseRules",
    summary="Set the campaign's house rules",
)
def change_options(
    campaign_id: UUID,
    body: OptionsPut,
    runtime: RuntimeDep,
    who: PrincipalDep,
    version: IfMatchDep,
    response: Response,
) -> CampaignPublic:
    """The GM sets the house rules (checked against the ruleset's options)."""
    require(who, campaign_id, GM_ONLY)
    answer = runtime.campaigns.change_options(
        campaign_id, who.actor, body.options, Write(expected_version=version)
    )
    return _public(answer, response)


@router.post(
    "/{campaign_id}/tokens",
    status_code=201,
    response_model=TokenIssued,
    operation_id="issueToken",
    summary="Issue a member token or a read-only site token",
)
def issue_token(
    campaign_id: UUID,
    body: TokenCreate,
    runtime: RuntimeDep,
    who: PrincipalDep,
    key: KeyDep,
    response: Response,
) -> TokenIssued:
    """The GM issues a token for a member, or a read-only one for a character-sheet site."""
    require(who, campaign_id, GM_ONLY)
    if body.roll_log_id is not None:
        log, _ = runtime.roll_logs.get(body.roll_log_id)
        if log.campaign_id != campaign_id:
            raise HTTPException(404, f"campaign {campaign_id} has no roll log {body.roll_log_id}")
    answer = runtime.campaigns.issue_token(
        campaign_id,
        who.actor,
        kind=body.kind,
        member_id=body.member_id,
        label=body.label,
        write=guard(key, None),
        roll_log_id=body.roll_log_id,
    )
    etag(response, answer.version)
    return answer


@router.get(
    "/{campaign_id}/tokens",
    response_model=list[TokenPublic],
    operation_id="listTokens",
    summary="List the campaign's tokens (never a secret)",
)
def list_tokens(campaign_id: UUID, runtime: RuntimeDep, who: PrincipalDep) -> list[TokenPublic]:
    """Every token of the campaign (never a secret or its hash)."""
    require(who, campaign_id, GM_ONLY)
    state, _ = runtime.campaigns.get(campaign_id)
    return [TokenPublic.model_validate(t.model_dump()) for t in state.tokens.values()]


@router.delete(
    "/{campaign_id}/tokens/{token_id}",
    response_model=CampaignPublic,
    operation_id="revokeToken",
    summary="Revoke a token, at once",
)
def revoke_token(
    campaign_id: UUID, token_id: str, runtime: RuntimeDep, who: PrincipalDep, response: Response
) -> CampaignPublic:
    """Revoke a token: the GM any, a member their own. It stops working at once."""
    require(who, campaign_id, MEMBERS)
    answer = runtime.campaigns.revoke_token(campaign_id, who.actor, token_id)
    return _public(answer, response)


# `/v1/me` is not under one campaign's path; the table router includes this router.
me_router = APIRouter(prefix="/v1", tags=["campaigns"])

Capability = Literal["read", "command", "dispute", "what_if", "settle", "reveal", "manage", "roll"]
# What each role may do, as the routes enforce it (api.security): a page shows only these.
CAPABILITIES: dict[PrincipalRole, list[Capability]] = {
    "gm": ["read", "command", "dispute", "what_if", "settle", "reveal", "manage"],
    "player": ["read", "command", "dispute", "what_if"],
    "viewer": ["read", "what_if"],
    "site": ["read", "what_if"],
    "roller": ["roll"],  # in its one roll log, through /bcdice/{token}/v2 only
}


class MyCharacter(BaseModel):
    id: str
    name: str
    owner: str
    lost: bool


class Me(BaseModel):
    """Who a token belongs to, and what it may do."""

    campaign_id: str
    campaign_name: str
    token_id: str
    role: PrincipalRole = Field(description="site: a read-only character-sheet-site token.")
    member_id: str | None = Field(description="None for a sheet-site token.")
    may: list[Capability] = Field(
        description="command: act for the combatants one controls (the GM for all); "
        "what_if: replay under other options (stores nothing; a fight with a combatant "
        "hidden from the caller is the GM's to replay); settle: uphold or amend "
        "disputes; reveal: publish the dice seed; manage: members, tokens, house rules; "
        "roll: a roller token's rolls in its roll log through the BCDice-API address."
    )
    characters: list[MyCharacter] = Field(
        description="The characters this caller may act for: a player's own, every one for "
        "the GM, none for viewers and sites. Found through the campaign timeline read model."
    )
    characters_reflect: dict[str, int] = Field(
        description="Shard → log position the character list reflects (eventually consistent)."
    )


# An answer of a real run (tests/api/test_openapi_clients.py): a site token's.
ME_EXAMPLE: dict[str, Any] = {
    "campaign_id": "d7e4c7c8-83f0-56da-93b6-756e0e9b3de7",
    "campaign_name": "蒼穹",
    "token_id": "f16db641",
    "role": "site",
    "member_id": None,
    "may": ["read", "what_if"],
    "characters": [],
    "characters_reflect": {},
}


@me_router.get(
    "/me",
    response_model=Me,
    responses=answered(ME_EXAMPLE),
    operation_id="getMe",
    summary="Who this token is and what it may do",
)
def me(runtime: RuntimeDep, who: PrincipalDep) -> Me:
    """The caller's campaign, role, what it may do and the characters it may act for."""
    state, _ = runtime.campaigns.get(who.campaign_id)
    characters, reflects = _characters_of(runtime, who)
    return Me(
        campaign_id=str(who.campaign_id),
        campaign_name=state.name,
        token_id=who.token_id,
        role=who.role,
        member_id=who.member_id,
        may=CAPABILITIES[who.role],
        characters=characters,
        characters_reflect=reflects,
    )


def _characters_of(runtime: RuntimeDep, who: Principal) -> tuple[list[MyCharacter], dict[str, int]]:
    if who.role not in ("gm", "player"):
        return [], {}
    try:
        timeline = runtime.read_models.timeline(who.campaign_id)
    except NotBuilt:  # the read model is being built: no list yet, the rest still holds
        return [], {}
    found = []
    for row in timeline.rows:
        if row["kind"] != "character_joined" or row["subject_id"] is None:
            continue
        character, _ = runtime.characters.get(UUID(row["subject_id"]))  # the owner, now
        if who.role == "gm" or character.owner == who.member_id:
            found.append(
                MyCharacter(
                    id=str(character.id),
                    name=character.name,
                    owner=character.owner,
                    lost=character.lost,
                )
            )
    return found, {str(k): v for k, v in timeline.positions.items()}
