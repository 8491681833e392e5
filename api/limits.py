"""Refuse oversized bodies before they are read into memory (HTTP 413).

A declared Content-Length over the limit is refused before the app runs; one within it is
all the server reads of the body (the HTTP parser stops there), so such a request, like one
without a body, passes untouched. A chunked body (no Content-Length) can only be counted as
it arrives: the app is cut off at the first chunk past the limit, whatever it makes of that
(FastAPI turns a failed body read into a 400), its answer is dropped, and the client gets
the 413.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodySizeLimit:
    """ASGI middleware: 413 problem details when a body exceeds `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        if b"transfer-encoding" not in headers and (declared is None or declared.isdigit()):
            # No body, or one the parser reads no further than its declared length.
            await self.app(scope, receive, send)
            return
        body = _CountedBody(self.max_bytes, receive, send)
        try:
            await self.app(scope, body.receive, body.send)
        except Exception:
            if not body.over:
                raise
            # Whatever the app raised was its reaction to the body being cut off.
        if body.over and not body.answered:
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        payload = json.dumps(
            {
                "type": "https://senki.dev/problems/too-large",
                "title": "Request body too large",
                "status": 413,
                "detail": f"The body is over {self.max_bytes} bytes; send less per request.",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"content-length", str(len(payload)).encode()),
                    # The rest of the body is never read: the connection cannot be reused.
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": payload})


class _CountedBody:
    """The app's receive and send for one request: counts the body's bytes as they arrive,
    and once past the limit refuses to read more and drops what the app answers."""

    def __init__(self, max_bytes: int, receive: Receive, send: Send) -> None:
        self.max_bytes = max_bytes
        self._receive = receive
        self._send = send
        self.received = 0
        self.over = False
        self.answered = False  # the app started its answer before the body went over

    async def receive(self) -> Message:
        if self.over:
            raise _TooLarge
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.max_bytes:
                self.over = True
                raise _TooLarge
        return message

    async def send(self, message: Message) -> None:
        if self.over and not self.answered:
            return  # the client gets the 413 instead
        if message["type"] == "http.response.start":
            self.answered = True
        await self._send(message)


class _TooLarge(Exception):
    pass
