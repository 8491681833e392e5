"""What else in the database says how far a shard's log went (`senki verify`, issue 15).

The hash chain proves that nothing *before* the head was changed, never that the head is the
real end: remove the last events (or all of them) and what is left is a valid, shorter chain.
But other rows were written in the same transaction as those events, or after them, and each
names a place in the log that must still exist:

- an idempotency row (same transaction as its events) names its stream and the version the
  write reached (every answer carries `id` and `version`);
- a read model's tracking position (senki_read.tracking) is the position it has read up to,
  always a position the log held;
- a snapshot names its stream and version (and, sealed, the position and link of that event;
  those are checked with the snapshots, infra/store/snapshot_seal.py).

Weaker hints, which prove nothing alone and never fail `senki verify`: a placement whose
stream has no event (a create may also have failed after placing it), and the position
counter (a rolled-back write also uses a position). Everything is read in one REPEATABLE READ
snapshot, so a write landing meanwhile is never taken for a cut.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.sql import SQL, Identifier, Literal

from infra.store.ledger import Ledger, Shard
from infra.store.names import SCHEMA

READ_SCHEMA = "senki_read"  # infra/store/migrate.py READ_SCHEMA (not imported: no cycle)
_UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
_VERSION = "^[0-9]{1,18}$"
_SHOWN = 5  # examples named per kind of witness; the count says how many there are


@dataclass
class TailEvidence:
    """Cross-references of one shard: `witnesses` prove the log went past `head`."""

    shard: int
    head: int
    witnesses: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)

    @property
    def cut(self) -> bool:
        return bool(self.witnesses)


def tail_evidence(ledger: Ledger, shard: int) -> TailEvidence:
    """Every cross-reference of the shard that points past its last event."""
    target = ledger.shards[shard]
    with target.datastore.get_connection() as conn, conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        head = SQL("SELECT coalesce(max(notification_id), 0) AS head FROM {0}").format(
            target.table(target.tables.events)
        )
        row = conn.execute(head).fetchone()
        evidence = TailEvidence(shard, int(row["head"]) if row else 0)
        _tracking(conn, evidence)
        _idempotency(conn, target, evidence)
        _snapshots(conn, target, evidence)
        _placements(conn, target, evidence, len(ledger.shards))
        _counter(conn, target, evidence)
    return evidence


def _tracking(conn: psycopg.Connection[Any], evidence: TailEvidence) -> None:
    query = SQL(
        "SELECT projection, generation, position FROM {0}.tracking "
        "WHERE shard = %s AND position > %s ORDER BY position DESC, projection"
    ).format(Identifier(READ_SCHEMA))
    found = conn.execute("SELECT to_regclass(%s) AS t", (f"{READ_SCHEMA}.tracking",)).fetchone()
    if found is None or found["t"] is None:
        return  # migrated before the read side existed: nothing tracks this log yet
    for row in conn.execute(query, (evidence.shard, evidence.head)).fetchall():
        evidence.witnesses.append(
            f"read model {row['projection']} (generation {row['generation']}) has read up to "
            f"position {row['position']}"
        )


def _idempotency(conn: psycopg.Connection[Any], target: Shard, evidence: TailEvidence) -> None:
    """Answers whose stream no longer reaches the version they report."""
    query = SQL(
        "WITH answers AS ("
        " SELECT CASE WHEN response->>'id' ~ %s THEN (response->>'id')::uuid END AS stream,"
        " CASE WHEN response->>'version' ~ %s THEN (response->>'version')::bigint END AS version,"
        " recorded_at FROM {idem}) "
        "SELECT a.stream, a.version, a.recorded_at, count(*) OVER () AS missing,"
        " (SELECT max(e.originator_version) FROM {events} e WHERE e.originator_id = a.stream)"
        " AS reached FROM answers a "
        "WHERE a.stream IS NOT NULL AND a.version > 0 AND NOT EXISTS ("
        " SELECT 1 FROM {events} e WHERE e.originator_id = a.stream"
        " AND e.originator_version = a.version) "
        "ORDER BY a.recorded_at DESC LIMIT %s"
    ).format(
        idem=target.table(target.tables.idempotency), events=target.table(target.tables.events)
    )
    rows = conn.execute(query, (_UUID, _VERSION, _SHOWN)).fetchall()
    for row in rows:
        reached = (
            "has no event at all"
            if row["reached"] is None
            else (f"ends at version {row['reached']}")
        )
        evidence.witnesses.append(
            f"an idempotency row recorded {row['recorded_at']:%Y-%m-%d %H:%M:%S} answered "
            f"stream {row['stream']} at version {row['version']}, but the stream {reached}"
        )
    if rows and rows[0]["missing"] > len(rows):
        evidence.witnesses.append(
            f"… and {rows[0]['missing'] - len(rows)} more idempotency rows like these"
        )


def _snapshots(conn: psycopg.Connection[Any], target: Shard, evidence: TailEvidence) -> None:
    """Snapshots of a version whose event is gone (whether their seal holds is checked with
    the snapshots; either way the log or the snapshots were written to by someone else)."""
    query = SQL(
        "SELECT s.originator_id, s.originator_version, s.chain_position FROM {snaps} s "
        "WHERE NOT EXISTS (SELECT 1 FROM {events} e WHERE e.originator_id = s.originator_id"
        " AND e.originator_version = s.originator_version) "
        "ORDER BY s.chain_position DESC NULLS LAST LIMIT %s"
    ).format(snaps=target.table(target.tables.snapshots), events=target.table(target.tables.events))
    for row in conn.execute(query, (_SHOWN,)).fetchall():
        sealed = (
            f", sealed at position {row['chain_position']}"
            if row["chain_position"] is not None
            else ""
        )
        evidence.witnesses.append(
            f"a snapshot of stream {row['originator_id']} at version "
            f"{row['originator_version']}{sealed}, but that event is gone"
        )


def _placements(
    conn: psycopg.Connection[Any], target: Shard, evidence: TailEvidence, shards: int
) -> None:
    if shards == 1:
        return  # one shard records no placements
    directory = conn.execute("SELECT to_regclass(%s) AS t", (f"{SCHEMA}.placements",)).fetchone()
    if directory is None or directory["t"] is None:
        return  # a shard on a cluster of its own: the directory is on home (docs/scaling.md)
    query = SQL(
        "SELECT p.stream_id, count(*) OVER () AS missing FROM {0}.placements p "
        "WHERE p.shard = %s AND NOT EXISTS (SELECT 1 FROM {1} e WHERE e.originator_id = "
        "p.stream_id) ORDER BY p.placed_at DESC LIMIT %s"
    ).format(Identifier(SCHEMA), target.table(target.tables.events))
    rows = conn.execute(query, (evidence.shard, _SHOWN)).fetchall()
    if rows:
        streams = ", ".join(str(row["stream_id"]) for row in rows)
        evidence.hints.append(
            f"{rows[0]['missing']} stream(s) placed on this shard have no event ({streams}): "
            "their events were removed, or their creation failed after placing them"
        )


def _counter(conn: psycopg.Connection[Any], target: Shard, evidence: TailEvidence) -> None:
    query = SQL(
        "SELECT last_value FROM pg_sequences WHERE schemaname = {0} AND sequencename = {1}"
    ).format(Literal(SCHEMA), Literal(target.tables.sequence))
    row = conn.execute(query).fetchone()
    issued = None if row is None else row["last_value"]
    if issued is not None and int(issued) > evidence.head:
        evidence.hints.append(
            f"the position counter has handed out positions up to {issued}: a rolled-back "
            "write also uses one, so this proves nothing alone"
        )
