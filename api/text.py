"""No NUL and no lone surrogate in any text a request carries (issue 33 §5): refused at the edge.

PostgreSQL's text and jsonb cannot hold U+0000, and a lone surrogate (half of a UTF-16 pair,
U+D800–U+DFFF, which JSON's `\\ud800` escape and Python's decoder let through) cannot be
encoded as UTF-8: either one, stored or answered, is a 500. Every route reads its text from
the address, the headers or a JSON or form body, so one middleware checks all four before any
route runs — the keys and values of free JSON (options, an amended payload) included, which
no field type reaches. /v1 answers 422 (400 for the address or a header) as problem details;
BCDice-API its own `{"ok": false, "reason": …}`, readable from any page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.problems import FieldError, problem

_BAD = re.compile("[\x00\ud800-\udfff]")
# What a body must hold for a bad character to be in it: JSON's escapes of NUL and of a
# surrogate, a raw NUL, UTF-8's bytes for a surrogate (Python's JSON decoder lets them
# through), or a form's percent escape of NUL. A body without any is not decoded here.
_MAYBE_BAD = re.compile(rb"\\u0000|\\u[dD][89a-fA-F]|\x00|\xed[\xa0-\xbf]|%00")
BCDICE = "/bcdice/"
WHY = (
    "holds a NUL character (U+0000) or a lone surrogate (U+D800–U+DFFF, half of a UTF-16 "
    "pair), which no text may hold: remove it and send again"
)


def holds_bad_character(text: str) -> bool:
    return _BAD.search(text) is not None


def bad_field(scope: Scope, body: bytes) -> tuple[str, bool] | None:
    """The first place in the request holding a bad character, and whether it is in the
    address or a header (else a query or body field); None when there is none."""
    if holds_bad_character(scope["path"]):
        return "path", True
    for name, value in scope["headers"]:
        if b"\x00" in value:  # headers are Latin-1: NUL is the one bad character they carry
            return f"header.{name.decode('latin-1')}", True
    query: bytes = scope["query_string"]
    if b"%" in query:  # only an escape can put NUL in a query
        for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
            if holds_bad_character(name + value):
                return f"query.{_shown(name)}", False
    if _MAYBE_BAD.search(body):
        found = _in_body(body, _content_type(scope))
        if found is not None:
            return found, False
    return None


def _in_body(body: bytes, content_type: str) -> str | None:
    """JSON when it says so (or says nothing and parses); any other body is read as a form,
    as BCDice-API reads it."""
    if "json" in content_type or not content_type:
        try:
            parsed = json.loads(body)
        except (ValueError, RecursionError):  # broken, or deeper than the parser goes: the
            parsed = _NOT_JSON  # route's own parsing refuses it with a 4xx, saying which
        if parsed is not _NOT_JSON:
            return next(_bad_in_json(parsed, "body"), None)
        if content_type:
            return None
    for name, value in parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True):
        if holds_bad_character(name + value):
            return f"body.{_shown(name)}"
    return None


_NOT_JSON = object()


def _bad_in_json(value: Any, where: str) -> Iterator[str]:
    # Walked with a list, not recursion: a body nested as deep as the parser reads must not
    # exhaust the stack here.
    pending: list[tuple[Any, str]] = [(value, where)]
    while pending:
        item, at = pending.pop()
        if isinstance(item, str):
            if holds_bad_character(item):
                yield at
        elif isinstance(item, dict):
            for key, inner in reversed(item.items()):
                pending.append((inner, f"{at}.{_shown(key)}"))
                if holds_bad_character(key):
                    pending.append((key, f"{at} (a key)"))
        elif isinstance(item, list):
            pending += [(inner, f"{at}.{i}") for i, inner in reversed(list(enumerate(item)))]


def _shown(name: str) -> str:
    return _BAD.sub("?", name)


def _content_type(scope: Scope) -> str:
    headers: list[tuple[bytes, bytes]] = scope["headers"]
    return next((v.decode("latin-1").lower() for n, v in headers if n == b"content-type"), "")


def refusal(path: str, field: str, in_address: bool) -> JSONResponse:
    """A bad character's refusal in the shape the surface answers every error."""
    if path.startswith(BCDICE):
        reason = f"{field} {WHY}"
        return JSONResponse(
            {"ok": False, "reason": reason},
            status_code=400,
            headers={"Access-Control-Allow-Origin": "*"},
        )
    if in_address:
        return problem(400, "bad-request", "Bad request", f"{field} {WHY}")
    error = FieldError(field=field, message=WHY)
    return problem(422, "invalid-request", "Invalid request", f"{field}: {WHY}", errors=[error])


class RefuseBadCharacters:
    """ASGI middleware: a request whose text holds NUL or a lone surrogate never reaches a
    route. A body is read whole here (the size limit outside bounds it) and handed on as read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body, receive = await _read_body(scope, receive)
        found = bad_field(scope, body)
        if found is None:
            await self.app(scope, receive, send)
            return
        await refusal(scope["path"], *found)(scope, receive, send)


async def _read_body(scope: Scope, receive: Receive) -> tuple[bytes, Receive]:
    """The whole body, and a receive that hands it on as one message (then the client's)."""
    if scope["method"] in ("GET", "HEAD", "OPTIONS"):
        return b"", receive
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"", _first(message, receive)
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(parts)
    return body, _first({"type": "http.request", "body": body, "more_body": False}, receive)


def _first(message: Message, receive: Receive) -> Receive:
    pending = [message]

    async def replayed() -> Message:
        return pending.pop() if pending else await receive()

    return replayed
