"""What the database's backends were doing while bench/writes.py measured: sampled, not traced.

Every 20 ms, one look at pg_stat_activity for the benchmark's database. The shares say where a
command's time goes: queued on a shard's write lock, waiting for the client to send its next
statement (a lock holder waiting on a busy client keeps everyone else queued), flushing WAL,
or running.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

INTERVAL_S = 0.02
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

    def shares(self, begin: float, end: float) -> dict[str, float]:
        inside = Counter(kind for at, kind in self.samples if begin <= at <= end)
        total = sum(inside.values()) or 1
        return {kind: count / total for kind, count in inside.most_common()}

    def describe(self, begin: float, end: float) -> str:
        found = self.shares(begin, end)
        return "; ".join(f"{share:.0%} {kind}" for kind, share in found.items() if share >= 0.01)


@contextmanager
def sampled(owner_url: str) -> Iterator[Waits]:
    """Sample in a thread for as long as the block runs."""
    waits, stop = Waits(), threading.Event()

    def sample() -> None:
        with psycopg.connect(owner_url, autocommit=True) as conn:
            while not stop.wait(INTERVAL_S):
                at = time.time()
                for state, wait_type, wait, query in conn.execute(_SAMPLE).fetchall():
                    waits.samples.append((at, _kind(state, wait_type, wait, query or "")))

    sampler = threading.Thread(target=sample, name="pg_stat_activity sampler", daemon=True)
    sampler.start()
    try:
        yield waits
    finally:
        stop.set()
        sampler.join(timeout=10)
