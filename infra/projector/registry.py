"""The projector's bookkeeping: which generation of each projection is live, which is being
built, and the log position each reflects per shard (tables senki_read.projections/tracking).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, LiteralString
from uuid import UUID

from psycopg import Connection, sql
from psycopg.rows import dict_row

from infra.projector.tables import create_generation, drop_generation, read_table, text_array
from projections.base import Projection

Conn = Connection[tuple[Any, ...]]


@dataclass
class Target:
    """One generation of one projection that the projector writes."""

    projection: Projection
    generation: int
    building: bool
    positions: dict[int, int] = field(default_factory=dict)  # shard → position
    at_head: set[int] = field(default_factory=set)  # shards whose last batch reached the head
    # Streams with a parked event, per shard: stream → its first parked position (park.py)
    parked: dict[int, dict[UUID, int]] = field(default_factory=dict)
    retry: bool = False  # `senki projections retry` asked for the parked events again

    @property
    def label(self) -> str:
        return f"{self.projection.name}_g{self.generation}"


def ensure(conn: Conn, projections: Sequence[Projection], shards: int) -> None:
    """A row per projection; one never built (or built by an older version) starts building."""
    for projection in projections:
        conn.execute(
            _q("INSERT INTO {P} (name) VALUES (%s) ON CONFLICT DO NOTHING"), (projection.name,)
        )
        row = _row(conn, projection.name, lock=True)
        if (row["live_version"] or 0) > projection.version:
            continue  # an older build during a rolling update: leave the newer view alone
        stale = row["live_version"] != projection.version
        current = row["building_version"] == projection.version
        if stale and not (row["building_generation"] and current):
            start_building(conn, projection, shards)


def start_building(conn: Conn, projection: Projection, shards: int) -> int:
    """Create the next generation's tables beside the live one, tracked from position 0."""
    row = _row(conn, projection.name, lock=True)
    if row["building_generation"] is not None:
        drop_generation(conn, projection, row["building_generation"])
        _forget(conn, projection.name, row["building_generation"])
    generation = int(row["last_generation"]) + 1
    create_generation(conn, projection, generation)
    conn.execute(
        _q(
            "UPDATE {P} SET building_generation = %s, building_version = %s, "
            "last_generation = %s WHERE name = %s"
        ),
        (generation, projection.version, generation, projection.name),
    )
    for shard in range(shards):
        conn.execute(
            _q("INSERT INTO {T} (projection, generation, shard) VALUES (%s, %s, %s)"),
            (projection.name, generation, shard),
        )
    return generation


def targets(conn: Conn, projections: Sequence[Projection]) -> list[Target]:
    """The generations to write now: live ones of the current version, and building ones."""
    found: list[Target] = []
    for projection in projections:
        row = _row(conn, projection.name, lock=False)
        if row is None:
            continue
        if row["live_generation"] and row["live_version"] == projection.version:
            found.append(Target(projection, row["live_generation"], building=False))
        if row["building_generation"] and row["building_version"] == projection.version:
            found.append(Target(projection, row["building_generation"], building=True))
    for target in found:
        target.positions = positions(conn, target.projection.name, target.generation)
    return found


def positions(conn: Conn, name: str, generation: int) -> dict[int, int]:
    query = _q("SELECT shard, position FROM {T} WHERE projection = %s AND generation = %s")
    return {int(s): int(p) for s, p in conn.execute(query, (name, generation)).fetchall()}


def advance(
    conn: Conn, group: Sequence[Target], shard: int, position: int, notice: str | None = None
) -> None:
    """Move a group's tracking positions (all equal), fenced: each must still be where this
    projector left it, or another projector wrote meanwhile and the batch rolls back. A
    `notice` is NOTIFYed on senki_projected when the batch commits."""
    before = {t.positions[shard] for t in group}
    assert len(before) == 1, "a group shares one position"
    # Arrays as literals, the statement as bytes: adapting lists and composing the statement
    # cost psycopg more than PostgreSQL spends on the call.
    names = text_array(t.projection.name for t in group)
    generations = text_array(t.generation for t in group)
    conn.execute(_ADVANCE, (names, generations, shard, before.pop(), position, notice))


def touch(conn: Conn, targets: Sequence[Target], shards: Sequence[int]) -> None:
    """Record that these generations are current on `shards` (their log is quiet): the time
    since a tracking row last changed then measures a stall, not a quiet log."""
    names = text_array(t.projection.name for t in targets)
    generations = text_array(t.generation for t in targets)
    conn.execute(_TOUCH, (list(shards), names, generations))


def switch(conn: Conn, target: Target) -> int | None:
    """Make the building generation live; returns the generation it replaces (to drop)."""
    row = _row(conn, target.projection.name, lock=True)
    conn.execute(
        _q(
            "UPDATE {P} SET live_generation = %s, live_version = %s, "
            "building_generation = NULL, building_version = NULL, switched_at = now() "
            "WHERE name = %s"
        ),
        (target.generation, target.projection.version, target.projection.name),
    )
    old = row["live_generation"]
    return int(old) if old is not None else None


def leftovers(conn: Conn, projection: Projection) -> list[int]:
    """Generations still tracked but neither live nor building (a drop that had to wait)."""
    row = _row(conn, projection.name, lock=False)
    keep = {row["live_generation"], row["building_generation"]} if row else set()
    query = _q("SELECT DISTINCT generation FROM {T} WHERE projection = %s")
    found = conn.execute(query, (projection.name,)).fetchall()
    return sorted(int(g) for (g,) in found if g not in keep)


def retire(conn: Conn, projection: Projection, generation: int) -> None:
    """Drop a generation no reader resolves any more."""
    drop_generation(conn, projection, generation)
    _forget(conn, projection.name, generation)


def _forget(conn: Conn, name: str, generation: int) -> None:
    """A dropped generation's tracking, and the events it had parked (park.py), go with it."""
    for query in (_q("DELETE FROM {T} WHERE projection = %s AND generation = %s"), _FORGET_PARKED):
        conn.execute(query, (name, generation))


def _row(conn: Conn, name: str, *, lock: bool) -> Any:
    query = _q(
        "SELECT * FROM {P} WHERE name = %s FOR UPDATE"
        if lock
        else "SELECT * FROM {P} WHERE name = %s"
    )
    with conn.cursor(row_factory=dict_row) as cursor:
        return cursor.execute(query, (name,)).fetchone()


def _q(text: LiteralString) -> sql.Composed:
    """A query over {P} (the registry) and {T} (tracking)."""
    return sql.SQL(text).format(
        P=read_table("projections"), T=read_table("tracking"), A=read_table("advance_tracking")
    )


_FORGET_PARKED = sql.SQL("DELETE FROM {} WHERE projection = %s AND generation = %s").format(
    read_table("parked")
)
_TOUCH = _q(
    "UPDATE {T} SET updated_at = now() WHERE shard = ANY(%s::int[]) "
    "AND (projection, generation) IN (SELECT * FROM unnest(%s::text[], %s::int[]))"
)
_ADVANCE = _q("SELECT {A}(%s::text[], %s::int[], %s, %s, %s, %s::text)").as_string().encode()
