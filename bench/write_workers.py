"""The worker processes of bench/writes.py: each drives its share of the threads flat out.

A worker is a spawned process with its own runtime (or raw connections) and pool, so 64
threads of load are never 64 threads behind one GIL. Every worker waits at a barrier until all
are ready, then counts what its threads complete inside the same measured window.
"""

from __future__ import annotations

import itertools
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from typing import Any

import psycopg
from pydantic import SecretStr

from bench.common import KEY
from bench.encounter import GM
from infra import bootstrap
from infra.settings import Settings

# One turn of bench/encounter.py's fight, as (command, body): it can repeat forever (huge HP).
TURN: list[tuple[str, dict[str, Any]]] = [
    ("RollInitiative", {}),
    ("Cleanup", {"combatant_id": "ace"}),
    ("DeclareAttack", {"combatant_id": "ace", "target": "brute"}),
    ("Dodge", {"combatant_id": "brute"}),
    ("Cleanup", {"combatant_id": "brute"}),
    ("DeclareAttack", {"combatant_id": "brute", "target": "ace"}),
    ("Dodge", {"combatant_id": "ace"}),
]
RAW_TABLE = "bench_raw_writes"
RAW_BODY = b"x" * 400  # about one stored encounter event


@dataclass(frozen=True)
class Drive:
    """What one worker drives (picklable, for a spawned process)."""

    url: str
    shards: int
    fights: tuple[str, ...]  # one thread per encounter id
    raw: bool  # True: one-row INSERTs into RAW_TABLE instead of encounter commands
    warmup: float
    seconds: float
    # > 0: the plain eventsourcing library writing this many events a command instead
    # (bench/plain_eventsourcing.py); `raw` is then False.
    plain_events: float = 0.0


Step = Callable[[], object]
# (calls sent to the shards' append functions, appends they carried) so far: group commit's
# appends per call (infra/store/recorder.py); (0, 0) for the raw reference.
Sent = Callable[[], tuple[int, int]]


def work(drive: Drive, ready: Barrier, results: Queue[tuple[str, Any]]) -> None:
    """Entry point of a worker process: put ("ok", (count, CPU seconds, begin, end, calls,
    appends)) for the measured window, or ("error", traceback). The CPU time says whether the
    client was the limit; calls and appends how many appends each call carried."""
    try:
        chosen = _raw if drive.raw else _plain if drive.plain_events else _senki
        with chosen(drive) as (steps, sent):
            ready.wait(timeout=300)
            begin = time.time() + drive.warmup
            end = begin + drive.seconds
            with ThreadPoolExecutor(len(steps)) as pool:
                running = [pool.submit(_run, step, begin, end) for step in steps]
                time.sleep(max(0.0, begin - time.time()))
                cpu, before = time.process_time(), sent()
                time.sleep(max(0.0, end - time.time()))
                cpu, after = time.process_time() - cpu, sent()
                done = sum(future.result() for future in running)
        calls, appends = (a - b for a, b in zip(after, before, strict=True))
        results.put(("ok", (done, cpu, begin, end, calls, appends)))
    except BaseException:
        ready.abort()  # the others must not wait for a worker that will never come
        results.put(("error", traceback.format_exc()))


def _run(step: Step, begin: float, end: float) -> int:
    """Repeat `step` until `end`; count those completed inside [begin, end]."""
    done = 0
    while time.time() < end:
        step()
        if begin <= time.time() <= end:
            done += 1
    return done


@contextmanager
def _senki(drive: Drive) -> Iterator[tuple[list[Step], Sent]]:
    settings = Settings(
        database_url=SecretStr(drive.url),
        dice_master_key=SecretStr(KEY),
        shards=drive.shards,
        pool_size=len(drive.fights),
    )
    runtime = bootstrap.start(settings)
    try:
        steps = [_turns(runtime, uuid.UUID(fight)) for fight in drive.fights]
        for fight in drive.fights:  # placements and states cached before the clock starts
            runtime.encounters.state(uuid.UUID(fight))
        queues = [shard.recorder.queue for shard in runtime.ledger.shards]

        def sent() -> tuple[int, int]:
            return sum(q.calls for q in queues), sum(q.appends for q in queues)

        yield steps, sent
    finally:
        runtime.close()


def _turns(runtime: bootstrap.Runtime, fight: uuid.UUID) -> Step:
    moves = itertools.cycle(TURN)

    def step() -> object:
        command, body = next(moves)
        return runtime.encounters.command(fight, GM, command, body)

    return step


@contextmanager
def _plain(drive: Drive) -> Iterator[tuple[list[Step], Sent]]:
    from bench.plain_eventsourcing import application, commands

    app = application(drive.url, len(drive.fights), create_table=False)  # created before us
    try:
        yield commands(app, len(drive.fights), drive.plain_events), lambda: (0, 0)
    finally:
        app.close()


@contextmanager
def _raw(drive: Drive) -> Iterator[tuple[list[Step], Sent]]:
    connections = [psycopg.connect(drive.url, autocommit=True) for _ in drive.fights]
    insert = f"INSERT INTO {RAW_TABLE} (stream, body) VALUES (%s, %s)"
    try:
        # Autocommit: each INSERT is its own transaction, committed (and flushed) alone.
        steps: list[Step] = [
            partial(conn.execute, insert, (uuid.uuid4(), RAW_BODY)) for conn in connections
        ]
        yield steps, lambda: (0, 0)
    finally:
        for conn in connections:
            conn.close()
