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

from collections.abc import Sequence
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
    behind: Sequence[int] = (),
) -> Window:
    """Events after `after` up to `after + limit` (and `cap`), but for topics in `skip`.

    `behind`: where the batch's models stand on every shard. A stream moved here from another
    shard has its new events held back until the models have projected the old shard past
    the move's fence, so that a stream's events are always applied in version order, in a
    rebuild too (infra/store/move.py)."""
    upper = after + limit if cap is None else min(after + limit, cap)
    parameters = {"after": after, "upper": upper, "behind": list(behind)}
    rows = conn.execute(_query(shard, skip), parameters).fetchall()
    head = rows[0][5] if rows else None
    if head is None or head <= after:
        return Window([], None, at_head=cap is None)
    blocked = rows[0][6]
    if blocked is not None:
        upper = min(upper, int(blocked) - 1)
        if upper <= after:
            return Window([], None, at_head=False)
    registry = ledger.mapper.registry
    events = [Entry(registry, row[:5]) for row in rows if row[0] is not None]
    at_head = cap is None and blocked is None and head <= upper
    return Window(events, min(head, upper), at_head=at_head)


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
    from here; `blocked` is the first new event of a moved stream whose old shard the models
    have not projected past the fence yet (the window stops before it). The copies table is
    small (one row per moved stream, none without moves): the extra work is negligible.
    """
    topics = sql.Literal(text_array(skip)).as_string().replace("%", "%%")  # not a placeholder
    return (
        sql.SQL(
            "SELECT e.notification_id, e.originator_id, e.originator_version, e.topic, e.state, "
            "h.head, h.blocked FROM (SELECT max(notification_id) AS head, "
            "(SELECT min(b.notification_id) FROM {t} b JOIN {c} bc ON bc.stream_id = "
            "b.originator_id WHERE b.notification_id > %(after)s AND b.notification_id <= "
            "%(upper)s AND b.originator_version > bc.upto_version AND bc.fence_position > "
            "coalesce((%(behind)s::bigint[])[bc.from_shard + 1], bc.fence_position)) AS blocked "
            "FROM {t}) h "
            "LEFT JOIN {t} e ON e.notification_id > %(after)s "
            "AND e.notification_id <= least(%(upper)s, h.blocked - 1) "
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
