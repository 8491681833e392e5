"""Issuing and revoking access tokens: only a GM may, except the first token at opening."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from domain.campaign.access import AccessTokenIssued, AccessTokenRevoked, TokenRole
from domain.campaign.campaign import Campaign
from domain.campaign.errors import NotPermitted, UnknownMember, WrongState
from domain.events import DomainEvent


def first_token(gm: str, token_id: str, secret_sha256: str, *, at: datetime) -> list[DomainEvent]:
    """The opener's own token, issued with the campaign and returned once."""
    return [
        AccessTokenIssued(
            token_id=token_id,
            kind="member",
            member_id=gm,
            label="first GM token",
            secret_sha256=secret_sha256,
            at=at,
            by=gm,
        )
    ]


def issue_token(
    state: Campaign,
    *,
    kind: TokenRole,
    member_id: str | None,
    label: str,
    token_id: str,
    secret_sha256: str,
    at: datetime,
    by: str,
    roll_log_id: UUID | None = None,
) -> list[DomainEvent]:
    """A GM issues a token for a member of this campaign, a read-only one for a sheet site,
    or a roller token for one of its roll logs (the caller checks the log is the campaign's)."""
    _gm(state, by, "issue tokens", "トークンを発行する")
    if token_id in state.tokens:
        raise WrongState(
            f"token {token_id} exists already", ja=f"トークン {token_id} はすでにあります"
        )
    if kind == "member":
        if member_id is None or state.role_of(member_id) is None:
            raise UnknownMember(
                f"{member_id!r} is not a member of this campaign; add them first",
                ja=f"{member_id!r} はこのキャンペーンのメンバーではありません。先に加えてください",
            )
    elif member_id is not None:
        raise WrongState(
            f"a {kind} token belongs to no member: leave member_id empty",
            ja=f"{kind} トークンはどのメンバーのものでもありません。member_id は空にしてください",
        )
    if (kind == "roller") != (roll_log_id is not None):
        raise WrongState(
            "a roller token, and only a roller token, names the roll log it rolls in",
            ja="ダイスログを名指すのはロールトークンだけで、ロールトークンは必ずダイスログを名指します",
        )
    return [
        AccessTokenIssued(
            token_id=token_id,
            kind=kind,
            member_id=member_id,
            label=label,
            secret_sha256=secret_sha256,
            roll_log_id=roll_log_id,
            at=at,
            by=by,
        )
    ]


def revoke_token(state: Campaign, token_id: str, *, at: datetime, by: str) -> list[DomainEvent]:
    """A GM revokes any token; a member may revoke their own. Revoking twice changes nothing."""
    token = state.tokens.get(token_id)
    if token is None:
        raise WrongState(
            f"no token {token_id} in this campaign",
            ja=f"このキャンペーンにトークン {token_id} はありません",
        )
    if state.role_of(by) != "gm" and token.member_id != by:
        raise NotPermitted(
            "only a GM may revoke someone else's token",
            ja="他人のトークンを無効にできるのはGMだけです",
        )
    if token.revoked:
        return []
    return [AccessTokenRevoked(token_id=token_id, at=at, by=by)]


def _gm(state: Campaign, by: str, doing: str, doing_ja: str) -> None:
    if state.role_of(by) != "gm":
        raise NotPermitted(f"only a GM may {doing}", ja=f"{doing_ja}ことができるのはGMだけです")
