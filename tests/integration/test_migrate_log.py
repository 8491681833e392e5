"""Migrating writes no ERROR to PostgreSQL's log (issue 35 §8).

Every recorder (events and snapshots, on every shard) declares the same composite type, and
PostgreSQL has no CREATE TYPE IF NOT EXISTS: the first start logged `ERROR: type
"stored_event_uuid" already exists` once per recorder after the first, which an operator reads
as a failed migration.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from eventsourcing.postgres import PostgresAggregateRecorder
from psycopg import sql

from infra.store.connect import datastore_for
from infra.store.migrate import create_types_once, migrate
from tests.support.databases import APP_ROLE, TestServer, embedded_data_dir

pytestmark = pytest.mark.postgres


@pytest.fixture
def empty_database(pg_server: TestServer) -> Iterator[str]:
    name = f"senki_empty_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield pg_server.url(name)
    finally:
        with psycopg.connect(pg_server.url("postgres"), autocommit=True) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


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


def test_a_first_migration_of_two_shards_logs_no_error(
    pg_server: TestServer, empty_database: str
) -> None:
    if pg_server.kind != "embedded":
        pytest.skip("reads the embedded server's log")
    log = embedded_data_dir() / "pg.log"
    before = log.stat().st_size

    migrate(empty_database, app_role=APP_ROLE, shards=2)

    with log.open(encoding="utf-8", errors="replace") as text:
        text.seek(before)
        written = text.read()
    assert "already exists" not in written, written
