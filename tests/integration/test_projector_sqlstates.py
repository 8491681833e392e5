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
from collections.abc import Iterator
from uuid import UUID

import psycopg
import pytest

from infra.projector import park
from infra.store.ledger import Ledger
from projections.character_sheets import CharacterSheetsV1
from tests.support.forced_errors import ForcedErrors, a_log_with, calls, counter, forced_ledger
from tests.support.readside import caught_up_within, tracked
from tests.support.story import write

pytestmark = pytest.mark.postgres

HALT_S = 45.0


@pytest.fixture
def ledger(app_url: str, owner_url: str) -> Iterator[Ledger]:
    with forced_ledger(app_url, owner_url) as opened:
        yield opened


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
