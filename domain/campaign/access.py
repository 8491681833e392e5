"""Access tokens as facts of the Campaign: issued (only a hash is kept) and revoked.

Keeping them in the campaign's own stream gives an audit trail of who could act, makes a
revocation take effect on every API process at once (each reads the stream), and needs no
table of its own. The secret is generated and hashed outside the domain; only the hash and
what the token may do are recorded here.
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from domain.events import DomainEvent, registry

TokenRole = Literal["member", "site", "roller"]


class AccessTokenIssued(DomainEvent):
    """A bearer token: for a member (acts with the member's current role), a sheet site, or a
    roller (rolls in one roll log and nothing else: a BCDice-API client's credential)."""

    event_type = "AccessTokenIssued"
    token_id: str = Field(pattern=r"^[0-9a-f]{8,32}$")
    kind: TokenRole
    member_id: str | None = None
    label: str = ""
    secret_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    # The roll log a roller token rolls in. Added with a default, so the stored v1 shape
    # (member and site tokens) still reads unchanged.
    roll_log_id: UUID | None = None


class AccessTokenRevoked(DomainEvent):
    event_type = "AccessTokenRevoked"
    token_id: str


registry.register(AccessTokenIssued, AccessTokenRevoked)


class AccessToken(BaseModel):
    """What the campaign remembers of a token: never the secret itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    token_id: str
    kind: TokenRole
    member_id: str | None
    label: str
    secret_sha256: str
    issued_by: str
    revoked: bool = False
    roll_log_id: UUID | None = None
