"""Physical tables of a projection generation, in schema senki_read: `<table>_g<generation>`."""

from __future__ import annotations

from collections.abc import Iterable

from psycopg import Connection, sql

from infra.store.migrate import READ_SCHEMA
from projections.base import Projection, Table


def physical(table: str, generation: int) -> sql.Composed:
    """The qualified name of a table of one generation."""
    return sql.SQL("{}.{}").format(
        sql.Identifier(READ_SCHEMA), sql.Identifier(f"{table}_g{generation}")
    )


def text_array(values: Iterable[object]) -> str:
    """A text[] literal, `{"GD-MAIN-5","GD-DMG-1"}`, to send as one text parameter (or to
    inline): cheaper than psycopg's element-by-element list adaptation."""
    items = ("NULL" if v is None else '"' + _escaped(str(v)) + '"' for v in values)
    return "{" + ",".join(items) + "}"


def _escaped(text: str) -> str:
    """An array element between double quotes: backslashes and quotes escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


def read_table(name: str) -> sql.Composed:
    """A table of the projector's own bookkeeping (projections, tracking)."""
    return sql.SQL("{}.{}").format(sql.Identifier(READ_SCHEMA), sql.Identifier(name))


def create_generation(
    conn: Connection[tuple[object, ...]], projection: Projection, gen: int
) -> None:
    """Create every table of `projection` for generation `gen` (dropping leftovers first)."""
    drop_generation(conn, projection, gen)
    for table in projection.tables:
        conn.execute(_create(table, gen))
        for number, columns in enumerate(table.indexes):
            conn.execute(_index(table, gen, f"i{number}", columns, "btree"))
        for column in table.gin:
            conn.execute(_index(table, gen, f"gin_{column}", (column,), "gin"))


def drop_generation(conn: Connection[tuple[object, ...]], projection: Projection, gen: int) -> None:
    for table in projection.tables:
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(physical(table.name, gen)))


def _create(table: Table, gen: int) -> sql.Composed:
    columns = [
        sql.SQL("{} {}{}").format(
            sql.Identifier(c.name),
            sql.SQL(c.sql_type),  # declared by projection classes, never user input
            sql.SQL("" if c.nullable else " NOT NULL"),
        )
        for c in table.columns
    ]
    key = sql.SQL(", ").join(map(sql.Identifier, table.key))
    return sql.SQL("CREATE TABLE {} ({}, PRIMARY KEY ({}))").format(
        physical(table.name, gen), sql.SQL(", ").join(columns), key
    )


def _index(
    table: Table, gen: int, suffix: str, columns: tuple[str, ...], method: str
) -> sql.Composed:
    return sql.SQL("CREATE INDEX {} ON {} USING {} ({})").format(
        sql.Identifier(f"{table.name}_g{gen}_{suffix}"),
        physical(table.name, gen),
        sql.SQL(method),
        sql.SQL(", ").join(map(sql.Identifier, columns)),
    )
