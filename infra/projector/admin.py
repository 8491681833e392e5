"""What `senki projections` does: status and lag, and asking for a blue/green rebuild."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row

from infra.projector import park, registry
from infra.projector.runner import PROJECTOR_LOCK, WAKE_CHANNEL
from infra.projector.tables import read_table
from infra.services.ports import ProjectionPositionView
from infra.store.connect import ShardUnavailable
from infra.store.ledger import Ledger, LogHead
from projections.base import Projection


def shard_down(error: BaseException) -> ShardUnavailable | None:
    """The ShardUnavailable behind `error` (the library may wrap it), if any."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain of causes is short; never loop on a cycle
        if seen is None or isinstance(seen, ShardUnavailable):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def shard_heads(ledger: Ledger) -> dict[int, LogHead | ShardUnavailable]:
    """Each shard's head, or the ShardUnavailable of a shard whose own cluster does not
    answer: the operator surfaces report the others as usual (docs/scaling.md).

    A shard kept in the home database is not set aside: home down is the whole service down,
    so that error propagates (Unavailable / 503) as on one machine."""
    home = ledger.placements.datastore
    if all(shard.datastore is not home for shard in ledger.shards):
        with home.transaction(commit=False) as cursor:  # no shard on home: ask it anyway
            cursor.execute("SELECT 1")
    heads: dict[int, LogHead | ShardUnavailable] = {}
    for index, shard in enumerate(ledger.shards):
        try:
            heads[index] = ledger.head(shard=index)
        except Exception as error:
            down = shard_down(error)
            if down is None or shard.datastore is home:
                raise
            heads[index] = down
    return heads


def status(
    url: str, ledger: Ledger, projections: Sequence[Projection], *, stall_s: float | None = None
) -> list[ProjectionPositionView]:
    """Every live and building generation of every projection, per shard; a shard whose
    cluster does not answer keeps its rows (their positions are on home) with no head. A
    generation behind its log whose tracking has not moved for `stall_s` is stalled (None:
    none is; settings.projection_stall_s)."""
    heads: dict[int, int | None] = {
        s: h.position if isinstance(h, LogHead) else None for s, h in shard_heads(ledger).items()
    }
    versions = {p.name: p.version for p in projections}
    query = sql.SQL(
        "SELECT p.name, p.live_generation, p.live_version, p.building_generation, t.generation, "
        "t.shard, t.position, k.parked, k.parked_at, k.reason, "
        "extract(epoch FROM clock_timestamp() - t.updated_at)::float8 AS still_s FROM {} p "
        "JOIN {} t ON t.projection = p.name "
        "LEFT JOIN LATERAL (SELECT count(*) AS parked, min(position) AS parked_at, "
        "(array_agg(reason ORDER BY position) FILTER (WHERE behind IS NULL))[1] AS reason "
        "FROM {} k WHERE k.projection = p.name AND k.generation = t.generation "
        "AND k.shard = t.shard) k ON true "
        "ORDER BY p.name, t.generation, t.shard"
    ).format(read_table("projections"), read_table("tracking"), read_table("parked"))
    with psycopg.connect(url, autocommit=True) as conn, conn.cursor(row_factory=dict_row) as cur:
        rows = cur.execute(query).fetchall()
    return [_stalled(_status(row, versions, heads), stall_s) for row in rows]


def _stalled(view: ProjectionPositionView, stall_s: float | None) -> ProjectionPositionView:
    """A live or building generation behind its log, still for longer than `stall_s` (a
    frozen one stands still by design: a newer version builds its successor)."""
    if stall_s is None or view.lag is None or view.lag == 0 or view.role == "frozen":
        return view
    return replace(view, stalled=view.still_s > stall_s)


def _status(
    row: dict[str, Any], versions: dict[str, int], heads: dict[int, int | None]
) -> ProjectionPositionView:
    if row["generation"] == row["building_generation"]:
        role = "building"
    elif row["live_version"] != versions.get(row["name"]):
        role = "frozen"
    else:
        role = "live"
    shard = int(row["shard"])
    return ProjectionPositionView(
        row["name"],
        int(row["generation"]),
        role,
        shard,
        int(row["position"]),
        heads.get(shard, 0),
        parked=int(row["parked"] or 0),
        parked_at=None if row["parked_at"] is None else int(row["parked_at"]),
        reason=row["reason"],
        still_s=float(row["still_s"] or 0.0),
    )


def request_retry(url: str, names: Sequence[str] | None) -> int:
    """Ask the projector to apply the parked events of `names` (every model: None) again;
    returns how many parked events that concerns."""
    with psycopg.connect(url, autocommit=True) as conn:
        count = park.request_retry(conn, names)
        conn.execute(sql.SQL("NOTIFY {}").format(sql.Identifier(WAKE_CHANNEL)))
    return count


def retries_pending(url: str, names: Sequence[str] | None) -> int:
    """Parked events a retry was asked for and the projector has not tried yet."""
    with psycopg.connect(url, autocommit=True) as conn:
        return park.pending_retries(conn, names)


def request_rebuild(url: str, projection: Projection, shards: int) -> int:
    """Start the next generation beside the live one (or return the one already building)."""
    with psycopg.connect(url, autocommit=True) as conn:
        with conn.transaction():
            conn.execute(
                sql.SQL("INSERT INTO {} (name) VALUES (%s) ON CONFLICT DO NOTHING").format(
                    read_table("projections")
                ),
                (projection.name,),
            )
            building = building_generation(conn, projection.name)
            generation = building or registry.start_building(conn, projection, shards)
        conn.execute(sql.SQL("NOTIFY {}").format(sql.Identifier(WAKE_CHANNEL)))
    return generation


def building_generation(conn: psycopg.Connection[Any], name: str) -> int | None:
    query = sql.SQL("SELECT building_generation FROM {} WHERE name = %s").format(
        read_table("projections")
    )
    row = conn.execute(query, (name,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def live_generation(url: str, name: str) -> int | None:
    query = sql.SQL("SELECT live_generation FROM {} WHERE name = %s").format(
        read_table("projections")
    )
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(query, (name,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def projector_running(url: str) -> bool:
    """True while some session holds the projector lock (pg_locks splits the bigint key)."""
    high, low = PROJECTOR_LOCK >> 32, PROJECTOR_LOCK & 0xFFFFFFFF
    query = (
        "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND classid = %s AND objid = %s AND objsubid = 1"
    )
    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(query, (high, low)).fetchone() is not None
