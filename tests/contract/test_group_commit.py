"""Group commit (schema 10, infra/sql/append_batch.sql): appends queued behind one in flight go
as one call of the shard's batch function, and each still answers as if it had been sent alone.

Batches are made on purpose: another transaction holds the shard's write lock, a first append
goes in flight and waits for it in the server, the others queue behind it one by one (so their
order in the batch is known), then the lock is released: the first commits alone, the others as
one batch. Same setups as the library's cases: every backend, one shard and several.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar
from uuid import UUID, uuid4

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, OperationalError, StoredEvent

from domain.events import EventRegistry
from infra.store.ledger import (
    ConcurrencyConflict,
    DuplicateRequest,
    Ledger,
    Shard,
    StreamWrite,
    _moved_stream,
)
from infra.store.mapper import PydanticMapper
from infra.store.migrate import SCHEMA_VERSION, migrate, schema_version
from infra.store.names import SCHEMA, ShardTables
from infra.store.recorder import MOST_BATCHED, IdempotencyRecord, SenkiRecorder, _Appending
from tests.contract.shard_setup import OnSenkiShard, each_setup
from tests.support.databases import APP_ROLE

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def event(stream: UUID | None = None, version: int = 1, state: bytes = b"{}") -> StoredEvent:
    return StoredEvent(stream or uuid4(), version, "test.Marked.v1", state)


@dataclass
class Append:
    """One append for a thread to send, and what it got back."""

    events: Sequence[StoredEvent]
    record: IdempotencyRecord | None = None
    positions: Sequence[int] | None = None
    error: BaseException | None = None

    def send(self, recorder: SenkiRecorder) -> None:
        try:
            self.positions = recorder.insert_events(self.events, idempotency=self.record)
        except BaseException as error:
            self.error = error


def until(condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.005)


def _queued(recorder: SenkiRecorder, count: int) -> bool:
    return recorder.queue.queued == count


class GroupCommit(OnSenkiShard):
    __test__ = False
    pool_size: ClassVar[int] = 10

    def _recorder(self) -> tuple[SenkiRecorder, list[int]]:
        """A recorder whose batches are counted (their sizes, in order)."""
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        sizes: list[int] = []
        real = recorder._send_batch

        def counted(batch: Sequence[_Appending]) -> None:
            sizes.append(len(batch))
            real(batch)

        recorder._send_batch = counted  # type: ignore[method-assign]
        return recorder, sizes

    def _waiting_on_the_lock(self) -> int:
        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'"
            ).fetchone()
        return int(row[0]) if row else 0

    @contextmanager
    def _lock_held(self, recorder: SenkiRecorder) -> Iterator[psycopg.Connection[Any]]:
        with psycopg.connect(self.app_url) as holder:
            for statement in recorder.lock_table_statements:
                holder.execute(statement)
            yield holder

    def _batched(
        self, recorder: SenkiRecorder, appends: Sequence[Append], *, release: bool = True
    ) -> Append:
        """Send a first append (returned) while the write lock is held, queue `appends` behind
        it in order, then release the lock: `appends` go as one batch."""
        first = Append([event()])
        threads = [threading.Thread(target=first.send, args=(recorder,))]
        with self._lock_held(recorder) as holder:
            threads[0].start()
            until(lambda: self._waiting_on_the_lock() == 1, "the first append in flight")
            for queued, append in enumerate(appends, start=1):
                threads.append(threading.Thread(target=append.send, args=(recorder,)))
                threads[-1].start()
                until(partial(_queued, recorder, queued), f"{queued} queued")
            if release:
                holder.commit()
            for thread in threads:
                thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads)
        return first

    def _ledger(self) -> Ledger:
        shards = [Shard(self.datastore, ShardTables(index)) for index in range(self.shards)]
        return Ledger(shards, PydanticMapper(EventRegistry()))

    def _keys(self) -> set[str]:
        with psycopg.connect(self.owner_url) as conn:
            rows = conn.execute(f"SELECT key FROM {SCHEMA}.{self.tables.idempotency}").fetchall()
        return {str(row[0]) for row in rows}

    def test_the_batch_function_runs_with_the_callers_rights_for_the_service_role_only(
        self,
    ) -> None:
        function = f"{SCHEMA}.{self.tables.append_batch_function}"
        with psycopg.connect(self.owner_url) as conn:
            row = conn.execute(
                "SELECT prosecdef, proconfig, has_function_privilege(%s, oid, 'EXECUTE'), "
                "has_function_privilege('public', oid, 'EXECUTE') FROM pg_proc "
                "WHERE oid = to_regproc(%s)",
                (APP_ROLE, function),
            ).fetchone()
        assert row == (False, ["search_path=pg_catalog, pg_temp"], True, False)

    # Batching happens, and only when appends queue.

    def test_an_append_alone_takes_the_single_path(self) -> None:
        recorder, sizes = self._recorder()
        assert recorder.insert_events([event(), event()]) == [1, 2]
        assert recorder.insert_events([event()]) == [3]
        assert sizes == []

    def test_appends_queued_behind_one_in_flight_go_as_one_batch(self) -> None:
        recorder, sizes = self._recorder()
        appends = [
            Append([event(), event()], IdempotencyRecord(f"k{n}", "fp", {"n": n})) for n in range(6)
        ]
        first = self._batched(recorder, appends)
        assert sizes == [6]
        assert first.positions == [1]
        # Each append gets its own positions, in the order they queued, without gaps.
        assert [a.positions for a in appends] == [[2 * n + 2, 2 * n + 3] for n in range(6)]
        for append in appends:
            stream = append.events[0].originator_id
            assert [e.originator_id for e in recorder.select_events(stream)] == [stream]
        assert self._keys() == {f"k{n}" for n in range(6)}

    def test_a_batch_never_holds_more_than_the_cap(self) -> None:
        recorder, sizes = self._recorder()
        appends = [Append([event()]) for _ in range(MOST_BATCHED + 3)]
        self._batched(recorder, appends)
        assert sizes == [MOST_BATCHED, 3]
        positions = sorted(p for a in appends for p in a.positions or [])
        assert positions == list(range(2, MOST_BATCHED + 5))

    def test_an_answer_only_append_in_a_batch_returns_no_positions(self) -> None:
        recorder, sizes = self._recorder()
        answer = Append([], IdempotencyRecord("refused-1", "fp", {"refused": "GD-1"}))
        appends = [Append([event()]), answer]
        self._batched(recorder, appends)
        assert sizes == [2]
        assert answer.error is None
        assert answer.positions == []
        assert "refused-1" in self._keys()

    # A refused append changes nothing, and the others of its batch go on.

    def test_a_repeated_key_in_a_batch_is_refused_alone(self) -> None:
        recorder, sizes = self._recorder()
        record = IdempotencyRecord("member:k", "fp", {"version": 1})
        assert recorder.insert_events([event()], idempotency=record) == [1]
        again = Append([event()], record)
        appends = [Append([event()]), again, Append([event()])]
        self._batched(recorder, appends)
        assert sizes == [3]
        assert isinstance(again.error, IntegrityError)
        cause = again.error.__cause__
        assert getattr(getattr(cause, "diag", None), "constraint_name", "") == (
            f"{self.tables.idempotency}_pkey"
        )
        assert isinstance(cause, psycopg.errors.UniqueViolation)
        explained = self._ledger()._explain(again.error, [], record)
        assert isinstance(explained, DuplicateRequest)
        assert again.events[0].originator_id not in {e.originator_id for e in self._log(recorder)}
        assert [appends[0].positions, appends[2].positions] == [[3], [4]]

    def test_a_batch_that_meets_a_deadlock_sends_each_append_on_its_own(self) -> None:
        # Given another process's lone append that took its key and has not committed yet
        recorder, sizes = self._recorder()
        with psycopg.connect(self.owner_url) as racer:
            try:
                # so that PostgreSQL breaks the deadlock in the batch's backend
                racer.execute("SET deadlock_timeout = '30s'")
            except psycopg.errors.InsufficientPrivilege:
                pytest.skip("needs a superuser to order the deadlock")
            racer.execute(
                f"INSERT INTO {SCHEMA}.{self.tables.idempotency} (key, fingerprint, response) "
                "VALUES ('member:race', 'fp', '{}')"
            )
            raced = Append([event()], IdempotencyRecord("member:race", "fp", {"version": 1}))
            other = Append([event()])
            batching = threading.Thread(target=self._batched, args=(recorder, [other, raced]))
            batching.start()
            # When the batch, holding the write lock, waits for that key, and the lone append
            # then queues for the write lock: a deadlock, broken by failing that insert
            until(lambda: sizes == [2] and self._waiting_on_the_lock() == 1, "batch on the key")
            for statement in recorder.lock_table_statements:
                racer.execute(statement)
            racer.rollback()  # the lone append gives up; its key is free again
            batching.join(timeout=60)
        # Then the refused append was sent again on its own, and both landed
        assert not batching.is_alive()
        assert sizes == [2]
        assert other.error is None
        assert raced.error is None
        assert sorted([*(other.positions or []), *(raced.positions or [])]) == [2, 3]
        assert "member:race" in self._keys()

    def test_a_stale_version_in_a_batch_is_a_conflict_and_appends_nothing(self) -> None:
        recorder, sizes = self._recorder()
        stream = uuid4()
        assert recorder.insert_events([event(stream, 1)]) == [1]
        stale = Append(
            [event(stream, 1, b'{"late":1}'), event(stream, 2)], IdempotencyRecord("late", "fp", {})
        )
        appends = [stale, Append([event()])]
        self._batched(recorder, appends)
        assert sizes == [2]
        assert isinstance(stale.error, IntegrityError)
        cause = stale.error.__cause__
        assert getattr(getattr(cause, "diag", None), "constraint_name", "") == (
            f"{self.tables.events}_pkey"
        )
        write = StreamWrite(stream, 0, [])
        explained = self._ledger()._explain(stale.error, [write], stale.record)
        assert isinstance(explained, ConcurrencyConflict)
        assert [e.state for e in recorder.select_events(stream)] == [b"{}"]
        assert "late" not in self._keys()
        assert appends[1].error is None
        assert appends[1].positions

    def test_the_same_stream_twice_in_one_batch_the_second_is_a_conflict(self) -> None:
        recorder, sizes = self._recorder()
        stream = uuid4()
        ours, theirs = Append([event(stream, 1, b'{"ours":1}')]), Append([event(stream, 1)])
        after = Append([event(stream, 2, b'{"next":1}')])  # sees the first's version 1
        self._batched(recorder, [ours, theirs, after])
        assert sizes == [3]
        assert ours.error is None
        assert theirs.positions is None
        assert isinstance(theirs.error, IntegrityError)
        cause = theirs.error.__cause__
        assert isinstance(cause, psycopg.errors.UniqueViolation)
        assert cause.diag.constraint_name == f"{self.tables.events}_pkey"
        assert after.error is None
        assert [e.state for e in recorder.select_events(stream)] == [b'{"ours":1}', b'{"next":1}']
        assert self._ledger().verify(shard=self.shards - 1).ok

    def test_a_fenced_stream_in_a_batch_is_refused_alone(self) -> None:
        recorder, sizes = self._recorder()
        gone = uuid4()
        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            conn.execute(
                f"INSERT INTO {SCHEMA}.{self.tables.events}_moved "
                "(stream_id, to_shard, upto_version, fence_position) VALUES (%s, 7, 0, 0)",
                (gone,),
            )
        fenced = Append([event(), event(gone)], IdempotencyRecord("fenced", "fp", {}))
        appends = [Append([event()]), fenced, Append([event()])]
        self._batched(recorder, appends)
        assert sizes == [3]
        assert fenced.error is not None
        assert not isinstance(fenced.error, IntegrityError)
        assert _moved_stream(fenced.error) == gone
        cause = fenced.error.__cause__
        assert isinstance(cause, psycopg.Error)
        assert cause.sqlstate == "SKMOV"
        assert cause.diag.message_detail == f"{gone}:7"
        assert "fenced" not in self._keys()
        assert [appends[0].positions, appends[2].positions] == [[2], [3]]
        # The same refusal as an append of the stream alone.
        with pytest.raises(Exception, match="was moved to shard 7") as alone:
            recorder.insert_events([event(gone)])
        assert type(alone.value) is type(fenced.error)
        assert type(alone.value.__cause__) is type(fenced.error.__cause__)

    # Errors of the whole call.

    def test_a_batch_that_waits_out_the_lock_timeout_fails_every_append_on_its_own(self) -> None:
        self.datastore.lock_timeout = 2
        recorder, sizes = self._recorder()
        appends = [Append([event()]) for _ in range(3)]
        first = self._batched(recorder, appends, release=False)
        assert sizes == [3]
        errors = [first.error, *(a.error for a in appends)]
        assert all(isinstance(e, OperationalError) and "lock timeout" in str(e) for e in errors)
        assert len({id(e) for e in errors}) == 4  # each thread raised its own
        assert recorder.max_notification_id() is None

    # A lost connection: each append of the batch retries alone.

    @contextmanager
    def _lose_the_batch(self, *, after_commit: bool) -> Iterator[None]:
        """The second connection taken (the batch's, after the first append's) dies: after
        its COMMIT, or before anything reached the server."""
        real = self.datastore.get_connection
        calls: list[int] = []

        @contextmanager
        def flaky() -> Iterator[psycopg.Connection[Any]]:
            calls.append(1)
            losing = len(calls) == 2
            with real() as conn:
                if losing and not after_commit:
                    with psycopg.connect(self.owner_url, autocommit=True) as killer:
                        killer.execute("SELECT pg_terminate_backend(%s)", (conn.info.backend_pid,))
                yield conn
            if losing and after_commit:
                cause = psycopg.OperationalError("server closed the connection unexpectedly")
                raise OperationalError(str(cause)) from cause

        self.datastore.get_connection = flaky  # type: ignore[method-assign]
        try:
            yield
        finally:
            self.datastore.get_connection = real  # type: ignore[method-assign]

    def _lost_batch(self, stream: UUID) -> list[Append]:
        return [
            Append([event(stream, 1), event(stream, 2)], IdempotencyRecord("a", "fp", {"v": 2})),
            Append([event()]),
            Append([], IdempotencyRecord("answer", "fp", {"refused": "GD-1"})),
        ]

    def test_a_batch_whose_ack_was_lost_is_recognised_append_by_append(self) -> None:
        recorder, sizes = self._recorder()
        stream = uuid4()
        # The last is refused in the batch (the first took version 1), and again alone.
        appends = [*self._lost_batch(stream), Append([event(stream, 1, b'{"rival":1}')])]
        with self._lose_the_batch(after_commit=True):
            self._batched(recorder, appends)
        assert sizes == [4]
        assert [a.positions for a in appends[:3]] == [[2, 3], [4], []]
        assert isinstance(appends[3].error, IntegrityError)
        assert [e.state for e in recorder.select_events(stream)] == [b"{}", b"{}"]
        assert recorder.max_notification_id() == 4
        assert self._ledger().verify(shard=self.shards - 1).ok

    def test_a_batch_that_never_reached_the_server_is_appended_once_each(self) -> None:
        recorder, sizes = self._recorder()
        stream = uuid4()
        appends = self._lost_batch(stream)
        with self._lose_the_batch(after_commit=False):
            self._batched(recorder, appends)
        assert sizes == [3]
        assert [a.error for a in appends] == [None, None, None]
        assert sorted(p for a in appends for p in a.positions or []) == [2, 3, 4]
        assert appends[2].positions == []
        assert [e.state for e in recorder.select_events(stream)] == [b"{}", b"{}"]
        assert recorder.max_notification_id() == 4
        assert self._keys() == {"a", "answer"}

    # The NOTIFY and the chain.

    def test_a_batch_sends_one_notify_naming_its_streams(self) -> None:
        recorder, _ = self._recorder()
        appends = [Append([event(), event()]), Append([event()])]
        with psycopg.connect(self.app_url, autocommit=True) as listener:
            listener.execute(f"LISTEN {recorder.channel_name}")
            first = self._batched(recorder, appends)
            payloads = [n.payload for n in listener.notifies(timeout=3, stop_after=2)]
        alone = str(first.events[0].originator_id)
        batch = ",".join(sorted(str(e.originator_id) for a in appends for e in a.events))
        assert payloads == [alone, batch]

    def test_concurrent_appends_all_land_gap_free_and_the_chain_verifies(self) -> None:
        recorder, sizes = self._recorder()
        threads, rounds = 12, 15
        positions: list[list[int]] = [[] for _ in range(threads)]
        failures: list[BaseException] = []

        def table(index: int) -> None:
            stream = uuid4()
            try:
                for version in range(1, rounds + 1):
                    record = IdempotencyRecord(f"{index}:{version}", "fp", {"v": version})
                    found = recorder.insert_events([event(stream, version)], idempotency=record)
                    positions[index].extend(found or [])
            except BaseException as error:
                failures.append(error)

        running = [threading.Thread(target=table, args=(n,)) for n in range(threads)]
        for thread in running:
            thread.start()
        for thread in running:
            thread.join(timeout=120)
        assert not failures
        assert sorted(p for found in positions for p in found) == list(
            range(1, threads * rounds + 1)
        )
        assert sizes, "twelve threads appending flat out never queued behind each other"
        report = self._ledger().verify(shard=self.shards - 1)
        assert report.ok
        assert report.checked == threads * rounds

    def _log(self, recorder: SenkiRecorder) -> list[Any]:
        return list(recorder.select_notifications(start=1, limit=1000))

    # Migration.

    def test_a_schema_9_database_gets_the_batch_function_when_migrated_again(self) -> None:
        # Given a database as schema 9 left it: no batch function
        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            for index in range(self.shards):
                conn.execute(f"DROP FUNCTION {SCHEMA}.events_{index}_append_batch")
            conn.execute(f"DELETE FROM {SCHEMA}.schema_migrations WHERE version > 9")
            conn.execute(
                f"INSERT INTO {SCHEMA}.schema_migrations VALUES (9) ON CONFLICT DO NOTHING"
            )
        assert schema_version(self.app_url) == 9
        # When it is migrated again, then queued appends go as a batch
        assert migrate(self.owner_url, app_role=APP_ROLE, shards=self.shards) == SCHEMA_VERSION
        assert schema_version(self.app_url) == SCHEMA_VERSION >= 10  # 10: the batch function
        recorder, sizes = self._recorder()
        appends = [Append([event()]), Append([event()])]
        self._batched(recorder, appends)
        assert sizes == [2]
        assert [a.positions for a in appends] == [[2], [3]]


globals().update(each_setup(GroupCommit))
