"""Events a read model could not take, parked for that model and stream (senki_read.parked).

One bad event (a handler bug, an old event no handler expected, a row PostgreSQL refuses)
must not halt the world: the generation that failed on it parks it and moves its tracking
position past it, in one transaction; every other stream, and every other model, keeps
going. Later events of the parked stream are parked behind it, so that a stream's events
are never applied out of order. `senki projections retry` asks the projector to apply the
parked events again, in position order, before the stream's later events; a rebuild starts
a generation with nothing parked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, LiteralString

import psycopg
from psycopg import Connection, sql

from domain.events import DomainEvent
from infra.projector.log import Entry
from infra.projector.registry import Target
from infra.projector.rows import BatchRows, RowCache
from infra.projector.tables import read_table
from infra.store.ledger import Ledger
from infra.store.names import SCHEMA, ShardTables
from projections.base import Projection

Conn = Connection[tuple[Any, ...]]
REASON_CHARS = 500  # an error message can be long (a statement's parameters): the start says it
# (entry, the parked position it waits behind or None if it failed itself, the reason)
Parking = tuple[Entry, int | None, str]
BEHIND = "behind a parked event of its stream"
log = logging.getLogger("senki.projector")


# SQLSTATE classes that say the database, not the event, is in the way: the same batch may
# pass once it is mended: retried, never parked (tests/integration/test_projector_sqlstates).
# 08 connection, 25 transaction state (a read-only standby), 28 authorisation, 3D/3F catalog
# or schema missing, 40 rollback (serialisation, deadlock, this projector fenced out),
# 42 a missing table or privilege (a deployment's state), 53 resources (disk, memory,
# connections), 55 lock not available / object in use, 57 operator (cancel, shutdown),
# 58 system (I/O), 72 snapshot too old, F0 configuration, XX the server's own fault.
RETRIED_CLASSES = frozenset(
    {"08", "25", "28", "3D", "3F", "40", "42", "53", "55", "57", "58", "72", "F0", "XX"}
)


def poisonous(error: BaseException) -> bool:
    """True for an error one event caused, which parking that event gets past: a handler's
    exception, or anything PostgreSQL refuses about the rows it made (data 22, integrity 23,
    program limits 54 such as an index row too large, and every class not retried). An
    error retrying can mend (RETRIED_CLASSES, a lost connection) is never parked."""
    if not isinstance(error, psycopg.Error):
        return isinstance(error, Exception)
    state = error.sqlstate
    if state is None:  # raised by psycopg itself: a value it cannot send, or the connection
        return isinstance(error, psycopg.DataError | psycopg.IntegrityError)
    return state[:2] not in RETRIED_CLASSES


def reason_of(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}".splitlines()[0] if str(error) else repr(error)
    return text[:REASON_CHARS]


def load(conn: Conn, targets: Sequence[Target]) -> None:
    """Each target's parked streams per shard (stream → first parked position), and whether
    a retry was asked for: one query for every target."""
    by_label = {(t.projection.name, t.generation): t for t in targets}
    for target in targets:
        target.parked, target.retry = {}, False
    if not targets:
        return
    rows = conn.execute(_LOAD, ([t.projection.name for t in targets],)).fetchall()
    for name, generation, shard, stream, first, retry in rows:
        found = by_label.get((name, generation))
        if found is not None:
            found.parked.setdefault(int(shard), {})[stream] = int(first)
            found.retry = found.retry or bool(retry)


def one_by_one(
    conn: Conn,
    target: Target,
    shard: int,
    events: Sequence[Entry],
    wants: Callable[[Projection, type[DomainEvent]], bool],
) -> None:
    """Apply `events` to one target one at a time, each in a savepoint; park what fails, and
    every later event of its stream behind it. Reads go through a cache of this call's own,
    which PostgreSQL fills: it holds the writes of the savepoints before."""
    held, cache, parked = target.parked.setdefault(shard, {}), RowCache(), list[Parking]()
    projection = target.projection
    for entry in events:
        if not wants(projection, entry.event_class):
            continue
        if entry.stream_id in held:
            parked.append((entry, held[entry.stream_id], BEHIND))
            continue
        rows = BatchRows(conn, projection, target.generation, cache)
        try:
            with conn.transaction():
                rows.apply(projection.handle(entry, rows))
                rows.flush()
        except Exception as error:
            if not poisonous(error):
                raise
            held[entry.stream_id] = entry.position
            parked.append((entry, None, reason_of(error)))
            log.error(
                "projection %s parked the event at %d:%d (stream %s): %s",
                target.label, shard, entry.position, entry.stream_id, reason_of(error),
            )  # fmt: skip
        else:
            rows.committed()
    insert(conn, target, shard, parked)


def insert(conn: Conn, target: Target, shard: int, parked: Iterable[Parking]) -> None:
    """Park events for one generation on one shard (inside the batch's transaction)."""
    params = [
        (target.projection.name, target.generation, shard, e.position, e.stream_id, behind, why)
        for e, behind, why in parked
    ]
    if params:
        with conn.cursor() as cursor:
            cursor.executemany(_INSERT, params)


def take(
    conn: Conn, ledger: Ledger, target: Target, shard: int, *, log: Conn | None = None
) -> list[Entry]:
    """Remove a generation's parked events on `shard` and return them, read again from the
    log in position order (for a retry, in the same transaction as the re-application);
    `log`: the connection to the shard's own cluster, when it is not home's."""
    key = (target.projection.name, target.generation, shard)
    found = conn.execute(_TAKE, key).fetchall()
    positions = sorted(int(p) for (p,) in found)
    if not positions:
        return []
    rows = (log or conn).execute(_events(shard), (positions,)).fetchall()
    registry = ledger.mapper.registry
    return [Entry(registry, row) for row in rows]


def request_retry(conn: Conn, names: Sequence[str] | None) -> int:
    """Ask the projector to retry the parked events of `names` (all when None)."""
    query = _q(
        "UPDATE {K} SET retry_requested = now() "
        "WHERE %s::text[] IS NULL OR projection = ANY(%s::text[])"
    )
    cursor = conn.execute(query, (names, names))
    return cursor.rowcount


def retried(conn: Conn, target: Target) -> None:
    """The retry asked for is done (what still fails stays parked, with its new reason)."""
    query = _q("UPDATE {K} SET retry_requested = NULL WHERE projection = %s AND generation = %s")
    conn.execute(query, (target.projection.name, target.generation))


def pending_retries(conn: Conn, names: Sequence[str] | None) -> int:
    query = _q(
        "SELECT count(*) FROM {K} WHERE retry_requested IS NOT NULL "
        "AND (%s::text[] IS NULL OR projection = ANY(%s::text[]))"
    )
    row = conn.execute(query, (names, names)).fetchone()
    return int(row[0]) if row else 0


def _q(text: LiteralString) -> sql.Composed:
    return sql.SQL(text).format(K=read_table("parked"))


def _events(shard: int) -> sql.Composed:
    return sql.SQL(
        "SELECT notification_id, originator_id, originator_version, topic, state FROM {} "
        "WHERE notification_id = ANY(%s) ORDER BY notification_id"
    ).format(sql.Identifier(SCHEMA, ShardTables(shard).events))


_LOAD = _q(
    "SELECT projection, generation, shard, stream_id, min(position), "
    "bool_or(retry_requested IS NOT NULL) FROM {K} WHERE projection = ANY(%s::text[]) "
    "GROUP BY projection, generation, shard, stream_id"
)
_INSERT = _q(
    "INSERT INTO {K} (projection, generation, shard, position, stream_id, behind, reason) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
)
_TAKE = _q(
    "DELETE FROM {K} WHERE projection = %s AND generation = %s AND shard = %s RETURNING position"
)
