"""An encounter's events: paged by cursor (its version), and live as Server-Sent Events.

The live feed reads the encounter's stream when the process's one LISTEN hears it appended to
(api/live.py): an idle stream costs no query, and it works the same behind any number of API
replicas (each hears every append's NOTIFY). While the append watch cannot vouch for what it
heard (its connection lost or silent), the feed polls every `POLL_SECONDS` instead. A client
resumes with `Last-Event-ID` (the event id is the encounter's version). One token holds at
most `streams_per_token` streams at once and the process `streams_per_process` (settings):
past either, 429 with Retry-After.

A stream lives no longer than the access it was opened with: its token is checked again (from
the access cache) whenever its campaign is appended to, and every `RECHECK_SECONDS` (from the
log) while the append watch cannot vouch for the cache; the stream ends with a `closed` event
once the token is revoked, its member left, or its role changed (a reconnect then reads as
what the token is now, or gets the 401). It also ends within `GUARD_SECONDS` (api/live.py)
when the server begins to shut down, so an open stream never holds `senki serve` past its
graceful timeout.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any
from uuid import UUID

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request
from fastapi.responses import Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, Field
from starlette.types import Receive, Scope, Send

from api.deps import RuntimeDep
from api.encounter_views import event_public, lens_for
from api.floods import Floods, floods_of
from api.leaves import entries
from api.limits import holder
from api.live_reads import LIVE_PAGE
from api.problems import problem
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
RETRY_AFTER_SECONDS = 30  # a refused stream: when one of the token's may have ended


class EventPage(BaseModel):
    events: list[EventPublic]
    next_cursor: int = Field(description="Pass as `after` to read on (the last version seen).")
    more: bool = Field(description="Whether more events follow right now.")


@router.get(
    "/{encounter_id}/events",
    response_model=EventPage,
    operation_id="listEncounterEvents",
    summary="Page through an encounter's events",
)
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
    return entries(runtime, encounter_id, [r.position for r in page])


@router.get(
    "/{encounter_id}/stream",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events"},
        429: {"description": "This token, or this server, holds as many streams as it may"},
    },
    operation_id="streamEncounterEvents",
    summary="Follow an encounter's events live (SSE)",
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
) -> Response:
    """New events (rulings among them) as they are recorded; `id:` is the version.

    The stream ends with an `event: closed` (data: `reason`, `detail`) when its token stops
    giving this access (`reason`: `unauthorized`) or the server shuts down (`shutting-down`:
    reconnect with Last-Event-ID). 429 when the token (or the server) holds as many streams
    as it may: close one, or retry after `Retry-After` seconds."""
    load_for(runtime, who, encounter_id, READERS)
    assert credentials is not None  # the principal was read from it
    start = after if last_event_id is None else _version(last_event_id)
    floods = floods_of(request)
    slot = holder(credentials.credentials)
    refused = floods.streams.take(slot)
    if refused is not None:
        return _too_many(floods, refused)
    access = _Access(runtime, credentials.credentials, who)
    feed = _feed(request, runtime, access, encounter_id, start or 0, limit)
    return _HeldStream(
        floods,
        slot,
        feed,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _too_many(floods: Floods, refused: str) -> Response:
    if refused == "token":
        bound = floods.settings.streams_per_token
        detail = (
            f"this token already holds {bound} live streams: close one (one per page is "
            f"enough) or retry after {RETRY_AFTER_SECONDS} s"
        )
    else:
        bound = floods.settings.streams_per_process
        detail = (
            f"this server holds {bound} live streams, its most: retry after "
            f"{RETRY_AFTER_SECONDS} s, or read /events by cursor meanwhile"
        )
    refusal = problem(429, "too-many-requests", "Too many requests", detail)
    refusal.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return refusal


class _HeldStream(StreamingResponse):
    """A live stream that gives its slot back however it ends (finished, client gone, error)."""

    def __init__(self, floods: Floods, slot: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.floods, self.slot = floods, slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.floods.streams.give_back(self.slot)


def _version(last_event_id: str) -> int:
    if not last_event_id.strip().isdigit():
        raise HTTPException(400, "Last-Event-ID must be an event id this stream sent (a version)")
    return int(last_event_id)


class _Access:
    """The access a stream was opened with, checked again whenever its campaign may have
    changed (the watch heard it appended to), and every `RECHECK_SECONDS` while the watch
    cannot vouch for it."""

    def __init__(self, runtime: Runtime, token: str, who: Principal) -> None:
        self.runtime, self.token, self.who = runtime, token, who
        self.checked_at = time.monotonic()
        self.ticket: int | None = None  # the watch's, from before the last check

    async def lost(self) -> str | None:
        """Why the token no longer reads what this stream sends (None: it still does)."""
        watch = self.runtime.append_watch
        if self.ticket is not None and watch.still(self.ticket, self.who.campaign_id):
            return None  # nothing was appended to the campaign since the last check
        if self.ticket is None and time.monotonic() - self.checked_at < RECHECK_SECONDS:
            return None
        ticket = watch.ticket()
        try:
            now = await current_principal(self.runtime, self.token)
        except InvalidToken as refused:
            return str(refused)
        self.checked_at, self.ticket = time.monotonic(), ticket
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
    watch = runtime.append_watch
    ticket: int | None = None  # the watch's, from before the last read (None: read again)
    live = floods_of(request).live
    reads = live.reads
    # Woken by an append to the encounter, or to the campaign (a token revoked, a role changed).
    following = live.following(watch, encounter_id, who.campaign_id, stop=runtime.shutting_down)
    with following as woken, reads.following(runtime, encounter_id):
        # A client that leaves ends the stream by itself: Starlette's StreamingResponse listens
        # for the disconnect beside the body and cancels it; asking here as well cost a cancel
        # scope and a receive on every wake (docs/capacity.md).
        while time.monotonic() < ends:
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
            if ticket is None or not watch.still(ticket, encounter_id):
                want = LIVE_PAGE if limit is None else min(LIVE_PAGE, limit - sent)
                # One read a wake for every stream of the encounter in this process; the frames
                # made once per view (api/live_reads.py). Its ticket: from before that read.
                taken = await reads.taken(
                    runtime, who, encounter_id, after=after, want=want, frame=_frame
                )
                ticket, page = taken.ticket, taken.events
                if page:
                    # The page's frames in one body chunk: the same bytes on the wire, one
                    # write through the middleware and the socket, not one for each event
                    # (a command appends five on average).
                    yield "".join(taken.frames)
                    after, sent, quiet_since = page[-1].version, sent + len(page), time.monotonic()
                if limit is not None and sent >= limit:
                    return
                if len(page) == want or not taken.whole:
                    ticket = None  # more may follow at once
                    continue
            if time.monotonic() - quiet_since > HEARTBEAT_SECONDS:
                yield ": keep-alive\n\n"  # keeps proxies from closing an idle stream
                quiet_since = time.monotonic()
            # Its access checked without the watch's word: checked again on a timer.
            recheck = ends if access.ticket is not None else access.checked_at + RECHECK_SECONDS
            wake_by = min(ends, recheck)
            await _woken_or_after(woken, _quiet(ticket, quiet_since, wake_by))
            woken.clear()  # what to read is the watch's to say (above), not the wake-up's


async def _woken_or_after(woken: asyncio.Event, seconds: float) -> None:
    """Wait until `woken` is set or `seconds` passed: a timer that sets it, not a timeout
    that cancels the wait: no cancel scope on every wake of every stream."""
    timer = asyncio.get_running_loop().call_later(seconds, woken.set)
    try:
        await woken.wait()
    finally:
        timer.cancel()


def _quiet(ticket: int | None, quiet_since: float, wake_by: float) -> float:
    """How long a stream with nothing new sleeps unless woken. While the watch vouches, a wake
    comes with every append, and from the live feeds' guard when the server begins to shut
    down or the watch stops vouching (api/live.py): it sleeps until its next keep-alive is
    due or `wake_by` (its end, its access's recheck), with a jitter that keeps the streams
    opened together from waking together. Else unheard appends are possible: poll."""
    if ticket is None:
        return POLL_SECONDS
    due = min(quiet_since + HEARTBEAT_SECONDS, wake_by) - time.monotonic()
    return max(0.0, due) + random.random() / 2


def _closed(reason: str, detail: str) -> str:
    """The last event of a stream the server ends (no `id:`: Last-Event-ID stays put)."""
    return f"event: closed\ndata: {json.dumps({'reason': reason, 'detail': detail})}\n\n"


def _frame(event: EventPublic) -> str:
    return f"id: {event.version}\nevent: {event.type}\ndata: {event.model_dump_json()}\n\n"
