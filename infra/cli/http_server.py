"""uvicorn as `senki serve` runs it: open streams end first, then the graceful timeout bounds
whatever still holds the server.

uvicorn's graceful shutdown stops accepting, then waits for every open response to finish;
an SSE stream never finishes by itself, so one open stream kept the process alive until the
stream's own limit (ten minutes). Here the shutdown first tells the runtime, whose streams end
within one poll, and `timeout_graceful_shutdown` cancels anything left after that (a client
that stopped reading, a slow request) so the process always exits in time.

Connections: an idle kept-alive connection is closed after `keep_alive_s` (uvicorn's
`timeout_keep_alive`); a request body must arrive within `body_timeout_s` of its headers (api/
limits.py, 408). uvicorn (0.55) has no timeout on reading a request's headers: a client that
opens connections and sends its headers a byte at a time holds them, so an exposed server
belongs behind a proxy that has one (nginx's client_header_timeout; k8s/README.md). The
client address the rate limit keys on comes from X-Forwarded-For only from the proxies in
`forwarded_allow_ips`.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn
from fastapi import FastAPI

from infra.settings import Settings

# Below Kubernetes' default 30 s grace period, less the 5 s preStop sleep (k8s/base/api.yaml).
GRACEFUL_TIMEOUT_S = 10


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_shutdown: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_shutdown = on_shutdown

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._on_shutdown()  # before uvicorn starts waiting for the open responses
        await super().shutdown(sockets)


def serve(
    application: FastAPI,
    settings: Settings,
    *,
    on_shutdown: Callable[[], None],
    graceful_timeout: int = GRACEFUL_TIMEOUT_S,
    sockets: list[socket.socket] | None = None,
) -> None:
    """Serve until SIGTERM or SIGINT; `on_shutdown` runs as soon as shutting down begins.
    With `sockets` (`senki serve --workers`), accept on those instead of binding host and port."""
    _Server(configured(application, settings, graceful_timeout), on_shutdown).run(sockets)


def configured(
    application: FastAPI, settings: Settings, graceful_timeout: int = GRACEFUL_TIMEOUT_S
) -> uvicorn.Config:
    """uvicorn's configuration for `settings` (its host and port are the ones listened on)."""
    return uvicorn.Config(
        application,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        timeout_graceful_shutdown=graceful_timeout,
        timeout_keep_alive=settings.keep_alive_s,
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )
