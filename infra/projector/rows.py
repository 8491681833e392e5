"""A projection's rows during one batch: reads through a cache, writes in bulk at the end.

Handlers read and write row by row; PostgreSQL is asked once per key it has not seen and
written once per changed key per batch (executemany, pipelined by psycopg). The cache lives
as long as this process holds the projector lock, which makes it the only writer; any failed
batch throws it away. Only lookup tables are cached (log lines are not: see Table.lookup). A
generation this process built from position 0 is *complete*: every row of its lookup tables
passed through the cache, so a miss means "no such row" without asking PostgreSQL, which is
what makes catch-up fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from psycopg import Connection, sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from infra.projector.tables import physical
from projections.base import Change, Delete, Key, Projection, Put, Row, Table

_MISSING = object()
_CACHE_ROWS = 250_000  # per generation; cleared whole when full (cheap, and rare)


class RowCache:
    """The last known rows of one generation's lookup tables (None: known to be absent)."""

    def __init__(self, *, complete: bool = False) -> None:
        self.rows: dict[tuple[str, Key], Row | None] = {}
        self.complete = complete

    def absorb(self, rows: dict[tuple[str, Key], Row | None]) -> None:
        if len(self.rows) + len(rows) > _CACHE_ROWS:
            self.rows.clear()
            self.complete = False
        self.rows.update(rows)


class BatchRows:
    """`projections.base.Rows` over one generation's tables, inside the batch's transaction."""

    def __init__(
        self,
        conn: Connection[tuple[Any, ...]],
        projection: Projection,
        generation: int,
        cache: RowCache,
    ) -> None:
        self.conn = conn
        self.projection = projection
        self.generation = generation
        self.cache = cache
        self.pending: dict[tuple[str, Key], Row | None] = {}
        self.tables = {t.name: t for t in projection.tables}

    def get(self, table: str, key: Key) -> Row | None:
        slot = (table, key)
        found: Any = self.pending.get(slot, _MISSING)
        if found is not _MISSING:
            return dict(found) if found is not None else None
        if not self.tables[table].lookup:
            return self._select(table, key)
        found = self.cache.rows.get(slot, _MISSING)
        if found is _MISSING:
            found = None if self.cache.complete else self._select(table, key)
            self.cache.rows[slot] = found
        return dict(found) if found is not None else None

    def apply(self, changes: Iterable[Change]) -> None:
        for change in changes:
            match change:
                case Put(table=name, row=row):
                    self.pending[(name, self.tables[name].key_of(row))] = row
                case Delete(table=name, key=key):
                    self.pending[(name, key)] = None

    def flush(self) -> None:
        """Write every changed key once: deletes, then upserts, table by table."""
        for table in self.projection.tables:
            mine = [(k, r) for (name, k), r in self.pending.items() if name == table.name]
            gone = [k for k, row in mine if row is None]
            put = [_params(table, row) for _, row in mine if row is not None]
            with self.conn.cursor() as cursor:
                if gone:
                    cursor.executemany(self._sql(table, "delete"), gone)
                if put:
                    cursor.executemany(self._sql(table, "upsert"), put)

    def committed(self) -> None:
        """The batch is durable: what it wrote is now what the tables hold."""
        lookups = {t.name for t in self.projection.tables if t.lookup}
        self.cache.absorb({slot: row for slot, row in self.pending.items() if slot[0] in lookups})

    def _select(self, name: str, key: Key) -> Row | None:
        table = self.tables[name]
        with self.conn.cursor(row_factory=dict_row) as cursor:
            cursor.execute(self._sql(table, "select"), key)
            return cursor.fetchone()

    def _sql(self, table: Table, kind: str) -> bytes:
        slot = (table, self.generation, kind)
        found = _BYTES.get(slot)
        if found is None:
            found = _BYTES[slot] = _statement(table, self.generation, kind).as_bytes(self.conn)
        return found


_BYTES: dict[tuple[Table, int, str], bytes] = {}  # identifiers are ASCII: any connection's


@lru_cache(maxsize=1024)
def _statement(table: Table, generation: int, kind: str) -> sql.Composed:
    """Statements composed once per table and generation (composing costs more than running)."""
    where = sql.SQL(" AND ").join(sql.SQL("{} = %s").format(sql.Identifier(k)) for k in table.key)
    target = physical(table.name, generation)
    if kind == "select":
        return sql.SQL("SELECT * FROM {} WHERE {}").format(target, where)
    if kind == "delete":
        return sql.SQL("DELETE FROM {} WHERE {}").format(target, where)
    names = [sql.Identifier(c) for c in table.column_names]
    updates = [
        sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c))
        for c in table.column_names
        if c not in table.key
    ]
    action = (
        sql.SQL("DO UPDATE SET {}").format(sql.SQL(", ").join(updates))
        if updates
        else sql.SQL("DO NOTHING")
    )
    return sql.SQL("INSERT INTO {} ({}) VALUES ({}) ON CONFLICT ({}) {}").format(
        target,
        sql.SQL(", ").join(names),
        sql.SQL(", ").join([sql.Placeholder()] * len(names)),
        sql.SQL(", ").join(map(sql.Identifier, table.key)),
        action,
    )


def _params(table: Table, row: Row) -> list[Any]:
    return [
        Jsonb(row.get(c.name))
        if c.sql_type == "jsonb" and row.get(c.name) is not None
        else row.get(c.name)
        for c in table.columns
    ]
