"""A batch's transaction in one round trip.

psycopg's `transaction()` inside a pipeline syncs after BEGIN and again after COMMIT, so a
batch cost three round trips however few its statements; measured on one event, that was
most of the projector's share of commit-to-visible. Here BEGIN, the batch's statements and
COMMIT are queued together and sent with one Sync at the end (a statement whose result is
needed on the way, such as the registry row read before a switch, still syncs early: the
explicit BEGIN keeps the transaction open across it).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from psycopg import Connection, pq

_OPEN = (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR)


@contextmanager
def one_round_trip(conn: Connection[tuple[Any, ...]]) -> Iterator[None]:
    """BEGIN … COMMIT pipelined on an autocommit connection; any failure rolls back.

    A failed statement makes the server skip the rest up to the Sync, COMMIT included, and
    the error is raised when the pipeline ends; the open (or aborted) transaction is then
    rolled back, as it is after an exception in the caller's own code.
    """
    assert conn.autocommit, "BEGIN is sent by hand: psycopg must not send its own"
    try:
        with conn.pipeline():
            conn.execute(b"BEGIN")
            yield
            conn.execute(b"COMMIT")
    except BaseException:
        if conn.info.transaction_status in _OPEN:
            conn.execute(b"ROLLBACK")
        raise
