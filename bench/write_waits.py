"""What the database's backends were doing while bench/writes.py measured: sampled, not traced.

Every 20 ms, one look at pg_stat_activity for the benchmark's database. The shares say where a
command's time goes: queued on a shard's write lock, waiting for the client to send its next
statement (a lock holder waiting on a busy client keeps everyone else queued), flushing WAL,
or running.

Every 250 ms, the CPU the PostgreSQL server has used (user + system time of the postmaster and
all its processes: backends, WAL writer, checkpointer…, from /proc through psutil), so the
printout can say how many of the machine's cores the server took beside the drivers: when the
two add up to every core, the machine is the limit, not the store. The whole machine's busy
time is read too, since other work on a shared machine takes cores as well. Only a server on this
machine is counted (else the share is unknown); the sampler's own queries are in it (a small
share), and a process that exits inside the window loses its time (the pools keep theirs open).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import psutil
import psycopg

INTERVAL_S = 0.02
CPU_EVERY = 12  # samples of pg_stat_activity between two readings of the server's CPU
_SAMPLE = """
SELECT state, wait_event_type, wait_event, query FROM pg_stat_activity
 WHERE datname = current_database() AND backend_type = 'client backend'
   AND pid <> pg_backend_pid()
"""


def _kind(state: str | None, wait_type: str | None, wait: str | None, query: str) -> str:
    if wait_type == "Lock":
        return "queued on a shard write lock" if "LOCK TABLE" in query else f"lock: {wait}"
    if state == "idle in transaction":
        return "in a transaction, waiting for the client"
    if state == "idle":
        return "idle, waiting for the client"
    if wait_type == "IO" and wait in {"WALSync", "WALWrite"}:
        return "flushing WAL"
    return "running" if wait_type is None else f"{wait_type}: {wait}"


class Waits:
    """Samples taken with their time, so only those inside the measured window count."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, str]] = []
        # (when, the server's CPU seconds so far, the whole machine's busy CPU seconds so far)
        self.cpu: list[tuple[float, float, float]] = []

    def cores(self, begin: float, end: float) -> tuple[float, float] | None:
        """(cores the PostgreSQL server used, cores the whole machine was busy: other work
        included), on average over [begin, end] (the readings nearest inside it), or None
        when the server's CPU could not be read."""
        inside = [reading for reading in self.cpu if begin <= reading[0] <= end]
        if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
            return None
        (first_at, first_server, first_busy), (last_at, last_server, last_busy) = (
            inside[0],
            inside[-1],
        )
        spent = last_at - first_at
        return (last_server - first_server) / spent, (last_busy - first_busy) / spent

    def shares(self, begin: float, end: float) -> dict[str, float]:
        inside = Counter(kind for at, kind in self.samples if begin <= at <= end)
        total = sum(inside.values()) or 1
        return {kind: count / total for kind, count in inside.most_common()}

    def describe(self, begin: float, end: float) -> str:
        found = self.shares(begin, end)
        return "; ".join(f"{share:.0%} {kind}" for kind, share in found.items() if share >= 0.01)


def _postmaster(conn: psycopg.Connection[tuple[object, ...]]) -> psutil.Process | None:
    """The server's postmaster, the parent of this connection's backend, if it runs here."""
    row = conn.execute("SELECT pg_backend_pid()").fetchone()
    try:
        parent = psutil.Process(int(str(row[0]))).parent() if row else None
        if parent is None or "postgres" not in parent.name():
            return None
        _cpu_of(parent)
    except (psutil.Error, ValueError):  # on another machine, or not ours to read
        return None
    return parent


def _cpu_of(postmaster: psutil.Process) -> float:
    """User + system CPU seconds of the postmaster and every process it runs now."""
    total = 0.0
    for process in [postmaster, *postmaster.children()]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:  # ended since it was listed
            continue
        total += times.user + times.system
    return total


def _busy() -> float:
    """CPU seconds the whole machine has been busy (not idle, not waiting for I/O)."""
    times = psutil.cpu_times()
    return sum(times) - times.idle - getattr(times, "iowait", 0.0)


@contextmanager
def sampled(owner_url: str) -> Iterator[Waits]:
    """Sample in a thread for as long as the block runs."""
    waits, stop = Waits(), threading.Event()

    def sample() -> None:
        with psycopg.connect(owner_url, autocommit=True) as conn:
            postmaster = _postmaster(conn)
            ticks = 0
            while not stop.wait(INTERVAL_S):
                at = time.time()
                for state, wait_type, wait, query in conn.execute(_SAMPLE).fetchall():
                    waits.samples.append((at, _kind(state, wait_type, wait, query or "")))
                if postmaster is not None and ticks % CPU_EVERY == 0:
                    waits.cpu.append((time.time(), _cpu_of(postmaster), _busy()))
                ticks += 1

    sampler = threading.Thread(target=sample, name="pg_stat_activity sampler", daemon=True)
    sampler.start()
    try:
        yield waits
    finally:
        stop.set()
        sampler.join(timeout=10)
