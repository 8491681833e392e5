"""Reads whose cost grows with a fight's length, bounded per token and per process.

A what-if replay, the procedure points and the fight at a turn each re-run the whole
encounter: on a 5,000-event fight a replay takes more than half a second of CPU, and a few
clients asking at once starve every other request of the interpreter. So a token has at most
`heavy_reads_per_token` of them computed at once and the process `heavy_reads_per_process`;
past either the answer is 429 with Retry-After, at once (no queue to hold). An answer given
once is served again from api/answers.py while its encounter is unchanged, which takes no
slot. (The rulings and the audit walk the log too, but the table page asks for them together
with the points on every load: they are not counted here.)

An ASGI middleware, because these reads are spread over several routers: it knows them by
path, and lets every other request pass untouched.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import cast
from uuid import UUID

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.answers import Kept
from api.floods import Floods
from api.limits import holder, too_many
from api.security import current_principal
from infra.services import InvalidToken, Runtime

HEAVY = re.compile(
    r"^/v1/encounters/(?P<encounter>[0-9a-fA-F-]{32,36})/"
    r"(?P<read>replay|points|at)$"
)
RETRY_AFTER_SECONDS = 2


class HeavyReads:
    def __init__(
        self, app: ASGIApp, floods: Callable[[], Floods | None], senki: Callable[[], object]
    ) -> None:
        self.app, self.floods, self.senki = app, floods, senki

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        floods = self.floods()
        found = HEAVY.match(scope["path"]) if scope["type"] == "http" else None
        authorization = _header(scope, b"authorization") if found else None
        if floods is None or found is None or authorization is None:
            await self.app(scope, receive, send)
            return
        try:
            encounter_id = UUID(found["encounter"])
        except ValueError:
            await self.app(scope, receive, send)
            return
        body, receive = await _buffered(receive)
        key = await self._key(scope, authorization, encounter_id, body)
        runtime = cast(Runtime, self.senki())
        watch = runtime.append_watch
        if key is not None and (kept := floods.answers.get(key, watch)) is not None:
            await _resend(kept, send)
            return
        slot = holder(authorization)
        refused = floods.heavy_reads.take(slot)
        if refused is not None:
            await too_many(send, _why(floods, refused), RETRY_AFTER_SECONDS)
            return
        ticket = watch.ticket()
        answer = _Answer(send)
        try:
            await self.app(scope, receive, answer.send)
        finally:
            floods.heavy_reads.give_back(slot)
        if key is not None and ticket is not None and answer.status == 200:
            floods.answers.keep(
                key, Kept(ticket, encounter_id, answer.status, answer.headers, bytes(answer.body))
            )

    async def _key(
        self, scope: Scope, authorization: str, encounter_id: UUID, body: bytes
    ) -> tuple[object, ...] | None:
        """What determines the answer; None when the token does not say who reads (the app
        then answers 401 as it does)."""
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token:
            return None
        try:
            who = await current_principal(cast(Runtime, self.senki()), token.strip())
        except InvalidToken:
            return None
        return (
            scope["method"],
            scope["path"],
            encounter_id,
            scope["query_string"],
            hashlib.sha256(body).digest(),
            who.campaign_id,
            who.role,
            who.member_id,
        )


def _why(floods: Floods, refused: str) -> str:
    if refused == "token":
        return (
            f"this token already has {floods.settings.heavy_reads_per_token} replays, points "
            f"or time travels being computed: wait for them, then retry after "
            f"{RETRY_AFTER_SECONDS} s"
        )
    return (
        f"this server is computing {floods.settings.heavy_reads_per_process} replays, "
        f"points or time travels already: retry after {RETRY_AFTER_SECONDS} s"
    )


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body (BodySizeLimit, inside, bounds it), and a receive that hands
    it to the app as if it were arriving."""
    chunks: list[bytes] = []
    first: list[Message] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            first.append(message)  # the client left: let the app see it
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}, *first]

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return body, replayed


class _Answer:
    """The app's answer as it passes: kept whole to be served again."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.status = 0
        self.headers: list[tuple[bytes, bytes]] = []
        self.body = bytearray()

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            self.headers = [(bytes(k), bytes(v)) for k, v in message.get("headers", [])]
        elif message["type"] == "http.response.body":
            self.body.extend(message.get("body", b""))
        await self._send(message)


async def _resend(kept: Kept, send: Send) -> None:
    await send({"type": "http.response.start", "status": kept.status, "headers": kept.headers})
    await send({"type": "http.response.body", "body": kept.body})
