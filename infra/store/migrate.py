"""`senki db migrate`: create every table, function, trigger and grant, as the owning role."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.resources import files

import psycopg
from eventsourcing.postgres import PostgresAggregateRecorder
from psycopg import sql

from infra.store.connect import datastore_for
from infra.store.names import SCHEMA, ShardTables
from infra.store.recorder import SenkiRecorder

# 2: schema senki_read (projector registry and tracking); 3: senki.placements (sharded log);
# 4: senki_read.advance_tracking sends the projector's notice itself; 5: senki_read.parked
# (events a read model could not take, infra/sql/park.sql); 6: sealed snapshots
# (snapshot_seal.sql: chain position, chain hash and MAC columns; older rows are ignored);
# 7: one append, one statement (append.sql: events_N_append, EXECUTE granted to the service
# role; a version-6 database is upgraded by running `senki db migrate` again); 9: moving a
# campaign between shards (move.sql per shard: the fence and the copy markers, which
# append.sql's function reads; move_home.sql: senki.relocations); 10: group commit
# (append_batch.sql: events_N_append_batch, several queued appends in one transaction; a
# version-9 database gets it by running `senki db migrate` again); 11: every signed checkpoint
# of each shard's Merkle tree (checkpoints.sql, issue 37); 12: each checkpoint keeps the leaves
# it added (checkpoints.sql), so a tree rebuilt after a restart names the exact first leaf
# where the log parts from what was signed (a version-11 database gets them by running
# `senki db migrate` again); 13: salted links (shard.sql: each new event's secret
# chain_salt, so a served chain hash cannot test guesses of a hidden value; rows stored before
# keep their unsalted links, which signed checkpoints already hold)
SCHEMA_VERSION = 13
# Read models (infra/projector): rebuildable from the log, so the service role owns their tables.
READ_SCHEMA = "senki_read"
_MIGRATION_LOCK = 0x53454E4B49  # "SENKI": one migrator at a time (k8s Job and embedded serve)


class MigrationError(RuntimeError):
    """The database could not be prepared; the message says what to do."""


def migrate(
    owner_url: str, *, app_role: str, shards: int, shard_owner_urls: Sequence[str] = ()
) -> int:
    """Bring the database(s) to SCHEMA_VERSION; safe to run again. Returns the version.

    Without `shard_owner_urls` every shard's tables are created in the home database at
    `owner_url` (the one-machine default). With them (one owner URL per shard), the home
    database gets only the placement directory and the read schema, and each shard cluster
    its shards' tables (named by shard index, so each chain's genesis stays bound to it);
    every database records the version it was brought to in its own schema_migrations.
    """
    if shard_owner_urls and len(shard_owner_urls) != shards:
        raise MigrationError(
            f"{len(shard_owner_urls)} shard owner URLs for {shards} shards: give one per shard"
        )
    on: dict[str, list[int]] = {}
    for index, shard_url in enumerate(shard_owner_urls or [owner_url] * shards):
        on.setdefault(shard_url, []).append(index)
    at_home = on.pop(owner_url, [])
    with _locked(owner_url) as conn:
        _ensure_schema_and_role(conn, app_role)
        _run_file(conn, "common.sql", app_role)
        _run_file(conn, "placements.sql", app_role)
        _create_shards(conn, owner_url, app_role, at_home)
        _run_file(conn, "read.sql", app_role)
        _run_file(conn, "park.sql", app_role)
        _run_file(conn, "move_home.sql", app_role)
        if not on:
            _backfill_placements(conn, shards)
        _record(conn)
    for shard_url, indices in on.items():  # each shard cluster but the home one
        with _locked(shard_url) as shard_conn:
            _ensure_schema_and_role(shard_conn, app_role)
            _run_file(shard_conn, "common.sql", app_role)
            _create_shards(shard_conn, shard_url, app_role, indices)
            _record(shard_conn)
    if on:
        with _locked(owner_url) as conn:
            _backfill_from_clusters(conn, shards, {owner_url: at_home, **on})
    return SCHEMA_VERSION


@contextmanager
def _locked(url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """A connection holding the migration lock of its database for the whole run, so two
    migrators (a k8s Job and an embedded `serve`) queue up."""
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as error:
        raise MigrationError(
            f"cannot reach {mask(url)} to migrate it: {_first_line(error)}"
        ) from error
    with conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
        try:
            yield conn
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))


def _create_shards(
    conn: psycopg.Connection[tuple[object, ...]], url: str, app_role: str, indices: list[int]
) -> None:
    for index in indices:
        tables = ShardTables(index)
        _create_library_tables(url, tables)
        _run_file(conn, "shard.sql", app_role, tables)
        _run_file(conn, "snapshot_seal.sql", app_role, tables)
        _run_file(conn, "move.sql", app_role, tables)  # the fence the append function reads
        _run_file(conn, "append.sql", app_role, tables)
        _run_file(conn, "append_batch.sql", app_role, tables)
        _run_file(conn, "checkpoints.sql", app_role, tables)


def _record(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    conn.execute(
        sql.SQL(
            "INSERT INTO {}.schema_migrations (version) VALUES (%s) ON CONFLICT DO NOTHING"
        ).format(sql.Identifier(SCHEMA)),
        (SCHEMA_VERSION,),
    )


def _backfill_from_clusters(
    conn: psycopg.Connection[tuple[object, ...]], shards: int, on: dict[str, list[int]]
) -> None:
    """`_backfill_placements` for shards on clusters of their own: an empty directory learns
    the streams each cluster already holds (a log that had its shards on clusters from the
    start has placed every stream itself)."""
    table = sql.SQL("{}.placements").format(sql.Identifier(SCHEMA))
    if shards == 1 or conn.execute(sql.SQL("SELECT 1 FROM {} LIMIT 1").format(table)).fetchone():
        return
    insert = sql.SQL("INSERT INTO {} (stream_id, shard) VALUES (%s, %s) ON CONFLICT DO NOTHING")
    for shard_url, indices in on.items():
        with psycopg.connect(shard_url, autocommit=True) as shard_conn:
            for index in indices:
                events = sql.Identifier(SCHEMA, ShardTables(index).events)
                rows = shard_conn.execute(
                    sql.SQL("SELECT DISTINCT originator_id FROM {}").format(events)
                ).fetchall()
                with conn.cursor() as cursor:
                    cursor.executemany(insert.format(table), [(row[0], index) for row in rows])


def mask(url: str) -> str:
    """A URL with its password hidden, for messages."""
    from infra.settings import _mask_url

    return _mask_url(url)


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _backfill_placements(conn: psycopg.Connection[tuple[object, ...]], shards: int) -> None:
    """The first time the log has more than one shard, place every stream already written.

    One shard records no placements (every stream is on shard 0), so an empty directory with
    N > 1 means the log is going multi-shard now. Not needed for correctness (an unplaced stream
    is on shard 0), but it lets every process cache every placement.
    """
    table = sql.SQL("{}.placements").format(sql.Identifier(SCHEMA))
    if shards == 1 or conn.execute(sql.SQL("SELECT 1 FROM {} LIMIT 1").format(table)).fetchone():
        return
    for index in range(shards):
        conn.execute(
            sql.SQL(
                "INSERT INTO {} (stream_id, shard) SELECT DISTINCT originator_id, %s FROM {}.{} "
                "ON CONFLICT DO NOTHING"
            ).format(table, sql.Identifier(SCHEMA), sql.Identifier(ShardTables(index).events)),
            (index,),
        )


def _ensure_schema_and_role(conn: psycopg.Connection[tuple[object, ...]], app_role: str) -> None:
    exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (app_role,)).fetchone()
    if exists is None:
        try:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(app_role)))
        except (psycopg.errors.DuplicateObject, psycopg.errors.UniqueViolation):
            # A role is the cluster's, the migration lock a database's: the migration of
            # another database of this cluster made it between our look and our CREATE (a
            # shard's next to the home's, two test templates). It exists: as good as made.
            pass
        except psycopg.errors.InsufficientPrivilege as error:
            raise MigrationError(
                f"the service role {app_role!r} does not exist and this role may not create it: "
                "create it first (CloudNativePG: a managed role) or migrate as a role with "
                "CREATEROLE"
            ) from error
    conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(SCHEMA)))


def _create_library_tables(owner_url: str, tables: ShardTables) -> None:
    """The events and snapshots tables exactly as the eventsourcing library defines them."""
    datastore = datastore_for(owner_url, pool_size=1)
    try:
        events = SenkiRecorder(datastore, tables=tables)
        # The library also creates a plpgsql insert function (POSTGRES_ENABLE_DB_FUNCTIONS) whose
        # insert path skips the table lock; Senki never uses it, so it is not created at all.
        del events.sql_create_statements[events.create_insert_function_statement_index]
        snapshots = PostgresAggregateRecorder(datastore, events_table_name=tables.snapshots)
        for recorder in (events, snapshots):
            create_types_once(recorder)
            recorder.create_table()
    finally:
        datastore.close()


def create_types_once(recorder: PostgresAggregateRecorder) -> None:
    """Make the recorder's CREATE TYPE a no-op when the type exists.

    PostgreSQL has no CREATE TYPE IF NOT EXISTS, and every recorder (events and snapshots, on
    every shard) declares the same `stored_event_uuid`: the library runs each into an ERROR in
    the server's log and then ignores it. Asking pg_type first leaves the log clean."""
    statements = recorder.sql_create_statements
    for index, statement in enumerate(statements):
        if "CREATE TYPE" in statement.as_string():
            name = f"{recorder.datastore.schema}.{recorder.stored_event_type_name}"
            statements[index] = sql.SQL(
                "DO $$ BEGIN IF to_regtype({name}) IS NULL THEN {create}; END IF; END $$"
            ).format(name=sql.Literal(name), create=statement)


def _run_file(
    conn: psycopg.Connection[tuple[object, ...]],
    name: str,
    app_role: str,
    tables: ShardTables | None = None,
) -> None:
    text = files("infra.sql").joinpath(name).read_text(encoding="utf-8")
    names: dict[str, sql.Composable] = {
        "schema": sql.Identifier(SCHEMA),
        "app_role": sql.Identifier(app_role),
        "read_schema": sql.Identifier(READ_SCHEMA),
    }
    if tables is not None:
        names |= {
            "events": sql.Identifier(tables.events),
            "write_lock": sql.Identifier(tables.write_lock),
            "idempotency": sql.Identifier(tables.idempotency),
            "snapshots": sql.Identifier(tables.snapshots),
            "checkpoints": sql.Identifier(tables.checkpoints),
            "sequence": sql.Identifier(tables.sequence),
            "chain_fn": sql.Identifier(f"{tables.events}_chain_link"),
            "append_fn": sql.Identifier(tables.append_function),
            "append_batch_fn": sql.Identifier(tables.append_batch_function),
            "moved": sql.Identifier(f"{tables.events}_moved"),
            "copies": sql.Identifier(f"{tables.events}_copies"),
            "genesis": sql.Literal(tables.chain_genesis),
            "sealed": sql.Identifier(f"{tables.snapshots}_sealed"),
            "sealed_name": sql.Literal(f"{tables.snapshots}_sealed"),
            "snapshots_regclass": sql.Literal(f"{SCHEMA}.{tables.snapshots}"),
        }
    conn.execute(sql.SQL(text).format(**names))


def schema_version(url: str) -> int | None:
    """The applied schema version, or None when `senki db migrate` never ran here."""
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        table = conn.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.schema_migrations",)).fetchone()
        if table is None or table[0] is None:
            return None
        row = conn.execute(
            sql.SQL("SELECT max(version) FROM {}.schema_migrations").format(sql.Identifier(SCHEMA))
        ).fetchone()
        return None if row is None or row[0] is None else int(str(row[0]))
