"""Reading the log for the projector on its own connection: one round trip per batch.

The same query as the library's `select_notifications` (what `Ledger.read_log` runs). Each
event is decoded by the ledger's own event registry the first time a read model asks for it,
straight from the stored JSON text (pydantic parses it in one step: half the cost of
`json.loads` then validation); an event no read model wants (`Projection.wants`) is never
decoded. Running it on the projector's connection skips the pool's checkout, pre-ping and
transaction, which is most of the commit-to-visible latency.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from uuid import UUID

from psycopg import Connection, sql

from domain.events import DomainEvent, EventRegistry
from infra.store.ledger import Ledger
from infra.store.names import SCHEMA, ShardTables


class Entry:
    """An event of the log as the projector reads it (`projections.base.Recorded`)."""

    __slots__ = (
        "_event",
        "_registry",
        "_state",
        "_topic",
        "event_class",
        "position",
        "stream_id",
        "version",
    )

    def __init__(self, registry: EventRegistry, row: tuple[Any, ...]) -> None:
        """From a row of `_query`: position, stream, version, topic, stored JSON."""
        position, stream, self.version, topic, state = row
        self.position = int(position)
        self.stream_id = stream if isinstance(stream, UUID) else UUID(stream)
        self.event_class = registry.event_class(topic)  # an unknown topic fails here, at once
        self._registry, self._topic, self._state = registry, topic, state
        self._event: DomainEvent | None = None

    @property
    def event(self) -> DomainEvent:
        if self._event is None:
            self._event = self._registry.decode_json(self._topic, self._state)
        return self._event


def read_batch(
    conn: Connection[tuple[Any, ...]], ledger: Ledger, shard: int, after: int, limit: int
) -> list[Entry]:
    """Events of every stream with positions after `after`, in log order, at most `limit`."""
    rows = conn.execute(_query(shard).as_bytes(conn), (after, limit)).fetchall()
    registry = ledger.mapper.registry
    return [Entry(registry, row) for row in rows]


@lru_cache(maxsize=64)
def _query(shard: int) -> sql.Composed:
    return sql.SQL(
        "SELECT notification_id, originator_id, originator_version, topic, state FROM {}.{} "
        "WHERE notification_id > %s ORDER BY notification_id LIMIT %s"
    ).format(sql.Identifier(SCHEMA), sql.Identifier(ShardTables(shard).events))
