"""Reading the log for the projector on its own connection: one round trip per batch.

A batch is a window of positions, (after, after + limit], read in one statement with the
log's head. Events of topics no model of the batch wants are left in the table (`skip`):
with lanes, each lane reads only its share of the log. The window still ends where the log
ends or the limit falls, whatever was skipped, so the tracking position moves past skipped
events. Writers append one at a time (the store's write lock), so once a position is
visible every lower one that will ever exist is too: moving past an unseen position is safe.

Each event is decoded by the ledger's own event registry the first time a read model asks
for it, straight from the stored JSON text (pydantic parses it in one step). Running it on the
projector's connection skips the pool's checkout, pre-ping and transaction, which is most of
the commit-to-visible latency.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from uuid import UUID

from psycopg import Connection, sql

from domain.events import DomainEvent, EventRegistry
from infra.projector.tables import text_array
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


@dataclass(frozen=True)
class Window:
    """What one batch read: its events, the position it covers up to, and whether that is
    the head of the log (`end` is None when there was nothing after `after`)."""

    events: list[Entry]
    end: int | None
    at_head: bool


def read_window(
    conn: Connection[tuple[Any, ...]],
    ledger: Ledger,
    shard: int,
    after: int,
    limit: int,
    *,
    cap: int | None = None,
    skip: tuple[str, ...] = (),
) -> Window:
    """Events after `after` up to `after + limit` (and `cap`), but for topics in `skip`."""
    upper = after + limit if cap is None else min(after + limit, cap)
    rows = conn.execute(_query(shard, skip), (after, upper)).fetchall()
    head = rows[0][5] if rows else None
    if head is None or head <= after:
        return Window([], None, at_head=cap is None)
    registry = ledger.mapper.registry
    events = [Entry(registry, row[:5]) for row in rows if row[0] is not None]
    return Window(events, min(head, upper), at_head=cap is None and head <= upper)


@lru_cache(maxsize=64)
def _query(shard: int, skip: tuple[str, ...]) -> bytes:
    """The statement for one shard and one set of skipped topics, composed once.

    The head and the window's rows come in one statement, so that both come from one
    snapshot; a LEFT JOIN keeps the head when every event of the window is skipped. The
    skipped topics are a constant in the statement, not a parameter: PostgreSQL (15 and
    later) then looks each row's topic up in a hash of them rather than comparing it with
    every one, in the generic plan of the prepared statement too.

    Copies a campaign move wrote here (`events_N_copies`, infra/sql/move.sql) are left out
    too: their originals on the old shard were projected already (once, exactly), so the
    read models take a moved stream's history from where it was written and its new events
    from here. The copies table is small (one row per moved stream): a hashed anti-join.
    """
    topics = sql.Literal(text_array(skip)).as_string().replace("%", "%%")  # not a placeholder
    return (
        sql.SQL(
            "SELECT e.notification_id, e.originator_id, e.originator_version, e.topic, e.state, "
            "h.head FROM (SELECT max(notification_id) AS head FROM {t}) h "
            "LEFT JOIN {t} e ON e.notification_id > %s AND e.notification_id <= %s "
            "AND e.topic <> ALL(<skip>::text[]) AND NOT EXISTS (SELECT 1 FROM {c} c "
            "WHERE c.stream_id = e.originator_id "
            "AND (c.upto_version IS NULL OR e.originator_version <= c.upto_version)) "
            "ORDER BY e.notification_id"
        )
        .format(
            t=sql.Identifier(SCHEMA, ShardTables(shard).events),
            c=sql.Identifier(SCHEMA, f"{ShardTables(shard).events}_copies"),
        )
        .as_string()
        .replace("<skip>", topics)
        .encode()
    )
