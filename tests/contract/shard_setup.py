"""One Senki shard for the library's unittest-style recorder cases: migrated as in production
(`senki db migrate` into a fresh database), connected as the low-privilege service role.

The library's cases are `unittest.TestCase` classes, which take no parametrized fixtures, so
each shard count is a generated subclass: `each_setup(Cases)` returns one
class per setup, named after it, for the module to publish.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import psycopg
import pytest

from infra.store.connect import ShardDatastore, datastore_for
from infra.store.names import ShardTables
from tests.support.databases import APP_ROLE, TestServer, shard_count

# One shard, and several: SENKI_TEST_SHARDS when CI sets it above 1, else 3. With several, the
# cases run on the last shard, so a shard other than 0 is held to the library's contract too.
SHARD_COUNTS = (1, shard_count() if shard_count() > 1 else 3)


class OnSenkiShard:
    """A fresh migrated database per test; `datastore` is the service role's, `tables` the
    last shard's. `pool_size` covers the library's concurrent cases (10 writers, 2 readers)."""

    shards: ClassVar[int] = 1
    pool_size: ClassVar[int] = 6  # the pool grows to twice this (datastore_for's overflow)
    lock_timeout_s: ClassVar[int] = 10

    datastore: ShardDatastore
    tables: ShardTables
    app_url: str
    owner_url: str

    @pytest.fixture(autouse=True)
    def _migrated_shard(self, request: pytest.FixtureRequest) -> Iterator[None]:
        server: TestServer = request.getfixturevalue("pg_server")
        with server.fresh_database(shards=self.shards) as name:
            self.app_url = server.url(name, user=APP_ROLE)
            self.owner_url = server.url(name)
            self.tables = ShardTables(self.shards - 1)
            self.datastore = datastore_for(
                self.app_url, pool_size=self.pool_size, lock_timeout_s=self.lock_timeout_s
            )
            try:
                yield
            finally:
                self.datastore.close()

    def end_every_session(self) -> int:
        """What a restart or failover does to the pool: the server ends every session of this
        database (as the owner, from outside the pool). Returns how many were ended."""
        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            row = conn.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        return int(row[0]) if row else 0


def each_setup(cases: type[Any]) -> dict[str, type[Any]]:
    """One subclass of `cases` per shard count, by name."""
    made: dict[str, type[Any]] = {}
    for shards in SHARD_COUNTS:
        name = f"Test{cases.__name__}_{shards}_shard{'s' if shards > 1 else ''}"
        made[name] = type(name, (cases,), {"shards": shards, "__test__": True})
    return made
