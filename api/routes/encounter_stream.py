"""An encounter's events: paged by cursor (its version), and live as Server-Sent Events.

The live feed polls the encounter's stream every `POLL_SECONDS`: one indexed query per
listener, no connection held between polls, and it works the same behind any number of API
replicas. A client resumes with `Last-Event-ID` (the event id is the encounter's version).

A stream lives no longer than the access it was opened with: every `RECHECK_SECONDS` its token
is checked again (from the access cache while the append watch vouches for it, else from the
log), and the stream ends with a `closed` event once the token is revoked, its member left,
or its role changed (a reconnect then reads as what the token is now, or gets the 401). It
also ends within one poll when the server begins to shut down, so an open stream never holds
`senki serve` past its graceful timeout.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Annotated
from uuid import UUID

import anyio
from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.encounter_views import event_public, lens_for
from api.routes.encounters import load_for
from api.security import READERS, PrincipalDep, bearer, current_principal
from infra.services import (
    EventPublic,
    InvalidToken,
    LogEntry,
    Principal,
    Recorded,
    Runtime,
    read_page,
)

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])

POLL_SECONDS = 0.3
HEARTBEAT_SECONDS = 15.0
# A stream ends after this long; EventSource reconnects on its own, with Last-Event-ID.
MAX_SECONDS = 600.0
# How often an open stream checks its token again: how long a revoked token may still read.
RECHECK_SECONDS = 1.0


class EventPage(BaseModel):
    events: list[EventPublic]
    next_cursor: int = Field(description="Pass as `after` to read on (the last version seen).")
    more: bool = Field(description="Whether more events follow right now.")


@router.get("/{encounter_id}/events", response_model=EventPage)
def events(
    encounter_id: UUID,
    runtime: RuntimeDep,
    who: PrincipalDep,
    after: Annotated[int, Query(ge=0, description="Cursor: events after this version.")] = 0,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> EventPage:
    """The encounter's events after a cursor, oldest first, each with who and when."""
    load_for(runtime, who, encounter_id, READERS)
    page = read_page(runtime.ledger, encounter_id, after=after, limit=limit + 1)
    shown = page[:limit]
    lens = lens_for(runtime, who, encounter_id)
    logs = _logs(runtime, encounter_id, shown)
    return EventPage(
        events=[event_public(r, lens, logs.get(r.position or 0)) for r in shown],
        next_cursor=shown[-1].version if shown else after,
        more=len(page) > limit,
    )


def _logs(runtime: Runtime, encounter_id: UUID, page: list[Recorded]) -> dict[int, LogEntry]:
    """Each event's leaf in its shard's tree (issue 37)."""
    shard = runtime.ledger.shard_of(encounter_id)
    return runtime.log_trees.entries(shard, [r.position for r in page])


@router.get(
    "/{encounter_id}/stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events"}},
)
def stream(
    encounter_id: UUID,
    request: Request,
    runtime: RuntimeDep,
    who: PrincipalDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    after: Annotated[int | None, Query(ge=0, description="Start after this version.")] = None,
    limit: Annotated[int | None, Query(ge=1, description="End after this many events.")] = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    """New events (rulings among them) as they are recorded; `id:` is the version.

    The stream ends with an `event: closed` (data: `reason`, `detail`) when its token stops
    giving this access (`reason`: `unauthorized`) or the server shuts down (`shutting-down`:
    reconnect with Last-Event-ID)."""
    load_for(runtime, who, encounter_id, READERS)
    assert credentials is not None  # the principal was read from it
    start = after if last_event_id is None else _version(last_event_id)
    access = _Access(runtime, credentials.credentials, who)
    feed = _feed(request, runtime, access, encounter_id, start or 0, limit)
    return StreamingResponse(
        feed,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _version(last_event_id: str) -> int:
    if not last_event_id.strip().isdigit():
        raise HTTPException(400, "Last-Event-ID must be an event id this stream sent (a version)")
    return int(last_event_id)


class _Access:
    """The access a stream was opened with, checked again every `RECHECK_SECONDS`."""

    def __init__(self, runtime: Runtime, token: str, who: Principal) -> None:
        self.runtime, self.token, self.who = runtime, token, who
        self.checked_at = time.monotonic()

    async def lost(self) -> str | None:
        """Why the token no longer reads what this stream sends (None: it still does)."""
        if time.monotonic() - self.checked_at < RECHECK_SECONDS:
            return None
        try:
            now = await current_principal(self.runtime, self.token)
        except InvalidToken as refused:
            return str(refused)
        self.checked_at = time.monotonic()
        if now != self.who:
            return f"this token now acts as {now.role}: reconnect to read as a {now.role}"
        return None


async def _feed(
    request: Request,
    runtime: Runtime,
    access: _Access,
    encounter_id: UUID,
    after: int,
    limit: int | None,
) -> AsyncIterator[str]:
    who = access.who
    yield f"retry: {int(POLL_SECONDS * 1000) * 3}\n\n"
    sent, quiet_since, ends = 0, time.monotonic(), time.monotonic() + MAX_SECONDS
    while time.monotonic() < ends and not await request.is_disconnected():
        if runtime.shutting_down.is_set():
            yield _closed(
                "shutting-down",
                "the server is shutting down: reconnect with "
                "Last-Event-ID to resume where this stream stopped",
            )
            return
        if (lost := await access.lost()) is not None:
            yield _closed("unauthorized", lost)
            return
        want = 100 if limit is None else min(100, limit - sent)
        page = await run_in_threadpool(
            read_page, runtime.ledger, encounter_id, after=after, limit=want
        )
        lens = await run_in_threadpool(lens_for, runtime, who, encounter_id) if page else None
        logs = await run_in_threadpool(_logs, runtime, encounter_id, page) if page else {}
        for recorded in page:
            assert lens is not None
            yield _frame(event_public(recorded, lens, logs.get(recorded.position or 0)))
            after, sent, quiet_since = recorded.version, sent + 1, time.monotonic()
        if limit is not None and sent >= limit:
            return
        if not page:
            if time.monotonic() - quiet_since > HEARTBEAT_SECONDS:
                yield ": keep-alive\n\n"  # keeps proxies from closing an idle stream
                quiet_since = time.monotonic()
            await anyio.sleep(POLL_SECONDS)


def _closed(reason: str, detail: str) -> str:
    """The last event of a stream the server ends (no `id:`: Last-Event-ID stays put)."""
    return f"event: closed\ndata: {json.dumps({'reason': reason, 'detail': detail})}\n\n"


def _frame(event: EventPublic) -> str:
    return f"id: {event.version}\nevent: {event.type}\ndata: {event.model_dump_json()}\n\n"
