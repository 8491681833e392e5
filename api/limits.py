"""Bounds on what one request may hold: its body's size (413) and its body's time (408),
and the counters the floods are bounded with (api/floods.py).

A declared Content-Length over the limit is refused before the app runs; one within it is
all the server reads of the body (the HTTP parser stops there). A chunked body (no
Content-Length) can only be counted as it arrives: the app is cut off at the first chunk past
the limit, whatever it makes of that (FastAPI turns a failed body read into a 400), its answer
is dropped, and the client gets the 413. A body that has not all arrived `body_timeout_s`
after the request began is cut off the same way, with a 408: a client sending its body a byte
at a time holds a connection and a request no longer than that.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable

import anyio
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.problems import PROBLEM_JSON, TYPE_BASE


class BodySizeLimit:
    """ASGI middleware: 413 problem details when a body exceeds `max_bytes`, 408 when it has
    not arrived within `body_timeout()` seconds (None: no bound)."""

    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        body_timeout: Callable[[], float | None] = lambda: None,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        timeout = self.body_timeout()
        chunked = b"transfer-encoding" in headers or not (declared is None or declared.isdigit())
        if not chunked and (timeout is None or declared in (None, b"0")):
            # No body, or one the parser reads no further than its declared length.
            await self.app(scope, receive, send)
            return
        deadline = None if timeout is None else time.monotonic() + timeout
        body = _CountedBody(self.max_bytes, receive, send, deadline)
        try:
            await self.app(scope, body.receive, body.send)
        except Exception:
            if not (body.over or body.late):
                raise
            # Whatever the app raised was its reaction to the body being cut off.
        if body.answered:
            return
        if body.over:
            await self._refuse(send)
        elif body.late:
            await refuse(
                send,
                408,
                "request-timeout",
                "Request body too slow",
                f"The body did not arrive within {timeout} s of the request; send it at once.",
                close=True,
            )

    async def _refuse(self, send: Send) -> None:
        # The rest of the body is never read: the connection cannot be reused.
        await refuse(
            send,
            413,
            "too-large",
            "Request body too large",
            f"The body is over {self.max_bytes} bytes; send less per request.",
            close=True,
        )


async def refuse(
    send: Send,
    status: int,
    kind: str,
    title: str,
    detail: str,
    *,
    retry_after: int | None = None,
    close: bool = False,
) -> None:
    """Answer with RFC 9457 problem details from a middleware, before the app runs."""
    payload = json.dumps(
        {"type": TYPE_BASE + kind, "title": title, "status": status, "detail": detail}
    ).encode()
    headers = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(payload)).encode()),
    ]
    if retry_after is not None:
        headers.append((b"retry-after", str(retry_after).encode()))
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


async def too_many(send: Send, detail: str, retry_after: int) -> None:
    await refuse(
        send, 429, "too-many-requests", "Too many requests", detail, retry_after=retry_after
    )


class Slots:
    """At most `each` held at once per key (a token) and `total` held at once in all: taken
    without waiting, so a caller over either is refused at once rather than queued."""

    def __init__(self, each: int, total: int) -> None:
        self.each, self.total = each, total
        self.held: dict[str, int] = {}
        self.in_all = 0
        self._lock = threading.Lock()

    def take(self, key: str) -> str | None:
        """None when taken; else which bound refused it (`token` or `process`)."""
        with self._lock:
            mine = self.held.get(key, 0)
            if mine >= self.each:
                return "token"
            if self.in_all >= self.total:
                return "process"
            self.held[key] = mine + 1
            self.in_all += 1
            return None

    def give_back(self, key: str) -> None:
        with self._lock:
            left = self.held.get(key, 0) - 1
            if left > 0:
                self.held[key] = left
            else:
                self.held.pop(key, None)
            self.in_all -= 1


def holder(authorization: str) -> str:
    """The key a token's slots are counted under (its digest: no secret kept in memory)."""
    return hashlib.sha256(authorization.encode()).hexdigest()


class _CountedBody:
    """The app's receive and send for one request: counts the body's bytes as they arrive,
    and once past the limit refuses to read more and drops what the app answers."""

    def __init__(
        self, max_bytes: int, receive: Receive, send: Send, deadline: float | None
    ) -> None:
        self.max_bytes = max_bytes
        self._receive = receive
        self._send = send
        self.deadline = deadline
        self.received = 0
        self.complete = False  # the whole body arrived: no deadline any more
        self.over = False
        self.late = False
        self.answered = False  # the app started its answer before the body went over

    async def receive(self) -> Message:
        if self.over or self.late:
            raise _CutOff
        if self.complete or self.deadline is None:
            message = await self._receive()
        else:
            with anyio.move_on_after(self.deadline - time.monotonic()):
                message = await self._receive()
                return self._counted(message)
            self.late = True
            raise _CutOff
        return self._counted(message)

    def _counted(self, message: Message) -> Message:
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            self.complete = not message.get("more_body", False)
            if self.received > self.max_bytes:
                self.over = True
                raise _CutOff
        return message

    async def send(self, message: Message) -> None:
        if (self.over or self.late) and not self.answered:
            return  # the client gets the 413 (or 408) instead
        if message["type"] == "http.response.start":
            self.answered = True
        await self._send(message)


class _CutOff(Exception):
    pass


class Buckets:
    """A token bucket per key (a client address): `burst` requests at once, refilled at
    `rate` a second. Buckets that refilled to the brim are forgotten, so an address is held
    in memory only while it is being limited."""

    MOST_KEYS = 100_000  # past this many addresses at once, the fullest are forgotten

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic):
        self.rate, self.burst, self.clock = rate, burst, clock
        self._level: dict[str, tuple[float, float]] = {}  # key → (tokens, at)
        self._lock = threading.Lock()

    def take(self, key: str, *, charge: bool = True) -> float | None:
        """None when the request may go; else the seconds until one would. `charge=False`
        only looks: whether the bucket is empty, taking nothing from it."""
        now = self.clock()
        with self._lock:
            tokens, at = self._level.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.rate)
            if tokens < 1:
                self._level[key] = (tokens, now)
                return (1 - tokens) / self.rate
            if charge:
                self._level[key] = (tokens - 1, now)
            if len(self._level) > self.MOST_KEYS:
                self._forget_full(now)
            return None

    def _forget_full(self, now: float) -> None:
        for key, (tokens, at) in list(self._level.items()):
            if tokens + (now - at) * self.rate >= self.burst:
                del self._level[key]
        if len(self._level) > self.MOST_KEYS:
            self._level.clear()  # a flood of addresses: start every bucket full again
