"""Migrating writes no ERROR to PostgreSQL's log (issue 35 §8).

Every recorder (events and snapshots, on every shard) declares the same composite type, and
PostgreSQL has no CREATE TYPE IF NOT EXISTS: the first start logged `ERROR: type
"stored_event_uuid" already exists` once per recorder after the first, which an operator reads
as a failed migration. Nor does a migration fail on a role another database's migration of the
same cluster made meanwhile (two test templates at once on one server met it in CI).
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from eventsourcing.postgres import PostgresAggregateRecorder
from psycopg import sql

from infra.store.connect import datastore_for
from infra.store.migrate import SCHEMA_VERSION, create_types_once, migrate
from tests.support.databases import APP_ROLE
from tests.support.private_pg import PrivateServer
from tests.support.processes import free_port

pytestmark = pytest.mark.postgres


def test_the_event_type_is_created_again_without_an_error(owner_url: str) -> None:
    # Given a migrated database, where the type exists
    datastore = datastore_for(owner_url, pool_size=1)
    try:
        recorder = PostgresAggregateRecorder(datastore, events_table_name="probe_events")
        create_types_once(recorder)
        creates = [s for s in recorder.sql_create_statements if "CREATE TYPE" in s.as_string()]
    finally:
        datastore.close()
    assert creates
    # When its CREATE TYPE runs again, then it asks pg_type instead of failing
    with psycopg.connect(owner_url) as conn:
        for statement in creates:
            conn.execute(statement)


def test_a_first_migration_of_two_shards_logs_no_error() -> None:
    # A server of the test's own, whatever the run's backend: its log is the test's to read.
    with PrivateServer(free_port()) as private:
        private.create_database("senki")
        before = private.log_path.stat().st_size

        migrate(private.url("senki"), app_role=APP_ROLE, shards=2)

        with private.log_path.open(encoding="utf-8", errors="replace") as text:
            text.seek(before)
            written = text.read()
    assert "already exists" not in written, written


def test_a_service_role_made_by_another_database_s_migration_meanwhile_is_taken_as_made() -> None:
    # Given a cluster where another database's migration is creating the service role, not yet
    # committed (roles are the cluster's; the migration lock is a database's, so it does not
    # keep the two apart)
    with PrivateServer(free_port()) as private:
        private.create_database("senki")
        outcome: list[object] = []

        def migrating() -> None:
            try:
                outcome.append(migrate(private.url("senki"), app_role="senki_race", shards=1))
            except Exception as error:  # the test's to report, not the thread's to lose
                outcome.append(error)

        look = psycopg.connect(private.url(), autocommit=True)
        with psycopg.connect(private.url()) as other, look:
            other.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier("senki_race")))
            # When this database's migration looks for the role (not there yet), creates it and
            # waits on the other's, which then commits
            worker = threading.Thread(target=migrating)
            worker.start()
            waiting = (
                "SELECT count(*) FROM pg_stat_activity "
                "WHERE wait_event_type = 'Lock' AND query LIKE 'CREATE ROLE%'"
            )
            deadline = time.monotonic() + 30
            while look.execute(waiting).fetchone() != (1,) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert look.execute(waiting).fetchone() == (1,), "the migration never met the role"
            other.commit()
            worker.join(60)

    # Then it goes on with the role the other made, to the end
    assert outcome == [SCHEMA_VERSION]
