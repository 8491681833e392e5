"""What the library tests of its PostgreSQL recorders beyond the shared cases, held against
Senki's store: subscribing while writing, recovering after the server ends the pool's
connections, bounded waits for the write lock; and the append retry Senki adds on top.

Same setups as test_library_cases.py: every backend, one shard and several, the service role.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar
from uuid import uuid4

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, OperationalError, StoredEvent

from domain.events import EventRegistry
from infra.store.ledger import Ledger, Shard
from infra.store.mapper import PydanticMapper
from infra.store.names import ShardTables
from infra.store.recorder import IdempotencyRecord, SenkiRecorder, _Prepared
from tests.contract.shard_setup import OnSenkiShard, each_setup

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def event(stream: Any = None, version: int = 1, state: bytes = b"{}") -> StoredEvent:
    return StoredEvent(stream or uuid4(), version, "test.Marked.v1", state)


class Subscriptions(OnSenkiShard):
    __test__ = False

    def test_a_subscription_while_writing_sees_every_append_in_log_order(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        batches, size = 20, 50
        start = recorder.max_notification_id() or 0
        seen: list[int] = []

        def read() -> None:
            with recorder.subscribe(gt=start) as subscription:
                for notification in subscription:
                    seen.append(notification.id)
                    if len(seen) == batches * size:
                        break

        reader = threading.Thread(target=read)
        reader.start()
        for _ in range(batches):
            recorder.insert_events([event() for _ in range(size)])
        reader.join(timeout=60)
        assert not reader.is_alive(), f"the subscription stalled after {len(seen)}"
        assert seen == list(range(start + 1, start + 1 + batches * size))


class ClosedConnections(OnSenkiShard):
    """The server ends every session of the pool (a restart, a failover, an idle timeout on a
    proxy); every pooled connection is then dead, and each would fail the first statement
    sent on it. The library's recorders retry on that; so must Senki's."""

    __test__ = False

    def _pool_full(self) -> int:
        self.datastore.pool.wait(timeout=30)
        return self.end_every_session()

    def _each_connection(self, call: Callable[[], object]) -> None:
        # More calls than the pool holds, so every dead connection is met once.
        for _ in range(self.datastore.pool.max_size + 1):
            call()

    def test_select_events_after_the_server_closed_the_connections(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        stream = uuid4()
        recorder.insert_events([event(stream)])
        assert self._pool_full() >= self.pool_size
        self._each_connection(lambda: recorder.select_events(stream))
        assert len(recorder.select_events(stream)) == 1

    def test_insert_events_after_the_server_closed_the_connections(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        assert self._pool_full() >= self.pool_size
        self._each_connection(lambda: recorder.insert_events([event()]))
        assert recorder.max_notification_id() == self.datastore.pool.max_size + 1

    def test_select_notifications_after_the_server_closed_the_connections(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        recorder.insert_events([event()])
        assert self._pool_full() >= self.pool_size
        self._each_connection(lambda: recorder.select_notifications(start=1, limit=1))
        self._each_connection(recorder.max_notification_id)

    def test_sealed_snapshots_after_the_server_closed_the_connections(self) -> None:
        shard = self.shards - 1
        shards = [Shard(self.datastore, ShardTables(index)) for index in range(self.shards)]
        ledger = Ledger(shards, PydanticMapper(EventRegistry()), snapshot_key=b"k" * 32)
        stream = uuid4()
        SenkiRecorder(self.datastore, tables=self.tables).insert_events([event(stream)])
        assert self._pool_full() >= self.pool_size
        self._each_connection(lambda: ledger.latest_snapshot(stream, "test.State", shard=shard))
        ledger.save_snapshot(stream, 1, "test.State", {"hp": 7}, shard=shard)
        self._each_connection(
            lambda: ledger.save_snapshot(stream, 1, "test.State", {"hp": 7}, shard=shard)
        )
        assert ledger.latest_snapshot(stream, "test.State", shard=shard) == (1, {"hp": 7})


class LockTimeouts(OnSenkiShard):
    __test__ = False
    lock_timeout_s: ClassVar[int] = 1

    def test_an_append_waits_for_the_write_lock_no_longer_than_the_lock_timeout(self) -> None:
        # Given another transaction holding the shard's write lock (as an append does)
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        with psycopg.connect(self.app_url) as holder:
            for statement in recorder.lock_table_statements:
                holder.execute(statement)
            started = time.monotonic()
            # When an append comes, then it gives up after the lock timeout, once: a lock
            # timeout is not a lost connection, so the recorder does not retry it (the library
            # would, ten times) and the API answers 503 at once.
            with pytest.raises(OperationalError, match="lock timeout"):
                recorder.insert_events([event()])
            waited = time.monotonic() - started
        assert 0.9 <= waited < 2 * self.lock_timeout_s + 1.5, waited
        assert recorder.max_notification_id() is None

    def test_a_read_that_gets_no_connection_in_time_gives_up_once(self) -> None:
        # Given a pool whose every connection is taken (the pool waited its timeout already)
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        pool = self.datastore.pool
        pool.timeout = 0.5
        taken = [pool.getconn() for _ in range(pool.max_size)]
        try:
            started = time.monotonic()
            # Then a read fails after one pool timeout, not ten (the library's decorator
            # would wait ten times): the API answers 503 while the client can still retry.
            with pytest.raises(OperationalError):
                recorder.select_events(uuid4())
            waited = time.monotonic() - started
        finally:
            for conn in taken:
                pool.putconn(conn)
        assert 0.4 <= waited < 2.5, waited


class LostAcks(OnSenkiShard):
    """An append whose connection is lost at the worst moment: after COMMIT, before the answer
    reached the client. Simulated at the client (the database really committed), since no
    test can time a real failover to that instant."""

    __test__ = False

    @contextmanager
    def _lose_the_first_connection(
        self, *, after_commit: bool
    ) -> Iterator[list[psycopg.Connection[Any]]]:
        """The first append's connection dies: after its COMMIT (`after_commit`: the call
        returned, its answer never reached us), or before anything reaches the server (the
        server ended the session first). An append leases its connection (`lease`), so the
        fault is put where it would strike: on the lease, and on the one statement's result."""
        real_lease, real_run = self.datastore.lease, _Prepared.run
        calls: list[psycopg.Connection[Any]] = []

        def flaky_lease() -> psycopg.Connection[Any]:
            conn = real_lease()
            calls.append(conn)
            if len(calls) == 1 and not after_commit:
                self._end_session(conn.info.backend_pid)
            return conn

        def acknowledged(prepared: _Prepared, conn: psycopg.Connection[Any], values: Any) -> Any:
            result = real_run(prepared, conn, values)
            if conn is calls[0] and len(calls) == 1 and after_commit:
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return result

        self.datastore.lease = flaky_lease  # type: ignore[method-assign]
        _Prepared.run = acknowledged  # type: ignore[method-assign]
        try:
            yield calls
        finally:
            self.datastore.lease = real_lease  # type: ignore[method-assign]
            _Prepared.run = real_run  # type: ignore[method-assign]

    def _end_session(self, pid: int) -> None:
        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))

    @pytest.mark.parametrize("with_key", [True, False], ids=["idempotency key", "no key"])
    def test_an_append_whose_ack_was_lost_after_commit_returns_its_positions_once(
        self, with_key: bool
    ) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        stream = uuid4()
        record = IdempotencyRecord("member:key-1", "fp", {"version": 2}) if with_key else None
        with self._lose_the_first_connection(after_commit=True) as calls:
            positions = recorder.insert_events(
                [event(stream, 1), event(stream, 2)], idempotency=record
            )
        assert positions == [1, 2]
        assert len(calls) == 2  # the lost answer, then the retry that recognised the commit
        assert [e.originator_version for e in recorder.select_events(stream)] == [1, 2]

    def test_an_answer_only_append_whose_ack_was_lost_is_recognised(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        record = IdempotencyRecord("member:key-2", "fp", {"refused": "GD-1"})
        with self._lose_the_first_connection(after_commit=True) as calls:
            assert recorder.insert_events([], idempotency=record) == []
        assert len(calls) == 2

    def test_an_append_that_never_reached_the_server_is_appended_once(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        stream = uuid4()
        with self._lose_the_first_connection(after_commit=False) as calls:
            assert recorder.insert_events([event(stream)]) == [1]
        assert len(calls) == 2  # the lost attempt, then the one that appended
        assert len(recorder.select_events(stream)) == 1

    def test_a_retry_that_meets_another_writers_events_is_a_conflict(self) -> None:
        # Given an append whose connection is lost, and another writer taking the same
        # version meanwhile (different state: another command)
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        stream = uuid4()
        rival = SenkiRecorder(self.datastore, tables=self.tables)
        with self._lose_the_first_connection(after_commit=False) as calls:
            real_once = recorder._append_once

            def after_the_rival(*args: Any, **kwargs: Any) -> Any:
                if calls:  # our first attempt was lost: the rival appends before our retry
                    rival.insert_events([event(stream, 1, b'{"rival":1}')])
                return real_once(*args, **kwargs)

            recorder._append_once = after_the_rival  # type: ignore[method-assign]
            # Then the retry is refused as a conflict, not taken for our own commit
            with pytest.raises(IntegrityError):
                recorder.insert_events([event(stream, 1, b'{"ours":1}')])
        assert [e.state for e in recorder.select_events(stream)] == [b'{"rival":1}']

    def test_a_retry_under_another_requests_key_is_a_duplicate(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        recorder.insert_events([event()], idempotency=IdempotencyRecord("k", "fp", {"a": 1}))
        with (
            self._lose_the_first_connection(after_commit=False) as calls,
            pytest.raises(IntegrityError),
        ):
            recorder.insert_events([event()], idempotency=IdempotencyRecord("k", "fp", {"a": 2}))
        assert len(calls) == 2
        assert recorder.max_notification_id() == 1


globals().update(each_setup(Subscriptions))
globals().update(each_setup(ClosedConnections))
globals().update(each_setup(LockTimeouts))
globals().update(each_setup(LostAcks))
