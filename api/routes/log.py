"""The head of the hash-chained log: the receipt a table keeps to detect later tampering."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import SenkiDep

router = APIRouter(prefix="/v1/log", tags=["log"])


class LogHead(BaseModel):
    shard: int
    position: int = Field(description="The last position in the shard's log (0 when empty).")
    chain_hash: str = Field(
        description="Hex SHA-256 link of that position; `senki verify` recomputes it."
    )


class LogHeads(BaseModel):
    heads: list[LogHead]


@router.get("/head", response_model=LogHeads)
def head(senki: SenkiDep) -> LogHeads:
    """The current chain head of every shard."""
    return LogHeads(
        heads=[
            LogHead(shard=h.shard, position=h.position, chain_hash=h.chain_hash)
            for h in senki.log_heads()
        ]
    )
