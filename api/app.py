"""The FastAPI application: built around a running Senki handed in by the composition root."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from api import metrics, openapi, problems
from api.floods import Floods
from api.gate import Gate
from api.heavy_reads import HeavyReads
from api.limits import BodySizeLimit
from api.routes import (
    bcdice_api,
    campaigns,
    characters,
    dice_tables,
    disputes,
    health,
    log,
    read_models,
    scenarios,
    sheets,
    units,
)
from api.routes.table import routers as table_routers
from api.text import RefuseBadCharacters
from api.web.router import router as web_router
from infra.services import Runtime, SenkiPort, Settings

MAX_BODY_BYTES = 256 * 1024


def create_app(
    start: Callable[[], SenkiPort],
    stop: Callable[[SenkiPort], None],
    *,
    cors_origins: Sequence[str] = (),
    metrics_route: bool = True,
) -> FastAPI:
    """`start` builds the running service in the lifespan; `stop` releases it. `cors_origins`:
    the sites whose browsers may call the API (settings.cors_origins); none, no CORS.
    `metrics_route`: serve /metrics here (else `senki serve` serves it on its own port)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        senki = start()
        app.state.senki = senki
        settings = senki.settings if isinstance(senki, Runtime) else Settings()
        app.state.floods = Floods.of(settings)
        try:
            yield
        finally:
            stop(senki)

    app = FastAPI(
        title="Senki",
        summary="An event-sourced campaign ledger for Japanese tabletop RPG combat.",
        version="0.1.0",
        lifespan=lifespan,
        # Senki's metrics are its own Prometheus ones (api/metrics). FastAPI's native
        # OpenTelemetry support, on by default, asked the global providers (three os.environ
        # reads) on every request to find none configured: 2.6 µs a request alone (timeit),
        # 60 of 1,579 py-spy samples of the server under a stream of commands.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )

    def floods() -> Floods | None:
        return getattr(app.state, "floods", None)  # set by the lifespan

    def body_timeout() -> float | None:
        held = floods()
        return None if held is None else held.settings.body_timeout_s

    # Each one added wraps those before it. The heavy reads innermost: the body they buffer
    # is already bounded by BodySizeLimit (as is the bad-character check's), and the Gate
    # refuses before any of them does any work.
    app.add_middleware(HeavyReads, floods=floods, senki=lambda: app.state.senki)
    app.add_middleware(RefuseBadCharacters)  # inside the size limit: it reads bodies whole
    app.add_middleware(BodySizeLimit, max_bytes=MAX_BODY_BYTES, body_timeout=body_timeout)
    app.add_middleware(Gate, floods=floods)  # inside CORS: a browser can read its refusals
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cors_origins),
            allow_methods=["*"],
            allow_headers=["*"],
            expose_headers=["ETag", "Location"],
        )
    # Last: the outermost middleware.
    metrics.install(app, lambda: getattr(app.state, "senki", None), route=metrics_route)
    problems.install(app)
    for table_router in table_routers:  # the hottest first: matched in order
        app.include_router(table_router)
    app.include_router(health.router)
    app.include_router(log.router)
    app.include_router(campaigns.router)
    for feature in (characters, units, scenarios, sheets):
        app.include_router(feature.router)
    app.include_router(disputes.router)
    app.include_router(dice_tables.router)
    app.include_router(read_models.router)
    app.include_router(web_router)
    bcdice_api.install(app)  # its middleware the outermost: it shapes every answer under it
    openapi.install(app)
    return app
