"""Who may come in without a campaign's token, when the server listens beyond loopback.

On loopback (the embedded default, 127.0.0.1) only this machine's clients reach the server,
and everything stays as open as it was. Listening beyond it (`Settings.exposed`, decided by
the configured listen host):
- opening a campaign needs the operator token (`SENKI_OPERATOR_TOKEN`, sent as a Bearer
  token); with none configured, campaigns cannot be opened over the network at all. A token
  configured is needed on loopback too;
- a request without any token, or to a route that reads none, takes one from its client
  address's bucket (api/limits.py Buckets), and so does one whose token was refused (401):
  past the burst, 429 with Retry-After;
- the API port's /metrics needs the operator token (or serve it on `SENKI_METRICS_PORT`).
"""

from __future__ import annotations

import hmac
import math
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.floods import Floods
from api.limits import refuse, too_many

OPEN_CAMPAIGN = ("POST", "/v1/campaigns")
PUBLIC = "/v1/log/"  # answered to anyone: a token that comes with it is not read


class Gate:
    def __init__(self, app: ASGIApp, floods: Callable[[], Floods | None]) -> None:
        self.app, self.floods = app, floods

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        floods = self.floods()
        if floods is None or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = _refusal(floods, scope)
        if refusal is not None:
            status, detail = refusal
            title = "Authentication required" if status == 401 else "Not allowed"
            kind = "unauthenticated" if status == 401 else "forbidden"
            await refuse(send, status, kind, title, detail)
            return
        if not floods.settings.exposed:
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = client[0] if client else "unknown"
        # A request with no token, or to a route that reads none (the log's proofs) whatever it
        # carries, takes from its address's bucket. One with a token only looks at a bucket of
        # its own, which each made-up token's 401 fills (below): a made-up token is no way
        # around the limit, and an anonymous flood from an address holds back no real token.
        charged = _bearer(scope) is None or scope["path"].startswith(PUBLIC)
        bucket = floods.anonymous if charged else floods.refused_tokens
        wait = bucket.take(address, charge=charged)
        if wait is not None:
            seconds = max(1, math.ceil(wait))
            detail = (
                f"too many requests without a valid token from your address: wait {seconds} s, "
                "or send a campaign's token (`Authorization: Bearer …`)"
            )
            await too_many(send, detail, seconds)
            return
        if charged:
            await self.app(scope, receive, send)
            return

        async def charge_refused(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                floods.refused_tokens.take(address)
            await send(message)

        await self.app(scope, receive, charge_refused)


def _refusal(floods: Floods, scope: Scope) -> tuple[int, str] | None:
    settings = floods.settings
    operator = settings.operator_token
    presented = _bearer(scope)
    is_operator = (
        operator is not None
        and presented is not None
        and hmac.compare_digest(presented.encode(), operator.get_secret_value().encode())
    )
    if (scope["method"], scope["path"].rstrip("/")) == OPEN_CAMPAIGN and not is_operator:
        if operator is not None:
            return 401, (
                "opening a campaign needs the operator's token: send "
                "`Authorization: Bearer <SENKI_OPERATOR_TOKEN>`"
            )
        if settings.exposed:
            return 403, (
                "this server listens beyond loopback and has no operator token, so no one may "
                "open a campaign over the network: its operator sets SENKI_OPERATOR_TOKEN "
                "and opens campaigns with it"
            )
    if scope["path"] == "/metrics" and settings.exposed and not is_operator:
        return 401, (
            "/metrics on the API port needs the operator's token (`Authorization: Bearer "
            "<SENKI_OPERATOR_TOKEN>`); or serve it on a port of its own (SENKI_METRICS_PORT)"
        )
    return None


def _bearer(scope: Scope) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == b"authorization":
            scheme, _, token = bytes(value).decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" and token.strip() else None
    return None
