"""An encounter's events: paged by cursor (its version), and live as Server-Sent Events.

The live feed polls the encounter's stream every `POLL_SECONDS`: one indexed query per
listener, no connection held between polls, and it works the same behind any number of API
replicas. A client resumes with `Last-Event-ID` (the event id is the encounter's version).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Annotated
from uuid import UUID

import anyio
from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from api.deps import RuntimeDep
from api.encounter_views import EventPublic, event_public, lens_for
from api.routes.encounters import load_for
from api.security import READERS, PrincipalDep
from infra.bootstrap import Runtime
from infra.services.campaigns import Principal
from infra.store.stream_page import read_page

router = APIRouter(prefix="/v1/encounters", tags=["encounters"])

POLL_SECONDS = 0.3
HEARTBEAT_SECONDS = 15.0
# A stream ends after this long; EventSource reconnects on its own, with Last-Event-ID.
MAX_SECONDS = 600.0


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
    return EventPage(
        events=[event_public(r, lens) for r in shown],
        next_cursor=shown[-1].version if shown else after,
        more=len(page) > limit,
    )


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
    after: Annotated[int | None, Query(ge=0, description="Start after this version.")] = None,
    limit: Annotated[int | None, Query(ge=1, description="End after this many events.")] = None,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> StreamingResponse:
    """New events (rulings among them) as they are recorded; `id:` is the version."""
    load_for(runtime, who, encounter_id, READERS)
    start = after if last_event_id is None else _version(last_event_id)
    feed = _feed(request, runtime, who, encounter_id, start or 0, limit)
    return StreamingResponse(
        feed,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _version(last_event_id: str) -> int:
    if not last_event_id.strip().isdigit():
        raise HTTPException(400, "Last-Event-ID must be an event id this stream sent (a version)")
    return int(last_event_id)


async def _feed(
    request: Request,
    runtime: Runtime,
    who: Principal,
    encounter_id: UUID,
    after: int,
    limit: int | None,
) -> AsyncIterator[str]:
    yield f"retry: {int(POLL_SECONDS * 1000) * 3}\n\n"
    sent, quiet_since, ends = 0, time.monotonic(), time.monotonic() + MAX_SECONDS
    while time.monotonic() < ends and not await request.is_disconnected():
        want = 100 if limit is None else min(100, limit - sent)
        page = await run_in_threadpool(
            read_page, runtime.ledger, encounter_id, after=after, limit=want
        )
        lens = await run_in_threadpool(lens_for, runtime, who, encounter_id) if page else None
        for recorded in page:
            assert lens is not None
            yield _frame(event_public(recorded, lens))
            after, sent, quiet_since = recorded.version, sent + 1, time.monotonic()
        if limit is not None and sent >= limit:
            return
        if not page:
            if time.monotonic() - quiet_since > HEARTBEAT_SECONDS:
                yield ": keep-alive\n\n"  # keeps proxies from closing an idle stream
                quiet_since = time.monotonic()
            await anyio.sleep(POLL_SECONDS)


def _frame(event: EventPublic) -> str:
    return f"id: {event.version}\nevent: {event.type}\ndata: {event.model_dump_json()}\n\n"
