"""Projector benchmark: catch-up throughput and commit-to-visible latency, each beside a
baseline measured in the same run on the same server.

    python bench/projections.py [--events 100000] [--lanes 2] [--fights 1] [--samples 200]

Uses SENKI_BENCH_DATABASE_URL (a superuser URL) or an embedded PostgreSQL in .senki-bench.
A fresh database is created and dropped. Not a test: it prints numbers and two ratios.
`--events 20000` is enough while iterating; the aims are for the default 100,000.

What is measured (issue #4):
- Catch-up: events/s of a projector building every read model from position 0 (the log is
  written first), beside rows/s of a bare psycopg `executemany` of 100 four-column rows per
  transaction into one table: the cheapest way Python gets rows into PostgreSQL. The
  projector runs as `senki project --lanes N` does: the read models split over N processes
  (the timed span includes starting the child lanes). The backlog is campaign stories: 5
  pilots with Assault Cores, a scenario started and closed, 20 sheet changes, and `--fights`
  scripted three-turn fights per campaign (134 events each), so that every read model has
  work; `--fights 0` is sheet churn alone, the costliest event mix per event.
- Commit-to-visible: from the moment `ledger.append` returns (the event's commit is
  acknowledged) to the moment a LISTENing client receives the projector's `senki_projected`
  NOTIFY for a position at or past the event. The projector sends it inside the transaction
  that writes the rows, so it is delivered after they are visible: a reader polling the read
  model would see them a delivery earlier, and the figure is an upper bound. The projector is
  a separate process (`senki project --lanes N`), woken by the event store's own NOTIFY; it
  reads the event, applies it to every read model and commits, so the path holds two NOTIFY
  deliveries and two round trips. With lanes, each lane NOTIFYs for its own models; the
  sample ends when every model has reported the position.
- The reference: from sending a bare `NOTIFY` on one autocommit connection to its delivery on
  another that LISTENs: one commit and one delivery, the least a projector could add. Both
  figures travel the same way (a NOTIFY to a LISTENing psycopg connection, read with
  `notifies()`), so their ratio says how much the projector itself costs.
The machine may be shared: compare ratios from the same run, not figures across runs. For
that, the raw baseline runs just before and just after the catch-up (half the rows each;
both are shown), and each reference round trip is taken right after a latency sample.
"""

from __future__ import annotations

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
from psycopg import sql
from psycopg.types.json import Jsonb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import options
from bench.common import Figure
from domain.campaign import character_commands as ch
from domain.campaign.model import Item
from domain.catalog import registry
from infra import gc_tuning
from infra.projector.runner import Projector, ProjectorOptions
from infra.projector.tables import read_table
from infra.store.ledger import Ledger, StreamWrite, open_ledger
from projections.catalog import PROJECTIONS
from tests.support.databases import APP_ROLE, TestServer
from tests.support.readside import tracked
from tests.support.runtime import TEST_DICE_KEY
from tests.support.story import LoggedTable, big_story, write
from tests.unit.campaign.table import AT, GM

_WARM_UP = 3  # appends before the timed ones
Conn = psycopg.Connection[tuple[object, ...]]


@contextmanager
def server() -> Iterator[TestServer]:
    url = os.environ.get("SENKI_BENCH_DATABASE_URL")
    if url:
        yield TestServer("external", url)
        return
    from infra.postgres.embedded import EmbeddedPostgres

    embedded = EmbeddedPostgres(Path(".senki-bench").absolute())
    embedded.start()
    try:
        yield TestServer("embedded", embedded.superuser_url)
    finally:
        embedded.stop()


def backlog(events: int, fights: int = 1) -> LoggedTable:
    """Campaign stories (5 pilots each, sheet churn, fights) until `events` are decided."""
    per_story = len(big_story(1, fights=fights).log)
    table = big_story(-(-events // per_story), fights=fights)
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


def catch_up_rate(url: str, ledger: Ledger, batch_size: int, lanes: int) -> float:
    """Events/s of a projector catching up the whole log into every read model."""
    head = ledger.head().position
    gc_tuning.tune()  # as `senki project` and `senki serve` do
    options = ProjectorOptions(batch_size=batch_size, lanes=lanes)
    projector = Projector(url, ledger, options=options)
    stop = threading.Event()
    worker = threading.Thread(target=projector.run, args=(stop,))
    started = time.perf_counter()
    worker.start()
    try:  # every lane's models, not just this process's, must reach the head
        with psycopg.connect(url, autocommit=True) as conn:  # one connection: polls are cheap
            _wait(lambda: _lowest_live_position(conn) >= head, poll=0.01)
        elapsed = time.perf_counter() - started
    finally:
        stop.set()
        worker.join()
    return head / elapsed


def _lowest_live_position(conn: Conn) -> int:
    """The lowest position any read model's live generation reflects (-1: one is not live)."""
    query = sql.SQL(
        "SELECT count(DISTINCT p.name), coalesce(min(t.position), -1) FROM {} p JOIN {} t "
        "ON t.projection = p.name AND t.generation = p.live_generation"
    ).format(read_table("projections"), read_table("tracking"))
    row = conn.execute(query).fetchone()
    assert row is not None
    live, lowest = int(str(row[0])), int(str(row[1]))
    return lowest if live == len(PROJECTIONS) else -1


class NotifyRoundTrip:
    """Seconds from sending a bare NOTIFY (autocommit) to its delivery on a LISTENing
    connection: the reference, sampled between the projector's samples so that both see the
    same load on a shared machine."""

    def __init__(self, url: str) -> None:
        self.listener = psycopg.connect(url, autocommit=True)
        self.sender = psycopg.connect(url, autocommit=True)
        self.listener.execute("LISTEN bench_rtt")

    def sample(self) -> float:
        started = time.perf_counter()
        self.sender.execute("NOTIFY bench_rtt")
        for _ in self.listener.notifies(timeout=5, stop_after=1):
            return time.perf_counter() - started
        raise TimeoutError("a bare NOTIFY took more than 5 s")

    def close(self) -> None:
        self.listener.close()
        self.sender.close()


def visible_latencies(
    url: str, owner_url: str, ledger: Ledger, table: LoggedTable, *, samples: int, lanes: int
) -> tuple[list[float], list[float]]:
    """Seconds from an append's commit to the projector's NOTIFY that it is in every read
    model (a separate `senki project` process), and bare NOTIFY round trips taken in turn."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")} | {
        "SENKI_DATABASE_URL": url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
    }
    command = [sys.executable, "-m", "infra.cli.projections", "project", "--lanes", str(lanes)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    pilot = table.pilots[-1]
    version = len(table.streams[pilot])
    names = [p.name for p in PROJECTIONS]
    charm = Item(name="charm", slot="accessory", cost=5, stats={"piloting": 10})
    found: list[float] = []
    reference = NotifyRoundTrip(url)
    rtt: list[float] = []
    try:
        _wait(lambda: tracked(url, "character_sheets") == ledger.head().position)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("LISTEN senki_projected")  # the projector's NOTIFY, sent at its commit
            # The read models are already at the head (the catch-up built them), so nothing
            # says when the new process is listening: the first appends, not timed, wait for
            # it to start and to read the pilot's rows once.
            for n in range(-_WARM_UP, samples):
                state = table.character(pilot)
                if state.item("charm") is None:
                    events = ch.equip(state, ch.EquipItem(item=charm), at=AT, by=GM)
                else:
                    events = ch.unequip(state, ch.UnequipItem(item_name="charm"), at=AT, by=GM)
                table.append(pilot, events)
                [position] = ledger.append([StreamWrite(pilot, version, events)])
                started = time.perf_counter()
                version += 1
                reached = dict.fromkeys(names, 0)
                while min(reached.values()) < position:  # every model, whichever lane has it
                    for at, models in _projected(conn, timeout=60 if n < 0 else 10):
                        for name in models & reached.keys():
                            reached[name] = max(reached[name], at)
                if n < 0:
                    continue
                found.append(time.perf_counter() - started)
                time.sleep(0.005)
                rtt.append(reference.sample())
                time.sleep(0.005)
    finally:
        reference.close()
        process.terminate()
        process.wait(10)
    return found, rtt


def _projected(conn: Conn, timeout: float) -> list[tuple[int, set[str]]]:
    """Position and models of each batch committed next (blocks until one is).

    The generator is read to its end: notifications that arrived in the same packet as the
    first (two lanes committing together) would be lost if it were left early.
    """
    found = []
    for notice in conn.notifies(timeout=timeout, stop_after=1):
        _, position, models = notice.payload.split(":")
        found.append((int(position), set(models.split(","))))
    if not found:
        raise TimeoutError(f"no batch committed within {timeout} s")
    return found


def _wait(check: Callable[[], bool], timeout: float = 600, poll: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("projector did not catch up")
        time.sleep(poll)


def _ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--lanes", type=int, default=2, help="as `senki project --lanes`")
    parser.add_argument("--fights", type=int, default=1, help="scripted fights per campaign")
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    if args.quick:
        args.events, args.samples = min(args.events, 2000), min(args.samples, 20)
    with server() as pg, pg.fresh_database() as database:
        url, owner = pg.url(database, user=APP_ROLE), pg.url(database)
        print(f"PostgreSQL: {pg.kind}; deciding {args.events} events…", flush=True)
        table = backlog(args.events, args.fights)
        ledger = open_ledger(url, registry=registry)
        try:
            write(ledger, table.log, chunk=1000)
            # The baseline just before and just after the catch-up, so that a swing in the
            # machine's load during the run shows instead of skewing the ratio unseen.
            before = raw_insert_rate(owner, args.events // 2)
            rate = catch_up_rate(url, ledger, args.batch_size, args.lanes)
            after = raw_insert_rate(owner, args.events // 2)
            raw = (before + after) / 2
            print(f"catch-up, all read models: {rate:10.0f} events/s ({args.lanes} lanes)")
            print(f"raw insert, 100 rows/tx:   {raw:10.0f} rows/s (mean of before and after:")
            print(f"                           {before:10.0f} and {after:.0f} rows/s)")
            print(f"ratio: {rate / raw:.2f}× (aim ≥ 0.6×)")
            seen, rtt = visible_latencies(
                url, owner, ledger, table, samples=args.samples, lanes=args.lanes
            )
        finally:
            ledger.close()
    print(f"LISTEN/NOTIFY round trip: p50 {_ms(rtt, 50):6.2f} ms  p95 {_ms(rtt, 95):6.2f} ms")
    print(f"commit → visible:         p50 {_ms(seen, 50):6.2f} ms  p95 {_ms(seen, 95):6.2f} ms")
    print(f"p95 ratio: {_ms(seen, 95) / _ms(rtt, 95):.1f}× (aim ≤ 5×)")
    options.write_figures(
        args.json,
        [
            Figure(
                f"catch-up into every read model ({args.lanes} lanes)",
                rate,
                "events/s",
                "raw insert, 100 rows per transaction",
                raw,
                "≥ 0.6×",
            ),
            Figure(
                "commit-to-visible p95",
                _ms(seen, 95),
                "ms",
                "LISTEN/NOTIFY round trip p95",
                _ms(rtt, 95),
                "≤ 5×",
            ),
        ],
    )


if __name__ == "__main__":
    main()
