"""Pure ASGI middleware: times every request and hands each answered write to the counters.

It passes every message through as it comes, so event streams stream: a stream's latency is
its time to the response start (its first byte), recorded as that start is sent. Bodies are
copied only where a counter needs them: an encounter command's request (its `command`), an
error answer (its problem type) and an answer that lists dice, each capped in size.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.metrics.families import Families
from api.metrics.writes import (
    COMMANDS_ROUTE,
    CONFLICTS,
    DICE_ROUTES,
    TOLD,
    WRITE_METHODS,
    Finished,
    SeenKeys,
    Told,
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
    def __init__(self, app: ASGIApp, families: Families) -> None:
        self.app = app
        self.families = families
        self.seen = SeenKeys()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(scope, self.families)
        # The request body is watched only when it may be a command worth keeping.
        watched = receive if exchange.request_body is None else exchange.receive(receive)
        try:
            await self.app(scope, watched, exchange.send(send))
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
    """One request as it passes: its timing, status, and the bodies worth keeping."""

    def __init__(self, scope: Scope, families: Families) -> None:
        self.scope = scope
        self.families = families
        self.started = time.perf_counter()
        self.method = scope["method"] if scope["method"] in METHODS else "other"
        self.status: int | None = None
        self.observed = False
        self.request_body: _Copy | None = None
        self.response_body: _Copy | None = None
        # The route is matched only inside the app; the path tells early enough whether the
        # request body may be an encounter command worth keeping.
        if scope["method"] == "POST" and scope["path"].endswith("/commands"):
            self.request_body = _Copy()

    def receive(self, receive: Receive) -> Receive:
        async def receiving() -> Message:
            message = await receive()
            if self.request_body is not None and message["type"] == "http.request":
                self.request_body.add(message)
            return message

        return receiving

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
        told = self.scope.get(TOLD)
        answered = isinstance(told, Told) and told.dice is not None  # no need to read it
        wanted = content_type.startswith(PROBLEM_JSON) or (
            200 <= self.status < 300 and self.route in DICE_ROUTES and not answered
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
        route = self.route
        told = self.scope.get(TOLD)
        told = told if isinstance(told, Told) and route == COMMANDS_ROUTE else None
        if told is not None:
            key = told.replay_key
        else:
            headers = dict(self.scope["headers"])
            key = replay_key(headers.get(b"authorization"), headers.get(b"idempotency-key"))
        return Finished(
            method=self.method,
            route=route,
            name=getattr(self.scope.get("route"), "name", None),
            status=self.status or 500,
            request_body=self.request_body.whole()
            if self.request_body is not None and route == COMMANDS_ROUTE and told is None
            else None,
            response_body=self.response_body.whole() if self.response_body is not None else None,
            replay_key=key,
            told=told,
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
