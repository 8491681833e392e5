"""Projector benchmark: catch-up throughput and commit-to-visible latency, each beside a
baseline measured in the same run on the same server.

    python bench/projections.py [--events 100000] [--batch-size 500] [--samples 200]

Uses SENKI_BENCH_DATABASE_URL (a superuser URL) or an embedded PostgreSQL in .senki-bench.
A fresh database is created and dropped. Not a test: it prints numbers and two ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg.types.json import Jsonb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from domain.campaign import character_commands as ch
from domain.campaign.model import Item
from domain.catalog import registry
from infra.projector.runner import Projector, ProjectorOptions
from infra.store.ledger import Ledger, StreamWrite, open_ledger
from tests.support.databases import APP_ROLE, TestServer
from tests.support.readside import tracked
from tests.support.runtime import TEST_DICE_KEY
from tests.support.story import LoggedTable, big_story, write
from tests.unit.campaign.table import AT, GM


@contextmanager
def server() -> Iterator[TestServer]:
    url = os.environ.get("SENKI_BENCH_DATABASE_URL")
    if url:
        yield TestServer("external", url)
        return
    from infra.embedded_pg import EmbeddedPostgres

    embedded = EmbeddedPostgres(Path(".senki-bench").absolute())
    embedded.start()
    try:
        yield TestServer("embedded", embedded.superuser_url)
    finally:
        embedded.stop()


def backlog(events: int) -> LoggedTable:
    """Campaign stories (5 pilots each, sheet churn) until `events` events are decided."""
    per_story = len(big_story(1).log)
    table = big_story(-(-events // per_story))
    del table.log[events:]
    return table


def raw_insert_rate(url: str, rows: int, per_tx: int = 100) -> float:
    """Rows/s of a bare psycopg executemany, `per_tx` rows per transaction (the baseline)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE bench_raw (position bigint PRIMARY KEY, stream uuid, "
            "line text, data jsonb)"
        )
        data = [(n, uuid.uuid4(), f"line {n}", Jsonb({"n": n, "hp": 80})) for n in range(rows)]
        started = time.perf_counter()
        for start in range(0, rows, per_tx):
            with conn.transaction(), conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO bench_raw VALUES (%s, %s, %s, %s)", data[start : start + per_tx]
                )
        elapsed = time.perf_counter() - started
        conn.execute("DROP TABLE bench_raw")
    return rows / elapsed


def catch_up_rate(url: str, ledger: Ledger, batch_size: int) -> float:
    """Events/s of a projector catching up the whole log into every read model."""
    head = ledger.head().position
    projector = Projector(url, ledger, options=ProjectorOptions(batch_size=batch_size))
    started = time.perf_counter()
    projector.run(threading.Event(), until_caught_up=True)
    return head / (time.perf_counter() - started)


def notify_round_trips(url: str, samples: int) -> list[float]:
    """Seconds from a NOTIFY's commit to its delivery on a LISTENing connection."""
    found: list[float] = []
    with (
        psycopg.connect(url, autocommit=True) as listener,
        psycopg.connect(url, autocommit=True) as sender,
    ):
        listener.execute("LISTEN bench_rtt")
        for _ in range(samples):
            started = time.perf_counter()
            sender.execute("NOTIFY bench_rtt")
            for _ in listener.notifies(timeout=5, stop_after=1):
                pass
            found.append(time.perf_counter() - started)
            time.sleep(0.005)
    return found


def visible_latencies(
    url: str, owner_url: str, ledger: Ledger, table: LoggedTable, samples: int
) -> list[float]:
    """Seconds from an append's commit to the sheet's tracking showing it (separate process)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")} | {
        "SENKI_DATABASE_URL": url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
    }
    command = [sys.executable, "-m", "infra.cli_projections", "project"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    pilot = table.pilots[-1]
    version = len(table.streams[pilot])
    charm = Item(name="charm", slot="accessory", cost=5, stats={"piloting": 10})
    found: list[float] = []
    try:
        _wait(lambda: tracked(url, "character_sheets") == ledger.head().position)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("LISTEN senki_projected")  # the projector's NOTIFY, sent at its commit
            for n in range(samples):
                state = table.character(pilot)
                if n % 2 == 0:
                    events = ch.equip(state, ch.EquipItem(item=charm), at=AT, by=GM)
                else:
                    events = ch.unequip(state, ch.UnequipItem(item_name="charm"), at=AT, by=GM)
                table.append(pilot, events)
                [position] = ledger.append([StreamWrite(pilot, version, events)])
                started = time.perf_counter()
                version += 1
                while _projected(conn) < position:
                    pass
                found.append(time.perf_counter() - started)
                time.sleep(0.01)
    finally:
        process.terminate()
        process.wait(10)
    return found


def _projected(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    """The position of the next batch the projector commits (blocks until one does)."""
    for notice in conn.notifies(timeout=10, stop_after=1):
        return int(notice.payload.partition(":")[2])
    raise TimeoutError("no batch committed within 10 s")


def _wait(check: Callable[[], bool], timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("projector did not catch up")
        time.sleep(0.05)


def _ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    with server() as pg, pg.fresh_database() as database:
        url, owner = pg.url(database, user=APP_ROLE), pg.url(database)
        print(f"PostgreSQL: {pg.kind}; deciding {args.events} events…", flush=True)
        table = backlog(args.events)
        ledger = open_ledger(url, registry=registry)
        try:
            write(ledger, table.log, chunk=1000)
            raw = raw_insert_rate(owner, args.events)
            rate = catch_up_rate(url, ledger, args.batch_size)
            print(f"catch-up, all read models: {rate:10.0f} events/s")
            print(f"raw insert, 100 rows/tx:   {raw:10.0f} rows/s")
            print(f"ratio: {rate / raw:.2f}× (aim ≥ 0.6×)")
            rtt = notify_round_trips(url, args.samples)
            seen = visible_latencies(url, owner, ledger, table, args.samples)
        finally:
            ledger.close()
    print(f"LISTEN/NOTIFY round trip: p50 {_ms(rtt, 50):6.2f} ms  p95 {_ms(rtt, 95):6.2f} ms")
    print(f"commit → visible:         p50 {_ms(seen, 50):6.2f} ms  p95 {_ms(seen, 95):6.2f} ms")
    print(f"p95 ratio: {_ms(seen, 95) / _ms(rtt, 95):.1f}× (aim ≤ 5×)")


if __name__ == "__main__":
    main()
