"""Poison is what retrying cannot mend (issue 33, section 2).

Given a log with one event a read model's rows make PostgreSQL refuse, when the projector
runs, then: an error tied to that event (data 22, integrity 23, program limits 54, and every
class not known to pass on a retry) parks the event for that model and stream and everything
else is projected; an error of the database's state (connection 08, rollback 40, resources
53, locks 55, operator 57…) is retried, never parked, and the event is written once the
database lets it. Each error is a real one of PostgreSQL: an index row too large, a value
too long, a duplicate key, or a check that raises the SQLSTATE asked for (the first times
only, for the retried ones) or ends its own session.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar
from uuid import UUID

import psycopg
import pytest

from domain.campaign.character import CharacterRegistered
from domain.catalog import registry
from domain.events import DomainEvent
from infra.projector import park
from infra.store.ledger import Ledger, open_ledger
from projections.base import Change, Column, Projection, Put, Recorded, Rows, Table
from projections.character_sheets import CharacterSheetsV1
from tests.support.databases import shard_count
from tests.support.readside import caught_up_within, tracked
from tests.support.story import LoggedTable, campaign_story, write
from tests.unit.campaign.table import AT, GM, stats

pytestmark = pytest.mark.postgres

HALT_S = 45.0
FORCED = "forced"

# Raises `state` while the case's sequence has given at most `times` numbers (a sequence is
# not rolled back with the failed batch); `terminate` ends the calling session instead.
_FORCE = """
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


@pytest.fixture
def ledger(app_url: str, owner_url: str) -> Iterator[Ledger]:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(_FORCE)
    ledger = open_ledger(app_url, registry=registry, shards=shard_count())
    yield ledger
    ledger.close()


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


def project(url: str, ledger: Ledger) -> None:
    models = [ForcedErrors(), CharacterSheetsV1()]
    caught_up = caught_up_within(HALT_S, url, ledger, models, batch_size=50, poll_s=0.05)
    assert caught_up, "the projector halted: it never caught up"


def parked(url: str) -> list[tuple[str, UUID, str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT projection, stream_id, reason FROM senki_read.parked ORDER BY position"
        ).fetchall()
    return [(str(p), UUID(str(s)), str(r)) for p, s, r in rows]


def forced_rows(url: str) -> set[UUID]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT stream FROM senki_read.forced_g1").fetchall()
    return {UUID(str(s)) for (s,) in rows}


def counter(url: str, name: str) -> str:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SEQUENCE senki_read.{name}")  # the test's own, fixed names
    return name


def calls(url: str, name: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(f"SELECT last_value FROM senki_read.{name}").fetchone()
    return int(row[0]) if row else 0


# 54000: btree index row too large (the 4,000-character combatant id of issue 33);
# 22001: a value too long for its varchar; 23505: a second pilot under a unique name.
NATURAL = [
    ("54000", [f"index:{os.urandom(4000).hex()}"], "index row size"),
    ("22001", ["short:far too long for eight"], "value too long"),
    ("23505", ["unique:same", "unique:same"], "duplicate key"),
]


@pytest.mark.parametrize(("state", "names", "reason"), NATURAL, ids=[c[0] for c in NATURAL])
def test_an_event_whose_row_postgresql_refuses_is_parked_and_the_rest_goes_on(
    app_url: str, ledger: Ledger, state: str, names: list[str], reason: str
) -> None:
    table, pilots = a_log_with(*names)
    write(ledger, table.log)

    project(app_url, ledger)

    found = parked(app_url)
    assert [(p, s) for p, s, _ in found] == [("forced_errors", pilots[-1])]
    assert reason in found[0][2]
    assert forced_rows(app_url) == set(table.pilots) | set(pilots[:-1])
    head = ledger.head().position
    assert tracked(app_url, "forced_errors") == head
    assert tracked(app_url, "character_sheets") == head


# Raised by a check on the row, for good (`parked`) or only the first two times (`retried`).
FORCED_STATES = [
    ("22012", "parked"),  # division by zero: a data exception
    ("23514", "parked"),  # check violation
    ("54001", "parked"),  # statement too complex
    ("21000", "parked"),  # cardinality violation
    ("P0001", "parked"),  # raised by a function, as a trigger of the model's would
    ("0A000", "parked"),  # feature not supported (for this value)
    ("08006", "retried"),  # connection failure
    ("40001", "retried"),  # serialisation failure (also how a fenced projector is told)
    ("40P01", "retried"),  # deadlock
    ("53100", "retried"),  # disk full
    ("53200", "retried"),  # out of memory
    ("55P03", "retried"),  # lock not available
    ("57014", "retried"),  # query cancelled (statement_timeout, pg_cancel_backend)
    ("57P01", "retried"),  # admin shutdown
    ("42501", "retried"),  # insufficient privilege: an operator's grant mends it
    ("XX000", "retried"),  # the server's internal error
    ("terminate", "retried"),  # the session really ends: pg_terminate_backend of itself
]


@pytest.mark.parametrize(("state", "expected"), FORCED_STATES, ids=[c[0] for c in FORCED_STATES])
def test_each_sqlstate_class_is_parked_or_retried_by_what_a_retry_can_change(
    app_url: str, ledger: Ledger, state: str, expected: str
) -> None:
    times = 2 if expected == "retried" else 10**9
    name = counter(app_url, f"forced_{state.lower()}")
    table, (pilot,) = a_log_with(f"raise:{state}/{times}/{name}")
    write(ledger, table.log)

    project(app_url, ledger)

    found = parked(app_url)
    assert calls(app_url, name) > (2 if expected == "retried" else 0)  # it did fail
    if expected == "parked":
        assert [(p, s) for p, s, _ in found] == [("forced_errors", pilot)]
        assert pilot not in forced_rows(app_url)
    else:  # retried until the database let it through: written, nothing parked
        assert found == []
        assert pilot in forced_rows(app_url)
    head = ledger.head().position
    assert tracked(app_url, "forced_errors") == head
    assert tracked(app_url, "character_sheets") == head


@pytest.mark.parametrize(("state", "expected"), FORCED_STATES[:-1])
def test_the_classification_reads_the_sqlstate_class(state: str, expected: str) -> None:
    error = psycopg.errors.lookup(state)("forced")
    assert park.poisonous(error) is (expected == "parked")


def test_psycopg_s_own_errors_park_a_value_it_cannot_send_and_retry_a_lost_connection() -> None:
    assert park.poisonous(psycopg.DataError("PostgreSQL text fields cannot contain NUL"))
    assert not park.poisonous(psycopg.OperationalError("the connection is lost"))
    assert not park.poisonous(psycopg.InterfaceError("the connection is closed"))
    assert park.poisonous(ValueError("a handler's bug"))
