"""`GET /metrics` in the Prometheus text format: request latency, commands, write conflicts,
dice rolled, and projection lag per read model and shard.

Each app has its own registry (not prometheus_client's global one), so several apps in one
process, as in the tests, never share or collide on a series.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Request, Response
from prometheus_client import CollectorRegistry, GCCollector, PlatformCollector, ProcessCollector
from prometheus_client.exposition import choose_encoder

from api.metrics import projections
from api.metrics.commands import CommandTally
from api.metrics.families import Families
from api.metrics.middleware import MetricsMiddleware
from api.metrics.writes import SeenKeys
from infra.services import RefusedSnapshotsCollector, SenkiPort

__all__ = ["install"]


def install(
    app: FastAPI, senki: Callable[[], SenkiPort | None], *, route: bool = True
) -> CollectorRegistry:
    """Time and count every request, and serve /metrics (unless `route` is False: then the
    caller serves the registry on a port of its own). Call it after every other middleware,
    so it is the outermost and times what they do too (413s, CORS)."""
    registry = CollectorRegistry()
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    registry.register(projections.ProjectionCollector(senki, ttl=projections.CACHE_SECONDS))
    registry.register(RefusedSnapshotsCollector())  # forged or stale snapshots a load ignored
    families, seen = Families.on(registry), SeenKeys()
    app.add_middleware(MetricsMiddleware, families=families, seen=seen)
    app.state.command_tally = CommandTally(families, seen)
    app.state.metrics_registry = registry
    if not route:
        return registry

    # Unauthenticated on purpose: the cluster's Prometheus scrapes it with no token. It shows
    # only counts, route templates and log positions, never an id, a name or a die's face;
    # still, keep it off the public Ingress (k8s/README.md "Metrics").
    # Not in the OpenAPI document: it is for operators, not API clients. A plain `def`, so
    # the database read of the projection gauges runs on the thread pool, not the event loop.
    @app.get("/metrics", include_in_schema=False)
    def metrics(request: Request) -> Response:
        encode, content_type = choose_encoder(request.headers.get("accept", ""))
        return Response(encode(registry), media_type=content_type)

    return registry
