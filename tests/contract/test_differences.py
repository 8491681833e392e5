"""Where Senki's store deliberately differs from the eventsourcing library it adapts.

Each difference is stated twice: a strict xfail of what the library does (it would fail the
suite if Senki started behaving like the library without this file being updated), and a test
of what Senki does instead. Same setups as test_library_cases.py.
"""

from __future__ import annotations

import json
from uuid import UUID, uuid4

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, ProgrammingError, StoredEvent
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder

from infra.store.recorder import IdempotencyRecord, SenkiRecorder
from tests.contract.shard_setup import OnSenkiShard, each_setup

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

LIBRARY_EVENT_COLUMNS = [
    ("originator_id", "uuid"),
    ("originator_version", "bigint"),
    ("topic", "text"),
    ("state", "bytea"),
    ("notification_id", "bigint"),
]


def event(version: int = 1) -> StoredEvent:
    return StoredEvent(uuid4(), version, "test.Marked.v1", b"{}")


class Differences(OnSenkiShard):
    __test__ = False

    def _columns(self, table: str) -> list[tuple[str, str]]:
        with psycopg.connect(self.owner_url) as conn:
            rows = conn.execute(
                "SELECT column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'senki' AND table_name = %s ORDER BY ordinal_position",
                (table,),
            ).fetchall()
        return [(str(name), str(kind)) for name, kind in rows]

    # Tables are made by `senki db migrate` as the owner, not by the recorder.

    @pytest.mark.xfail(
        strict=True,
        raises=ProgrammingError,
        reason="the service role may not create tables or types: migration makes them",
    )
    def test_library_the_recorder_creates_its_tables(self) -> None:
        SenkiRecorder(self.datastore, tables=self.tables).create_table()

    def test_senki_migration_made_the_library_tables_plus_the_chain(self) -> None:
        assert self._columns(self.tables.events) == [
            *LIBRARY_EVENT_COLUMNS,
            ("chain_prev", "bigint"),
            ("chain_hash", "bytea"),
            ("chain_salt", "bytea"),  # schema 13: the link's secret salt
        ]
        assert self._columns(self.tables.snapshots) == [
            *LIBRARY_EVENT_COLUMNS[:4],
            ("chain_position", "bigint"),
            ("chain_hash", "bytea"),
            ("mac", "bytea"),
        ]

    # Stored events are append-only: the library's cases never change a row, but its own
    # suite cleans up by dropping and deleting, which Senki refuses to every role.

    @pytest.mark.xfail(
        strict=True,
        raises=ProgrammingError,
        reason="append-only: the service role holds no DELETE, and a trigger refuses owners",
    )
    def test_library_the_recorder_role_can_delete_its_events(self) -> None:
        SenkiRecorder(self.datastore, tables=self.tables).insert_events([event()])
        with self.datastore.transaction(commit=True) as curs:
            curs.execute(f"DELETE FROM senki.{self.tables.events}")

    def test_senki_even_the_owner_cannot_delete_a_stored_event(self) -> None:
        SenkiRecorder(self.datastore, tables=self.tables).insert_events([event()])
        with (
            psycopg.connect(self.owner_url) as conn,
            pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"),
        ):
            conn.execute(f"DELETE FROM senki.{self.tables.events}")

    # The write lock: the library locks the events table itself, which needs UPDATE on it.

    @pytest.mark.xfail(
        strict=True,
        raises=ProgrammingError,
        reason="the library locks the events table; the service role holds no UPDATE there",
    )
    def test_library_recorder_appends_as_the_service_role(self) -> None:
        library = PostgresApplicationRecorder(self.datastore, events_table_name=self.tables.events)
        library.insert_events([event()])

    def test_senki_locks_the_sidecar_table_instead(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        locks = [statement.as_string(None) for statement in recorder.lock_table_statements]
        assert locks[-1] == f'LOCK TABLE "senki"."{self.tables.write_lock}" IN EXCLUSIVE MODE'
        assert recorder.insert_events([event()]) == [1]

    # Return values of an append.

    def test_senki_an_append_of_no_events_returns_no_positions(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        # The library's application recorder returns None here, its aggregate recorder always
        # None; Senki's returns [] (the ledger reads both as "no positions").
        assert recorder.insert_events([]) == []
        assert recorder.insert_events([], idempotency=IdempotencyRecord("k", "fp", {})) == []
        assert recorder.insert_events([event(), event()]) == [1, 2]
        library = PostgresAggregateRecorder(self.datastore, events_table_name=self.tables.events)
        assert library.insert_events([]) is None

    # The NOTIFY names the streams (the library's is empty); a LISTEN still wakes up on it.

    def test_senki_the_notify_names_the_streams_appended_to(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        first, second = event(), event()
        with psycopg.connect(self.app_url, autocommit=True) as listener:
            listener.execute(f"LISTEN {recorder.channel_name}")
            recorder.insert_events([first, second])
            payloads = [n.payload for n in listener.notifies(timeout=5, stop_after=1)]
        expected = ",".join(sorted(str(e.originator_id) for e in (first, second)))
        assert payloads == [expected]

    def test_senki_an_append_of_interleaved_streams_stores_and_names_each(self) -> None:
        # Given one append whose events take turns between two streams, one of them named by
        # an equal id that is not the same object (the recorder tells runs apart by identity)
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        one, two = uuid4(), uuid4()
        events = [
            StoredEvent(one, 1, "test.Marked.v1", b'{"n":1}'),
            StoredEvent(two, 1, "test.Marked.v1", b'{"n":2}'),
            StoredEvent(UUID(str(one)), 2, "test.Marked.v1", b'{"n":3}'),
            StoredEvent(two, 2, "test.Marked.v1", b'{"n":4}'),
        ]
        with psycopg.connect(self.app_url, autocommit=True) as listener:
            listener.execute(f"LISTEN {recorder.channel_name}")
            assert recorder.insert_events(events) == [1, 2, 3, 4]
            payloads = [n.payload for n in listener.notifies(timeout=5, stop_after=1)]
        # Then each event is in its own stream, and the NOTIFY names both streams once
        assert [e.state for e in recorder.select_events(one)] == [b'{"n":1}', b'{"n":3}']
        assert [e.state for e in recorder.select_events(two)] == [b'{"n":2}', b'{"n":4}']
        assert payloads == [",".join(sorted((str(one), str(two))))]

    # The library's optional insert function (POSTGRES_ENABLE_DB_FUNCTIONS) skips the table
    # lock, so migration never creates it and Senki's append never calls it.

    def test_senki_appends_through_its_own_function_even_if_db_functions_are_enabled(self) -> None:
        self.datastore.enable_db_functions = True
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        assert recorder.insert_events([event()]) == [1]
        with psycopg.connect(self.owner_url) as conn:
            found = conn.execute(
                "SELECT count(*) FROM pg_proc WHERE proname = %s",
                (recorder.pg_function_name_insert_events,),
            ).fetchone()
        assert found == (0,)

    # The idempotency record travels in the append's transaction (a library extension point:
    # insert_events' **kwargs); a refused key appends nothing.

    def test_senki_a_refused_idempotency_key_appends_nothing(self) -> None:
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        record = IdempotencyRecord("k", "fp", {"version": 1})
        recorder.insert_events([event()], idempotency=record)
        with pytest.raises(IntegrityError):
            recorder.insert_events([event()], idempotency=record)
        assert recorder.max_notification_id() == 1
        with psycopg.connect(self.owner_url) as conn:
            stored = conn.execute(
                f"SELECT response FROM senki.{self.tables.idempotency} WHERE key = 'k'"
            ).fetchone()
        assert stored is not None
        assert json.dumps(stored[0]) == json.dumps(record.response)


globals().update(each_setup(Differences))


# Every library method SenkiRecorder overrides, and where its guarantees are held. A new
# override fails this test until it is listed here with the cases that hold it to the
# library's contract (or that state how it differs).
OVERRIDES = {
    "__init__": "lock on the sidecar table: test_senki_locks_the_sidecar_table_instead",
    "insert_events": (
        "ApplicationRecorder and NonInterleavingNotificationIds cases; ClosedConnections and "
        "LostAcks (retry); test_senki_an_append_of_no_events_returns_no_positions"
    ),
    "select_events": "ApplicationRecorder cases; ClosedConnections (retry)",
}


def test_every_override_of_a_library_method_is_held_to_the_contract() -> None:
    overridden = {
        name
        for name in vars(SenkiRecorder)
        if hasattr(PostgresApplicationRecorder, name)
        and (name == "__init__" or not name.startswith("__"))
        and name != "_abc_impl"  # the ABC machinery's, on every subclass
    }
    assert overridden == set(OVERRIDES)
