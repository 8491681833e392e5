"""Bearer tokens and roles: who is calling, and may they do this to this campaign?"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from typing import Annotated
from uuid import UUID

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from api.deps import RuntimeDep
from infra.services import InvalidToken, Principal, PrincipalRole, Runtime

bearer = HTTPBearer(auto_error=False, description="A Senki token: senki.<campaign>.<id>.<secret>")
BearerDep = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]

WRITERS: tuple[PrincipalRole, ...] = ("gm", "player")
READERS: tuple[PrincipalRole, ...] = ("gm", "player", "viewer", "site")
MEMBERS: tuple[PrincipalRole, ...] = ("gm", "player", "viewer")
GM_ONLY: tuple[PrincipalRole, ...] = ("gm",)


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def principal(
    request: Request,
    runtime: RuntimeDep,
    credentials: BearerDep,
) -> AsyncIterator[Principal]:
    """The caller, checked on the event loop when the cache can vouch for its token (no
    thread hop); only a check that needs the database goes to a thread.

    A write's own appends void what this process's caches hold of their streams at once
    (the ledger tells the append watch, before the answer leaves), so the caller's next read
    already sees its own write, and every other cached state, the caller's token with it,
    stays good. A write that fails may have appended before failing: then every cached
    state is voided, to be safe."""
    who = await checked(runtime, credentials)
    if request.method in SAFE_METHODS:
        yield who
        return
    with voided_on_failure(runtime):
        yield who


@contextmanager
def voided_on_failure(runtime: Runtime) -> Iterator[None]:
    """A write that fails may have appended before failing: void every cached state."""
    try:
        yield
    except BaseException:
        runtime.append_watch.bump()
        raise


async def checked(runtime: Runtime, credentials: HTTPAuthorizationCredentials | None) -> Principal:
    if credentials is None:
        raise HTTPException(
            401,
            "send `Authorization: Bearer <token>`; a campaign's first token is returned "
            "when it is created, others are issued by its GM",
            headers={"WWW-Authenticate": "Bearer"},
        )
    try:
        # Stripped: older FastAPI releases (0.121 among them) keep the spaces after `Bearer`.
        return await current_principal(runtime, credentials.credentials.strip())
    except InvalidToken as error:
        raise HTTPException(401, str(error), headers={"WWW-Authenticate": "Bearer"}) from None


async def current_principal(runtime: Runtime, token: str) -> Principal:
    """Who the token stands for now, or InvalidToken: from the access cache when it can
    vouch (no thread hop), else checked against the log on a thread."""
    known = runtime.campaigns.cached_principal(token)
    if known is not None:
        return known
    return await run_in_threadpool(runtime.campaigns.authenticate, token)


# Function scope: the code after `yield` runs when the route returns, before the response
# is sent (request scope would run it only after sending).
PrincipalDep = Annotated[Principal, Depends(principal, scope="function")]


def require(who: Principal, campaign_id: UUID, roles: Iterable[PrincipalRole]) -> None:
    """403 unless the token belongs to this campaign and its role is one of `roles`."""
    if who.campaign_id != campaign_id:
        raise HTTPException(403, "this token belongs to another campaign")
    allowed = tuple(roles)
    if who.role not in allowed:
        raise HTTPException(
            403, f"a {who.role} token may not do this; it needs one of: {', '.join(allowed)}"
        )
