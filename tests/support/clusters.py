"""Several real PostgreSQL clusters side by side on loopback, one per shard (issue #18).

Each is a `PrivateServer` (tests/support/private_pg.py): the embedded server's binaries in a
temporary directory, on a free port, that a test may stop and start again. Cluster 0 is the
home cluster (the placement directory and the read models); a deployment names which cluster
each shard's tables live on, so shard 0 may share the home cluster, as the contract allows.

As in tests/support/databases.py, the migration runs as the owner (the superuser here) and
the service connects as the low-privilege `senki_app` role, which each cluster's migration
creates (roles belong to a cluster, not to a database).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType

import psycopg
from psycopg import sql

from tests.support.databases import APP_ROLE
from tests.support.private_pg import PrivateServer, ShutdownMode
from tests.support.processes import free_port
from tests.support.runtime import TEST_DICE_KEY

HOME = 0


class Clusters:
    """`count` PostgreSQL servers on their own ports; `.url(i, …)`, `.stop(i)`, `.start(i)`."""

    def __init__(self, count: int, *, max_connections: int = 120) -> None:
        ports: list[int] = []
        while len(ports) < count:  # two probes may be handed the same free port
            if (port := free_port()) not in ports:
                ports.append(port)
        self.servers = [PrivateServer(port, max_connections=max_connections) for port in ports]

    def __len__(self) -> int:
        return len(self.servers)

    def url(self, index: int, database: str = "postgres", user: str = "postgres") -> str:
        return self.servers[index].url(database, user)

    def start_all(self) -> None:
        for server in self.servers:
            server.start()

    def start(self, index: int) -> None:
        """Start a stopped cluster again, on its port and data directory (what was committed
        before it stopped is there; recovery replays the WAL after an immediate stop)."""
        server = self.servers[index]
        server.start()

    def stop(self, index: int, mode: ShutdownMode = "immediate") -> None:
        """Stop one cluster (`immediate`: as if its machine lost power)."""
        self.servers[index].stop(mode)

    def is_up(self, index: int) -> bool:
        try:
            with psycopg.connect(self.url(index), connect_timeout=2) as conn:
                conn.execute("SELECT 1")
        except psycopg.OperationalError:
            return False
        return True

    def create_database(self, name: str) -> None:
        for server in self.servers:
            server.create_database(name)

    def drop_database(self, name: str) -> None:
        for index in range(len(self.servers)):
            if not self.is_up(index):
                continue
            with psycopg.connect(self.url(index), autocommit=True) as conn:
                drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                conn.execute(drop.format(sql.Identifier(name)))

    def remove(self) -> None:
        for server in self.servers:
            server.remove()

    def __enter__(self) -> Clusters:
        try:
            self.start_all()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.remove()

    @contextmanager
    def layout(self, shard_hosts: Sequence[int]) -> Iterator[Layout]:
        """A fresh database of one name on every cluster, laid out as `shard_hosts` says
        (shard i's tables on cluster shard_hosts[i]); dropped afterwards."""
        name = f"senki_c_{uuid.uuid4().hex[:10]}"
        self.create_database(name)
        try:
            yield Layout(self, name, tuple(shard_hosts))
        finally:
            self.drop_database(name)


@dataclass(frozen=True)
class Layout:
    """Which cluster holds home and each shard, for one test's database."""

    clusters: Clusters
    database: str
    shard_hosts: tuple[int, ...]

    @property
    def shards(self) -> int:
        return len(self.shard_hosts)

    def home_url(self, user: str = APP_ROLE) -> str:
        return self.clusters.url(HOME, self.database, user)

    def shard_url(self, shard: int, user: str = APP_ROLE) -> str:
        return self.clusters.url(self.shard_hosts[shard], self.database, user)

    def owner_url(self, shard: int) -> str:
        return self.shard_url(shard, "postgres")

    def grown(self, host: int) -> Layout:
        """The same deployment with one more shard, on cluster `host` (growth)."""
        return Layout(self.clusters, self.database, (*self.shard_hosts, host))

    def env(self) -> dict[str, str]:
        """The SENKI_* settings of a deployment laid out so (infra/settings.py's contract)."""
        shards = range(self.shards)
        return {
            "SENKI_DATABASE_URL": self.home_url(),
            "SENKI_MIGRATION_DATABASE_URL": self.home_url("postgres"),
            "SENKI_SHARD_URLS": json.dumps([self.shard_url(s) for s in shards]),
            "SENKI_SHARD_MIGRATION_URLS": json.dumps([self.owner_url(s) for s in shards]),
            "SENKI_SHARDS": str(self.shards),
            "SENKI_APP_ROLE": APP_ROLE,
            "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        }
