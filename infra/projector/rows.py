"""A projection's rows during one batch: reads through a cache, writes in bulk at the end.

Handlers read and write row by row; PostgreSQL is asked once per key it has not seen and
written once per changed key per batch, the key's last row only, settled then (its `Later`
columns worked out): one multi-row upsert per table, as a statement per row cost the server
more than the rows themselves. The cache lives as long as this process holds the projector
lock, which makes it the only writer; any failed batch throws it away. Only lookup tables
are cached (log lines are not: see Table.lookup). A generation this process built from
position 0 is *complete*: every row of its lookup tables passed through the cache, so a miss
means "no such row" without asking PostgreSQL, which is what makes catch-up fast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, cast

from psycopg import Connection, RawCursor, sql
from psycopg.rows import dict_row
from pydantic_core import to_json

from infra.projector.tables import physical, text_array
from projections.base import Change, EncodedJson, Key, Projection, Put, Row, Table, settled

_MISSING = object()
_CACHE_ROWS = 250_000  # per generation; cleared whole when full (cheap, and rare)
# Rows per upsert statement, largest first: a batch's rows go out in chunks of these sizes
# only (300 rows: 128 + 128 + 32 + 8 + 4), each statement prepared once per connection. A
# statement of any other size was parsed and planned anew by PostgreSQL on every batch: a
# 400-row upsert took it half again as long as the same rows in prepared chunks. The
# largest size bounds the server's memory for them: about 1 MB for a 15-column table's set.
CHUNKS = (128, 64, 32, 16, 8, 4, 2, 1)
PREPARED_MAX = 300  # psycopg's per-connection cache: every table's sizes, two generations each


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
            return cast("Row | None", found)  # read-only: handlers put new rows
        if not self.tables[table].lookup:
            return self._select(table, key)
        found = self.cache.rows.get(slot, _MISSING)
        if found is _MISSING:
            found = None if self.cache.complete else self._select(table, key)
            self.cache.rows[slot] = found
        return cast("Row | None", found)

    def apply(self, changes: Iterable[Change]) -> None:
        for change in changes:
            if isinstance(change, Put):
                self.pending[(change.table, self.tables[change.table].key_of(change.row))] = (
                    change.row
                )
            else:
                self.pending[(change.table, change.key)] = None

    def flush(self) -> None:
        """Write every changed key once: deletes, then upserts, table by table."""
        if not self.pending:
            return
        for table in self.projection.tables:
            mine = [(k, r) for (name, k), r in self.pending.items() if name == table.name]
            gone = [k for k, row in mine if row is None]
            put: list[Row] = []
            for key, row in mine:
                if row is not None:  # the last row put under this key: only now worked out
                    put.append(settled(row))
                    self.pending[(table.name, key)] = put[-1]
            if gone:
                with self.conn.cursor() as cursor:
                    cursor.executemany(self._sql(table, "delete"), gone)
            self._upsert(table, put)

    def _upsert(self, table: Table, rows: list[Row]) -> None:
        """One statement per chunk of rows: each key occurs once, so ON CONFLICT can upsert."""
        # A raw cursor takes $n placeholders as they are: parsing %s out of a long statement
        # cost psycopg more than dumping its values.
        if not rows:  # most tables, in a small batch: not even a cursor
            return
        names, adapters = table.column_names, _adapters(table)
        with RawCursor(self.conn) as cursor:
            start = 0
            for size in chunk_sizes(len(rows)):
                chunk = rows[start : start + size]
                start += size
                params = [value for row in chunk for value in _params(names, adapters, row)]
                cursor.execute(_upsert(table, self.generation, size), params, prepare=True)

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


def chunk_sizes(rows: int) -> list[int]:
    """`rows` as a sum of `CHUNKS` sizes, largest first."""
    sizes = []
    for size in CHUNKS:
        count, rows = divmod(rows, size)
        sizes += [size] * count
    return sizes


@lru_cache(maxsize=256)
def _upsert(table: Table, generation: int, rows: int) -> bytes:
    """`INSERT INTO … VALUES ($1, …), … ON CONFLICT …` for `rows` rows."""
    width = len(table.columns)
    values = ",".join(
        "(" + ",".join(f"${row * width + column + 1}" for column in range(width)) + ")"
        for row in range(rows)
    )
    names = sql.SQL(", ").join(sql.Identifier(c) for c in table.column_names)
    head = sql.SQL("INSERT INTO {} ({}) VALUES ").format(physical(table.name, generation), names)
    return head.as_string().encode() + values.encode() + _on_conflict(table).as_string().encode()


@lru_cache(maxsize=1024)
def _statement(table: Table, generation: int, kind: str) -> sql.Composed:
    """Statements composed once per table and generation (composing costs more than running)."""
    where = sql.SQL(" AND ").join(sql.SQL("{} = %s").format(sql.Identifier(k)) for k in table.key)
    target = physical(table.name, generation)
    if kind == "select":
        return sql.SQL("SELECT * FROM {} WHERE {}").format(target, where)
    return sql.SQL("DELETE FROM {} WHERE {}").format(target, where)


def _on_conflict(table: Table) -> sql.Composed:
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
    return sql.SQL(" ON CONFLICT ({}) {}").format(
        sql.SQL(", ").join(map(sql.Identifier, table.key)), action
    )


Adapter = Callable[[Any], Any] | None


def _params(names: tuple[str, ...], adapters: tuple[Adapter, ...], row: Row) -> list[Any]:
    return [
        value if adapt is None or value is None else adapt(value)
        for value, adapt in zip(map(row.get, names), adapters, strict=True)
    ]


def _json(value: Any) -> str:
    """A jsonb parameter as JSON text, encoded by pydantic (in Rust): already, or now. Sent as
    a str, which psycopg passes untyped and PostgreSQL reads as the column's jsonb; a Jsonb
    wrapper cost a call back into Python per value, and a sheet row has eight."""
    return (value if type(value) is EncodedJson else to_json(value)).decode()


def _text_array(value: Any) -> Any:
    """A text[] parameter as its literal: psycopg adapts a list element by element in
    Python, which cost more than the rest of an encounter log row."""
    return text_array(value) if isinstance(value, list | tuple) else value


_ADAPTERS: dict[str, Adapter] = {"jsonb": _json, "text[]": _text_array}


@lru_cache(maxsize=256)
def _adapters(table: Table) -> tuple[Adapter, ...]:
    """How each column's values are handed to psycopg (None: as they are)."""
    return tuple(_ADAPTERS.get(c.sql_type) for c in table.columns)
