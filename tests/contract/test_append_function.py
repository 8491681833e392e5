"""The append as one statement (schema 7, infra/sql/append.sql): what the function is allowed,
and that a database of schema 6 gets it by being migrated again.

The recorder's guarantees themselves (positions, conflicts, idempotency, NOTIFY, lost acks)
are the library's cases and test_differences.py / test_postgres_behaviours.py, which all run
through the function now.
"""

from __future__ import annotations

from uuid import uuid4

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError, StoredEvent

from infra.store.migrate import SCHEMA_VERSION, migrate, schema_version
from infra.store.names import SCHEMA
from infra.store.recorder import IdempotencyRecord, SenkiRecorder, _Prepared
from tests.contract.shard_setup import OnSenkiShard, each_setup
from tests.support.databases import APP_ROLE

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def event(version: int = 1) -> StoredEvent:
    return StoredEvent(uuid4(), version, "test.Marked.v1", b"{}")


class AppendFunction(OnSenkiShard):
    __test__ = False

    def _function(self) -> str:
        return f"{SCHEMA}.{self.tables.append_function}"

    def test_it_runs_with_the_callers_rights_and_a_fixed_search_path(self) -> None:
        with psycopg.connect(self.owner_url) as conn:
            row = conn.execute(
                "SELECT prosecdef, proconfig FROM pg_proc WHERE oid = to_regproc(%s)",
                (self._function(),),
            ).fetchone()
        assert row is not None
        definer, config = row
        assert definer is False  # invoker: it lends the service role nothing
        assert config == ["search_path=pg_catalog, pg_temp"]

    def test_only_the_service_role_may_execute_it(self) -> None:
        with psycopg.connect(self.owner_url) as conn:
            granted = conn.execute(
                "SELECT has_function_privilege(%s, to_regproc(%s), 'EXECUTE'), "
                "has_function_privilege('public', to_regproc(%s), 'EXECUTE')",
                (APP_ROLE, self._function(), self._function()),
            ).fetchone()
        assert granted == (True, False)

    def test_a_repeated_key_is_refused_by_its_unique_key_and_appends_nothing(self) -> None:
        # Given an append answered under a key
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        record = IdempotencyRecord("member:k", "fp", {"version": 1})
        assert recorder.insert_events([event()], idempotency=record) == [1]
        # When the same key comes again with other events, then its unique key refuses it,
        # naming the constraint the ledger turns into DuplicateRequest
        with pytest.raises(IntegrityError) as refused:
            recorder.insert_events([event(), event()], idempotency=record)
        cause = refused.value.__cause__
        assert getattr(getattr(cause, "diag", None), "constraint_name", "") == (
            f"{self.tables.idempotency}_pkey"
        )
        assert recorder.max_notification_id() == 1

    def test_a_statement_deallocated_under_it_is_prepared_again(self) -> None:
        # Given the append's way of calling (prepared once per connection, run through libpq)
        # on a connection, which psycopg then deallocates: it sends DEALLOCATE ALL after a
        # ROLLBACK, DROP or ALTER on a connection it prepared its own statements on
        call = _Prepared(b"senki_test_echo", b"SELECT $1::text", (25,))
        with self.datastore.get_connection() as conn:
            assert call.run(conn, (b"one",)).get_value(0, 0) == b"one"
            conn.execute("DEALLOCATE ALL")
            # When it runs again on that connection, then it is prepared again and runs once
            assert call.run(conn, (b"two",)).get_value(0, 0) == b"two"

    def test_two_recorders_of_one_shard_share_its_statement_on_a_connection(self) -> None:
        # Given the statement prepared on a connection by one recorder of the shard
        first = _Prepared(b"senki_test_twin", b"SELECT $1::text", (25,))
        second = _Prepared(b"senki_test_twin", b"SELECT $1::text", (25,))
        with self.datastore.get_connection() as conn:
            assert first.run(conn, (b"one",)).get_value(0, 0) == b"one"
            # When another recorder of the shard runs it there, then it runs
            assert second.run(conn, (b"two",)).get_value(0, 0) == b"two"

    def test_a_connection_lost_before_an_append_is_retried_on_a_new_one(self) -> None:
        # Given an append, then every pooled connection ended by the server
        recorder = SenkiRecorder(self.datastore, tables=self.tables)
        first = event()
        recorder.insert_events([first])
        with psycopg.connect(self.owner_url, autocommit=True) as admin:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        # When the next append comes, then it is sent again on a new connection, once
        second = StoredEvent(first.originator_id, 2, "test.Marked.v1", b"{}")
        assert len(recorder.insert_events([second])) == 1
        stored = recorder.select_events(first.originator_id)
        assert [e.originator_version for e in stored] == [1, 2]

    def test_a_schema_6_database_gets_the_function_when_migrated_again(self) -> None:
        # Given a database as schema 6 left it: no append function
        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            for index in range(self.shards):
                conn.execute(f"DROP FUNCTION {SCHEMA}.events_{index}_append")
            conn.execute(f"DELETE FROM {SCHEMA}.schema_migrations WHERE version > 6")
            conn.execute(
                f"INSERT INTO {SCHEMA}.schema_migrations VALUES (6) ON CONFLICT DO NOTHING"
            )
        assert schema_version(self.app_url) == 6
        with pytest.raises(Exception, match="does not exist"):
            SenkiRecorder(self.datastore, tables=self.tables).insert_events([event()])
        # When it is migrated again, then the service role appends through the function
        assert migrate(self.owner_url, app_role=APP_ROLE, shards=self.shards) == SCHEMA_VERSION
        assert schema_version(self.app_url) == SCHEMA_VERSION >= 7
        assert SenkiRecorder(self.datastore, tables=self.tables).insert_events([event()]) == [1]


globals().update(each_setup(AppendFunction))
