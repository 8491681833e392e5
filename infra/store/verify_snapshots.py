"""`senki verify`: every snapshot of a shard, checked against the chain and rebuilt.

A snapshot holds when its MAC holds (only a holder of the key could write it), its event still
stands at the sealed position with the sealed link, and its state is the state the events
rebuild at its version (which even a holder of the key cannot fake). Unsealed snapshots (taken
before schema 6) are ignored by every load, so they are counted, not failed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from domain.aggregate import AggregateKind
from domain.encounter import aggregate as encounter
from infra.services.executor import snapshot_topic
from infra.store.ledger import Ledger
from infra.store.snapshot_seal import Refusal, SealedSnapshot, explain, refusal

# Every kind that takes snapshots (AggregateKind.snapshot set).
SNAPSHOT_KINDS: tuple[AggregateKind[Any], ...] = (encounter.KIND,)


@dataclass(frozen=True)
class BadSnapshot:
    """A snapshot that does not check, by stream and version."""

    stream_id: UUID
    version: int
    reason: str  # a snapshot_seal.Refusal value, or "not_rebuilt"
    detail: str
    position: int | None  # the sealed position, when there is a seal


@dataclass
class SnapshotReport:
    checked: int = 0
    holding: int = 0
    unsealed: int = 0
    bad: list[BadSnapshot] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.bad


def check_snapshots(ledger: Ledger, shard: int) -> SnapshotReport:
    """Check the seal of every snapshot of the shard, then rebuild the ones that hold."""
    report = SnapshotReport()
    genesis = ledger.shards[shard].tables.chain_genesis
    holding: list[SealedSnapshot] = []
    key = ledger.snapshot_key
    for snapshot, now in ledger.snapshots(shard=shard):
        report.checked += 1
        if key is None:  # cannot happen through bootstrap; say so rather than pass it
            report.bad.append(_bad(snapshot, "no_key", "no snapshot key to check it with"))
            continue
        reason = refusal(key, genesis, snapshot, now)
        if reason is Refusal.unsealed:
            report.unsealed += 1
        elif reason is not None:
            report.bad.append(_bad(snapshot, reason.value, explain(reason, snapshot, now)))
        else:
            holding.append(snapshot)
    for bad in _rebuild(ledger, shard, holding):
        report.bad.append(bad)
    report.holding = report.checked - report.unsealed - len(report.bad)
    return report


def _bad(snapshot: SealedSnapshot, reason: str, detail: str) -> BadSnapshot:
    return BadSnapshot(snapshot.stream_id, snapshot.version, reason, detail, snapshot.position)


def _rebuild(
    ledger: Ledger, shard: int, snapshots: Iterable[SealedSnapshot]
) -> Iterable[BadSnapshot]:
    """Replay each stream once and compare its state at every snapshot's version."""
    kinds = {snapshot_topic(kind): kind for kind in SNAPSHOT_KINDS}
    by_stream: dict[UUID, list[SealedSnapshot]] = {}
    for snapshot in snapshots:
        by_stream.setdefault(snapshot.stream_id, []).append(snapshot)
    for stream_id, taken in by_stream.items():
        kind = kinds.get(taken[0].topic)
        if kind is not None:  # else another code version's shape: its loads ignore it too
            yield from _rebuild_stream(ledger, shard, kind, stream_id, taken)


def _rebuild_stream(
    ledger: Ledger,
    shard: int,
    kind: AggregateKind[Any],
    stream_id: UUID,
    taken: list[SealedSnapshot],
) -> Iterable[BadSnapshot]:
    pending = sorted(taken, key=lambda s: s.version)
    state, version = kind.initial(stream_id), 0
    try:
        for recorded in ledger.read(stream_id, shard=shard, upto=pending[-1].version):
            state, version = kind.evolve(state, recorded.event), recorded.version
            while pending and pending[0].version == version:
                yield from _compare(kind, state, pending.pop(0))
    except Exception as error:  # a log that no longer replays is a finding, not a crash
        for snapshot in pending:
            yield _bad(
                snapshot,
                "not_rebuilt",
                f"snapshot of stream {stream_id} at version {snapshot.version} cannot be "
                f"rebuilt: the stream's events no longer replay after version {version} "
                f"({type(error).__name__}: {error})",
            )


def _compare(
    kind: AggregateKind[Any], state: Any, snapshot: SealedSnapshot
) -> Iterable[BadSnapshot]:
    if snapshot.topic != snapshot_topic(kind) or kind.snapshot is None:
        return
    rebuilt = json.loads(json.dumps(kind.snapshot.dump(state)))
    if rebuilt != json.loads(snapshot.state):
        yield _bad(
            snapshot,
            "not_rebuilt",
            f"snapshot of stream {snapshot.stream_id} at version {snapshot.version} holds a "
            "state the events do not rebuild: it was sealed by a holder of the key, not "
            "derived from the log",
        )
