"""Reads and writes across a PostgreSQL restart, with a pool of several connections.

A restart (or a failover) leaves every pooled connection dead. With the library's retry each
call finds a live connection within its attempts; without it, every dead connection failed
one call (issue #22: 4 of 4 reads, 4 of 4 appends after a quiet restart with a pool of 4).
The server is the test's own (tests/support/private_pg.py), migrated as in production, and
the ledger connects as the service role, over two shards.

Two phases per restart mode (fast: sessions ended; immediate: a crash, recovery on start):
- quiet: the pool is full and idle, the server restarts, then reads and appends one by one;
- busy: reader and writer threads run through the restart itself.
Every failure is counted and printed (`-s`); the goal is 0 of either, and every acknowledged
append is in the log exactly once, in a chain that verifies.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from uuid import UUID, uuid4

import pytest

from domain.events import DomainEvent, EventRegistry
from infra.store.ledger import Ledger, StreamWrite, open_ledger
from infra.store.migrate import migrate
from infra.store.recorder import IdempotencyRecord
from tests.support.databases import APP_ROLE
from tests.support.private_pg import PrivateServer, ShutdownMode
from tests.support.processes import free_port

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

POOL = 4
SHARDS = 2
WORKERS = 4
AT = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


class TallyMarked(DomainEvent):
    event_type = "test.TallyMarked"
    marks: int


REGISTRY = EventRegistry()
REGISTRY.register(TallyMarked)


@dataclass
class Tally:
    """What the clients saw: failures by kind, and each append they were told succeeded."""

    failures: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)
    acknowledged: dict[UUID, list[int]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, kind: str, failed: bool) -> None:
        with self.lock:
            self.calls[kind] += 1
            self.failures[kind] += int(failed)


class Client:
    """One stream's writer: read the stream, append the next mark with an idempotency key
    (as the API does). A failed call is counted; after a failed append the client no longer
    knows the version, so it reads again first."""

    def __init__(self, ledger: Ledger, tally: Tally) -> None:
        self.ledger, self.tally = ledger, tally
        self.stream = uuid4()
        self.mark = 0
        self.version: int | None = 0
        ledger.place(self.stream, campaign_id=None)
        tally.acknowledged[self.stream] = []

    def read(self) -> None:
        try:
            self.version = len(self.ledger.read(self.stream))
        except Exception:
            self.tally.count("read", failed=True)
            return
        self.tally.count("read", failed=False)

    def append(self) -> None:
        if self.version is None:
            return
        self.mark += 1
        record = IdempotencyRecord(f"{self.stream}:{self.mark}", "fp", {"marks": self.mark})
        marked = TallyMarked(at=AT, by="gm", marks=self.mark)
        try:
            self.ledger.append(
                [StreamWrite(self.stream, self.version, [marked])], idempotency=record
            )
        except Exception:
            self.tally.count("append", failed=True)
            self.version = None
            return
        self.tally.count("append", failed=False)
        self.tally.acknowledged[self.stream].append(self.mark)
        self.version += 1

    def round(self) -> None:
        self.read()
        self.append()


@pytest.fixture(scope="module")
def server() -> Iterator[PrivateServer]:
    with PrivateServer(free_port()) as private:
        private.create_database("senki")
        migrate(private.url("senki"), app_role=APP_ROLE, shards=SHARDS)
        yield private


def quiet_restart(server: PrivateServer, clients: list[Client], mode: ShutdownMode) -> float:
    """Restart with the pool full and idle, then read one by one; again, then append."""
    pool = clients[0].ledger.shards[0].datastore.pool
    down = 0.0
    for call in (Client.read, Client.append):
        pool.wait(timeout=30)  # every connection open
        down += server.restart(mode)
        for client in clients * 2:  # more calls than the pool has connections
            call(client)
    return down


def busy_restart(server: PrivateServer, clients: list[Client], mode: ShutdownMode) -> float:
    stop = threading.Event()

    def work(client: Client) -> None:
        while not stop.is_set():
            client.round()
            time.sleep(0.01)

    threads = [threading.Thread(target=work, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    down = server.restart(mode)
    time.sleep(1.0)
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a client hung"
    return down


def assert_acknowledged_once(url: str, tallies: list[Tally]) -> None:
    """Every acknowledged append is in the log once, nothing is there twice, the chains hold
    (read through a fresh pool: the clients' may still hold dead connections)."""
    ledger = open_ledger(url, registry=REGISTRY, shards=SHARDS, pool_size=1)
    try:
        for tally in tallies:
            for stream, acknowledged in tally.acknowledged.items():
                stored = [getattr(r.event, "marks", None) for r in ledger.read(stream)]
                assert len(stored) == len(set(stored)), stored
                assert set(acknowledged) <= set(stored)
        for shard in range(SHARDS):
            assert ledger.verify(shard=shard).ok
    finally:
        ledger.close()


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_reads_and_writes_across_a_restart_do_not_fail(
    server: PrivateServer, mode: ShutdownMode
) -> None:
    url = server.url("senki", APP_ROLE)
    ledger = open_ledger(url, registry=REGISTRY, shards=SHARDS, pool_size=POOL)
    results = {"quiet": Tally(), "busy": Tally()}
    # Placed before any restart: placing is a write of its own (retried like a read).
    clients = {
        phase: [Client(ledger, tally) for _ in range(WORKERS)] for phase, tally in results.items()
    }
    try:
        for phase, run in (("quiet", quiet_restart), ("busy", busy_restart)):
            tally = results[phase]
            down = run(server, clients[phase], mode)
            print(
                f"\n{mode} restart, {phase} ({down:.1f} s down, pool {POOL}):"
                f" reads failed {tally.failures['read']}/{tally.calls['read']},"
                f" appends failed {tally.failures['append']}/{tally.calls['append']}"
            )
    finally:
        ledger.close()
    assert_acknowledged_once(url, list(results.values()))
    assert {phase: dict(t.failures) for phase, t in results.items()} == {
        "quiet": {"read": 0, "append": 0},
        "busy": {"read": 0, "append": 0},
    }
