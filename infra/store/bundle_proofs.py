"""An audit bundle pinned to the signed log (issue 37): the shard's checkpoint, and with each
event its inclusion proof against it, so a forged bundle — however self-consistent its links —
fails against a checkpoint only the log's key could sign.
"""

from __future__ import annotations

import base64
from typing import Any

from infra.store.log_trees import LogTrees
from infra.store.merkle import verify_inclusion
from infra.store.note import (
    Checkpoint,
    NoteRefused,
    open_checkpoint,
    parse_vkey,
    unverified_checkpoint,
)


def with_proofs(bundle: dict[str, Any], trees: LogTrees) -> dict[str, Any]:
    """The bundle with the shard's latest checkpoint and every event's inclusion proof."""
    tree = trees.tree(int(bundle["shard"]))
    note = tree.checkpoint()
    size = unverified_checkpoint(note).size
    for event in bundle["events"]:
        proof = tree.inclusion(int(event["position"]), size)
        event["log"] = {  # as every reader gets it (docs/witnesses.md)
            "shard": tree.index,
            "position": event["position"],
            "leaf_index": proof.leaf_index,
            "chain_hash": event["chain_hash"],
        }
        event["inclusion"] = {
            "leaf_index": proof.leaf_index,
            "tree_size": proof.tree_size,
            "hashes": [base64.b64encode(h).decode() for h in proof.hashes],
        }
    bundle["checkpoint"] = note
    return bundle


def proof_problems(bundle: dict[str, Any], vkey: str | None) -> tuple[list[tuple[Any, str]], str]:
    """What the checkpoint and the inclusion proofs do not bear out, each with its event (None
    for the bundle), and a note on what was checked."""
    note = bundle.get("checkpoint")
    if note is None:
        return [], "no checkpoint: exported before issue 37, so not pinned to a signed log"
    try:
        checkpoint = _checkpoint(str(note), vkey)
    except NoteRefused as error:
        return [(None, f"the checkpoint does not verify: {error}")], ""
    problems = [(None, p) for p in _origin_problems(bundle, checkpoint)]
    for event in bundle.get("events", []):
        reason = _inclusion_problem(event, checkpoint)
        if reason is not None:
            problems.append((event, reason))
    signed = "signed by " + vkey if vkey else "its signature NOT checked (give --vkey)"
    return problems, f"checkpoint of {checkpoint.size} leaves ({checkpoint.origin}), {signed}"


def _checkpoint(note: str, vkey: str | None) -> Checkpoint:
    if vkey is None:
        return unverified_checkpoint(note)
    return open_checkpoint(note, [parse_vkey(vkey)])


def _origin_problems(bundle: dict[str, Any], checkpoint: Checkpoint) -> list[str]:
    shard = bundle.get("shard")
    if not checkpoint.origin.endswith(f"/shard/{shard}"):
        return [f"the checkpoint is of {checkpoint.origin!r}, not of shard {shard}'s log"]
    return []


def _inclusion_problem(event: dict[str, Any], checkpoint: Checkpoint) -> str | None:
    proof = event.get("inclusion")
    if not isinstance(proof, dict):
        return "the event has no inclusion proof against the bundle's checkpoint"
    try:
        index, size = int(proof["leaf_index"]), int(proof["tree_size"])
        hashes = [base64.b64decode(h, validate=True) for h in proof["hashes"]]
        leaf = bytes.fromhex(str(event["chain_hash"]))
    except (KeyError, TypeError, ValueError):
        return "the event's inclusion proof is malformed"
    log = event.get("log")
    if isinstance(log, dict) and (log.get("leaf_index"), log.get("chain_hash")) != (
        index,
        event["chain_hash"],
    ):
        return "the event's log entry does not name the leaf its inclusion proof proves"
    if size != checkpoint.size:
        return f"the inclusion proof is against {size} leaves, the checkpoint has {checkpoint.size}"
    if not verify_inclusion(index, size, leaf, hashes, checkpoint.root):
        return (
            f"the event's chain hash is not leaf {index} of the signed checkpoint: the bundle "
            "is not what the log holds"
        )
    return None
