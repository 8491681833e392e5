"""The eventsourcing library's PostgreSQL application recorder, adapted to one Senki shard.

Two changes, both inside the library's own extension points:
- the EXCLUSIVE write lock is taken on the shard's empty sidecar table (see ShardTables), so
  the service role needs no UPDATE privilege on stored events;
- an idempotency record is inserted in the same transaction as the events it answers for, so
  a retried request either finds the first answer or appends nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import StoredEvent
from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
from psycopg import Cursor
from psycopg.rows import DictRow
from psycopg.sql import SQL, Identifier

from infra.store.names import ShardTables


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
        self.lock_table_statements = [
            SQL("SET LOCAL lock_timeout = '{0}s'").format(datastore.lock_timeout),
            SQL("LOCK TABLE {0}.{1} IN EXCLUSIVE MODE").format(
                schema, Identifier(tables.write_lock)
            ),
        ]
        # One round trip instead of three: the lock statements and the NOTIFY carry no
        # parameters, so they can travel as one simple query.
        self._lock_and_notify = SQL("; ").join(
            [*self.lock_table_statements, SQL("NOTIFY {0}").format(Identifier(self.channel_name))]
        )
        self._insert_idempotency = SQL(
            "INSERT INTO {0}.{1} (key, fingerprint, response) VALUES (%s, %s, %s)"
        ).format(schema, Identifier(tables.idempotency))

    def _lock_table(self, curs: Cursor[DictRow]) -> None:
        curs.execute(self._lock_and_notify)

    def _notify_channel(self, curs: Cursor[DictRow]) -> None:
        pass  # sent with the lock statements

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """The library's insert, in a plain transaction rather than a pipeline.

        In pipeline mode a refused idempotency key surfaces as "pipeline aborted" (an
        OperationalError, which the library then retries); in a plain transaction it is the
        IntegrityError it really is. The extra round trips cost microseconds on loopback.
        """
        record = kwargs.get("idempotency")
        with self.datastore.get_connection() as conn, conn.transaction(), conn.cursor() as curs:
            if isinstance(record, IdempotencyRecord):
                curs.execute(
                    self._insert_idempotency,
                    (record.key, record.fingerprint, json.dumps(record.response)),
                )
            if not stored_events:
                return []
            self._insert_stored_events(curs, stored_events, **kwargs)
            return self._fetch_ids_after_insert_events(curs, stored_events, **kwargs)
