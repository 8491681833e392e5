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
  append.sql), with binary parameters (see `_append_once`);
- group commit: appends that arrive while another append of the same recorder is in flight
  queue up and go together, as one call of the shard's batch function (infra/sql/
  append_batch.sql), so they share one write lock, one NOTIFY and one WAL flush; each still
  gets its own positions or its own refusal (see `SenkiRecorder.insert_events`).

Reads and appends are retried on a lost connection (infra/store/retry.py says which errors
are, and why the others are not); `SenkiRecorder.insert_events` says why an append may be.
tests/contract/ runs the library's own recorder test cases against this class and lists every
deliberate difference from the library.
"""

from __future__ import annotations

import struct
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast
from uuid import UUID

import psycopg
import pydantic_core
from eventsourcing import persistence
from eventsourcing.persistence import IntegrityError, PersistenceError, StoredEvent
from eventsourcing.postgres import (
    PostgresApplicationRecorder,
)
from psycopg import Connection
from psycopg.adapt import Dumper
from psycopg.pq import ConnStatus, DiagnosticField, ExecStatus, Format
from psycopg.pq.abc import PGresult
from psycopg.sql import SQL, Identifier

from infra.store.connect import ShardDatastore, as_the_library_raises
from infra.store.names import ShardTables
from infra.store.retry import ATTEMPTS, LOST, connection_lost, pause, retried_read

_MOST_STREAMS_NAMED = 100  # 100 ids of 36 characters, and commas: well under 8000 bytes
# Appends sent as one batch at most: each runs in a subtransaction, and a backend caches the
# ids of 64; past that every snapshot taken in the cluster gets slower (suboverflow).
MOST_BATCHED = 32


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


class _Ints(_Array):
    array_oid = 1007  # integer[]


class _Jsonbs(_Array):
    array_oid = 3807  # jsonb[]


def _dumper_of(array: type[_Array]) -> type[Dumper]:
    class ArrayDumper(Dumper):
        format = Format.BINARY
        oid = array.array_oid

        def dump(self, obj: Any) -> bytes:
            return bytes(obj)

    return ArrayDumper


_ARRAYS: tuple[type[_Array], ...] = (_Uuids, _Bigints, _Texts, _Byteas, _Ints, _Jsonbs)
_DUMPERS = {array: _dumper_of(array) for array in _ARRAYS}
_HEAD = struct.Struct("!iiiii")  # dimensions, has-nulls, element oid, length, lower bound
_EMPTY = struct.Struct("!iii")
_LENGTH = struct.Struct("!i")
_BIGINT = struct.Struct("!iq")  # an element's length (8) and its value
_INT = struct.Struct("!ii")  # an element's length (4) and its value
_NULL = _LENGTH.pack(-1)  # a NULL element: length -1, no bytes
_JSONB_VERSION = b"\x01"  # jsonb's binary format: a version byte, then the JSON text


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


def _nullable(kind: type[_Array], element_oid: int, items: Sequence[bytes | None]) -> _Array:
    """`_array` for items that may be NULL (the batch's per-append keys and answers)."""
    if not items:
        return kind(_EMPTY.pack(0, 0, element_oid))
    nulls = int(any(item is None for item in items))
    parts = [_HEAD.pack(1, nulls, element_oid, len(items), 1)]
    for item in items:
        parts.append(_NULL if item is None else _LENGTH.pack(len(item)) + item)
    return kind(b"".join(parts))


def _ints(values: Sequence[int]) -> _Array:
    if not values:
        return _Ints(_EMPTY.pack(0, 0, 23))
    head = _HEAD.pack(1, 0, 23, len(values), 1)
    return _Ints(head + b"".join(_INT.pack(4, value) for value in values))


def _arrays(stored_events: Sequence[StoredEvent]) -> tuple[_Array, _Array, _Array, _Array]:
    """(uuid[], bigint[], text[], bytea[]) of the events' ids, versions, topics and states."""
    return (
        _array(_Uuids, 2950, _stream_bytes(stored_events)),
        _bigints([e.originator_version for e in stored_events]),
        _array(_Texts, 25, [e.topic.encode() for e in stored_events]),
        _array(_Byteas, 17, [e.state for e in stored_events]),
    )


_NO_SUCH_STATEMENT = b"26000"  # invalid_sql_statement_name
_ALREADY_PREPARED = b"42P05"  # duplicate_prepared_statement
# The append function's parameter types, in order: uuid[], bigint[], text[], bytea[], text,
# text, jsonb, text, text, text (infra/sql/append.sql).
_APPEND_TYPES = (2951, 1016, 1009, 1001, 25, 25, 3802, 25, 25, 25)


class _Prepared:
    """One statement prepared once per pooled connection and run through libpq itself, its
    parameters already encoded in PostgreSQL's binary formats and its rows read as text.

    psycopg's `cursor.execute` adapts each parameter, looks up its prepared-statement cache
    and builds its result machinery on every call: for the append, a statement of ten ready
    encoded parameters and one bigint[] back, that was more client CPU than the call itself.
    libpq's blocking call releases the GIL while it waits for the server. A failure raises
    what psycopg raises for it: the SQLSTATE's class with its `diag` (a refused key or
    version names its constraint), and an OperationalError when the connection is lost."""

    def __init__(self, name: bytes, query: bytes, types: Sequence[int]) -> None:
        self.name = name
        self.query = query
        self.types = tuple(types)
        self.formats = (Format.BINARY,) * len(self.types)
        # The pooled connections it is prepared on, and the encoding of each one's text.
        self._on: weakref.WeakKeyDictionary[Connection[Any], str] = weakref.WeakKeyDictionary()

    def ready(self, conn: Connection[Any]) -> str:
        """Prepare it on this connection unless it is; the connection's text encoding."""
        encoding = self._on.get(conn)
        if encoding is None:
            self._prepare(conn)
            encoding = self._on[conn] = conn.info.encoding
        return encoding

    def _prepare(self, conn: Connection[Any]) -> None:
        result = conn.pgconn.prepare(self.name, self.query, self.types)
        # Another recorder of the same shard (so the same name and statement) may have
        # prepared it on this pooled connection already: then it is ready.
        if result.error_field(DiagnosticField.SQLSTATE) != _ALREADY_PREPARED:
            _checked(conn, result)

    def run(self, conn: Connection[Any], parameters: Sequence[bytes | None]) -> PGresult:
        self.ready(conn)
        # libpq sends a None as NULL (as psycopg's own calls do); the stub only lists buffers.
        values = cast(Sequence[bytes], parameters)
        result = conn.pgconn.exec_prepared(self.name, values, self.formats, Format.TEXT)
        if result.error_field(DiagnosticField.SQLSTATE) == _NO_SUCH_STATEMENT:
            # psycopg deallocates every prepared statement of a connection after a DROP, ALTER
            # or ROLLBACK on it (its own cache's rule), ours too: prepare it again. Nothing ran.
            self._prepare(conn)
            result = conn.pgconn.exec_prepared(self.name, values, self.formats, Format.TEXT)
        return _checked(conn, result)


def _checked(conn: Connection[Any], result: PGresult) -> PGresult:
    if result.status in (ExecStatus.TUPLES_OK, ExecStatus.COMMAND_OK):
        return result
    if conn.pgconn.status == ConnStatus.BAD:
        message = result.error_message.decode(errors="replace").strip()
        raise psycopg.OperationalError(message or "the connection to the server was lost")
    raise psycopg.errors.error_from_result(result, encoding=conn.info.encoding)


def _bigints_of(text: bytes | None) -> list[int]:
    """A bigint[] in PostgreSQL's text form (`{1,2,3}`), or NULL, as a list."""
    if text is None or text == b"{}":
        return []
    return [int(value) for value in text[1:-1].split(b",")]


@dataclass(frozen=True)
class IdempotencyRecord:
    """The first answer to a request, kept under its key for retries."""

    key: str
    fingerprint: str
    # A JSON object, or one already encoded: a typed answer is serialised once, by the
    # executor, straight from its model (infra/services/executor.py `stored`).
    response: dict[str, Any] | bytes

    def encoded(self) -> bytes:
        """The answer as JSON text (pydantic's encoder: json.dumps' value, in a third the time)."""
        if isinstance(self.response, bytes):
            return self.response
        return pydantic_core.to_json(self.response)


@dataclass(eq=False)
class _Appending:
    """One append waiting in the queue, then its outcome: positions, or the error to raise."""

    events: Sequence[StoredEvent]
    record: IdempotencyRecord | None
    ready: threading.Event = field(default_factory=threading.Event)
    lead: bool = False  # woken to send the next batch, not with an outcome
    positions: list[int] = field(default_factory=list)
    error: BaseException | None = None
    alone: bool = False  # refused by a deadlock in the batch: append on its own instead

    def outcome(self) -> list[int]:
        if self.error is not None:
            raise self.error
        return self.positions


class _Queue:
    """The appends of one recorder waiting while another of its appends is in flight.

    At most one call is in flight: whoever arrives while the recorder is idle sends its own
    append at once (the single path), anyone else queues. When the call in flight returns,
    the first one queued leads: it takes itself and what queued behind it (up to
    MOST_BATCHED) as the next call, and once that returns hands over in turn, so each
    thread leads at most its own batch and no thread serves the others for ever."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._busy = False
        self._waiting: deque[_Appending] = deque()
        # Calls sent and the appends they carried, for the benchmark's appends per call.
        self.calls = 0
        self.appends = 0

    def enter(
        self, events: Sequence[StoredEvent], record: IdempotencyRecord | None
    ) -> _Appending | None:
        """None: nothing is in flight, send it now (nothing else is made, so the single path
        costs what it did); else the queued append, which waits for `ready`."""
        with self._guard:
            if not self._busy:
                self._busy = True
                self.calls += 1
                self.appends += 1
                return None
            appending = _Appending(events, record)
            self._waiting.append(appending)
            return appending

    def batch_of(self, leader: _Appending) -> list[_Appending]:
        """The leader and the appends queued behind it, in arrival order."""
        batch = [leader]
        with self._guard:
            while self._waiting and len(batch) < MOST_BATCHED:
                batch.append(self._waiting.popleft())
            self.calls += 1
            self.appends += len(batch)
        return batch

    def hand_over(self) -> None:
        """The call in flight returned: wake the next leader, or fall idle."""
        with self._guard:
            if not self._waiting:
                self._busy = False
                return
            leader = self._waiting.popleft()
            leader.lead = True
        leader.ready.set()

    def leave(self, appending: _Appending) -> None:
        """A waiting thread gives up (interrupted): out of the queue if still in it; if it was
        just made leader, the lead passes on, so the queue never waits for a thread that
        left. Already in a batch: that batch sets its outcome, which no one reads."""
        with self._guard:
            if appending in self._waiting:
                self._waiting.remove(appending)
                return
            chosen = appending.lead
        if chosen:
            self.hand_over()

    @property
    def queued(self) -> int:
        """How many appends wait (for tests and diagnostics)."""
        with self._guard:
            return len(self._waiting)


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

    Group commit: an append that arrives while another append of this recorder is in flight
    waits in `queue`, and the queued appends then go as one call of the shard's batch
    function (infra/sql/append_batch.sql): one write lock, one NOTIFY, one COMMIT and its WAL
    flush for them all, where each used to queue on the lock through the others' flushes. Each
    append still answers for itself, as if it had been sent alone: its own positions, or the
    IntegrityError naming the constraint that refused it (its key, or a (stream, version)
    taken, also by an earlier append of the same batch), or the move fence's SKMOV refusal;
    a refused append changes nothing and the others of its batch go on. An error of the whole
    call (a lock or pool timeout) is every append's. A lost connection sends each append of
    the batch back here to retry alone, with the lost-ack check above, so a batch that did
    commit is recognised append by append. An append alone takes the single path unchanged.
    """

    datastore: ShardDatastore

    def __init__(self, datastore: ShardDatastore, *, tables: ShardTables) -> None:
        super().__init__(datastore, events_table_name=tables.events)
        self.tables = tables
        schema = Identifier(datastore.schema)
        # The whole append is this one statement (infra/sql/append.sql), its parameters sent
        # in binary and its plan prepared once per connection, through libpq itself (_Prepared).
        self._append_call = _Prepared(
            f"senki_{tables.append_function}".encode(),
            SQL(
                "SELECT {0}.{1}($1::uuid[], $2::bigint[], $3::text[], $4::bytea[], $5::text, "
                "$6::text, $7::jsonb, $8::text, $9::text, $10::text) AS positions"
            )
            .format(schema, Identifier(tables.append_function))
            .as_bytes(None),
            _APPEND_TYPES,
        )
        # The batch as psycopg sends it (a batch carries many appends, so its cost is shared);
        # rendered to bytes once, since psycopg renders a composed SQL object again on each
        # execute (about 0.1 ms apiece).
        self._append_batch = (
            SQL(
                "SELECT positions, refused, message, detail, hint, constraint_name FROM "
                "{0}.{1}(%b::uuid[], %b::bigint[], %b::text[], %b::bytea[], %b::integer[], "
                "%b::text[], %b::text[], %b::jsonb[], %b::text, %b::text, %b::text)"
            )
            .format(schema, Identifier(tables.append_batch_function))
            .as_bytes(None)
        )
        self.queue = _Queue()
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
                if lost:  # alone: a batch that did commit is then recognised append by append
                    return self._append_once(stored_events, record)
                return self._append_grouped(stored_events, record)
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

    def _append_grouped(
        self, stored_events: Sequence[StoredEvent], record: IdempotencyRecord | None
    ) -> list[int]:
        """Alone when the recorder is idle; else queued, and sent with the others queued."""
        appending = self.queue.enter(stored_events, record)
        if appending is None:
            try:
                return self._append_once(stored_events, record)
            finally:
                self.queue.hand_over()
        try:
            appending.ready.wait()
        except BaseException:
            self.queue.leave(appending)
            raise
        if appending.lead:
            self._lead(appending)
        if appending.alone:
            return self._append_once(stored_events, record)
        return appending.outcome()

    def _lead(self, leader: _Appending) -> None:
        """Send the next batch: the leader's append and those queued behind it. Whatever
        happens, each gets an outcome and is woken, and the lead passes on."""
        batch = self.queue.batch_of(leader)
        try:
            if len(batch) == 1:
                leader.positions = self._append_once(leader.events, leader.record)
            else:
                self._send_batch(batch)
        except BaseException as error:
            leader.error = error
            for appending in batch[1:]:
                appending.error = _twin(error)
        finally:
            self.queue.hand_over()
            for appending in batch[1:]:
                appending.ready.set()

    def _send_batch(self, batch: Sequence[_Appending]) -> None:
        """One call of the batch function; each append's outcome set from its row."""
        events = [event for appending in batch for event in appending.events]
        records = [appending.record for appending in batch]
        parameters = (
            *_arrays(events),
            _ints([n for n, appending in enumerate(batch, 1) for _ in appending.events]),
            _nullable(_Texts, 25, [r.key.encode() if r else None for r in records]),
            _nullable(_Texts, 25, [r.fingerprint.encode() if r else None for r in records]),
            _nullable(
                _Jsonbs,
                3802,
                [_JSONB_VERSION + r.encoded() if r else None for r in records],
            ),
            self.channel_name,
            _payload(events),
            self._lock_timeout,
        )
        with self.datastore.get_connection() as conn:
            self._teach(conn)
            with conn.cursor() as curs:
                curs.execute(self._append_batch, parameters, prepare=True)
                rows = curs.fetchall()
        if len(rows) != len(batch):
            raise persistence.InternalError(f"{len(rows)} outcomes for {len(batch)} appends")
        for appending, row in zip(batch, rows, strict=True):
            if row["refused"] is None:
                appending.positions = [int(position) for position in row["positions"] or []]
            elif row["refused"] == _DEADLOCK:
                # A batch inserts its idempotency keys under the write lock: another process's
                # lone append that took one of those keys and then queued for that lock is a
                # deadlock, which PostgreSQL breaks by failing this append's insert. Not its
                # doing: it is sent again on its own, where a key is taken before the lock.
                appending.alone = True
            else:
                appending.error = _refusal(row)

    def _teach(self, conn: Connection[Any]) -> None:
        """The array dumpers, registered once per pooled connection (before the cursor, which
        copies the adapters)."""
        if conn not in self._taught:
            for array, dumper in _DUMPERS.items():
                conn.adapters.register_dumper(array, dumper)
            self._taught.add(conn)

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
        conn = self.datastore.lease()
        try:
            encoding = self._append_call.ready(conn)
            result = self._append_call.run(
                conn,
                (
                    *_arrays(stored_events),
                    record.key.encode(encoding) if record else None,
                    record.fingerprint.encode(encoding) if record else None,
                    _JSONB_VERSION + record.encoded() if record else None,
                    self.channel_name.encode(encoding),
                    _payload(stored_events).encode(encoding),
                    self._lock_timeout.encode(encoding),
                ),
            )
        except psycopg.Error as error:
            raise self.datastore.failed(error) from error
        finally:
            self.datastore.release(conn)
        return _bigints_of(result.get_value(0, 0) if result.ntuples else None)

    @retried_read
    def _appended_before(
        self, stored_events: Sequence[StoredEvent], record: IdempotencyRecord | None
    ) -> list[int] | None:
        """The positions of these very events (and this idempotency record) if an earlier
        attempt committed them, else None: someone else holds the keys."""
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            if record is not None:
                response = record.encoded().decode()
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
    streams = sorted({str(stream) for stream in _runs_of_streams(stored_events)})
    return "" if len(streams) > _MOST_STREAMS_NAMED else ",".join(streams)


def _refusal(row: dict[str, Any]) -> PersistenceError:
    """The error one append of a batch was refused with, as the server would have raised it
    for the append alone: psycopg's class for its SQLSTATE, whose `diag` carries the
    constraint name (the ledger's `_explain`), the detail (the fence's stream, `_moved_stream`),
    the message and the hint; wrapped as the library wraps it."""
    state = str(row["refused"])
    fields = {
        DiagnosticField.SQLSTATE: state,
        DiagnosticField.MESSAGE_PRIMARY: row["message"],
        DiagnosticField.MESSAGE_DETAIL: row["detail"],
        DiagnosticField.MESSAGE_HINT: row["hint"],
        DiagnosticField.CONSTRAINT_NAME: row["constraint_name"],
    }
    info: dict[int, bytes | None] = {
        int(name): value.encode() for name, value in fields.items() if value
    }
    text = str(row["message"] or state)
    if row["detail"]:
        text += f"\nDETAIL:  {row['detail']}"
    try:
        kind = psycopg.errors.lookup(state)
    except KeyError:  # a SQLSTATE of Senki's own, such as the fence's SKMOV
        kind = psycopg.errors.get_base_exception(state)
    return as_the_library_raises(kind(text, info=info))


_DEADLOCK = "40P01"  # deadlock_detected


def _twin(error: BaseException) -> BaseException:
    """A copy of an error of the whole batch for each of its other appends to raise in its
    own thread (one exception object raised in many threads would mix their tracebacks);
    the same object if it cannot be copied."""
    try:
        twin = type(error).__new__(type(error), *error.args)
        twin.__dict__.update(vars(error))
    except Exception:
        return error
    twin.__cause__ = error.__cause__
    twin.__context__ = error.__context__
    twin.__suppress_context__ = error.__suppress_context__
    return twin


def _uuid(value: UUID | str) -> UUID:
    return value if isinstance(value, UUID) else UUID(value)


def _runs_of_streams(stored_events: Sequence[StoredEvent]) -> list[UUID | str]:
    """The stream of each run of events of one stream, in order (told by identity, see
    `_stream_bytes`): usually one, however many events."""
    runs: list[UUID | str] = []
    for event in stored_events:
        if not runs or event.originator_id is not runs[-1]:
            runs.append(event.originator_id)
    return runs


def _stream_bytes(stored_events: Sequence[StoredEvent]) -> list[bytes]:
    """Each event's stream id as its 16 bytes, computed once per run of events of one stream
    (UUID.bytes is computed on every call; an append's events share their stream, the very
    same object, so telling it by identity costs no hash)."""
    found: list[bytes] = []
    stream: UUID | str | None = None
    encoded = b""
    for event in stored_events:
        if event.originator_id is not stream:
            stream = event.originator_id
            encoded = _uuid(stream).bytes
        found.append(encoded)
    return found
