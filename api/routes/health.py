"""Liveness, readiness and version: what probes and operators ask first."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, Field

from api.deps import SenkiDep

router = APIRouter(tags=["health"])


class ShardHealth(BaseModel):
    shard: int
    status: str = Field(description="`ok`, or `unavailable` while its cluster does not answer.")


class Health(BaseModel):
    status: str
    detail: str | None = None
    shards: list[ShardHealth] | None = Field(
        default=None,
        description="With a PostgreSQL cluster per shard: how each answers (docs/scaling.md).",
    )


class Version(BaseModel):
    version: str
    rulesets: dict[str, str]


@router.get(
    "/healthz",
    response_model=Health,
    response_model_exclude_none=True,
    responses={503: {"description": "The embedded PostgreSQL died and does not come back"}},
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
)
def readyz(senki: SenkiDep) -> Health:
    """The database answers a query, so requests can be served.

    With a cluster per shard, 200 while the home database answers, `degraded` with a report
    per shard when some shard's cluster does not: the campaigns on the others are served, so
    the pod stays in service (a shard outage is not this pod's to fix)."""
    shards = senki.check_ready()
    if shards is None:
        return Health(status="ready")
    report = [ShardHealth(shard=s.shard, status=s.status) for s in shards]
    degraded = any(s.status != "ok" for s in shards)
    return Health(status="degraded" if degraded else "ready", shards=report)


@router.get("/v1/version", response_model=Version)
def version(senki: SenkiDep) -> Version:
    """The service version and the version of each ruleset it adjudicates with."""
    return Version(version=senki.version, rulesets=senki.ruleset_versions)
