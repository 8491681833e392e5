"""Liveness, readiness and version: what probes and operators ask first."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel

from api.deps import SenkiDep

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str
    detail: str | None = None


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
    responses={503: {"description": "Database down"}},
)
def readyz(senki: SenkiDep) -> Health:
    """The database answers a query, so requests can be served."""
    senki.check_ready()
    return Health(status="ready")


@router.get("/v1/version", response_model=Version)
def version(senki: SenkiDep) -> Version:
    """The service version and the version of each ruleset it adjudicates with."""
    return Version(version=senki.version, rulesets=senki.ruleset_versions)
