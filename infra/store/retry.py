"""Retrying store calls on a lost connection, with the eventsourcing library's own policy.

A restart or failover of PostgreSQL leaves every pooled connection dead, and each one fails
the first statement sent on it; the pool replaces it once it has failed. The library's
recorders retry every call on that (`@retry((InterfaceError, OperationalError),
max_attempts=10, wait=0.2)` in eventsourcing.postgres); Senki's reads and appends do the same,
but only when the connection was lost, never when a statement was refused:
- a lost connection: no SQLSTATE (the socket closed), class 08, or the server shutting down
  or starting up (57P01-57P03): retried;
- a pool timeout (no connection came within the pool's timeout, 10 s): not retried; the pool
  already waited for the server, and ten more waits would hold a request 100 s before its 503;
- a lock timeout (55P03: the shard's write lock is held too long, an overloaded shard) or a
  cancelled statement: not retried, for the same reason; the API answers 503 at once and the
  client retries with its Idempotency-Key.
The library's own inherited methods (select_notifications, max_notification_id) keep the
library's decorator, which retries every OperationalError. Sealed snapshots (Ledger's own SQL)
are read and written with `retried_read`: their insert is ON CONFLICT DO NOTHING.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import psycopg
import psycopg_pool
from eventsourcing.persistence import InterfaceError, OperationalError, PersistenceError

P = ParamSpec("P")
R = TypeVar("R")

ATTEMPTS = 10
WAIT_S = 0.2
LOST = (InterfaceError, OperationalError)
# SQLSTATEs of a server going away rather than refusing the statement (class 08 apart).
_SERVER_GONE = frozenset({"57P01", "57P02", "57P03"})


def connection_lost(error: BaseException) -> bool:
    """True when an error means the connection or the server went away (nothing refused)."""
    cause = error.__cause__ if isinstance(error, PersistenceError) else error
    if isinstance(cause, psycopg_pool.PoolTimeout):
        return False
    if not isinstance(cause, psycopg.Error):
        return isinstance(error, LOST)
    state = cause.sqlstate
    return state is None or state.startswith("08") or state in _SERVER_GONE


def pause() -> None:
    """The library's wait between attempts, jittered so callers that lost their connections
    at the same moment do not all come back at once."""
    time.sleep(WAIT_S * (1 + 0.1 * (random.random() - 0.5)))


def retried_read(method: Callable[P, R]) -> Callable[P, R]:
    """Run again on a lost connection (up to ATTEMPTS in all): for reads, and for writes a
    repeat of which changes nothing (an INSERT … ON CONFLICT DO NOTHING)."""

    @functools.wraps(method)
    def retrying(*args: P.args, **kwargs: P.kwargs) -> R:
        attempt = 1
        while True:
            try:
                return method(*args, **kwargs)
            except LOST as error:
                if attempt >= ATTEMPTS or not connection_lost(error):
                    raise
            attempt += 1
            pause()

    return retrying
