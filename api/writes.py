"""Write safety: Idempotency-Key on every POST, If-Match on writes to an aggregate, ETag out."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from fastapi import Header, HTTPException, Request, Response

from infra.services.executor import Idempotency, Write

KEY_HEADER = "Idempotency-Key"


async def idempotency_key(
    request: Request,
    key: Annotated[
        str | None,
        Header(
            alias=KEY_HEADER,
            description="A unique key per request (a UUID); a retry with the same key gets "
            "the first answer and changes nothing.",
            min_length=8,
            max_length=200,
        ),
    ] = None,
) -> Idempotency:
    if key is None:
        raise HTTPException(400, f"every POST needs an {KEY_HEADER} header (e.g. a fresh UUID)")
    body = await request.body()
    _refuse_nul(body)
    fingerprint = hashlib.sha256(
        request.method.encode() + b" " + request.url.path.encode() + b"\n" + body
    ).hexdigest()
    # Scoped by the caller's token, so two callers' keys never collide.
    token = request.headers.get("authorization", "anonymous").rsplit(".", 1)[0]
    return Idempotency(
        key=f"{hashlib.sha256(token.encode()).hexdigest()[:16]}:{key}", fingerprint=fingerprint
    )


def _refuse_nul(body: bytes) -> None:
    """PostgreSQL text and jsonb cannot hold U+0000, so no stored answer or event may carry it:
    refuse it up front, for every write, rather than fail while storing (a 500)."""
    if b"\\u0000" not in body:
        return  # fast path: the escape (JSON's only way to write U+0000) is not there at all
    try:
        parsed = json.loads(body)
    except ValueError:
        return  # not JSON: the route's own validation says what is wrong
    if _holds_nul(parsed):
        raise HTTPException(
            422, "text may not contain the NUL character (\\u0000): remove it and send again"
        )


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(item) for item in value)
    return False


def if_match(
    value: Annotated[
        str | None,
        Header(alias="If-Match", description="The version (ETag) the command was decided on."),
    ] = None,
) -> int | None:
    if value is None:
        return None
    text = value.strip().removeprefix("W/").strip('"')
    if not text.isdigit():
        raise HTTPException(400, 'If-Match must be a version, e.g. If-Match: "12"')
    return int(text)


def guard(key: Idempotency, version: int | None, *, required: bool = False) -> Write:
    """The write's guard; `required` makes a missing If-Match a 428 (contested resources)."""
    if required and version is None:
        raise HTTPException(
            428, "send If-Match with the version you read (the ETag of the resource)"
        )
    return Write(expected_version=version, idempotency=key)


def etag(response: Response, version: int) -> None:
    response.headers["ETag"] = f'"{version}"'
