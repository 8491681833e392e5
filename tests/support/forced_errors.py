"""A read model that fails on purpose, with a real PostgreSQL error of any SQLSTATE: for the
projector's tests of what it parks and what it retries (tests/integration)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar
from uuid import UUID

import psycopg

from domain.campaign.character import CharacterRegistered
from domain.catalog import registry
from domain.events import DomainEvent
from infra.store.ledger import Ledger, open_ledger
from projections.base import Change, Column, Projection, Put, Recorded, Rows, Table
from tests.support.databases import shard_count
from tests.support.story import LoggedTable, campaign_story
from tests.unit.campaign.table import AT, GM, stats

FORCED = "forced"

# Raises `state` while the case's sequence has given at most `times` numbers (a sequence is
# not rolled back with the failed batch); `terminate` ends the calling session instead.
FORCE = """
CREATE OR REPLACE FUNCTION senki_read.force_error(wanted text) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $fn$
DECLARE
    state text := split_part(wanted, '/', 1);
    times bigint := split_part(wanted, '/', 2)::bigint;
    counter text := split_part(wanted, '/', 3);
BEGIN
    IF wanted IS NULL OR nextval(format('senki_read.%I', counter)) > times THEN
        RETURN true;
    END IF;
    IF state = 'terminate' THEN
        PERFORM pg_terminate_backend(pg_backend_pid());
    END IF;
    RAISE EXCEPTION 'forced %', state USING ERRCODE = state;
END
$fn$;
CREATE SEQUENCE IF NOT EXISTS senki_read.forced_calls;
GRANT EXECUTE ON FUNCTION senki_read.force_error(text) TO PUBLIC;
"""


class ForcedErrors(Projection):
    """A model that writes a pilot's name where the name says: `index:<text>` into an indexed
    column, `short:<text>` into varchar(8), `unique:<text>` into a unique column, and
    `raise:<state>/<times>/<sequence>` into a column whose check raises that SQLSTATE."""

    name = "forced_errors"
    tables: ClassVar[Sequence[Table]] = (
        Table(
            FORCED,
            (
                Column("stream", "uuid", nullable=False),
                Column("indexed", "text"),
                Column("short", "varchar(8)"),
                Column("unique_name", "text UNIQUE"),
                Column("forced", "text CHECK (senki_read.force_error(forced))"),
            ),
            key=("stream",),
            indexes=(("indexed",),),
        ),
    )

    def wants(self, event_class: type[DomainEvent]) -> bool:
        return event_class.__name__ == "CharacterRegistered"

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        kind, _, value = str(getattr(recorded.event, "name", "")).partition(":")
        columns = {"index": "indexed", "short": "short", "unique": "unique_name", "raise": FORCED}
        row: dict[str, Any] = {"stream": recorded.stream_id} | dict.fromkeys(columns.values())
        if kind in columns:
            row[columns[kind]] = value
        return [Put(FORCED, row)]


def a_log_with(*names: str) -> tuple[LoggedTable, list[UUID]]:
    """A campaign, pilots of these names, then a second campaign written after them."""
    table = campaign_story()
    campaign = table.character(table.pilots[0]).campaign_id
    assert campaign is not None
    pilots = [table.fresh_id() for _ in names]
    for pilot, name in zip(pilots, names, strict=True):  # as recorded before the text bounds
        registered = CharacterRegistered(
            campaign_id=campaign, owner=GM, name=name, level=1,
            base_stats=stats(), max_hp=100, current_hp=100, at=AT, by=GM,
        )  # fmt: skip
        table.append(pilot, [registered])
    campaign_story(table)
    return table, pilots


def counter(url: str, name: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SEQUENCE senki_read.{name}")  # the test's own, fixed names
    return name


def calls(url: str, name: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(f"SELECT last_value FROM senki_read.{name}").fetchone()
    return int(row[0]) if row else 0


@contextmanager
def forced_ledger(app_url: str, owner_url: str) -> Iterator[Ledger]:
    """A ledger on a database where ForcedErrors can raise (its check function installed)."""
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(FORCE)
    ledger = open_ledger(app_url, registry=registry, shards=shard_count())
    try:
        yield ledger
    finally:
        ledger.close()
