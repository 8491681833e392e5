"""The projector: follows the log into every read model, one batch per transaction.

Exactly once: a batch's row changes and the tracking positions they account for commit
together, and each position only moves from the value this projector last wrote (a fence).
One projector per database: a session-level advisory lock on a dedicated connection; a second
projector stands by, retrying, and takes over when the holder's session ends (a crash, a
SIGKILL and a lost connection all end it). The same connection also holds a lock per read
model it projects, which is what lanes (`infra.projector.lanes`: models split over child
processes) rely on. The lock connection also LISTENs on each shard's
channel (the event store NOTIFYs `events_<shard>` on every append), with a poll fallback. A
shard on a PostgreSQL cluster of its own is read, and heard, on a connection to that cluster;
while it is down the other shards go on (infra/projector/shard_logs.py, docs/scaling.md).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql

from domain.events import DomainEvent
from infra.projector import park, registry
from infra.projector.lanes import ChildLanes, LaneSpec, model_lock, split
from infra.projector.log import Entry, Window, read_window
from infra.projector.park import Parking
from infra.projector.registry import Target
from infra.projector.rows import PREPARED_MAX, BatchRows, RowCache
from infra.projector.shard_logs import ShardDown, ShardLogs
from infra.projector.transactions import one_round_trip
from infra.store.ledger import Ledger
from projections.base import Projection
from projections.catalog import PROJECTIONS

PROJECTOR_LOCK = 0x53454E4B4950  # "SENKIP": one projector per database
WAKE_CHANNEL = "senki_projections"  # `projections rebuild` wakes the projector with it
# After each batch commits: "<shard>:<position>:<model>,<model>…", the live models it moved
# (with lanes, each lane speaks for its own models). Sent by senki_read.advance_tracking.
PROJECTED_CHANNEL = "senki_projected"
log = logging.getLogger("senki.projector")
Progress = Callable[[Target, int, int], None]  # target, shard, position


@dataclass
class ProjectorOptions:
    batch_size: int = 500
    poll_s: float = 1.0  # longest wait for a NOTIFY before looking at the log anyway
    standby_s: float = 0.5  # how often a standby projector tries the lock
    reload_s: float = 5.0  # longest time between two readings of the registry
    # How often a caught-up projector says so (registry.touch): a model whose tracking has not
    # changed for longer than the stall bound (settings, > this) is then stalled, not idle.
    touch_s: float = 10.0
    application_name: str = "senki-projector"
    lanes: int = 1  # processes to split the read models over (this one and lanes − 1 children)
    models_only: bool = False  # a child lane: its models' locks only, not the projector lock


@dataclass
class Projector:
    """Runs `projections` over `ledger` into schema senki_read of the database at `url`."""

    url: str
    ledger: Ledger
    projections: Sequence[Projection] = PROJECTIONS
    options: ProjectorOptions = field(default_factory=ProjectorOptions)
    on_batch: Progress | None = None
    state: str = "starting"  # starting → standby → active → stopped
    parent: int | None = None  # a child lane stops when this process is no longer its parent
    _caches: dict[str, RowCache] = field(default_factory=dict)
    _working: Sequence[Projection] = ()
    _children: ChildLanes | None = None
    _wanted: dict[Projection, dict[type[DomainEvent], bool]] = field(default_factory=dict)
    _skips: dict[tuple[str, ...], tuple[str, ...]] = field(default_factory=dict)
    _logs: ShardLogs | None = None

    def run(self, stop: threading.Event, *, until_caught_up: bool = False) -> None:
        """Project until `stop` is set (or, if asked, until nothing is left to build)."""
        try:
            while not stop.is_set() and self._parent_alive():
                try:
                    if self._session(stop, until_caught_up):
                        return
                except psycopg.Error as error:  # a lost connection, or fenced out
                    if stop.is_set() or not self._parent_alive():  # stopping anyway
                        return
                    log.warning("projector: %s; starting over", error)
                    self.forget()
                    stop.wait(self.options.poll_s)
        finally:
            self.state = "stopped"

    def forget(self) -> None:
        """Drop every cached row: after a failure, PostgreSQL alone says what is there."""
        self._caches.clear()

    def _connect(
        self, suffix: str = "", url: str | None = None
    ) -> psycopg.Connection[tuple[Any, ...]]:
        name = self.options.application_name + suffix
        conn = psycopg.connect(
            url or self.url, autocommit=True, application_name=name, connect_timeout=5
        )
        # Read models are derived data: a crash may lose the last few committed batches, but
        # never half of one (rows and tracking share a transaction), and the projector then
        # simply projects them again. Not waiting for the WAL flush makes each batch cheaper.
        conn.execute("SET synchronous_commit = off")
        conn.prepared_max = PREPARED_MAX  # room for every table's upsert sizes (rows.CHUNKS)
        return conn

    def _session(self, stop: threading.Event, until_caught_up: bool) -> bool:
        with self._connect("-lock") as lock:
            mine, others = self._lanes()
            if not self._acquire(lock, stop, mine):
                return True
            self.state, self._working = "active", mine
            try:
                return self._active(lock, stop, until_caught_up, others)
            finally:
                if self._children is not None:
                    self._children.stop()
                    self._children = None

    def _lanes(self) -> tuple[list[Projection], list[list[Projection]]]:
        """The models this process projects, and those of each child lane it starts."""
        if self.options.models_only or self.options.lanes <= 1:
            return list(self.projections), []
        first, *others = split(self.projections, self.options.lanes)
        return first, others

    def _active(
        self,
        lock: psycopg.Connection[tuple[Any, ...]],
        stop: threading.Event,
        until_caught_up: bool,
        others: list[list[Projection]],
    ) -> bool:
        with self._connect() as conn:
            self._logs = ShardLogs(self.ledger, self.url, conn, lambda u: self._connect("-log", u))
            try:
                return self._on(conn, lock, stop, until_caught_up, others)
            finally:
                self._logs.close()
                self._logs = None

    def _on(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        lock: psycopg.Connection[tuple[Any, ...]],
        stop: threading.Event,
        until_caught_up: bool,
        others: list[list[Projection]],
    ) -> bool:
        logs = self._shard_logs()
        for shard in range(len(self.ledger.shards)):
            if logs.on_home(shard):  # a shard on a cluster of its own is heard there
                lock.execute(sql.SQL("LISTEN {}").format(sql.Identifier(_channel(shard))))
        lock.execute(sql.SQL("LISTEN {}").format(sql.Identifier(WAKE_CHANNEL)))
        with conn.transaction():
            registry.ensure(conn, self._working, len(self.ledger.shards))
        for projection in self._working:
            for generation in registry.leftovers(conn, projection):
                self._retire(conn, projection, generation)
        if others:  # after this lane's own set-up, so that they find the schema ready
            specs = [self._lane_spec(index, models) for index, models in enumerate(others, 1)]
            self._children = ChildLanes(specs)
            self._children.start()
            log.info("projector lanes: %s", [[p.name for p in lane] for lane in others])
        return self._follow(conn, lock, stop, until_caught_up)

    def _acquire(
        self,
        lock: psycopg.Connection[tuple[Any, ...]],
        stop: threading.Event,
        models: Sequence[Projection],
    ) -> bool:
        while not stop.is_set() and self._parent_alive():
            if self._try_locks(lock, models):
                return True
            if self.state != "standby":
                log.info("projector on standby: another one holds the lock")
                self.state = "standby"
            stop.wait(self.options.standby_s)
        return False

    def _follow(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        lock: psycopg.Connection[tuple[Any, ...]],
        stop: threading.Event,
        until_caught_up: bool,
    ) -> bool:
        targets = self._targets(conn)
        reloaded = touched = time.monotonic()
        every = range(len(self.ledger.shards))
        shards: Sequence[int] = every
        while not stop.is_set():
            if not self._parent_alive():
                return True
            if self._children is not None:
                self._children.check()
            more, switched = self._pass(conn, targets, shards)
            passed, shards = shards, every
            if switched:
                targets, reloaded = self._targets(conn), time.monotonic()
                continue
            if more:
                continue
            if until_caught_up and not any(t.building for t in targets):
                return True
            if time.monotonic() - touched > self.options.touch_s:
                registry.touch(conn, targets, passed)
                touched = time.monotonic()
            # The registry changes only by a rebuild (which NOTIFYs) or a new deployment: read
            # it again then, on a quiet poll, and now and then, not on every event; now and
            # then while idle, so that no event waits for it.
            if time.monotonic() - reloaded > self.options.reload_s:
                targets, reloaded = self._targets(conn), time.monotonic()
            woke = self._shard_logs().wait(lock, self.options.poll_s)
            if not woke or WAKE_CHANNEL in woke:
                targets, reloaded = self._targets(conn), time.monotonic()
            else:  # an append NOTIFYs its own shard: only that one has news, read it alone
                shards = [i for i in every if _channel(i) in woke] or every
        return True

    def _try_locks(
        self, lock: psycopg.Connection[tuple[Any, ...]], models: Sequence[Projection]
    ) -> bool:
        """The projector lock (unless a child lane) and every model's lock, or none of them."""
        keys: list[tuple[int, ...]] = [] if self.options.models_only else [(PROJECTOR_LOCK,)]
        keys += [model_lock(p.name) for p in models]
        held: list[tuple[int, ...]] = []
        for key in keys:
            marks = ", ".join(["%s"] * len(key))
            row = lock.execute(f"SELECT pg_try_advisory_lock({marks})", key).fetchone()
            if row is None or not row[0]:
                for taken in held:  # a lane of an earlier projector still works this model
                    marks = ", ".join(["%s"] * len(taken))
                    lock.execute(f"SELECT pg_advisory_unlock({marks})", taken)
                return False
            held.append(key)
        return True

    def _parent_alive(self) -> bool:
        return self.parent is None or os.getppid() == self.parent

    def _lane_spec(self, index: int, models: list[Projection]) -> LaneSpec:
        return LaneSpec(
            url=self.url,
            shards=len(self.ledger.shards),
            models=[p.name for p in models],
            batch_size=self.options.batch_size,
            application_name=f"{self.options.application_name}-lane{index}",
            parent=os.getpid(),
            shard_urls=_shard_urls(self.url, self.ledger),
        )

    def _targets(self, conn: psycopg.Connection[tuple[Any, ...]]) -> list[Target]:
        with conn.transaction():
            found = registry.targets(conn, self._working)
            park.load(conn, found)
            return found

    def _pass(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        targets: list[Target],
        shards: Sequence[int],
    ) -> tuple[bool, bool]:
        """One batch for each group of targets at the same position, shard by shard.

        Returns (more: some group has more to read now, switched: a generation went live).
        """
        more = False
        for target in targets:
            if target.retry:
                self._retry(conn, target)
        for shard in shards:
            groups: dict[int, list[Target]] = {}
            for target in targets:
                groups.setdefault(target.positions[shard], []).append(target)
            starts = sorted(groups)
            for index, start in enumerate(starts):
                # A lagging group stops where the next one stands, so that they merge and a
                # building generation meets its live one at exactly the same position.
                cap = starts[index + 1] if index + 1 < len(starts) else None
                group = groups[start]
                window = self._window(shard, start, cap, group)
                if window is None:  # its cluster is down: the other shards go on
                    break
                if window.end is None and not any(t.building for t in group):
                    continue
                if self._batch(conn, shard, group, window, targets):
                    return True, True
                more = more or (window.end is not None and not window.at_head)
        return more, False

    def _window(
        self, shard: int, start: int, cap: int | None, group: list[Target]
    ) -> Window | None:
        """The next window of `shard`'s log, or None while the shard's cluster is down."""
        logs = self._shard_logs()
        if not logs.usable(shard):
            return None
        try:
            source = logs.conn(shard)
            return read_window(
                source,
                self.ledger,
                shard,
                start,
                self.options.batch_size,
                cap=cap,
                skip=self._unwanted(group),
                behind=[min(t.positions[i] for t in group) for i in range(len(self.ledger.shards))],
            )
        except ShardDown:
            return None
        except (psycopg.OperationalError, psycopg.InterfaceError) as error:
            if logs.on_home(shard):
                raise  # home is down: the whole session starts over
            logs.failed(shard, error)
            return None

    def _shard_logs(self) -> ShardLogs:
        assert self._logs is not None, "only while active"
        return self._logs

    def _batch(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        shard: int,
        group: list[Target],
        window: Window,
        targets: list[Target],
    ) -> bool:
        """One batch; if an event in it fails, the batch again with that event parked."""
        try:
            return self._commit(conn, shard, group, window, targets=targets)
        except Exception as error:
            if not park.poisonous(error):
                raise
            log.warning(
                "projection batch %d:(%d, %s] of %s failed (%s); isolating the event",
                shard, group[0].positions[shard], window.end,
                [t.label for t in group], park.reason_of(error),
            )  # fmt: skip
            return self._isolate(conn, shard, group, window, targets=targets)

    def _commit(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        shard: int,
        group: list[Target],
        window: Window,
        *,
        targets: list[Target],
    ) -> bool:
        """Apply a batch to a group and move its positions, in one transaction."""
        events, end = window.events, window.end
        written: list[tuple[Target, BatchRows, list[Parking]]] = []
        for target in group:  # a cache miss reads here, before anything of the batch is sent
            rows = BatchRows(conn, target.projection, target.generation, self._cache(target))
            behind = self._handle(target, shard, events, rows)
            written.append((target, rows, behind))
        notice = _notice(shard, end, group)
        switched: list[tuple[Target, int | None]] = []
        if (
            end is not None
            and not any(t.building for t in group)
            and not any(rows.pending or behind for _, rows, behind in written)
        ):  # nothing to write (often, for a lane): the advance alone is one transaction
            registry.advance(conn, group, shard, end, notice)
        else:  # BEGIN, the writes, the fenced advance and COMMIT travel together
            with one_round_trip(conn):
                for target, rows, behind in written:
                    rows.flush()
                    park.insert(conn, target, shard, behind)
                switched = self._advance(conn, shard, group, window, targets)
        rows_written = [rows for _, rows, _ in written]
        return self._settle(conn, shard, group, window, written=rows_written, switched=switched)

    def _isolate(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        shard: int,
        group: list[Target],
        window: Window,
        *,
        targets: list[Target],
    ) -> bool:
        """The batch failed: apply it again, each target in a savepoint of its own, and a
        target that fails again event by event, parking each event it cannot take (park.py).

        Rare, so simple: a target that fails writes event by event through a cache of its
        own (PostgreSQL answers every read, as it holds this transaction's writes), and its
        process-wide cache is dropped, since it never saw those writes.
        """
        written: list[BatchRows] = []
        with conn.transaction():
            for target in group:
                rows = BatchRows(conn, target.projection, target.generation, self._cache(target))
                try:
                    with conn.transaction():  # a savepoint
                        park.insert(
                            conn, target, shard, self._handle(target, shard, window.events, rows)
                        )
                        rows.flush()
                except Exception as error:
                    if not park.poisonous(error):
                        raise
                    self._caches.pop(target.label, None)
                    park.one_by_one(conn, target, shard, window.events, self._wants)
                else:
                    written.append(rows)
            switched = self._advance(conn, shard, group, window, targets)
        return self._settle(conn, shard, group, window, written=written, switched=switched)

    def _retry(self, conn: psycopg.Connection[tuple[Any, ...]], target: Target) -> None:
        """`senki projections retry`: apply the target's parked events again, in position
        order, before any later event of their streams; what still fails is parked again."""
        logs = self._shard_logs()
        if not all(logs.usable(s) for s in range(len(self.ledger.shards))):
            return  # a shard's cluster is down: retry once every parked event can be read
        self._caches.pop(target.label, None)
        with conn.transaction():
            for shard in range(len(self.ledger.shards)):
                events = park.take(conn, self.ledger, target, shard, log=logs.conn(shard))
                target.parked[shard] = {}
                park.one_by_one(conn, target, shard, events, self._wants)
            park.retried(conn, target)
        target.retry = False
        left = sum(len(streams) for streams in target.parked.values())
        log.info(
            "projection %s retried its parked events: %d streams still parked", target.label, left
        )

    def _advance(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        shard: int,
        group: list[Target],
        window: Window,
        targets: list[Target],
    ) -> list[tuple[Target, int | None]]:
        """Inside the batch's transaction: the fenced advance, and any switch it completes."""
        end = window.end
        moved = _moved(shard, group, end)
        if end is not None:
            registry.advance(conn, group, shard, end, _notice(shard, end, group))
        return [
            (target, registry.switch(conn, target))
            for target in group
            if target.building and self._caught_up(target, shard, window.at_head, moved, targets)
        ]

    def _settle(
        self,
        conn: psycopg.Connection[tuple[Any, ...]],
        shard: int,
        group: list[Target],
        window: Window,
        *,
        written: list[BatchRows],
        switched: list[tuple[Target, int | None]],
    ) -> bool:
        """After the batch committed: positions, caches, progress, and retiring old tables."""
        moved = _moved(shard, group, window.end)
        for target in group:
            target.positions[shard] = moved[id(target)]
            if self.on_batch is not None and window.end is not None:
                self.on_batch(target, shard, target.positions[shard])
        for rows in written:
            rows.committed()
        for target, old in switched:
            log.info(
                "projection %s now reads generation %d", target.projection.name, target.generation
            )
            if old is not None:
                self._retire(conn, target.projection, old)
        return bool(switched)

    def _caught_up(
        self,
        target: Target,
        shard: int,
        at_head: bool,
        moved: dict[int, int],
        targets: list[Target],
    ) -> bool:
        """Built: level with the live generation on every shard, or at the head without one."""
        if at_head:
            target.at_head.add(shard)
        else:
            target.at_head.discard(shard)
        live = next(
            (t for t in targets if t.projection is target.projection and not t.building), None
        )
        if live is None:
            return len(target.at_head) == len(self.ledger.shards)
        mine = target.positions | {shard: moved[id(target)]}
        theirs = live.positions | ({shard: moved[id(live)]} if id(live) in moved else {})
        return mine == theirs

    def _retire(
        self, conn: psycopg.Connection[tuple[Any, ...]], projection: Projection, generation: int
    ) -> None:
        self._caches.pop(f"{projection.name}_g{generation}", None)
        try:
            with conn.transaction():
                conn.execute("SET LOCAL lock_timeout = '5s'")
                registry.retire(conn, projection, generation)
        except psycopg.errors.LockNotAvailable:  # a long read still uses it: the next start will
            log.warning("could not drop %s generation %d yet", projection.name, generation)

    def _unwanted(self, group: list[Target]) -> tuple[str, ...]:
        """Topics no model of `group` wants: the log query leaves them out."""
        models = tuple(sorted({t.projection.name for t in group}))
        found = self._skips.get(models)
        if found is None:
            projections = [t.projection for t in group]
            stored = self.ledger.mapper.registry.stored_topics()
            found = self._skips[models] = tuple(
                sorted(
                    topic
                    for topic, event_class in stored.items()
                    if not any(self._wants(p, event_class) for p in projections)
                )
            )
        return found

    def _wants(self, projection: Projection, event_class: type[DomainEvent]) -> bool:
        answers = self._wanted.setdefault(projection, {})
        wanted = answers.get(event_class)
        if wanted is None:
            wanted = answers[event_class] = projection.wants(event_class)
        return wanted

    def _handle(
        self, target: Target, shard: int, events: list[Entry], rows: BatchRows
    ) -> list[Parking]:
        """Hand each event the model wants to it (`projection.wants`, asked once per class);
        an event of a stream with a parked event is parked behind it instead (returned)."""
        projection = target.projection
        answers = self._wanted.setdefault(projection, {})
        handle, apply = projection.handle, rows.apply
        held = target.parked.get(shard)
        if held:
            return self._handle_around(target, held, events, rows)
        for entry in events:  # the usual case, kept as lean as it was
            wanted = answers.get(entry.event_class)
            if wanted is None:
                wanted = self._wants(projection, entry.event_class)
            if wanted:
                apply(handle(entry, rows))
        return []

    def _handle_around(
        self, target: Target, held: dict[UUID, int], events: list[Entry], rows: BatchRows
    ) -> list[Parking]:
        parked: list[Parking] = []
        projection = target.projection
        for entry in events:
            if not self._wants(projection, entry.event_class):
                continue
            if entry.stream_id in held:
                parked.append((entry, held[entry.stream_id], park.BEHIND))
            else:
                rows.apply(projection.handle(entry, rows))
        return parked

    def _cache(self, target: Target) -> RowCache:
        cache = self._caches.get(target.label)
        if cache is None:  # built from nothing by this process: every row will pass through
            fresh = target.building and not any(target.positions.values())
            cache = self._caches[target.label] = RowCache(complete=fresh)
        return cache


def _moved(shard: int, group: list[Target], end: int | None) -> dict[int, int]:
    """Where each target of the group stands once the batch commits."""
    return {id(t): (end if end is not None else t.positions[shard]) for t in group}


def _notice(shard: int, end: int | None, group: list[Target]) -> str | None:
    """What the batch tells readers waiting on senki_projected: its live models' position."""
    live = sorted({t.projection.name for t in group if not t.building})
    return f"{shard}:{end}:{','.join(live)}" if live and end is not None else None


def _shard_urls(home: str, ledger: Ledger) -> tuple[str, ...]:
    """Each shard's cluster, for a child lane's ledger; empty when every shard is on home."""
    urls = tuple(shard.url or home for shard in ledger.shards)
    return () if all(url == home for url in urls) else urls


def _channel(shard: int) -> str:
    """The channel the event store NOTIFYs on each append to `shard`."""
    return f"events_{shard}"
