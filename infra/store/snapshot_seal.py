"""Sealed snapshots: a snapshot proves which event of the chain it was taken at, and by whom.

A snapshot is only a cache, but the service role may INSERT into the snapshots table, so a
row there proves nothing by itself. Each snapshot therefore records the log position and chain
hash of the event it was taken at (its stream's event at the snapshot's version) and a MAC,
HMAC-SHA256 under a key derived from the dice master key, which lives in the settings and never
in the database:

    mac = HMAC-SHA256(snapshot_key, "senki/snapshot/v1" ‖ len ‖ genesis ‖ uuid stream
                      ‖ int8 version ‖ int8 position ‖ chain hash ‖ len ‖ topic ‖ len ‖ state)

A load uses a snapshot only if its MAC holds and the event at its version still stands at the
sealed position with the sealed chain hash; anything else is refused (logged, counted in
`senki_snapshots_refused`) and the state is rebuilt from the events. Snapshots written before
schema 5 have no seal and are simply ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from uuid import UUID

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

KEY_LABEL = b"senki/snapshot-key/v1"  # distinct from the dice seeds' and tokens' labels
MAC_LABEL = b"senki/snapshot/v1"


def derive_snapshot_key(master_key: bytes) -> bytes:
    """The snapshot MAC key: HMAC-SHA256(master key, label), so it is never stored anywhere."""
    return hmac.new(master_key, KEY_LABEL, hashlib.sha256).digest()


@dataclass(frozen=True)
class SealedSnapshot:
    """One stored snapshot row with its seal, as read from the snapshots table."""

    stream_id: UUID
    version: int
    topic: str
    state: bytes
    position: int | None
    chain_hash: bytes | None
    mac: bytes | None


@dataclass(frozen=True)
class ChainPoint:
    """Where the stream's event at the snapshot's version stands in the log now, if anywhere."""

    position: int | None
    chain_hash: bytes | None


class Refusal(StrEnum):
    """Why a snapshot was not used (the metric's label)."""

    unsealed = "unsealed"  # written before schema 6 (or past the constraint): no seal at all
    forged = "forged"  # the MAC does not hold: not written by a holder of the key
    event_missing = "event_missing"  # no event at its version any more: the log was cut
    chain_mismatch = "chain_mismatch"  # its event's position or link changed: log rewritten


def mac(key: bytes, genesis: bytes, snapshot: SealedSnapshot) -> bytes:
    """The seal over every field of the row, bound to the shard by its chain genesis."""
    if snapshot.position is None or snapshot.chain_hash is None:
        raise ValueError("a seal needs the chain position and hash of its event")
    topic = snapshot.topic.encode("utf-8")
    message = b"".join(
        (
            MAC_LABEL,
            struct.pack(">i", len(genesis)),
            genesis,
            snapshot.stream_id.bytes,
            struct.pack(">q", snapshot.version),
            struct.pack(">q", snapshot.position),
            snapshot.chain_hash,
            struct.pack(">i", len(topic)),
            topic,
            struct.pack(">i", len(snapshot.state)),
            snapshot.state,
        )
    )
    return hmac.new(key, message, hashlib.sha256).digest()


def refusal(
    key: bytes, genesis: bytes, snapshot: SealedSnapshot, now: ChainPoint
) -> Refusal | None:
    """None when the snapshot checks: sealed by the key, at the event that still stands there."""
    if snapshot.mac is None or snapshot.position is None or snapshot.chain_hash is None:
        return Refusal.unsealed
    if not hmac.compare_digest(mac(key, genesis, snapshot), snapshot.mac):
        return Refusal.forged
    if now.position is None:
        return Refusal.event_missing
    if now.position != snapshot.position or now.chain_hash != snapshot.chain_hash:
        return Refusal.chain_mismatch
    return None


def explain(reason: Refusal, snapshot: SealedSnapshot, now: ChainPoint) -> str:
    """A sentence for the log and for `senki verify`."""
    at = f"snapshot of stream {snapshot.stream_id} at version {snapshot.version}"
    if reason is Refusal.unsealed:
        return f"{at} has no seal (taken before schema 6, or inserted past it): ignored"
    if reason is Refusal.forged:
        return f"{at} does not carry a valid MAC: it was not written by Senki (forged)"
    if reason is Refusal.event_missing:
        return (
            f"{at} was sealed at log position {snapshot.position}, but the stream has no event "
            f"at version {snapshot.version} any more: events were removed"
        )
    linked = now.chain_hash.hex() if now.chain_hash is not None else "nothing"
    return (
        f"{at} was sealed over position {snapshot.position} linked as "
        f"{(snapshot.chain_hash or b'').hex()}, but that event now stands at position "
        f"{now.position} linked as {linked}: the log at or before it was rewritten"
    )


class RefusalCounts:
    """Snapshots refused by loads in this process, by reason (for /metrics)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[Refusal] = Counter()

    def add(self, reason: Refusal) -> None:
        with self._lock:
            self._counts[reason] += 1

    def get(self, reason: Refusal) -> int:
        with self._lock:
            return self._counts[reason]

    def items(self) -> list[tuple[Refusal, int]]:
        with self._lock:
            return [(reason, self._counts[reason]) for reason in Refusal]


# Process-wide: a refusal is something this process saw, whichever app or ledger asked.
REFUSED = RefusalCounts()


class RefusedSnapshotsCollector(Collector):
    """`senki_snapshots_refused_total{reason}`: snapshots a load ignored and rebuilt instead."""

    def __init__(self, counts: RefusalCounts = REFUSED) -> None:
        self.counts = counts

    def collect(self) -> Iterator[CounterMetricFamily]:
        family = CounterMetricFamily(
            "senki_snapshots_refused",
            "Snapshots a load refused and rebuilt from the events instead, by reason: unsealed "
            "(before schema 6), forged (bad MAC), event_missing (log cut), chain_mismatch "
            "(log rewritten). Anything but unsealed means someone wrote to the database.",
            labels=["reason"],
        )
        for reason, count in self.counts.items():
            family.add_metric([reason.value], count)
        yield family
