"""Which shard of the log holds a stream: campaigns are placed by id, their streams follow.

A campaign goes to shard `campaign id mod N` when it opens; every stream of that campaign
(characters, units, scenarios, encounters, roll logs) is placed on the campaign's shard, so one
campaign's history is one totally ordered, hash-chained log. A stream with no campaign is placed
by its own id. The directory (`senki.placements`) records each placement once; a placement
never changes. A campaign moved to another shard (`senki campaigns move`, infra/store/move.py)
gets a row per stream in `senki.relocations`, the newest of which wins; a process that cached
the old shard finds out at its next append there (the old shard refuses it, and the ledger
forgets the cached placement), or when the cached entry expires (`ttl_s`), for reads.

Growing N: new campaigns spread over the new N; existing ones stay where the directory says.
A stream that has no directory row lives on shard 0: that is where every stream was written
while the log had one shard (`senki db migrate` backfills the directory from the events tables
anyway). With one shard there is nothing to look up, so the directory costs nothing.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from uuid import UUID

from eventsourcing.postgres import PostgresDatastore
from psycopg.sql import SQL, Identifier

from infra.store.names import SCHEMA
from infra.store.retry import retried_read

PLACEMENTS = "placements"
RELOCATIONS = "relocations"
# How long a cached placement is trusted for reads (writes are fenced by the old shard anyway):
# after a move, another process reads the old, frozen copy at most this long.
CACHE_TTL_S = 30.0


class ShardsShrunk(RuntimeError):
    """The settings name fewer shards than the directory already uses."""


def shard_for_campaign(campaign_id: UUID, shards: int) -> int:
    """The shard a new campaign is assigned to, by its id."""
    return campaign_id.int % shards


class Placements:
    """The stream → shard directory, with a per-process cache of known placements."""

    def __init__(
        self,
        datastore: PostgresDatastore,
        shards: int,
        *,
        cache_size: int = 200_000,
        ttl_s: float = CACHE_TTL_S,
    ):
        self.datastore = datastore
        self.shards = shards
        self._known: OrderedDict[UUID, tuple[int, float]] = OrderedDict()
        self._cache_size = cache_size
        self._ttl_s = ttl_s
        self._lock = threading.Lock()
        table = SQL("{0}.{1}").format(Identifier(SCHEMA), Identifier(PLACEMENTS))
        moved = SQL("{0}.{1}").format(Identifier(SCHEMA), Identifier(RELOCATIONS))
        # The newest relocation, else the first placement: one row, NULL when neither exists.
        self._select = SQL(
            "SELECT coalesce((SELECT r.shard FROM {1} r WHERE r.stream_id = %(s)s "
            "ORDER BY r.seq DESC LIMIT 1), (SELECT p.shard FROM {0} p WHERE p.stream_id = %(s)s)) "
            "AS shard"
        ).format(table, moved)
        # A row that is already there (a retried create, or a race) wins: the SELECT after the
        # INSERT is a new statement, so it sees a concurrent placement once that commits.
        self._insert = SQL(
            "INSERT INTO {0} (stream_id, shard, campaign_id) VALUES (%s, %s, %s) "
            "ON CONFLICT (stream_id) DO NOTHING"
        ).format(table)
        self._highest = SQL(
            "SELECT max(shard) FROM (SELECT shard FROM {0} UNION ALL SELECT shard FROM {1}) s"
        ).format(table, moved)

    @retried_read
    def shard_of(self, stream_id: UUID) -> int:
        """The shard holding a stream; shard 0 for a stream that was never placed."""
        if self.shards == 1:
            return 0
        with self._lock:
            known = self._known.get(stream_id)
        if known is not None and time.monotonic() - known[1] < self._ttl_s:
            return known[0]
        return self.lookup(stream_id)

    @retried_read
    def lookup(self, stream_id: UUID) -> int:
        """The stream's shard as the directory says now (not the cache), remembered."""
        if self.shards == 1:
            return 0
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(self._select, {"s": stream_id})
            row = cursor.fetchone()
        if row is None or row["shard"] is None:
            return 0  # not remembered: the stream may yet be created on another shard
        return self._remember(stream_id, int(row["shard"]))

    def forget(self, stream_id: UUID) -> None:
        """Drop a cached placement (its stream was moved): the next call asks the directory."""
        with self._lock:
            self._known.pop(stream_id, None)

    # Retried like a read: a repeat of a placement that committed finds that placement.
    @retried_read
    def place(self, stream_id: UUID, *, campaign_id: UUID | None) -> int:
        """Place a new stream: on its campaign's shard, or by its own id without a campaign."""
        if self.shards == 1:
            return 0
        owner = campaign_id or stream_id
        # The campaign's shard from the directory, not the cache: a campaign moved by another
        # process must get its new streams on its new shard (a create is rare; one more read).
        shard = (
            self.lookup(owner) if owner != stream_id else shard_for_campaign(stream_id, self.shards)
        )
        with self.datastore.transaction(commit=True) as cursor:
            cursor.execute(self._insert, (stream_id, shard, campaign_id))
            cursor.execute(self._select, {"s": stream_id})
            row = cursor.fetchone()
        assert row is not None  # inserted now, or by whoever placed it first
        return self._remember(stream_id, int(row["shard"]))

    @retried_read
    def check(self) -> None:
        """Refuse to run with fewer shards than placed streams need (shards only grow)."""
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute(self._highest)
            row = cursor.fetchone()
        highest = None if row is None else row["max"]
        if highest is not None and int(highest) >= self.shards:
            raise ShardsShrunk(
                f"the log has streams on shard {highest}, but SENKI_SHARDS is {self.shards}: "
                f"set it to at least {int(highest) + 1} (shards can be added, never removed)"
            )

    def _remember(self, stream_id: UUID, shard: int) -> int:
        with self._lock:
            self._known[stream_id] = (shard, time.monotonic())
            self._known.move_to_end(stream_id)
            while len(self._known) > self._cache_size:
                self._known.popitem(last=False)
        return shard
