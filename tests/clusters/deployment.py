"""Senki deployed over several clusters on loopback: the real CLI processes of
tests/fault/deployment.py, configured with one PostgreSQL URL per shard (SENKI_SHARD_URLS)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import psycopg
from psycopg import sql

from infra.store.names import SCHEMA, ShardTables
from tests.fault.deployment import Deployment
from tests.support.clusters import HOME, Layout


@dataclass
class ClusterDeployment(Deployment):
    """`senki db migrate`, `senki serve` and `senki project` over the layout's clusters."""

    layout: Layout = field(kw_only=True)

    @property
    def owner_url(self) -> str:
        return self.layout.home_url("postgres")

    @property
    def app_url(self) -> str:
        return self.layout.home_url()

    def env(self) -> dict[str, str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
        return clean | self.layout.env() | {"SENKI_LOG_LEVEL": "warning"}

    def grow(self, host: int) -> None:
        """One more shard, on cluster `host`: the longer list, migrated (processes started
        from now on get it; the running ones are restarted by the test)."""
        self.layout = self.layout.grown(host)
        self.shards = self.layout.shards
        self.migrate()

    def migrate(self) -> None:
        """`senki db migrate` over home and every shard (the databases already exist)."""
        done = self.senki("db", "migrate")
        assert done.returncode == 0, done.stdout + done.stderr

    def shard_of(self, stream_id: str) -> int:
        """The shard whose events table, on its own cluster, holds the stream."""
        found = [s for s in range(self.layout.shards) if self.events_on(s, stream_id)]
        assert len(found) == 1, f"stream {stream_id} is on shards {found}"
        return found[0]

    def events_on(self, shard: int, stream_id: str) -> int:
        """How many of the stream's events shard `shard`'s cluster holds."""
        return count_events(self.layout.owner_url(shard), shard, stream_id)

    @property
    def home(self) -> int:
        return HOME


def count_events(owner_url: str, shard: int, stream_id: str | None = None) -> int:
    """Events in `events_<shard>` on that URL's database (0 when the table is not there)."""
    table = sql.Identifier(SCHEMA, ShardTables(shard).events)
    with psycopg.connect(owner_url, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT to_regclass(%s) IS NOT NULL", (f"{SCHEMA}.{ShardTables(shard).events}",)
        ).fetchone()
        if not exists or not exists[0]:
            return 0
        if stream_id is None:
            row = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(table)).fetchone()
        else:
            query = sql.SQL("SELECT count(*) FROM {} WHERE originator_id = %s")
            row = conn.execute(query.format(table), (stream_id,)).fetchone()
    return int(str(row[0])) if row else 0
