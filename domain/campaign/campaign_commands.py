"""Deciding for the Campaign aggregate: members, roles and house-rule options.

Role rules: only a GM manages members and options, a member may leave by themselves, and
the campaign always keeps at least one GM (someone must be able to rule and settle disputes).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from domain.campaign.bounds import BoundedJson, Id, Name
from domain.campaign.campaign import (
    Campaign,
    CampaignOpened,
    CampaignOptionsChanged,
    MemberAdded,
    MemberRemoved,
    MemberRoleChanged,
    Options,
    Role,
    RulesetId,
)
from domain.campaign.errors import (
    InvalidOptions,
    LastGameMaster,
    NotPermitted,
    UnknownMember,
    WrongState,
)
from domain.events import DomainEvent
from domain.rules.glorious_drive.options import GloriousDriveOptions


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpenCampaign(_Command):
    name: Name
    ruleset: RulesetId
    options: BoundedJson = Field(default_factory=dict)


class AddMember(_Command):
    member_id: Id
    role: Role


class ChangeMemberRole(_Command):
    member_id: Id
    role: Role


class RemoveMember(_Command):
    member_id: Id


class ChangeOptions(_Command):
    options: BoundedJson


def validated_options(ruleset: RulesetId, options: Mapping[str, JsonValue]) -> Options:
    """Glorious Drive options must fit `GloriousDriveOptions`; stored with every default
    spelled out, so that a later change of a default does not change a running campaign.
    The other rule systems have no options model yet: their dict is kept as given."""
    if ruleset != "glorious_drive":
        return dict(options)
    try:
        checked = GloriousDriveOptions.model_validate(dict(options))
    except ValidationError as error:
        raise InvalidOptions(
            f"options do not fit Glorious Drive's house rules: {error}",
            ja=f"オプションがグロリアスドライヴのハウスルールに合いません：{error}",
        ) from None
    return checked.model_dump(mode="json")


def open_campaign(
    state: Campaign, command: OpenCampaign, *, at: datetime, by: str
) -> list[DomainEvent]:
    """The opener becomes the campaign's first GM."""
    if state.opened:
        raise WrongState(
            f"campaign {state.id} is open already",
            ja=f"キャンペーン {state.id} はすでに開かれています",
        )
    options = validated_options(command.ruleset, command.options)
    return [
        CampaignOpened(
            name=command.name, ruleset=command.ruleset, options=options, gm=by, at=at, by=by
        )
    ]


def _gm(state: Campaign, by: str, doing: str, doing_ja: str) -> None:
    if not state.opened:
        raise WrongState(
            f"campaign {state.id} is not open; open it first",
            ja=f"キャンペーン {state.id} は開かれていません。先に開いてください",
        )
    if state.role_of(by) != "gm":
        raise NotPermitted(
            f"only a GM may {doing}; {by!r} is {state.role_of(by) or 'no member'}",
            ja=f"{doing_ja}ことができるのはGMだけです。"
            f"{by!r} の役割：{state.role_of(by) or 'メンバーではない'}",
        )


def _member(state: Campaign, member_id: str) -> Role:
    role = state.role_of(member_id)
    if role is None:
        raise UnknownMember(
            f"{member_id!r} is not a member; members: {sorted(state.members)}",
            ja=f"{member_id!r} はメンバーではありません。メンバー：{sorted(state.members)}",
        )
    return role


def _keeps_a_gm(state: Campaign, member_id: str) -> None:
    gms = [m for m, role in state.members.items() if role == "gm"]
    if gms == [member_id]:
        raise LastGameMaster(
            f"{member_id!r} is the only GM; make another member GM first",
            ja=f"{member_id!r} は唯一のGMです。先に別のメンバーをGMにしてください",
        )


def add_member(state: Campaign, command: AddMember, *, at: datetime, by: str) -> list[DomainEvent]:
    _gm(state, by, "add members", "メンバーを加える")
    if state.role_of(command.member_id) is not None:
        raise WrongState(
            f"{command.member_id!r} is a member already; change their role instead",
            ja=f"{command.member_id!r} はすでにメンバーです。役割を変更してください",
        )
    return [MemberAdded(member_id=command.member_id, role=command.role, at=at, by=by)]


def change_role(
    state: Campaign, command: ChangeMemberRole, *, at: datetime, by: str
) -> list[DomainEvent]:
    _gm(state, by, "change roles", "役割を変える")
    if _member(state, command.member_id) == command.role:
        return []  # already so: nothing happened
    if command.role != "gm":
        _keeps_a_gm(state, command.member_id)
    return [MemberRoleChanged(member_id=command.member_id, role=command.role, at=at, by=by)]


def remove_member(
    state: Campaign, command: RemoveMember, *, at: datetime, by: str
) -> list[DomainEvent]:
    """A GM removes anyone; any member may remove themselves (leave)."""
    if by != command.member_id:
        _gm(state, by, "remove other members", "他のメンバーを外す")
    _member(state, command.member_id)
    _keeps_a_gm(state, command.member_id)
    return [MemberRemoved(member_id=command.member_id, at=at, by=by)]


def change_options(
    state: Campaign, command: ChangeOptions, *, at: datetime, by: str
) -> list[DomainEvent]:
    _gm(state, by, "change house rules", "ハウスルールを変える")
    options = validated_options(state.ruleset, command.options)
    return [CampaignOptionsChanged(options=options, at=at, by=by)]
