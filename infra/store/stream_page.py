"""One page of a stream's events with their log positions (for feeds and live updates).

`Ledger.read` goes through the library's `select_events`, which does not return the
notification id; a feed wants it, so clients can line an event up with the chained log.
"""

from __future__ import annotations

from uuid import UUID

from eventsourcing.persistence import StoredEvent
from psycopg.sql import SQL

from infra.store.ledger import Ledger
from infra.store.mapper import Recorded


def read_page(
    ledger: Ledger,
    stream_id: UUID,
    *,
    after: int = 0,
    limit: int = 100,
    shard: int | None = None,
) -> list[Recorded]:
    """Up to `limit` events of the stream with versions above `after`, oldest first (on the
    stream's own shard unless `shard` is given)."""
    target = ledger.shards[ledger.shard_of(stream_id) if shard is None else shard]
    query = SQL(
        "SELECT originator_version, topic, state, notification_id FROM {0} "
        "WHERE originator_id = %s AND originator_version > %s "
        "ORDER BY originator_version LIMIT %s"
    ).format(target.table(target.tables.events))
    with target.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (stream_id, after, limit))
        rows = cursor.fetchall()
    return [
        ledger.mapper.to_recorded(
            StoredEvent(
                stream_id, int(row["originator_version"]), row["topic"], bytes(row["state"])
            ),
            int(row["notification_id"]),
        )
        for row in rows
    ]


def placed_topics(ledger: Ledger, stream_id: UUID) -> list[tuple[str, int]]:
    """Every event of the stream as (topic, log position), oldest first, nothing decoded: where
    a read that already holds the state finds each event's position."""
    target = ledger.shards[ledger.shard_of(stream_id)]
    query = SQL(
        "SELECT topic, notification_id FROM {0} WHERE originator_id = %s "
        "ORDER BY originator_version"
    ).format(target.table(target.tables.events))
    with target.datastore.transaction(commit=False) as cursor:
        cursor.execute(query, (stream_id,))
        return [(str(row["topic"]), int(row["notification_id"])) for row in cursor.fetchall()]
