"""The log's receipts: the chain head, and each shard's signed Merkle tree (issue 37).

Anyone may read the head, the keys, the checkpoints and the consistency proofs: they say
nothing of what the events hold. An inclusion proof names a position, so it is answered only
to a reader of the stream there (404 otherwise, as for a position where nothing stands).
"""

from __future__ import annotations

import base64
from typing import Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field

from api.deps import RuntimeDep, SenkiDep
from api.security import READERS, PrincipalDep
from infra.services import (
    LogHeadView,
    NoSuchLeaf,
    ProofError,
    Runtime,
    ShardTree,
)

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
    tree_size: int | None = Field(
        default=None,
        description="Events in the shard's log (its Merkle tree's size): a checkpoint of a "
        "smaller tree, served past the signing delay, is a log that stopped signing. Absent "
        "when the tree disagrees with the log (the checkpoint route says where).",
    )


class LogHeads(BaseModel):
    status: Literal["ok", "degraded"] = Field(
        default="ok",
        description="`degraded` while some shard's cluster does not answer: the other "
        "shards' heads are given as usual, the down one is listed as unavailable.",
    )
    heads: list[LogHead]


class LogKeys(BaseModel):
    vkeys: list[str] = Field(
        description="C2SP signed-note verifier keys, oldest first; each signs every new checkpoint."
    )
    origins: list[str] = Field(description="Each shard's checkpoint origin, in shard order.")


class ConsistencyProof(BaseModel):
    hashes: list[str] = Field(description="RFC 9162 §2.1.4 consistency proof, base64.")


class InclusionProof(BaseModel):
    leaf_index: int
    tree_size: int
    hashes: list[str] = Field(description="RFC 9162 §2.1.3 inclusion proof, base64.")


@router.get(
    "/head",
    response_model=LogHeads,
    response_model_exclude_none=True,
    operation_id="getLogHead",
    summary="The chain head of every shard (a receipt)",
)
def head(senki: SenkiDep) -> LogHeads:
    """The current chain head of every shard, in shard order.

    With a PostgreSQL cluster per shard, a shard whose cluster is down is listed as
    `{"shard": 1, "status": "unavailable"}` (still 200, `status: degraded`); 503 only when
    the home database is down."""
    heads = [
        LogHead(
            shard=h.shard,
            position=h.position,
            chain_hash=h.chain_hash,
            tree_size=h.tree_size,
        )
        if isinstance(h, LogHeadView)
        else LogHead(shard=h.shard, status="unavailable")
        for h in senki.log_heads()
    ]
    degraded = any(h.status != "ok" for h in heads)
    return LogHeads(status="degraded" if degraded else "ok", heads=heads)


@router.get(
    "/key",
    response_model=LogKeys,
    operation_id="getLogKeys",
    summary="The log's verifier keys and each shard's origin",
)
def log_key(runtime: RuntimeDep) -> LogKeys:
    """The keys checkpoints are signed with, and each shard's origin (docs/witnesses.md)."""
    return LogKeys(vkeys=runtime.log_trees.vkeys, origins=runtime.log_trees.origins)


@router.get(
    "/{shard}/checkpoint",
    response_class=PlainTextResponse,
    responses={503: {"description": "The tree disagrees with the log; the evidence."}},
    operation_id="getLogCheckpoint",
    summary="A shard's latest signed checkpoint",
)
def log_checkpoint(shard: int, runtime: RuntimeDep) -> PlainTextResponse:
    """The shard's latest signed checkpoint (C2SP tlog-checkpoint), signed now if it grew."""
    note = _tree(runtime, shard).checkpoint()
    return PlainTextResponse(note, media_type="text/plain; charset=utf-8")


def _tree(runtime: Runtime, shard: int) -> ShardTree:
    try:
        return runtime.log_trees.tree(shard)
    except NoSuchLeaf as error:
        raise HTTPException(404, str(error)) from error


def _b64(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


@router.get(
    "/{shard}/consistency",
    response_model=ConsistencyProof,
    operation_id="getLogConsistency",
    summary="Proof that a tree extends an earlier one",
)
def log_consistency(
    shard: int,
    runtime: RuntimeDep,
    first: int = Query(
        ge=0, le=2**63 - 1, description="The smaller tree size (a checkpoint you kept)."
    ),
    second: int = Query(
        ge=0, le=2**63 - 1, description="The larger tree size (the latest checkpoint)."
    ),
) -> ConsistencyProof:
    """RFC 9162 §2.1.4: the proof that the tree of `second` leaves extends that of `first`."""
    try:
        hashes = _tree(runtime, shard).consistency(first, second)
    except ProofError as error:
        raise HTTPException(422, f"{error}: ask between sizes of checkpoints served") from error
    return ConsistencyProof(hashes=_b64(hashes))


@router.get(
    "/{shard}/inclusion",
    response_model=InclusionProof,
    operation_id="getLogInclusion",
    summary="Proof that an event is in a shard's tree",
)
def log_inclusion(
    shard: int,
    runtime: RuntimeDep,
    who: PrincipalDep,
    position: int = Query(
        ge=1, le=2**63 - 1, description="The event's position in the shard's log."
    ),
    size: int = Query(
        ge=1, le=2**63 - 1, description="The tree size of the checkpoint to prove against."
    ),
) -> InclusionProof:
    """RFC 9162 §2.1.3: the proof that the event at `position` is in the tree of `size`."""
    tree = _tree(runtime, shard)
    try:
        campaign = runtime.log_trees.campaign_at(shard, position)
        if campaign != who.campaign_id or who.role not in READERS:
            raise NoSuchLeaf(f"no event at position {position}")
        proof = tree.inclusion(position, size)
    except NoSuchLeaf as error:
        raise HTTPException(404, f"{error} that this token may read") from error
    except ProofError as error:
        raise HTTPException(422, f"{error}: ask for the size of a checkpoint served") from error
    return InclusionProof(leaf_index=proof.leaf_index, tree_size=size, hashes=_b64(proof.hashes))
