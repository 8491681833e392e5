"""Where the projector reads each shard's log: the home connection, or the shard's own cluster.

On the one-machine default every shard's events table is in the home database, so the
projector reads them on its own (home) connection, as it always did. With a cluster per shard
(SENKI_SHARD_URLS, docs/scaling.md) it reads shard i on a connection to shard i's cluster,
which also LISTENs there for the `events_i` NOTIFYs of its appends; the tracking positions and
the rows stay on home, in one transaction, so projection stays exactly once.

A shard whose cluster does not answer is set aside with a growing backoff (1 s doubling to
30 s) and the projector keeps projecting the others; when the cluster answers again the shard
catches up from its tracking position (issue #18: failure confined to the shard).
"""

from __future__ import annotations

import contextlib
import logging
import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

from infra.store.ledger import Ledger

log = logging.getLogger("senki.projector")
Conn = psycopg.Connection[tuple[Any, ...]]
BACKOFF_S = (1.0, 30.0)  # first wait, longest wait


class ShardDown(RuntimeError):
    """The shard's cluster is set aside for now (its backoff has not run out)."""


@dataclass
class _Cluster:
    url: str
    shards: list[int]
    conn: Conn | None = None
    retry_at: float = 0.0
    wait_s: float = BACKOFF_S[0]
    heard: set[str] = field(default_factory=set)


@dataclass
class ShardLogs:
    """One connection per shard cluster other than home, opened on demand, dropped on failure."""

    ledger: Ledger
    home_url: str
    home: Conn
    connect: Callable[[str], Conn]
    clock: Callable[[], float] = time.monotonic
    _clusters: dict[str, _Cluster] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for index, shard in enumerate(self.ledger.shards):
            if shard.url is None or shard.url == self.home_url:
                continue
            self._clusters.setdefault(shard.url, _Cluster(shard.url, [])).shards.append(index)

    def on_home(self, shard: int) -> bool:
        return self._cluster(shard) is None

    def usable(self, shard: int) -> bool:
        """False while the shard's cluster is set aside after a failure."""
        cluster = self._cluster(shard)
        return cluster is None or cluster.conn is not None or self.clock() >= cluster.retry_at

    def down(self) -> list[int]:
        """The shards whose cluster is set aside right now (for the log and for tests)."""
        return sorted(s for c in self._clusters.values() if c.conn is None for s in c.shards)

    def conn(self, shard: int) -> Conn:
        """The connection shard's events are read on (raises ShardDown while set aside)."""
        cluster = self._cluster(shard)
        if cluster is None:
            return self.home
        if cluster.conn is None:
            if self.clock() < cluster.retry_at:
                raise ShardDown(f"shard {shard}: its cluster is set aside until it answers")
            try:
                cluster.conn = self._open(cluster)
            except psycopg.Error as error:
                self._set_aside(cluster, error)
                raise ShardDown(f"shard {shard}: {error}") from error
            if cluster.wait_s > BACKOFF_S[0]:
                log.info("projector: shard %s answers again; catching up", cluster.shards)
            cluster.wait_s = BACKOFF_S[0]
        return cluster.conn

    def failed(self, shard: int, error: BaseException) -> None:
        """Reading shard's log failed on its own cluster: set the cluster aside, try later."""
        cluster = self._cluster(shard)
        if cluster is not None:
            self._set_aside(cluster, error)

    def wait(self, lock: Conn, timeout: float) -> list[str]:
        """Channels that spoke within `timeout`: the home lock connection and every cluster's
        reader connection (each LISTENs to its own shards' channels)."""
        if not self._clusters:
            return [n.channel for n in lock.notifies(timeout=timeout, stop_after=1)]
        heard = [c for cluster in self._clusters.values() for c in cluster.heard]
        for cluster in self._clusters.values():
            cluster.heard.clear()
        if heard:
            return heard
        live = [lock] + [c.conn for c in self._clusters.values() if c.conn is not None]
        timeout = min([timeout] + [max(0.0, c.retry_at - self.clock()) for c in self._down()])
        readable, _, _ = select.select([c.fileno() for c in live], [], [], timeout)
        for conn in live:
            if conn.fileno() in readable:
                heard += self._drain(conn)
        return heard

    def close(self) -> None:
        for cluster in self._clusters.values():
            if cluster.conn is not None:
                cluster.conn.close()
                cluster.conn = None

    def _drain(self, conn: Conn) -> list[str]:
        try:
            conn.pgconn.consume_input()  # raises once the server closed the connection
        except psycopg.Error:
            if conn is self.home or not any(c.conn is conn for c in self._clusters.values()):
                raise
            for cluster in self._clusters.values():
                if cluster.conn is conn:
                    self._set_aside(cluster, psycopg.OperationalError("connection lost"))
            return []
        heard = []
        while (notify := conn.pgconn.notifies()) is not None:
            heard.append(notify.relname.decode())
        return heard

    def _open(self, cluster: _Cluster) -> Conn:
        conn = self.connect(cluster.url)
        conn.add_notify_handler(lambda notify: cluster.heard.add(notify.channel))
        for shard in cluster.shards:
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(f"events_{shard}")))
        return conn

    def _set_aside(self, cluster: _Cluster, error: BaseException) -> None:
        if cluster.conn is not None:
            with contextlib.suppress(psycopg.Error):
                cluster.conn.close()
            cluster.conn = None
        if cluster.wait_s == BACKOFF_S[0] or cluster.retry_at == 0.0:
            log.warning(
                "projector: shard %s unavailable (%s); projecting the other shards",
                cluster.shards, str(error).strip().splitlines()[0] if str(error) else error,
            )  # fmt: skip
        cluster.retry_at = self.clock() + cluster.wait_s
        cluster.wait_s = min(cluster.wait_s * 2, BACKOFF_S[1])

    def _down(self) -> list[_Cluster]:
        return [c for c in self._clusters.values() if c.conn is None]

    def _cluster(self, shard: int) -> _Cluster | None:
        url = self.ledger.shards[shard].url
        return None if url is None or url == self.home_url else self._clusters.get(url)
