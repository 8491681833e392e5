"""Liveness, readiness and version: what probes and operators ask first."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from api.deps import SenkiDep
from api.openapi import answered
from infra.services import ProjectionPositionView

router = APIRouter(tags=["health"])


class ShardHealth(BaseModel):
    shard: int
    status: str = Field(description="`ok`, or `unavailable` while its cluster does not answer.")


class ProjectionHealth(BaseModel):
    projection: str
    generation: int
    shard: int
    status: str = Field(
        description="`stalled`: behind its log and still for longer than the bound "
        "(SENKI_PROJECTION_STALL_S); `parked`: it parked events it could not take."
    )
    position: int
    head: int | None


class Health(BaseModel):
    status: str
    detail: str | None = None
    shards: list[ShardHealth] | None = Field(
        default=None,
        description="With a PostgreSQL cluster per shard: how each answers (docs/scaling.md).",
    )
    projections: list[ProjectionHealth] | None = Field(
        default=None,
        description="Read models that are degraded (`senki projections status` says why).",
    )


class Version(BaseModel):
    version: str
    rulesets: dict[str, str]


@router.get(
    "/healthz",
    response_model=Health,
    response_model_exclude_none=True,
    responses={
        503: {"description": "The embedded PostgreSQL died and does not come back"},
        **answered({"status": "ok"}),
    },
    operation_id="checkLiveness",
    summary="Is the process up (no database query)",
)
def healthz(senki: SenkiDep) -> Health:
    """The process is up (no database query: a liveness probe must not flap with PostgreSQL).

    With the embedded PostgreSQL, whose health is this process's job: `recovering` (still 200)
    while it is being started again after it died, and 503 once it has not come back."""
    alive = senki.liveness()
    if alive.status == "failing":
        raise HTTPException(503, alive.detail or "the embedded PostgreSQL does not come back")
    return Health(status=alive.status, detail=alive.detail)


@router.get(
    "/readyz",
    response_model=Health,
    response_model_exclude_none=True,
    responses={503: {"description": "The home database is down"}},
    operation_id="checkReadiness",
    summary="Can requests be served (the database answers)",
)
def readyz(senki: SenkiDep) -> Health:
    """The database answers a query, so requests can be served.

    With a cluster per shard, 200 while the home database answers, `degraded` with a report
    per shard when some shard's cluster does not: the campaigns on the others are served, so
    the pod stays in service (a shard outage is not this pod's to fix). Likewise `degraded`,
    listing them, while a read model is stalled or has parked events: its reads are stale."""
    shards = senki.check_ready()
    report = (
        None if shards is None else [ShardHealth(shard=s.shard, status=s.status) for s in shards]
    )
    if report is not None and any(s.status != "ok" for s in report):
        # Not the read side too: its status asks every shard's head, a down one's included.
        return Health(status="degraded", shards=report)
    models = [_projection(p) for p in senki.projection_positions() if p.stalled or p.degraded]
    if models:
        return Health(status="degraded", shards=report, projections=models)
    return Health(status="ready", shards=report)


def _projection(view: ProjectionPositionView) -> ProjectionHealth:
    return ProjectionHealth(
        projection=view.projection,
        generation=view.generation,
        shard=view.shard,
        status="stalled" if view.stalled else "parked",
        position=view.position,
        head=view.head,
    )


@router.get(
    "/v1/version",
    response_model=Version,
    operation_id="getVersion",
    summary="The service and ruleset versions",
)
def version(senki: SenkiDep) -> Version:
    """The service version and the version of each ruleset it adjudicates with."""
    return Version(version=senki.version, rulesets=senki.ruleset_versions)
