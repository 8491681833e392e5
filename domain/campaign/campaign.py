"""The Campaign aggregate: name, rule system, house-rule options and members with roles.

Events, state and `evolve`; deciding lives in `campaign_commands.py`.
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, JsonValue

from domain.aggregate import AggregateKind
from domain.campaign.access import AccessToken, AccessTokenIssued, AccessTokenRevoked
from domain.campaign.errors import WrongState
from domain.events import DomainEvent, registry
from domain.rules.glorious_drive.options import GloriousDriveOptions

RulesetId = Literal["glorious_drive", "wizardry_round", "armor_knights"]
Role = Literal["gm", "player", "viewer"]
Options = dict[str, JsonValue]


class CampaignOpened(DomainEvent):
    event_type = "CampaignOpened"
    name: str
    ruleset: RulesetId
    options: Options
    gm: str  # the opener, the first GM


class MemberAdded(DomainEvent):
    event_type = "MemberAdded"
    member_id: str
    role: Role


class MemberRoleChanged(DomainEvent):
    event_type = "MemberRoleChanged"
    member_id: str
    role: Role


class MemberRemoved(DomainEvent):
    event_type = "MemberRemoved"
    member_id: str


class CampaignOptionsChanged(DomainEvent):
    event_type = "CampaignOptionsChanged"
    options: Options


registry.register(
    CampaignOpened, MemberAdded, MemberRoleChanged, MemberRemoved, CampaignOptionsChanged
)


class Campaign(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: UUID
    name: str = ""
    ruleset: RulesetId = "glorious_drive"
    options: Options = {}
    members: dict[str, Role] = {}
    tokens: dict[str, AccessToken] = {}

    @property
    def opened(self) -> bool:
        return bool(self.members)  # opening adds the first GM; a campaign never has none

    def role_of(self, member_id: str) -> Role | None:
        return self.members.get(member_id)

    def gd_options(self) -> GloriousDriveOptions:
        """The Glorious Drive options in force (validated when they were set)."""
        if self.ruleset != "glorious_drive":
            raise WrongState(
                f"campaign {self.id} plays {self.ruleset}, not glorious_drive",
                ja=f"キャンペーン {self.id} は glorious_drive ではなく {self.ruleset} "
                "を遊んでいます",
            )
        return GloriousDriveOptions.model_validate(self.options)


def _with(state: Campaign, member_id: str, role: Role | None) -> Campaign:
    members = {m: r for m, r in state.members.items() if m != member_id}
    if role is not None:
        members[member_id] = role
    return state.model_copy(update={"members": members})


def _revoked_for_good(state: Campaign, member_id: str) -> Campaign:
    """A member who leaves takes no token along: adding the same id again later gives them
    only what is issued then (an old token, kept by anyone, would come back to life)."""
    tokens = {
        token_id: token.model_copy(update={"revoked": True})
        if token.member_id == member_id
        else token
        for token_id, token in state.tokens.items()
    }
    return state.model_copy(update={"tokens": tokens})


def evolve(state: Campaign, event: DomainEvent) -> Campaign:
    match event:
        case CampaignOpened(name=name, ruleset=ruleset, options=options, gm=gm):
            fields = {"name": name, "ruleset": ruleset, "options": options, "members": {gm: "gm"}}
            return state.model_copy(update=fields)
        case (
            MemberAdded(member_id=member, role=role)
            | MemberRoleChanged(member_id=member, role=role)
        ):
            return _with(state, member, role)
        case MemberRemoved(member_id=member):
            return _revoked_for_good(_with(state, member, None), member)
        case CampaignOptionsChanged(options=options):
            return state.model_copy(update={"options": options})
        case AccessTokenIssued():
            token = AccessToken(**event.model_dump(exclude={"at", "by"}), issued_by=event.by)
            return state.model_copy(update={"tokens": state.tokens | {token.token_id: token}})
        case AccessTokenRevoked(token_id=token_id):
            revoked = state.tokens[token_id].model_copy(update={"revoked": True})
            return state.model_copy(update={"tokens": state.tokens | {token_id: revoked}})
    return state


KIND = AggregateKind[Campaign]("campaign", lambda i: Campaign(id=i), evolve, lambda s: s.opened)
