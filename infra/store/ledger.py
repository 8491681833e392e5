"""The event log as the application services see it: read a stream, append atomically.

Built on the eventsourcing library's PostgreSQL recorder (one per shard). Optimistic
concurrency comes from the (stream, version) primary key: two writers that read the same
version cannot both append the next one.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

import psycopg
from eventsourcing.persistence import IntegrityError, StoredEvent
from psycopg.sql import SQL, Identifier

from domain.events import DomainEvent, EventRegistry
from infra.store.chain import ChainReport, ChainRow, genesis_hash, walk
from infra.store.connect import ShardDatastore
from infra.store.mapper import PydanticMapper, Recorded
from infra.store.names import SCHEMA, ShardTables
from infra.store.placement import Placements
from infra.store.recorder import IdempotencyRecord, SenkiRecorder
from infra.store.retry import retried_read
from infra.store.snapshot_seal import (
    REFUSED,
    ChainPoint,
    Refusal,
    SealedSnapshot,
    explain,
    mac,
    refusal,
)

log = logging.getLogger("senki.store.snapshots")
# A load tries this many of the newest snapshots before rebuilding from the first event, so a
# flood of forged rows costs a replay, never a wrong state.
_SNAPSHOT_CANDIDATES = 3
_NO_UPPER_BOUND = 2**63 - 1


class ConcurrencyConflict(RuntimeError):
    """Another command appended to the stream since it was read."""

    def __init__(self, stream_id: UUID, expected_version: int) -> None:
        super().__init__(
            f"stream {stream_id} changed after version {expected_version}: reload and retry"
        )
        self.stream_id = stream_id
        self.expected_version = expected_version


class DuplicateRequest(RuntimeError):
    """The idempotency key was recorded by a concurrent request while this one ran."""

    def __init__(self, key: str) -> None:
        super().__init__(f"idempotency key {key!r} was answered by a concurrent request")
        self.key = key


class StreamMoved(RuntimeError):
    """The shard refused the append: the stream was moved to another shard (schema 9's fence,
    infra/sql/move.sql). The cached placement is dropped; the caller writes on the new shard
    once the directory names it, or answers 503 until then (the move is still verifying)."""

    def __init__(self, stream_id: UUID, shard: int) -> None:
        super().__init__(
            f"stream {stream_id} is being moved off shard {shard} (senki campaigns move): "
            "retry in a moment with the same Idempotency-Key"
        )
        self.stream_id = stream_id
        self.shard = shard


MOVED_SQLSTATE = "SKMOV"  # raised by a shard's append function for a fenced stream


def _moved_stream(error: BaseException) -> UUID | None:
    """The stream named by a shard's fence refusal (SQLSTATE SKMOV), if that is the error."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, psycopg.Error) and seen.sqlstate == MOVED_SQLSTATE:
            detail = (seen.diag.message_detail or "").partition(":")[0]
            return UUID(detail) if detail else None
        seen = seen.__cause__ or seen.__context__
    return None


@dataclass(frozen=True)
class StreamWrite:
    """New events for one stream, numbered after `expected_version`."""

    stream_id: UUID
    expected_version: int
    events: Sequence[DomainEvent]


@dataclass(frozen=True)
class Appended:
    """What one append of this process wrote, once it committed: the streams it appended to,
    and its events as a read of them would give them (decoded only when asked)."""

    streams: list[UUID]
    stored: list[StoredEvent]
    positions: Sequence[int]
    mapper: PydanticMapper

    def recorded(self) -> list[Recorded]:
        """The events appended, decoded from the very bytes stored, with their positions
        (none if the store did not give a position for each)."""
        if len(self.positions) != len(self.stored):
            return []
        placed = zip(self.stored, self.positions, strict=True)
        return [self.mapper.to_recorded(event, position) for event, position in placed]


@dataclass(frozen=True)
class StoredAnswer:
    fingerprint: str
    response: dict[str, Any]


@dataclass(frozen=True)
class LogHead:
    """The receipt a table keeps: the last position of a shard and its chain hash."""

    shard: int
    position: int
    chain_hash: str


class Shard:
    """One events table (and its sidecars) on one PostgreSQL database: the home database on
    the one-machine default, else the shard's own cluster (`url`, docs/scaling.md)."""

    def __init__(
        self,
        datastore: ShardDatastore,
        tables: ShardTables,
        *,
        url: str | None = None,
        lazy: bool = False,
    ) -> None:
        self.datastore = datastore
        self.tables = tables
        self.url = url  # for the projector's and the append watch's own connections
        self._recorder: SenkiRecorder | None = None
        self._building = threading.Lock()
        if not lazy:
            self._recorder = SenkiRecorder(datastore, tables=tables)

    @property
    def recorder(self) -> SenkiRecorder:
        """The library's recorder, which asks the database about its types when it is built:
        a shard on a cluster of its own builds it on first use, so a cluster that is down
        when the process starts fails only its own requests (503), not the start."""
        recorder = self._recorder
        if recorder is None:
            with self._building:
                if self._recorder is None:
                    self._recorder = SenkiRecorder(self.datastore, tables=self.tables)
                recorder = self._recorder
        return recorder

    def table(self, name: str) -> SQL:
        return SQL("{0}.{1}").format(Identifier(SCHEMA), Identifier(name))  # type: ignore[return-value]


class Ledger:
    """Reads and appends events across the shards of the log.

    Stream-level calls find the stream's shard in the placement directory unless a `shard` is
    given; shard-level calls (head, verify, read_log…) name the shard, 0 by default.
    """

    def __init__(
        self,
        shards: Sequence[Shard],
        mapper: PydanticMapper,
        placements: Placements | None = None,
        *,
        snapshot_key: bytes | None = None,
    ) -> None:
        if not shards:
            raise ValueError("a ledger needs at least one shard")
        self.shards = list(shards)
        self.mapper = mapper
        # Seals snapshots (infra/store/snapshot_seal.py); without it none is saved or used.
        self.snapshot_key = snapshot_key
        self.placements = placements or Placements(self.shards[0].datastore, len(self.shards))
        # Told of every append this process made, once it committed: caches of this process
        # void what they hold of its streams at once, without waiting for the NOTIFY, and the
        # live streams may take its events from it (api/live_reads.py).
        self.appended: list[Callable[[Appended], None]] = []
        # Told the streams of an append about to be sent, and again if it failed: so the
        # append watch knows which NOTIFYs it is about to hear are its own appends' echoes.
        self.appending: list[Callable[[list[UUID]], None]] = []
        self.append_failed: list[Callable[[list[UUID]], None]] = []

    def shard_of(self, stream_id: UUID) -> int:
        """The shard that holds (or will hold) a stream."""
        return self.placements.shard_of(stream_id)

    def place(self, stream_id: UUID, *, campaign_id: UUID | None) -> int:
        """Choose a new stream's shard (its campaign's, or by its own id) and record it."""
        return self.placements.place(stream_id, campaign_id=campaign_id)

    def _route(self, stream_id: UUID, shard: int | None) -> int:
        return self.shard_of(stream_id) if shard is None else shard

    def read(
        self,
        stream_id: UUID,
        *,
        shard: int | None = None,
        after: int = 0,
        upto: int | None = None,
    ) -> list[Recorded]:
        """The stream's events with versions in (after, upto], oldest first."""
        recorder = self.shards[self._route(stream_id, shard)].recorder
        rows = recorder.select_events(stream_id, gt=after or None, lte=upto)
        return [self.mapper.to_recorded(row) for row in rows]

    def append(
        self,
        writes: Sequence[StreamWrite],
        *,
        shard: int | None = None,
        idempotency: IdempotencyRecord | None = None,
    ) -> list[int]:
        """Append every write in one transaction (on one shard); returns the log positions."""
        if shard is None:
            if not writes:
                raise ValueError("name the shard of an append without events")
            shard = self.shard_of(writes[0].stream_id)
        placed = {self.shard_of(write.stream_id) for write in writes}
        if placed and placed != {shard}:  # an append of no events (only an answer) spans nothing
            if len(placed) == 1 and writes:
                # The directory moved the campaign since the caller chose the shard (a
                # `senki campaigns move` switched it): write there, as after a fence refusal.
                raise StreamMoved(writes[0].stream_id, shard)
            raise ValueError("one append cannot span shards: write each campaign on its own")
        stored = [
            self.mapper.to_stored(write.stream_id, write.expected_version + offset, event)
            for write in writes
            for offset, event in enumerate(write.events, start=1)
        ]
        streams = list(dict.fromkeys(write.stream_id for write in writes if write.events))
        for listener in self.appending if streams else ():
            listener(streams)
        try:
            ids = self._insert(shard, stored, writes, idempotency)
        except BaseException:
            for listener in self.append_failed if streams else ():
                listener(streams)
            raise
        positions = list(ids or [])
        if streams:
            written = Appended(streams, stored, positions, self.mapper)
            for told in self.appended:
                told(written)
        return positions

    def _insert(
        self,
        shard: int,
        stored: list[StoredEvent],
        writes: Sequence[StreamWrite],
        idempotency: IdempotencyRecord | None,
    ) -> Sequence[int] | None:
        try:
            return self.shards[shard].recorder.insert_events(stored, idempotency=idempotency)
        except IntegrityError as error:
            raise self._explain(error, writes, idempotency) from error
        except Exception as error:
            moved = _moved_stream(error)
            if moved is None:
                raise
            for write in writes:  # every stream of the append: one campaign, moved together
                self.placements.forget(write.stream_id)
            raise StreamMoved(moved, shard) from error

    def _explain(
        self,
        error: IntegrityError,
        writes: Sequence[StreamWrite],
        idempotency: IdempotencyRecord | None,
    ) -> Exception:
        cause = error.__cause__
        constraint = getattr(getattr(cause, "diag", None), "constraint_name", None) or ""
        if idempotency is not None and constraint.startswith("idempotency_"):
            return DuplicateRequest(idempotency.key)
        if constraint.startswith("events_"):
            first = writes[0]
            return ConcurrencyConflict(first.stream_id, first.expected_version)
        return error

    @retried_read
    def latest_snapshot(
        self, stream_id: UUID, topic: str, *, shard: int | None = None, upto: int | None = None
    ) -> tuple[int, dict[str, Any]] | None:
        """The newest snapshot at or before `upto` taken with this `topic` whose seal checks.

        A snapshot that does not check is logged, counted and skipped: the caller then
        replays the events, which are always the truth.
        """
        if self.snapshot_key is None:
            return None
        index = self._route(stream_id, shard)
        target = self.shards[index]
        query = _snapshot_query(target, one_stream=True)
        bound = _NO_UPPER_BOUND if upto is None else upto
        with target.datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (stream_id, bound, _SNAPSHOT_CANDIDATES))
            rows = cursor.fetchall()
        for row in rows:
            snapshot, now = _sealed(row)
            if snapshot.topic != topic:
                continue  # taken by other code: not this shape, not a finding
            reason = refusal(self.snapshot_key, target.tables.chain_genesis, snapshot, now)
            if reason is None:
                return snapshot.version, json.loads(snapshot.state)
            REFUSED.add(reason)
            level = logging.INFO if reason is Refusal.unsealed else logging.WARNING
            log.log(
                level,
                "shard %d: %s; rebuilding from the events",
                index,
                explain(reason, snapshot, now),
            )
        return None

    @retried_read  # an INSERT … ON CONFLICT DO NOTHING: a repeat changes nothing
    def save_snapshot(
        self,
        stream_id: UUID,
        version: int,
        topic: str,
        data: dict[str, Any],
        *,
        shard: int | None = None,
    ) -> None:
        """Keep a snapshot sealed over the chain link of the stream's event at `version`; a
        concurrent identical one is fine (snapshots are only a cache)."""
        if self.snapshot_key is None:
            return
        target = self.shards[self._route(stream_id, shard)]
        tables = target.tables
        find = SQL(
            "SELECT notification_id, chain_hash FROM {0} "
            "WHERE originator_id = %s AND originator_version = %s"
        ).format(target.table(tables.events))
        insert = SQL(
            "INSERT INTO {0} (originator_id, originator_version, topic, state, chain_position, "
            "chain_hash, mac) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
        ).format(target.table(tables.snapshots))
        with target.datastore.transaction(commit=True) as cursor:
            cursor.execute(find, (stream_id, version))
            row = cursor.fetchone()
            if row is None or row["chain_hash"] is None:
                return  # nothing to seal it over: no snapshot rather than an unprovable one
            snapshot = SealedSnapshot(
                stream_id,
                version,
                topic,
                json.dumps(data).encode(),
                int(row["notification_id"]),
                bytes(row["chain_hash"]),
                None,
            )
            seal = mac(self.snapshot_key, tables.chain_genesis, snapshot)
            cursor.execute(
                insert,
                (
                    stream_id,
                    version,
                    topic,
                    snapshot.state,
                    snapshot.position,
                    snapshot.chain_hash,
                    seal,
                ),
            )

    def snapshots(self, *, shard: int = 0) -> Iterator[tuple[SealedSnapshot, ChainPoint]]:
        """Every snapshot of a shard with where its event stands now (`senki verify`)."""
        target = self.shards[shard]
        with (
            target.datastore.get_connection() as conn,
            conn.transaction(),
            conn.cursor(name="senki_verify_snapshots") as cursor,
        ):
            cursor.itersize = 200
            cursor.execute(_snapshot_query(target, one_stream=False))
            for row in cursor:
                yield _sealed(row)

    @retried_read
    def answer_for(self, key: str, *, shard: int = 0) -> StoredAnswer | None:
        """The first answer recorded under an idempotency key, if any."""
        target = self.shards[shard]
        query = SQL("SELECT fingerprint, response FROM {0} WHERE key = %s").format(
            target.table(target.tables.idempotency)
        )
        with target.datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (key,))
            row = cursor.fetchone()
        if row is None:
            return None
        response = row["response"]
        return StoredAnswer(
            row["fingerprint"], response if isinstance(response, dict) else json.loads(response)
        )

    @retried_read
    def head(self, *, shard: int = 0) -> LogHead:
        """The newest position of a shard and its chain link (genesis when empty)."""
        target = self.shards[shard]
        query = SQL(
            "SELECT notification_id, chain_hash FROM {0} ORDER BY notification_id DESC LIMIT 1"
        ).format(target.table(target.tables.events))
        with target.datastore.transaction(commit=False) as cursor:
            cursor.execute(query)
            row = cursor.fetchone()
        if row is None:
            return LogHead(shard, 0, genesis_hash(target.tables.chain_genesis).hex())
        return LogHead(shard, int(row["notification_id"]), bytes(row["chain_hash"]).hex())

    @retried_read
    def link_at(self, position: int, *, shard: int = 0) -> str | None:
        """The stored chain link at a position (hex), or None if no event stands there."""
        target = self.shards[shard]
        query = SQL("SELECT chain_hash FROM {0} WHERE notification_id = %s").format(
            target.table(target.tables.events)
        )
        with target.datastore.transaction(commit=False) as cursor:
            cursor.execute(query, (position,))
            row = cursor.fetchone()
        return None if row is None or row["chain_hash"] is None else bytes(row["chain_hash"]).hex()

    def verify(self, *, shard: int = 0) -> ChainReport:
        """Walk the shard's whole chain from the database."""
        target = self.shards[shard]
        return walk(self._chain_rows(target), target.tables.chain_genesis)

    def _chain_rows(self, target: Shard) -> Iterator[ChainRow]:
        query = SQL(
            "SELECT notification_id, originator_id, originator_version, topic, state, "
            "chain_prev, chain_hash, chain_salt FROM {0} ORDER BY notification_id"
        ).format(target.table(target.tables.events))
        with (
            target.datastore.get_connection() as conn,
            conn.transaction(),
            conn.cursor(name="senki_verify") as cursor,
        ):
            cursor.itersize = 2000
            cursor.execute(query)
            for row in cursor:
                yield _chain_row(row)

    def read_log(self, *, shard: int = 0, after: int = 0, limit: int = 500) -> list[Recorded]:
        """Events of every stream in log order, after a position (for projections and export)."""
        notifications = self.shards[shard].recorder.select_notifications(
            start=after + 1, limit=limit
        )
        return [
            self.mapper.to_recorded(
                StoredEvent(n.originator_id, n.originator_version, n.topic, n.state), n.id
            )
            for n in notifications
        ]

    def close(self) -> None:
        for shard in self.shards:
            shard.datastore.close()
        self.placements.datastore.close()  # the home database's, when no shard shares it


def _chain_row(row: dict[str, Any]) -> ChainRow:
    return ChainRow(
        position=int(row["notification_id"]),
        stream_id=row["originator_id"],
        version=int(row["originator_version"]),
        topic=row["topic"] or "",
        state=bytes(row["state"] or b""),
        chain_prev=row["chain_prev"],
        chain_hash=bytes(row["chain_hash"]) if row["chain_hash"] is not None else None,
        salt=bytes(row["chain_salt"]) if row["chain_salt"] is not None else None,
    )


def _snapshot_query(target: Shard, *, one_stream: bool) -> SQL:
    """Snapshots with their stream's event at the same version (if it still exists)."""
    where = (
        " WHERE s.originator_id = %s AND s.originator_version <= %s "
        "ORDER BY s.originator_version DESC LIMIT %s"
        if one_stream
        else " ORDER BY s.originator_id, s.originator_version"
    )
    return SQL(  # type: ignore[return-value]
        "SELECT s.originator_id, s.originator_version, s.topic, s.state, s.chain_position, "
        "s.chain_hash, s.mac, e.notification_id, e.chain_hash AS event_hash FROM {0} s "
        "LEFT JOIN {1} e ON e.originator_id = s.originator_id "
        "AND e.originator_version = s.originator_version" + where
    ).format(target.table(target.tables.snapshots), target.table(target.tables.events))


def _sealed(row: dict[str, Any]) -> tuple[SealedSnapshot, ChainPoint]:
    def raw(value: Any) -> bytes | None:
        return None if value is None else bytes(value)

    snapshot = SealedSnapshot(
        stream_id=row["originator_id"],
        version=int(row["originator_version"]),
        topic=row["topic"] or "",
        state=bytes(row["state"] or b""),
        position=row["chain_position"],
        chain_hash=raw(row["chain_hash"]),
        mac=raw(row["mac"]),
    )
    position = row["notification_id"]
    return snapshot, ChainPoint(None if position is None else int(position), raw(row["event_hash"]))


def is_unavailable(error: BaseException) -> bool:
    """True for errors that mean the database cannot be reached (not a bad request)."""
    return isinstance(error, psycopg.OperationalError) or type(error).__name__ in {
        "OperationalError",
        "InterfaceError",
        "PoolTimeout",
        "ShardUnavailable",  # infra/store/connect.py: one shard's cluster is down
    }


def open_ledger(
    url: str,
    *,
    registry: EventRegistry,
    shards: int = 1,
    pool_size: int = 4,
    snapshot_key: bytes | None = None,
    shard_urls: Sequence[str] = (),
) -> Ledger:
    """A ledger over `shards` events tables; snapshots are saved and used only with a
    `snapshot_key` (infra/store/snapshot_seal.py).

    `url` is the home database (the placement directory). Without `shard_urls` every shard's
    tables are there too (the one-machine default); with them, shard i's tables are on
    `shard_urls[i]`'s database, one pool per distinct URL (an entry equal to `url` shares the
    home pool). A shard cluster that is down at start-up does not stop the ledger opening:
    its campaigns answer 503 until it is back (docs/scaling.md)."""
    from infra.store.connect import datastore_for

    home = datastore_for(url, pool_size=pool_size)
    if not shard_urls:
        return Ledger(
            [Shard(home, ShardTables(index), url=url) for index in range(shards)],
            PydanticMapper(registry),
            snapshot_key=snapshot_key,
        )
    if len(shard_urls) != shards:
        raise ValueError(f"{len(shard_urls)} shard URLs for {shards} shards: give one per shard")
    on: dict[str, tuple[int, ...]] = {}
    for index, shard_url in enumerate(shard_urls):
        on[shard_url] = (*on.get(shard_url, ()), index)
    stores = {
        shard_url: (
            home
            if shard_url == url
            else datastore_for(shard_url, pool_size=pool_size, shards=held, wait=False)
        )
        for shard_url, held in on.items()
    }
    if url in on:
        home.shards = on[url]  # shards on the home cluster: named when it is down too
    return Ledger(
        [
            Shard(stores[shard_url], ShardTables(index), url=shard_url, lazy=shard_url != url)
            for index, shard_url in enumerate(shard_urls)
        ],
        PydanticMapper(registry),
        Placements(home, shards),
        snapshot_key=snapshot_key,
    )
