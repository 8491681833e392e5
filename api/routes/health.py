"""Liveness, readiness and version: what probes and operators ask first."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from api.deps import SenkiDep

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str


class Version(BaseModel):
    version: str
    rulesets: dict[str, str]


@router.get("/healthz", response_model=Health)
def healthz() -> Health:
    """The process is up (no database query: a liveness probe must not flap with PostgreSQL)."""
    return Health(status="ok")


@router.get("/readyz", response_model=Health, responses={503: {"description": "Database down"}})
def readyz(senki: SenkiDep) -> Health:
    """The database answers a query, so requests can be served."""
    senki.check_ready()
    return Health(status="ready")


@router.get("/v1/version", response_model=Version)
def version(senki: SenkiDep) -> Version:
    """The service version and the version of each ruleset it adjudicates with."""
    return Version(version=senki.version, rulesets=senki.ruleset_versions)
