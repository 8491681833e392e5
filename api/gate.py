"""Who may come in without a campaign's token, when the server listens beyond loopback.

On loopback (the embedded default, 127.0.0.1) only this machine's clients reach the server,
and everything stays as open as it was. Listening beyond it (`Settings.exposed`, decided by
the configured listen host):
- opening a campaign needs the operator token (`SENKI_OPERATOR_TOKEN`, sent as a Bearer
  token); with none configured, campaigns cannot be opened over the network at all. A token
  configured is needed on loopback too;
- a request without any token takes one from its client address's bucket (api/limits.py
  Buckets): past the burst, 429 with Retry-After;
- the API port's /metrics needs the operator token (or serve it on `SENKI_METRICS_PORT`).
"""

from __future__ import annotations

import hmac
import math
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from api.floods import Floods
from api.limits import refuse, too_many

OPEN_CAMPAIGN = ("POST", "/v1/campaigns")


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
        if floods.settings.exposed and _bearer(scope) is None:
            client = scope.get("client")
            wait = floods.anonymous.take(client[0] if client else "unknown")
            if wait is not None:
                seconds = max(1, math.ceil(wait))
                detail = (
                    f"too many requests without a token from your address: wait {seconds} s, "
                    "or send a campaign's token (`Authorization: Bearer …`)"
                )
                await too_many(send, detail, seconds)
                return
        await self.app(scope, receive, send)


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
