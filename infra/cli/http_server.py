"""uvicorn as `senki serve` runs it: open streams end first, then the graceful timeout bounds
whatever still holds the server.

uvicorn's graceful shutdown stops accepting, then waits for every open response to finish;
an SSE stream never finishes by itself, so one open stream kept the process alive until the
stream's own limit (ten minutes). Here the shutdown first tells the runtime, whose streams end
within one poll, and `timeout_graceful_shutdown` cancels anything left after that (a client
that stopped reading, a slow request) so the process always exits in time.
"""

from __future__ import annotations

import socket
from collections.abc import Callable

import uvicorn
from fastapi import FastAPI

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
    *,
    host: str,
    port: int,
    log_level: str,
    on_shutdown: Callable[[], None],
    graceful_timeout: int = GRACEFUL_TIMEOUT_S,
) -> None:
    """Serve until SIGTERM or SIGINT; `on_shutdown` runs as soon as shutting down begins."""
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level=log_level,
        timeout_graceful_shutdown=graceful_timeout,
    )
    _Server(config, on_shutdown).run()
