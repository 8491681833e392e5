"""Values the projector hands to PostgreSQL come back as they went in."""

from __future__ import annotations

from typing import ClassVar

import psycopg
import pytest
from psycopg.rows import dict_row

from infra.projector.rows import BatchRows, RowCache
from infra.projector.tables import create_generation, physical
from projections.base import Change, Column, Projection, Put, Recorded, Rows, Table, encoded

pytestmark = pytest.mark.postgres

AWKWARD = ["GD-MAIN-5", 'say "hi"', "back\\slash", "a,b", "{braces}", "NULL", "", "負傷"]


class Shapes(Projection):
    name = "shapes_test"
    tables: ClassVar = (
        Table(
            "shapes_test",
            (
                Column("id", "bigint", nullable=False),
                Column("tags", "text[]"),
                Column("data", "jsonb"),
            ),
            key=("id",),
        ),
    )

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        return []


def test_text_arrays_and_json_round_trip_whatever_they_hold(owner_url: str) -> None:
    projection = Shapes()
    rows_in = [
        {"id": 1, "tags": AWKWARD, "data": {"nested": [1, "two", None]}},
        {"id": 2, "tags": [], "data": encoded({"already": "encoded"})},
        {"id": 3, "tags": ("tuple", "too"), "data": None},
        {"id": 4, "tags": None, "data": [1, 2]},
    ]
    with psycopg.connect(owner_url, autocommit=True) as conn:
        create_generation(conn, projection, 1)
        batch = BatchRows(conn, projection, 1, RowCache())
        with conn.transaction():
            batch.apply(Put("shapes_test", row) for row in rows_in)
            batch.flush()
        query = psycopg.sql.SQL("SELECT * FROM {} ORDER BY id").format(physical("shapes_test", 1))
        stored = conn.cursor(row_factory=dict_row).execute(query).fetchall()

    assert [r["tags"] for r in stored] == [AWKWARD, [], ["tuple", "too"], None]
    assert [r["data"] for r in stored] == [
        {"nested": [1, "two", None]},
        {"already": "encoded"},
        None,
        [1, 2],
    ]
