"""Application service for campaigns: opening, members, house rules and access tokens.

A token reads `senki.<campaign hex>.<token id>.<secret>`: it names its campaign, so checking it
is one (cached) load of that campaign and a constant-time compare of the secret's hash.

The secret is HMAC(master key, campaign, token id): a retried request (same Idempotency-Key)
gets the same token back without any secret being stored — neither in the events (only its
SHA-256) nor in the idempotency table (only the token id).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, TypeVar
from uuid import UUID

from domain.campaign import access_commands as ac
from domain.campaign import campaign
from domain.campaign import campaign_commands as cc
from domain.campaign.campaign import Campaign, Options, Role, RulesetId
from domain.errors import WrongState
from domain.events import DomainEvent
from infra.services import answers
from infra.services.answers import CampaignCreated, CampaignPublic, TokenIssued, TokenRecorded
from infra.services.executor import (
    NO_GUARD,
    Executor,
    Idempotency,
    Response,
    Write,
    new_stream_id,
)
from infra.services.watched_states import WatchedStates

Shown = TypeVar("Shown", CampaignCreated, TokenIssued)
PrincipalRole = Literal["gm", "player", "viewer", "site", "roller"]


@dataclass(frozen=True)
class Principal:
    """Who a request acts as, after its token was checked."""

    campaign_id: UUID
    token_id: str
    role: PrincipalRole
    member_id: str | None  # None for a sheet-site or roller token
    roll_log_id: UUID | None = None  # the one roll log a roller token rolls in

    @property
    def actor(self) -> str:
        if self.member_id:
            return self.member_id
        return f"{'roller' if self.role == 'roller' else 'site'}:{self.token_id}"


class InvalidToken(PermissionError):
    """Unknown, malformed, revoked, or its member left the campaign (HTTP 401).

    Every refusal reads the same (`str`): which one it was would tell a stranger whether the
    token's campaign exists, or that a token id was once issued. `reason` is for the server."""

    WORDING = "this token is not valid (unknown, revoked, or its member left): ask your GM for one"

    def __init__(self, reason: str) -> None:
        super().__init__(self.WORDING)
        self.reason = reason


class CredentialShownOnce(WrongState):
    """A retried anonymous request that issued a token: its token is not shown again (HTTP 409).

    Without a token, the caller who retries cannot be told from anyone else who learnt the
    key and the body; a token replayed to them would be a credential they never earned."""

    def __init__(self) -> None:
        super().__init__(
            "this Idempotency-Key and body were answered already, and the token issued then "
            "is shown only in that answer: to open a campaign, send the request again with a "
            "new Idempotency-Key",
            ja="この Idempotency-Key と本文にはすでに応答済みで、そのとき発行したトークンは"
            "その応答でしか示しません。キャンペーンを開くには、新しい Idempotency-Key で"
            "送り直してください",
        )


def secret_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_secret(master_key: bytes, campaign_id: UUID, token_id: str) -> str:
    tag = b"senki/token/v1/" + campaign_id.bytes + token_id.encode()
    return base64.urlsafe_b64encode(hmac.digest(master_key, tag, "sha256")).decode().rstrip("=")


def bearer(campaign_id: UUID, token_id: str, secret: str) -> str:
    return f"senki.{campaign_id.hex}.{token_id}.{secret}"


class CampaignService:
    """Campaign commands and token checks; one per process."""

    def __init__(
        self, executor: Executor, master_key: bytes, clock: Callable[[], datetime]
    ) -> None:
        self.executor = executor
        self.master_key = master_key
        self.clock = clock
        # Set by the composition root; None: every token check reads the log.
        self.access: WatchedStates[Campaign] | None = None

    def _with_token(self, answer: TokenRecorded, shown: type[Shown]) -> Shown:
        """Show the bearer token that the answer's token id stands for (derived, not stored)."""
        campaign_id, token_id = UUID(answer.id), answer.token_id
        secret = token_secret(self.master_key, campaign_id, token_id)
        # The fields as they are (already typed): nothing is parsed again.
        fields = {name: getattr(answer, name) for name in CampaignPublic.model_fields}
        return shown(**fields, token=bearer(campaign_id, token_id, secret), token_id=token_id)

    def open(
        self,
        name: str,
        ruleset: RulesetId,
        options: Options,
        *,
        gm: str,
        idempotency: Idempotency | None = None,
    ) -> CampaignCreated:
        """Open a campaign; the opener is its first GM and gets the first token, once."""
        campaign_id, token_id = new_stream_id(idempotency), secrets.token_hex(4)
        secret = token_secret(self.master_key, campaign_id, token_id)
        at = self.clock()
        command = cc.OpenCampaign(name=name, ruleset=ruleset, options=options)
        events: list[DomainEvent] = [
            *cc.open_campaign(campaign.KIND.initial(campaign_id), command, at=at, by=gm),
            *ac.first_token(gm, token_id, secret_hash(secret), at=at),
        ]
        answer = self.executor.create(
            campaign.KIND,
            campaign_id,
            events,
            lambda state, version: answers.token_recorded(state, version, token_id),
            restore=_replayed(idempotency),
            idempotency=idempotency,
        )
        return self._with_token(answer, CampaignCreated)

    def get(self, campaign_id: UUID) -> tuple[Campaign, int]:
        loaded = self.executor.load(campaign.KIND, campaign_id)
        return loaded.state, loaded.version

    def add_member(
        self, campaign_id: UUID, by: str, member_id: str, role: Role, write: Write = NO_GUARD
    ) -> CampaignPublic:
        return self._run(
            campaign_id,
            lambda s: cc.add_member(
                s, cc.AddMember(member_id=member_id, role=role), at=self.clock(), by=by
            ),
            write,
        )

    def change_role(
        self, campaign_id: UUID, by: str, member_id: str, role: Role, write: Write = NO_GUARD
    ) -> CampaignPublic:
        return self._run(
            campaign_id,
            lambda s: cc.change_role(
                s, cc.ChangeMemberRole(member_id=member_id, role=role), at=self.clock(), by=by
            ),
            write,
        )

    def remove_member(
        self, campaign_id: UUID, by: str, member_id: str, write: Write = NO_GUARD
    ) -> CampaignPublic:
        return self._run(
            campaign_id,
            lambda s: cc.remove_member(
                s, cc.RemoveMember(member_id=member_id), at=self.clock(), by=by
            ),
            write,
        )

    def change_options(
        self, campaign_id: UUID, by: str, options: Options, write: Write = NO_GUARD
    ) -> CampaignPublic:
        return self._run(
            campaign_id,
            lambda s: cc.change_options(
                s, cc.ChangeOptions(options=options), at=self.clock(), by=by
            ),
            write,
        )

    def issue_token(
        self,
        campaign_id: UUID,
        by: str,
        *,
        kind: Literal["member", "site", "roller"],
        member_id: str | None,
        label: str,
        write: Write = NO_GUARD,
        roll_log_id: UUID | None = None,
    ) -> TokenIssued:
        """A new bearer token for a member or a sheet site, shown in the answer."""
        token_id = secrets.token_hex(4)
        secret = token_secret(self.master_key, campaign_id, token_id)
        answer = self.executor.execute(
            campaign.KIND,
            campaign_id,
            lambda s: ac.issue_token(
                s,
                kind=kind,
                member_id=member_id,
                label=label,
                token_id=token_id,
                secret_sha256=secret_hash(secret),
                at=self.clock(),
                by=by,
                roll_log_id=roll_log_id,
            ),
            lambda state, version: answers.token_recorded(state, version, token_id),
            restore=TokenRecorded.model_validate,
            expected_version=write.expected_version,
            idempotency=write.idempotency,
        )
        return self._with_token(answer, TokenIssued)

    def revoke_token(
        self, campaign_id: UUID, by: str, token_id: str, write: Write = NO_GUARD
    ) -> CampaignPublic:
        return self._run(
            campaign_id, lambda s: ac.revoke_token(s, token_id, at=self.clock(), by=by), write
        )

    def authenticate(self, token: str) -> Principal:
        """The principal a bearer token stands for, or InvalidToken."""
        known = self.cached_principal(token)
        if known is not None:
            return known
        campaign_id, token_id, secret = read_token(token)
        ticket = self.access.ticket() if self.access is not None else None
        try:
            state, version = self.get(campaign_id)
        except LookupError:
            raise InvalidToken("the token's campaign does not exist") from None
        if self.access is not None:
            self.access.put(ticket, campaign_id, state, version)
        return _principal(state, token_id, secret)

    def cached_principal(self, token: str) -> Principal | None:
        """The principal from the access cache, without I/O; None when only the log can tell.

        A token the cached state refuses is checked against the log too: it may have been
        issued since (a refusal is never served from the cache, only an acceptance)."""
        campaign_id, token_id, secret = read_token(token)
        known = self.access.get(campaign_id) if self.access is not None else None
        if known is None:
            return None
        try:
            return _principal(known[0], token_id, secret)
        except InvalidToken:
            return None

    def _run(
        self,
        campaign_id: UUID,
        decide: Callable[[Campaign], list[DomainEvent]],
        write: Write = NO_GUARD,
    ) -> CampaignPublic:
        try:
            return self.executor.execute(
                campaign.KIND,
                campaign_id,
                decide,
                describe,
                restore=CampaignPublic.model_validate,
                expected_version=write.expected_version,
                idempotency=write.idempotency,
            )
        finally:
            # Every command that can take access away (revoke, remove, change role) runs
            # here: drop the cached states before answering, not when our NOTIFY comes back.
            if self.access is not None:
                self.access.written()


def _replayed(idempotency: Idempotency | None) -> Callable[[Response], TokenRecorded]:
    """How a stored answer that issued a token is replayed: only into its caller's own scope."""

    def restore(stored: Response) -> TokenRecorded:
        if idempotency is not None and idempotency.shared:
            raise CredentialShownOnce
        return TokenRecorded.model_validate(stored)

    return restore


def read_token(token: str) -> tuple[UUID, str, str]:
    """(campaign id, token id, secret) of a bearer token, or InvalidToken if malformed."""
    parts = token.split(".")
    if len(parts) != 4 or parts[0] != "senki":
        raise InvalidToken("not a Senki token: it should look like senki.<…>.<…>.<…>")
    try:
        return UUID(hex=parts[1]), parts[2], parts[3]
    except ValueError:
        raise InvalidToken("the token names no campaign") from None


def _principal(state: Campaign, token_id: str, secret: str) -> Principal:
    record = state.tokens.get(token_id)
    if record is None or not hmac.compare_digest(record.secret_sha256, secret_hash(secret)):
        raise InvalidToken("unknown token: ask your GM for a new one")
    if record.revoked:
        raise InvalidToken("this token was revoked: ask your GM for a new one")
    if record.kind == "site":
        return Principal(state.id, token_id, "site", None)
    if record.kind == "roller":
        return Principal(state.id, token_id, "roller", None, record.roll_log_id)
    role = state.role_of(record.member_id or "")
    if role is None:
        raise InvalidToken("this token's member has left the campaign")
    return Principal(state.id, token_id, role, record.member_id)


describe = answers.campaign  # a campaign as stored (infra/services/answers.py)
