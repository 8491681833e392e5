"""The eventsourcing library's PostgreSQL application recorder, adapted to one Senki shard.

What Senki changes, within the library's own extension points:
- the EXCLUSIVE write lock is taken on the shard's empty sidecar table (see ShardTables), so
  the service role needs no UPDATE privilege on stored events;
- an idempotency record is inserted in the same transaction as the events it answers for, so
  a retried request either finds the first answer or appends nothing;
- the NOTIFY names the streams appended to (comma-separated ids), so a listener can tell which
  states it holds are stale (infra/services/append_watch.py); an append of very many streams
  sends no payload, which a listener takes as "anything may have changed";
- the whole append is one statement, a call of the shard's append function (infra/sql/
  append.sql), with binary parameters (see `_append_once`).

Reads and appends are retried on a lost connection (infra/store/retry.py says which errors
are, and why the others are not); `SenkiRecorder.insert_events` says why an append may be.
tests/contract/ runs the library's own recorder test cases against this class and lists every
deliberate difference from the library.
"""

from __future__ import annotations

import json
import struct
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import pydantic_core
from eventsourcing.persistence import IntegrityError, StoredEvent
from eventsourcing.postgres import (
    PostgresApplicationRecorder,
    PostgresDatastore,
)
from psycopg import Connection
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.sql import SQL, Identifier
from psycopg.types.json import Jsonb

from infra.store.names import ShardTables
from infra.store.retry import ATTEMPTS, LOST, connection_lost, pause, retried_read

_MOST_STREAMS_NAMED = 100  # 100 ids of 36 characters, and commas: well under 8000 bytes


class _Array(bytes):
    """A one-dimensional array in PostgreSQL's binary array format, encoded here: psycopg's
    list dumpers look up and upgrade a dumper per list on every call (about a third of an
    append's client CPU), where these four shapes never change."""

    array_oid = 0


class _Uuids(_Array):
    array_oid = 2951  # uuid[]


class _Bigints(_Array):
    array_oid = 1016  # bigint[]


class _Texts(_Array):
    array_oid = 1009  # text[]


class _Byteas(_Array):
    array_oid = 1001  # bytea[]


def _dumper_of(array: type[_Array]) -> type[Dumper]:
    class ArrayDumper(Dumper):
        format = Format.BINARY
        oid = array.array_oid

        def dump(self, obj: Any) -> bytes:
            return bytes(obj)

    return ArrayDumper


_ARRAYS: tuple[type[_Array], ...] = (_Uuids, _Bigints, _Texts, _Byteas)
_DUMPERS = {array: _dumper_of(array) for array in _ARRAYS}
_HEAD = struct.Struct("!iiiii")  # dimensions, has-nulls, element oid, length, lower bound
_EMPTY = struct.Struct("!iii")
_LENGTH = struct.Struct("!i")
_BIGINT = struct.Struct("!iq")  # an element's length (8) and its value


def _array(kind: type[_Array], element_oid: int, items: Sequence[bytes]) -> _Array:
    if not items:
        return kind(_EMPTY.pack(0, 0, element_oid))
    parts = [_HEAD.pack(1, 0, element_oid, len(items), 1)]
    for item in items:
        parts.append(_LENGTH.pack(len(item)))
        parts.append(item)
    return kind(b"".join(parts))


def _bigints(values: Sequence[int]) -> _Array:
    if not values:
        return _Bigints(_EMPTY.pack(0, 0, 20))
    head = _HEAD.pack(1, 0, 20, len(values), 1)
    return _Bigints(head + b"".join(_BIGINT.pack(8, value) for value in values))


def _arrays(stored_events: Sequence[StoredEvent]) -> tuple[_Array, _Array, _Array, _Array]:
    """(uuid[], bigint[], text[], bytea[]) of the events' ids, versions, topics and states."""
    return (
        _array(_Uuids, 2950, [_uuid(e.originator_id).bytes for e in stored_events]),
        _bigints([e.originator_version for e in stored_events]),
        _array(_Texts, 25, [e.topic.encode() for e in stored_events]),
        _array(_Byteas, 17, [e.state for e in stored_events]),
    )


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first answer to a request, kept under its key for retries."""

    key: str
    fingerprint: str
    response: dict[str, Any]


class SenkiRecorder(PostgresApplicationRecorder):
    """Application recorder for one shard's events table.

    Reads are retried on a lost connection: `select_events` as in infra/store/retry.py, the
    library's own `select_notifications` and `max_notification_id` by its decorator.

    An append (`insert_events`) is retried on a lost connection too, inside the recorder, up
    to 10 attempts 0.2 s apart, so a failover costs clients nothing. That is safe because an
    append is one transaction, and a repeat of one that did commit (the ack was lost with the
    connection) cannot append twice: its events' (stream, version) keys and its idempotency
    key are already taken, so the repeat is refused with an IntegrityError. After a lost
    connection the recorder then looks at what holds those keys: byte-identical events (and
    the same idempotency record) are the first attempt's commit, and the append returns their
    positions as if the ack had arrived; any other holder is a real conflict and raises as
    usual (the executor then answers from the idempotency record, or 409). A repeat of one
    that did not commit simply appends. Not retried: a refused append (an IntegrityError from
    anyone else's keys), a write-lock timeout and a pool timeout (retry.py says why).
    """

    def __init__(self, datastore: PostgresDatastore, *, tables: ShardTables) -> None:
        super().__init__(datastore, events_table_name=tables.events)
        self.tables = tables
        schema = Identifier(datastore.schema)
        # The whole append is this one statement (infra/sql/append.sql), its parameters sent
        # in binary and its plan prepared once per connection; rendered to bytes once, since
        # psycopg renders a composed SQL object again on each execute (about 0.1 ms apiece).
        self._append = (
            SQL(
                "SELECT {0}.{1}(%b::uuid[], %b::bigint[], %b::text[], %b::bytea[], %b::text, "
                "%b::text, %b::jsonb, %b::text, %b::text, %b::text) AS positions"
            )
            .format(schema, Identifier(tables.append_function))
            .as_bytes(None)
        )
        self._lock_timeout = f"{datastore.lock_timeout}s"
        # The pool's connections that know the array dumpers (registered on first use).
        self._taught: weakref.WeakSet[Connection[Any]] = weakref.WeakSet()
        # What the append function does before inserting, as the library states it (its
        # `_lock_table` is never called here): tests take the same lock to hold a shard.
        self.lock_table_statements = [
            SQL("SET LOCAL lock_timeout = '{0}s'").format(datastore.lock_timeout),
            SQL("LOCK TABLE {0}.{1} IN EXCLUSIVE MODE").format(
                schema, Identifier(tables.write_lock)
            ),
        ]
        self._selects: dict[tuple[bool, bool, bool, bool], bytes] = {}
        self._select_appended = (
            SQL(
                "SELECT originator_id, originator_version, topic, state, notification_id "
                "FROM {0}.{1} WHERE (originator_id, originator_version) IN "
                "(SELECT * FROM unnest(%s::uuid[], %s::bigint[]))"
            )
            .format(schema, Identifier(tables.events))
            .as_bytes(None)
        )
        self._select_same_answer = (
            SQL(
                "SELECT fingerprint = %s AND response = %s::jsonb AS same FROM {0}.{1} "
                "WHERE key = %s"
            )
            .format(schema, Identifier(tables.idempotency))
            .as_bytes(None)
        )

    def insert_events(
        self, stored_events: Sequence[StoredEvent], **kwargs: Any
    ) -> Sequence[int] | None:
        """Append in one transaction; on a lost connection, again (see the class docstring)."""
        record = kwargs.get("idempotency")
        record = record if isinstance(record, IdempotencyRecord) else None
        lost = 0
        while True:
            try:
                return self._append_once(stored_events, record)
            except IntegrityError:
                # Only a repeat can meet its own first attempt's commit.
                found = self._appended_before(stored_events, record) if lost else None
                if found is None:
                    raise
                return found
            except LOST as error:
                lost += 1
                if lost >= ATTEMPTS or not connection_lost(error):
                    raise
                pause()

    def _append_once(
        self, stored_events: Sequence[StoredEvent], record: IdempotencyRecord | None
    ) -> list[int]:
        """The idempotency record, the write lock, the NOTIFY and the events, as one call of
        the shard's append function in autocommit mode: one round trip and one statement, so
        the shard's write lock is held only while the server inserts and commits, never while
        a busy client thread gets round to its next statement (that wait is what capped a
        shard's commands per second).

        A refused idempotency key or version raises the IntegrityError it is, naming the
        constraint (idempotency_N_pkey, events_N_pkey) as a plain INSERT would.
        """
        parameters = (
            *_arrays(stored_events),
            record.key if record else None,
            record.fingerprint if record else None,
            # pydantic's encoder: the same JSON value as json.dumps, in about a third the time.
            Jsonb(record.response, dumps=pydantic_core.to_json) if record else None,
            self.channel_name,
            _payload(stored_events),
            self._lock_timeout,
        )
        with self.datastore.get_connection() as conn:
            if conn not in self._taught:  # before the cursor, which copies the adapters
                for array, dumper in _DUMPERS.items():
                    conn.adapters.register_dumper(array, dumper)
                self._taught.add(conn)
            with conn.cursor() as curs:
                curs.execute(self._append, parameters, prepare=True)
                row = curs.fetchone()
        positions = row["positions"] if row else None
        return [int(position) for position in positions or []]

    @retried_read
    def _appended_before(
        self, stored_events: Sequence[StoredEvent], record: IdempotencyRecord | None
    ) -> list[int] | None:
        """The positions of these very events (and this idempotency record) if an earlier
        attempt committed them, else None: someone else holds the keys."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            if record is not None:
                response = json.dumps(record.response)
                curs.execute(self._select_same_answer, (record.fingerprint, response, record.key))
                answer = curs.fetchone()
                if answer is None or not answer["same"]:
                    return None
            if not stored_events:
                return [] if record is not None else None
            keys = (
                [e.originator_id for e in stored_events],
                [e.originator_version for e in stored_events],
            )
            curs.execute(self._select_appended, keys)
            held = {(row["originator_id"], row["originator_version"]): row for row in curs}
        positions = []
        for event in stored_events:
            row = held.get((_uuid(event.originator_id), event.originator_version))
            if row is None or row["topic"] != event.topic or bytes(row["state"]) != event.state:
                return None
            positions.append(int(row["notification_id"]))
        return positions

    @retried_read
    def select_events(
        self,
        originator_id: UUID | str,
        *,
        gt: int | None = None,
        lte: int | None = None,
        desc: bool = False,
        limit: int | None = None,
    ) -> Sequence[StoredEvent]:
        """The library's select (and its retry), with its statement rendered once per shape,
        not per call."""
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


def _uuid(value: UUID | str) -> UUID:
    return value if isinstance(value, UUID) else UUID(value)
