"""Write safety: Idempotency-Key on every POST, If-Match on writes to an aggregate, ETag out."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Annotated, Any, cast

from fastapi import Depends, Header, HTTPException, Request, Response

from api.security import BearerDep, checked
from infra.services import Idempotency, InvalidToken, Principal, Runtime, Write, read_token

KEY_HEADER = "Idempotency-Key"
KEY_LENGTH = (8, 200)  # the characters a key may have, fewest and most


# The two write headers, declared once: taken by the dependencies below and by a route's
# combined dependency (api/security.py `aggregate_write`).
KeyHeader = Annotated[
    str | None,
    Header(
        alias=KEY_HEADER,
        description="A unique key per request (a UUID); a retry with the same key gets "
        "the first answer and changes nothing.",
        min_length=KEY_LENGTH[0],
        max_length=KEY_LENGTH[1],
    ),
]
IfMatchHeader = Annotated[
    str | None,
    Header(alias="If-Match", description="The version (ETag) the command was decided on."),
]


async def idempotency_key(request: Request, key: KeyHeader = None) -> Idempotency:
    return await idempotency_of(request, key)


async def idempotency_of(request: Request, key: str | None) -> Idempotency:
    """The request's idempotency: its key, scoped to the caller, and its fingerprint."""
    if key is None:
        raise HTTPException(400, f"every POST needs an {KEY_HEADER} header (e.g. a fresh UUID)")
    body = await request.body()  # NUL and lone surrogates were refused at the edge (api/text.py)
    fingerprint = hashlib.sha256(
        request.method.encode() + b" " + request.url.path.encode() + b"\n" + body
    ).hexdigest()
    scope = caller_scope(request.headers.get("authorization"))
    return Idempotency(key=f"{scope}:{key}", fingerprint=fingerprint, shared=scope == ANONYMOUS)


def caller_scope(authorization: str | None) -> str:
    """Whose keys these are: the token itself, however its header is spelled.

    The server accepts one token written many ways (`Bearer`/`bearer`, the campaign id in
    upper case or with dashes), and a client's retry may well write it another way (another
    HTTP library, a proxy): scoping by the header's text made each spelling a new caller and
    each retry a new write. The secret is part of the token's identity on purpose: the one
    route that takes no token (opening a campaign) never checks it, so a caller who only knows
    a campaign and token id cannot step into that token's scope there.

    Anything that is not a Senki bearer token is the anonymous caller (only the routes that
    need no token get that far: every other route answers 401 first)."""
    scheme, _, credentials = (authorization or "").strip().partition(" ")
    if scheme.lower() != "bearer":
        return ANONYMOUS
    try:
        campaign_id, token_id, secret = read_token(credentials.strip())
    except InvalidToken:
        return ANONYMOUS
    return _digest(f"senki.{campaign_id.hex}.{token_id}.{secret}")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# Every caller without a token shares this scope: an answer kept under it is replayed to
# whoever sends the same key and body, so it never replays a credential (issue 33 §3).
ANONYMOUS = _digest("anonymous")


def document_keys_required(schema: dict[str, Any]) -> dict[str, Any]:
    """Mark the Idempotency-Key header required in an OpenAPI document, as it is.

    The dependency takes it as optional only so that a missing key is our 400 saying what
    to send (as the IETF Idempotency-Key draft asks) rather than FastAPI's bare 422; the
    document must still tell clients and generators that no POST goes without it."""
    for path_item in schema.get("paths", {}).values():
        for operation in path_item.values():
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "header" and parameter.get("name") == KEY_HEADER:
                    parameter["required"] = True
                    parameter["schema"] = _without_null(parameter["schema"])
    return schema


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """`{anyOf: [{type: string, ...}, {type: null}]}` as the plain string it must be."""
    choices = [c for c in schema.get("anyOf", []) if c.get("type") != "null"]
    if len(choices) != 1:
        return schema
    rest = {k: v for k, v in schema.items() if k != "anyOf"}
    return {**choices[0], **rest}


async def if_match(value: IfMatchHeader = None) -> int | None:
    # async: a plain `def` dependency costs a thread-pool hop
    return version_of(value)


def version_of(value: str | None) -> int | None:
    """The version an If-Match header names, or None without one; 400 if it names none."""
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


@dataclass(frozen=True)
class AggregateWrite:
    """Everything a write to a contested aggregate needs from its request, in one piece."""

    runtime: Runtime
    who: Principal
    write: Write


async def aggregate_write(
    request: Request, credentials: BearerDep, key: KeyHeader = None, version: IfMatchHeader = None
) -> AggregateWrite:
    """The running service, the caller, the Idempotency-Key and the If-Match version, checked
    in that order, as one dependency of the encounter command. A missing If-Match is left to
    the route (`if_match_required`), which counts it against the command it refuses. The route
    voids the cached states if its write fails (`voided_on_failure`)."""
    runtime = cast(Runtime, request.app.state.senki)
    who = await checked(runtime, credentials)
    write = guard(await idempotency_of(request, key), version_of(version))
    return AggregateWrite(runtime, who, write)


def if_match_required(write: Write) -> Write:
    """`write`, or 428 without an If-Match version (a contested aggregate)."""
    assert write.idempotency is not None  # every POST has a key (idempotency_of)
    return guard(write.idempotency, write.expected_version, required=True)


AggregateWriteDep = Annotated[AggregateWrite, Depends(aggregate_write)]
