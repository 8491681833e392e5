"""Bearer tokens and roles: who is calling, and may they do this to this campaign?"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated
from uuid import UUID

from fastapi import Depends, HTTPException
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.deps import RuntimeDep
from infra.services.campaigns import InvalidToken, Principal, PrincipalRole

bearer = HTTPBearer(auto_error=False, description="A Senki token: senki.<campaign>.<id>.<secret>")

WRITERS: tuple[PrincipalRole, ...] = ("gm", "player")
READERS: tuple[PrincipalRole, ...] = ("gm", "player", "viewer", "site")
MEMBERS: tuple[PrincipalRole, ...] = ("gm", "player", "viewer")
GM_ONLY: tuple[PrincipalRole, ...] = ("gm",)


def principal(
    runtime: RuntimeDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
) -> Principal:
    if credentials is None:
        raise HTTPException(
            401,
            "send `Authorization: Bearer <token>`; a campaign's first token is returned "
            "when it is created, others are issued by its GM",
            headers={"WWW-Authenticate": "Bearer"},
        )
    try:
        return runtime.campaigns.authenticate(credentials.credentials)
    except InvalidToken as error:
        raise HTTPException(401, str(error), headers={"WWW-Authenticate": "Bearer"}) from None


PrincipalDep = Annotated[Principal, Depends(principal)]


def require(who: Principal, campaign_id: UUID, roles: Iterable[PrincipalRole]) -> None:
    """403 unless the token belongs to this campaign and its role is one of `roles`."""
    if who.campaign_id != campaign_id:
        raise HTTPException(403, "this token belongs to another campaign")
    allowed = tuple(roles)
    if who.role not in allowed:
        raise HTTPException(
            403, f"a {who.role} token may not do this; it needs one of: {', '.join(allowed)}"
        )
