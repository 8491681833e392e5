"""Write safety: Idempotency-Key on every POST, If-Match on writes to an aggregate, ETag out."""

from __future__ import annotations

import hashlib
from typing import Annotated

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
    fingerprint = hashlib.sha256(
        request.method.encode() + b" " + request.url.path.encode() + b"\n" + body
    ).hexdigest()
    # Scoped by the caller's token, so two callers' keys never collide.
    token = request.headers.get("authorization", "anonymous").rsplit(".", 1)[0]
    return Idempotency(
        key=f"{hashlib.sha256(token.encode()).hexdigest()[:16]}:{key}", fingerprint=fingerprint
    )


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
