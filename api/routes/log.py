"""The head of the hash-chained log: the receipt a table keeps to detect later tampering."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import SenkiDep
from infra.services import LogHeadView

router = APIRouter(prefix="/v1/log", tags=["log"])


class LogHead(BaseModel):
    shard: int
    status: Literal["ok", "unavailable"] = Field(
        default="ok",
        description="`ok`, or `unavailable` while the shard's own PostgreSQL cluster does not "
        "answer: then `position` and `chain_hash` are absent (docs/scaling.md).",
    )
    position: int | None = Field(
        default=None, description="The last position in the shard's log (0 when empty)."
    )
    chain_hash: str | None = Field(
        default=None,
        description="Hex SHA-256 link of that position; `senki verify` recomputes it.",
    )


class LogHeads(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        default="ok",
        description="`degraded` while some shard's cluster does not answer: the other "
        "shards' heads are given as usual, the down one is listed as unavailable.",
    )
    heads: list[LogHead]


@router.get("/head", response_model=LogHeads, response_model_exclude_none=True)
def head(senki: SenkiDep) -> LogHeads:
    """The current chain head of every shard, in shard order.

    With a PostgreSQL cluster per shard, a shard whose cluster is down is listed as
    `{"shard": 1, "status": "unavailable"}` (still 200, `status: degraded`); 503 only when
    the home database is down."""
    heads = [
        LogHead(shard=h.shard, position=h.position, chain_hash=h.chain_hash)
        if isinstance(h, LogHeadView)
        else LogHead(shard=h.shard, status="unavailable")
        for h in senki.log_heads()
    ]
    degraded = any(h.status != "ok" for h in heads)
    return LogHeads(status="degraded" if degraded else "ok", heads=heads)
