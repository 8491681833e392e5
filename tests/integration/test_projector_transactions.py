"""A batch is one transaction sent in one round trip: all of it commits, or none of it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import psycopg
import pytest

from infra.projector import registry
from infra.projector.rows import BatchRows, RowCache
from infra.projector.tables import physical
from infra.projector.transactions import one_round_trip
from projections.base import Change, Column, Projection, Put, Recorded, Rows, Table

pytestmark = pytest.mark.postgres


class Marks(Projection):
    name = "marks_test"
    tables: ClassVar = (
        Table("marks_test", (Column("id", "bigint", nullable=False),), key=("id",)),
    )

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        return []


@pytest.fixture
def conn(app_url: str) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    with psycopg.connect(app_url, autocommit=True) as connection:
        connection.execute("CREATE TABLE senki_read.batch_test (id bigint PRIMARY KEY)")
        yield connection


def ids(url: str, table: str = "senki_read.batch_test") -> list[int]:
    with psycopg.connect(url) as other:  # another session: only committed rows
        return [int(str(n)) for (n,) in other.execute(f"SELECT id FROM {table} ORDER BY id")]


def test_a_batch_commits_as_a_whole_and_reads_on_the_way_see_its_writes(
    conn: psycopg.Connection[tuple[object, ...]], app_url: str
) -> None:
    with one_round_trip(conn):
        conn.execute("INSERT INTO senki_read.batch_test VALUES (1)")
        # a cache miss asks on the way: the Sync it needs must not end the transaction
        assert conn.execute("SELECT count(*) FROM senki_read.batch_test").fetchone() == (1,)
        assert ids(app_url) == []
        conn.execute("INSERT INTO senki_read.batch_test VALUES (2)")
    assert ids(app_url) == [1, 2]
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_a_failed_statement_rolls_back_the_whole_batch_and_the_connection_goes_on(
    conn: psycopg.Connection[tuple[object, ...]], app_url: str
) -> None:
    def batch(*row_ids: int) -> None:
        with one_round_trip(conn):
            for row_id in row_ids:
                conn.execute("INSERT INTO senki_read.batch_test VALUES (%s)", (row_id,))

    with pytest.raises(psycopg.errors.UniqueViolation):
        batch(1, 1, 2)
    assert ids(app_url) == []
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    batch(3)
    assert ids(app_url) == [3]


def test_an_exception_in_the_projector_rolls_back_what_was_already_sent(
    conn: psycopg.Connection[tuple[object, ...]], app_url: str
) -> None:
    def failing_batch() -> None:
        with one_round_trip(conn):
            conn.execute("INSERT INTO senki_read.batch_test VALUES (1)")
            assert conn.execute("SELECT 1").fetchone() == (1,)  # the insert reached the server
            raise RuntimeError("a handler failed")

    with pytest.raises(RuntimeError, match="a handler failed"):
        failing_batch()
    assert ids(app_url) == []
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_a_fenced_advance_rolls_back_the_rows_of_its_batch(
    conn: psycopg.Connection[tuple[object, ...]], app_url: str
) -> None:
    """Tracking moved under this projector (another one wrote): the batch must not land."""
    projection = Marks()
    registry.ensure(conn, [projection], shards=1)
    [target] = registry.targets(conn, [projection])
    stale = registry.Target(projection, target.generation, target.building, dict(target.positions))

    def batch(group: registry.Target, row_id: int, end: int) -> None:
        with one_round_trip(conn):
            rows = BatchRows(conn, projection, group.generation, RowCache())
            rows.apply([Put("marks_test", {"id": row_id})])
            rows.flush()
            registry.advance(conn, [group], 0, end)

    batch(target, 1, 10)
    with pytest.raises(psycopg.errors.SerializationFailure, match="tracking moved"):
        batch(stale, 2, 20)  # still believes the position is 0
    table = physical("marks_test", target.generation).as_string()
    assert ids(app_url, table) == [1]
    assert registry.positions(conn, projection.name, target.generation) == {0: 10}
