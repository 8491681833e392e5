"""The eventsourcing library's PostgreSQL application recorder, adapted to one Senki shard.

What Senki changes, within the library's own extension points:
- the EXCLUSIVE write lock is taken on the shard's empty sidecar table (see ShardTables), so
  the service role needs no UPDATE privilege on stored events;
- an idempotency record is inserted in the same transaction as the events it answers for, so
  a retried request either finds the first answer or appends nothing;
- the NOTIFY names the streams appended to (comma-separated ids), so a listener can tell which
  states it holds are stale (infra/services/append_watch.py); an append of very many streams
  sends no payload, which a listener takes as "anything may have changed";
- the whole append travels as one pipeline (see `insert_events`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import (
    PostgresApplicationRecorder,
    PostgresDatastore,
)
from psycopg.sql import SQL, Identifier

from infra.store.names import ShardTables

_MOST_STREAMS_NAMED = 100  # 100 ids of 36 characters, and commas: well under 8000 bytes


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first answer to a request, kept under its key for retries."""

    key: str
    fingerprint: str
    response: dict[str, Any]


class SenkiRecorder(PostgresApplicationRecorder):
    """Application recorder for one shard's events table."""

    def __init__(self, datastore: PostgresDatastore, *, tables: ShardTables) -> None:
        super().__init__(datastore, events_table_name=tables.events)
        self.tables = tables
        schema = Identifier(datastore.schema)
        locks = [
            SQL("SET LOCAL lock_timeout = '{0}s'").format(datastore.lock_timeout),
            SQL("LOCK TABLE {0}.{1} IN EXCLUSIVE MODE").format(
                schema, Identifier(tables.write_lock)
            ),
        ]
        self.lock_table_statements = list(locks)
        # Every statement rendered to bytes once: psycopg renders a composed SQL object again on
        # each execute (about 0.1 ms apiece), and caches the parsing of plain bytes queries.
        self._lock_bytes = [statement.as_bytes(None) for statement in locks]
        self._notify = b"SELECT pg_notify(%s, %s)"
        self._insert_idempotency = (
            SQL("INSERT INTO {0}.{1} (key, fingerprint, response) VALUES (%s, %s, %s)")
            .format(schema, Identifier(tables.idempotency))
            .as_bytes(None)
        )
        self._insert_rows = self.insert_events_statement.as_bytes(None)
        self._selects: dict[tuple[bool, bool, bool, bool], bytes] = {}

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """The idempotency record, the write lock, the NOTIFY, the events and the COMMIT, sent
        as one pipeline: one round trip, so the shard's write lock is held only while the
        server works, never while a busy client thread gets round to its next statement
        (that wait is what capped a shard's commands per second).

        A refused idempotency key or version still raises the IntegrityError it is: in a
        pipeline, the first failing statement's error is raised and the rest are skipped.
        """
        record = kwargs.get("idempotency")
        with self.datastore.get_connection() as conn:
            inserted = conn.cursor()
            with conn.pipeline(), conn.transaction(), conn.cursor() as curs:
                if isinstance(record, IdempotencyRecord):
                    curs.execute(
                        self._insert_idempotency,
                        (record.key, record.fingerprint, json.dumps(record.response)),
                    )
                if stored_events:
                    for statement in self._lock_bytes:
                        curs.execute(statement)
                    curs.execute(self._notify, (self.channel_name, _payload(stored_events)))
                    inserted.execute(self._insert_rows, (self._rows(stored_events),))
            if not stored_events:
                return []
            return self._fetch_ids_after_insert_events(inserted, stored_events, **kwargs)

    def _rows(self, stored_events: Sequence[StoredEvent]) -> list[Any]:
        return [
            self.construct_pg_stored_event(
                event.originator_id, event.originator_version, event.topic, event.state
            )
            for event in stored_events
        ]

    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        """The library's select, with its statement rendered once per shape, not per call."""
        bounds = [b for b in (gt, lte, limit) if b is not None]
        query = self._select_for(gt is not None, lte is not None, desc, limit is not None)
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(query, [originator_id, *bounds], prepare=True)
            return [
                StoredEvent(
                    originator_id=row["originator_id"],
                    originator_version=row["originator_version"],
                    topic=row["topic"],
                    state=bytes(row["state"]),
                )
                for row in curs.fetchall()
            ]

    def _select_for(self, gt: bool, lte: bool, desc: bool, limit: bool) -> bytes:
        shape = (gt, lte, desc, limit)
        found = self._selects.get(shape)
        if found is None:
            statement = self.select_events_statement
            if gt:
                statement += SQL(" AND originator_version > %s")
            if lte:
                statement += SQL(" AND originator_version <= %s")
            statement += SQL(
                " ORDER BY originator_version DESC" if desc else " ORDER BY originator_version"
            )
            if limit:
                statement += SQL(" LIMIT %s")
            found = self._selects[shape] = statement.as_bytes(None)
        return found


def _payload(stored_events: Sequence[StoredEvent]) -> str:
    """The streams an append wrote to, for listeners; empty (anything may have changed) when
    there are too many for a NOTIFY payload (8000 bytes)."""
    streams = sorted({str(event.originator_id) for event in stored_events})
    return "" if len(streams) > _MOST_STREAMS_NAMED else ",".join(streams)
