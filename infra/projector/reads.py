"""Queries over the live generation of each read model, with the log position they reflect.

Every answer says where in the log it stands (`Reflected.positions`, per shard), so a client
can tell how fresh an eventually consistent view is. A generation retired between resolving
and reading is resolved again once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, LiteralString
from uuid import UUID

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from infra.projector.tables import physical, read_table

Row = dict[str, Any]
# With, per shard, the first event the live generation parked (None: none), in the same
# statement: a degraded model says so in every answer at no extra round trip.
_LIVE = sql.SQL(
    "SELECT p.live_generation, t.shard, t.position, (SELECT min(k.position) FROM {} k "
    "WHERE k.projection = p.name AND k.generation = t.generation AND k.shard = t.shard) "
    "FROM {} p JOIN {} t "
    "ON t.projection = p.name AND t.generation = p.live_generation WHERE p.name = %s"
).format(read_table("parked"), read_table("projections"), read_table("tracking"))


class NotBuilt(LookupError):
    """The read model has no live generation yet (it is being built for the first time)."""


@dataclass(frozen=True)
class Reflected:
    """Rows of a read model and the log positions (shard → position) they reflect."""

    rows: list[Row]
    positions: dict[int, int]
    # Shard → the first position of an event the model parked there (infra/projector/park.py):
    # the model is degraded, and rows of the stream that event belongs to stop before it.
    parked: dict[int, int] = field(default_factory=dict)


class ReadModels:
    """Reads for the API and the CLI; one instance per process."""

    def __init__(self, url: str, *, pool_size: int = 4) -> None:
        self.pool = ConnectionPool(
            url, min_size=1, max_size=pool_size, kwargs={"autocommit": True}, open=True
        )

    def close(self) -> None:
        self.pool.close()

    def sheet(self, character_id: UUID) -> Reflected:
        """A pilot's sheet (one row, or none)."""
        return self._query(
            "character_sheets", "character_sheets", "character_id = %s", (character_id,)
        )

    def units_of(self, pilot_id: UUID) -> Reflected:
        """The units a pilot owns, with stats under that pilot's piloting."""
        return self._query(
            "character_sheets", "character_sheets_units", "pilot_id = %s", (pilot_id,)
        )

    def hp_ledger(self, character_id: UUID) -> Reflected:
        """A pilot's HP in and out of every scenario, oldest first."""
        return self._query(
            "hp_ledger", "hp_ledger", "character_id = %s", (character_id,), "position"
        )

    def encounter_log(self, encounter_id: UUID, *, after_version: int = 0) -> Reflected:
        """An encounter's lines in order, after a stream version."""
        return self._query(
            "encounter_log",
            "encounter_log",
            "encounter_id = %s AND version > %s",
            (encounter_id, after_version),
            "version",
        )

    def rulings(
        self,
        *,
        encounter_id: UUID | None = None,
        subject: str | None = None,
        rule_id: str | None = None,
        disputed: bool | None = None,
    ) -> Reflected:
        """Rulings filtered by encounter, character or combatant, rule ID and dispute."""
        filters: list[tuple[LiteralString, object]] = [
            ("encounter_id = %s", encounter_id),
            ("subjects @> ARRAY[%s]::text[]", subject),
            ("rule_ids @> ARRAY[%s]::text[]", rule_id),
            ("disputed = %s", disputed),
        ]
        chosen = [(clause, value) for clause, value in filters if value is not None]
        where = sql.SQL(" AND ").join([sql.SQL(c) for c, _ in chosen] or [sql.SQL("true")])
        return self._query("rulings", "rulings", where, tuple(v for _, v in chosen), "position")

    def timeline(self, campaign_id: UUID) -> Reflected:
        """A campaign's milestones in log order."""
        return self._query(
            "campaign_timeline", "campaign_timeline", "campaign_id = %s", (campaign_id,), "position"
        )

    def _query(
        self,
        projection: str,
        table: str,
        where: LiteralString | sql.Composable,
        params: tuple[object, ...],
        order: LiteralString | None = None,
    ) -> Reflected:
        query = sql.SQL(where) if isinstance(where, str) else where
        if order:
            query += sql.SQL(" ORDER BY {}").format(sql.Identifier(order))
        try:
            return self._attempt(projection, table, query, params)
        except psycopg.errors.UndefinedTable:  # retired just now: the registry has moved on
            return self._attempt(projection, table, query, params)

    def _attempt(
        self, projection: str, table: str, where: sql.Composable, params: tuple[object, ...]
    ) -> Reflected:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            generation, positions, parked = self._live(conn, projection)
            query = sql.SQL("SELECT * FROM {} WHERE {}").format(physical(table, generation), where)
            with conn.cursor(row_factory=dict_row) as cursor:
                return Reflected(cursor.execute(query, params).fetchall(), positions, parked)

    def _live(
        self, conn: psycopg.Connection[Any], projection: str
    ) -> tuple[int, dict[int, int], dict[int, int]]:
        found = conn.execute(_LIVE, (projection,)).fetchall()
        if not found:
            raise NotBuilt(f"read model {projection!r} is still being built; retry shortly")
        positions = {int(shard): int(position) for _, shard, position, _ in found}
        parked = {int(shard): int(first) for _, shard, _, first in found if first is not None}
        return int(found[0][0]), positions, parked
