"""What the HTTP layer asks of the running service beyond the services: the shapes of health,
log heads and projection positions, and the port (`SenkiPort`) the health and metrics routes call.

They live on this side of the door (api/ imports them through `infra.services`), so infra/
never imports api/ for them; `infra/services/runtime.py` implements the port.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class LogHeadView:
    shard: int
    position: int
    chain_hash: str
    status: str = "ok"
    tree_size: int | None = None  # the shard's Merkle tree, once this process has built it


@dataclass(frozen=True)
class ShardDownView:
    """A shard whose own PostgreSQL cluster did not answer: its head (and so its lag and its
    chain) cannot be read now. Reported beside the heads of the shards that answered, so one
    cluster's outage does not blank every operator surface (docs/scaling.md)."""

    shard: int
    detail: str = ""
    status: str = "unavailable"


@dataclass(frozen=True)
class ProjectionPositionView:
    """Where one generation of a read model stands on one shard, beside that shard's head."""

    projection: str
    generation: int
    role: str  # live, building, or frozen (live but built by another version)
    shard: int
    position: int
    head: int | None  # None while the shard's cluster does not answer: its lag is unknown
    parked: int = 0  # events parked for this generation on this shard (infra/projector/park.py)
    parked_at: int | None = None  # the first of them: where the model is degraded
    reason: str | None = None  # why that first one failed
    # Seconds since its tracking last moved, or the projector found it current (registry.touch)
    still_s: float = 0.0
    stalled: bool = False  # behind its log and still for longer than the bound (settings)

    @property
    def degraded(self) -> bool:
        """True while an event this generation could not take is parked."""
        return self.parked > 0

    @property
    def shard_up(self) -> bool:
        """False while the shard's cluster does not answer (its head could not be read)."""
        return self.head is not None

    @property
    def lag(self) -> int | None:
        """Events of the shard the generation has not projected yet (None: head unknown)."""
        return None if self.head is None else max(self.head - self.position, 0)


@dataclass(frozen=True)
class LivenessView:
    """What /healthz says: `ok`; `recovering` while the embedded PostgreSQL is being started
    again after it died; `failing` when it has not come back (the process needs a restart)."""

    status: str
    detail: str | None = None


@dataclass(frozen=True)
class ShardReadiness:
    """One shard's part of /readyz: `ok`, or `unavailable` while its cluster does not answer."""

    shard: int
    status: str


class Unavailable(RuntimeError):
    """The database cannot be reached right now (HTTP 503)."""


class SenkiPort(Protocol):
    """The running service, as the routes see it."""

    version: str
    ruleset_versions: dict[str, str]

    def check_ready(self) -> list[ShardReadiness] | None:
        """Raise Unavailable unless the home database answers a query; with a cluster per
        shard, how each shard's cluster answers (None: every shard is in the home database)."""

    def liveness(self) -> LivenessView:
        """Whether the process does its job, without a query (the embedded server's keeper)."""

    def log_heads(self) -> Sequence[LogHeadView | ShardDownView]:
        """The head of every shard's hash chain, in shard order; a ShardDownView for a shard
        whose own cluster does not answer. Raise Unavailable when the home database is down."""

    def projection_positions(self) -> Sequence[ProjectionPositionView]:
        """Every live and building generation of every read model, per shard, with the
        shard's head (the metrics' projection lag; None for a shard whose cluster is down);
        raise Unavailable if the home database is down."""
