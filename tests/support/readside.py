"""Helpers for read-side tests: snapshots of live tables, normalised for row-for-row equality."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from infra.projector.runner import Projector, ProjectorOptions
from infra.projector.tables import physical, read_table
from infra.store.ledger import Ledger
from projections.base import Projection
from projections.catalog import PROJECTIONS
from projections.memory import MemoryRows

Snapshot = dict[str, list[str]]


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, UUID):
        return str(value)
    raise TypeError(type(value))


def normalise(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, default=_plain, ensure_ascii=False)


def live_generation(url: str, name: str) -> int | None:
    with psycopg.connect(url) as conn:
        query = sql.SQL("SELECT live_generation FROM {} WHERE name = %s").format(
            read_table("projections")
        )
        row = conn.execute(query, (name,)).fetchone()
    return None if row is None else row[0]


def snapshot(url: str, projection: Projection, generation: int | None = None) -> Snapshot:
    """Every row of every table of a generation (the live one by default), sorted."""
    generation = generation or live_generation(url, projection.name)
    assert generation is not None, f"{projection.name} has no live generation"
    found: Snapshot = {}
    with psycopg.connect(url) as conn, conn.cursor(row_factory=dict_row) as cursor:
        for table in projection.tables:
            rows = cursor.execute(
                sql.SQL("SELECT * FROM {}").format(physical(table.name, generation))
            )
            found[table.name] = sorted(normalise(r) for r in rows.fetchall())
    return found


def reference(ledger: Ledger, projection: Projection) -> Snapshot:
    """The same read model computed from scratch in memory from the whole log."""
    memory = MemoryRows(projection)
    after = 0
    while batch := ledger.read_log(after=after, limit=1000):
        memory.feed(batch)
        after = batch[-1].position or after
    return {
        name: sorted(normalise(r) for r in rows.values()) for name, rows in memory.tables.items()
    }


def project_until_caught_up(url: str, ledger: Ledger, batch_size: int = 500) -> Projector:
    projector = Projector(url, ledger, PROJECTIONS, ProjectorOptions(batch_size=batch_size))
    projector.run(threading.Event(), until_caught_up=True)
    return projector


def caught_up_within(
    seconds: float, url: str, ledger: Ledger, projections: Sequence[Projection], **options: Any
) -> bool:
    """Project on a thread until every model is built and current; False if it has not by
    then (a halted projector), after stopping it."""
    projector = Projector(url, ledger, projections, ProjectorOptions(**options))
    stop = threading.Event()
    worker = threading.Thread(target=projector.run, args=(stop,), kwargs={"until_caught_up": True})
    worker.start()
    worker.join(seconds)
    halted = worker.is_alive()
    stop.set()
    worker.join(30)
    return not halted


def tracked(url: str, name: str) -> int:
    with psycopg.connect(url) as conn:
        query = sql.SQL(
            "SELECT t.position FROM {} p JOIN {} t ON t.projection = p.name "
            "AND t.generation = p.live_generation WHERE p.name = %s AND t.shard = 0"
        ).format(read_table("projections"), read_table("tracking"))
        row = conn.execute(query, (name,)).fetchone()
    return -1 if row is None else int(row[0])


def progress(url: str, name: str) -> int:
    """The furthest position any generation of a projection has reached (live or building)."""
    with psycopg.connect(url) as conn:
        query = sql.SQL("SELECT coalesce(max(position), 0) FROM {} WHERE projection = %s").format(
            read_table("tracking")
        )
        row = conn.execute(query, (name,)).fetchone()
    return 0 if row is None else int(row[0])
