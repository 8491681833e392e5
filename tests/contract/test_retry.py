"""Which store errors are retried (infra/store/retry.py): lost connections, never refusals."""

from __future__ import annotations

import psycopg
import psycopg_pool
import pytest
from eventsourcing.persistence import OperationalError, PersistenceError

from infra.store.retry import ATTEMPTS, connection_lost, retried_read


def wrapped(cause: psycopg.Error) -> PersistenceError:
    """As the library's datastore raises it: its own error, the driver's as the cause."""
    error = OperationalError(str(cause))
    error.__cause__ = cause
    return error


@pytest.mark.parametrize(
    ("cause", "lost"),
    [
        (psycopg.OperationalError("server closed the connection unexpectedly"), True),
        (psycopg.errors.AdminShutdown("terminating connection"), True),  # a fast shutdown
        (psycopg.errors.CannotConnectNow("the database system is starting up"), True),
        (psycopg.errors.ConnectionFailure("connection failure"), True),
        (psycopg.errors.LockNotAvailable("canceling statement due to lock timeout"), False),
        (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), False),
        (psycopg_pool.PoolTimeout("couldn't get a connection after 10.00 sec"), False),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else str(value),
)
def test_only_a_lost_connection_is_retried(cause: psycopg.Error, lost: bool) -> None:
    assert connection_lost(wrapped(cause)) is lost


def test_a_read_is_tried_at_most_as_often_as_the_library_tries() -> None:
    calls: list[int] = []

    @retried_read
    def read() -> None:
        calls.append(1)
        raise wrapped(psycopg.OperationalError("server closed the connection unexpectedly"))

    with pytest.raises(OperationalError):
        read()
    assert len(calls) == ATTEMPTS
