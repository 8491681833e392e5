"""Pure ASGI middleware: times every request and hands each answered write to the counters.

It passes every message through as it comes, so event streams stream: a stream's latency is
its time to the response start (its first byte), recorded as that start is sent. No request
body is read; an answer is copied only where a counter needs it: an error answer (its problem
type) and a roll's answer (its dice), each capped in size.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.metrics.families import Families
from api.metrics.writes import (
    CONFLICTS,
    DICE_ROUTES,
    WRITE_METHODS,
    Finished,
    SeenKeys,
    command_kind,
    dice_sources,
    outcome,
    problem_type,
    replay_key,
)

log = logging.getLogger("senki.api.metrics")

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNMATCHED = "unmatched"  # every path no route matches: one label, whatever was asked
KEEP_BYTES = 64 * 1024  # larger bodies are not inspected (problems and answers are far smaller)
PROBLEM_JSON = b"application/problem+json"
EVENT_STREAM = b"text/event-stream"


class MetricsMiddleware:
    def __init__(self, app: ASGIApp, families: Families, seen: SeenKeys) -> None:
        self.app = app
        self.families = families
        self.seen = seen

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(scope, self.families)
        try:
            await self.app(scope, receive, exchange.send(send))
        except BaseException:
            exchange.status = exchange.status or 500  # ServerErrorMiddleware answers 500
            raise
        finally:
            exchange.observe_latency()
            try:
                if exchange.method in WRITE_METHODS or (exchange.status or 500) >= 400:
                    self._count(exchange.finished())  # a good read counts nowhere else
            except Exception:  # a counting bug must never turn an answer into an error
                log.exception("metrics: cannot count %s %s", scope["method"], exchange.route)

    def _count(self, finished: Finished) -> None:
        problem = problem_type(finished) if finished.status >= 400 else None
        if problem in CONFLICTS:
            self.families.conflicts.labels(CONFLICTS[problem or ""]).inc()
        if not finished.is_write:
            return
        first = self.seen.first_time(finished.replay_key) if finished.accepted else True
        ruleset, command = command_kind(finished)
        self.families.commands.labels(
            ruleset, command, outcome(finished, problem, first_answer=first)
        ).inc()
        if first:
            for source in dice_sources(finished):
                self.families.dice.labels(source).inc()


class _Exchange:
    """One request as it passes: its timing, status, and the answer worth keeping."""

    def __init__(self, scope: Scope, families: Families) -> None:
        self.scope = scope
        self.families = families
        self.started = time.perf_counter()
        self.method = scope["method"] if scope["method"] in METHODS else "other"
        self.status: int | None = None
        self.observed = False
        self.response_body: _Copy | None = None

    def send(self, send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                self._start(message)
            elif message["type"] == "http.response.body" and self.response_body is not None:
                self.response_body.add(message)
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self.observe_latency()  # the last byte is out

        return sending

    def _start(self, message: Message) -> None:
        self.status = int(message["status"])
        content_type = _header(message, b"content-type")
        if content_type.startswith(EVENT_STREAM):
            self.observe_latency()  # a stream may stay open for minutes: time its first byte
        wanted = content_type.startswith(PROBLEM_JSON) or (
            200 <= self.status < 300 and self.route in DICE_ROUTES
        )
        self.response_body = _Copy() if wanted else None

    @property
    def route(self) -> str | None:
        path = getattr(self.scope.get("route"), "path", None)
        return path if isinstance(path, str) else None

    def observe_latency(self) -> None:
        if self.observed:
            return
        self.observed = True
        self.families.latency.labels(
            self.method, self.route or UNMATCHED, str(self.status or 500)
        ).observe(time.perf_counter() - self.started)

    def finished(self) -> Finished:
        headers = dict(self.scope["headers"])
        return Finished(
            method=self.method,
            route=self.route,
            name=getattr(self.scope.get("route"), "name", None),
            status=self.status or 500,
            response_body=self.response_body.whole() if self.response_body is not None else None,
            replay_key=replay_key(headers.get(b"authorization"), headers.get(b"idempotency-key")),
        )


class _Copy:
    """A body copied chunk by chunk while under the cap; past it, it is not inspected at all."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.complete = True

    def add(self, message: Message) -> None:
        chunk = message.get("body", b"")
        if self.complete and len(self.data) + len(chunk) <= KEEP_BYTES:
            self.data.extend(chunk)
        else:
            self.complete = False
            self.data.clear()

    def whole(self) -> bytes | None:
        return bytes(self.data) if self.complete else None


def _header(message: Message, name: bytes) -> bytes:
    for key, value in message.get("headers", []):
        if key.lower() == name:
            return bytes(value).lower()
    return b""
