"""The plain `eventsourcing` library writing what Senki writes per command: the reference of
the writes benchmark's "writes per shard" row (issue 34 §4).

Its documented Application and aggregate API on its own PostgreSQL recorder (the
`eventsourcing.postgres` persistence module, configured by its POSTGRES_* environment), with
nothing of Senki's: no hash chain, no group commit, no idempotency rows, no projections.
Each "command" triggers as many events on one aggregate as a Senki command appends on
average (whole events, alternating so that the mean matches) and saves the aggregate: one
transaction, as Senki commits one command.
"""

from __future__ import annotations

from collections.abc import Callable

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event
from psycopg.conninfo import conninfo_to_dict

BODY = "x" * 400  # about one stored encounter event, as the raw reference's rows


class Fight(Aggregate):
    """One table's fight: it only records that something happened."""

    @event("Recorded")
    def record(self, body: str) -> None:
        """Nothing to decide: the benchmark measures the writing."""


def environment(url: str, pool_size: int, *, create_table: bool = True) -> dict[str, str]:
    """The library's documented settings for its PostgreSQL recorder, from a libpq URL."""
    parts = conninfo_to_dict(url)
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "CREATE_TABLE": "yes" if create_table else "no",
        "POSTGRES_DBNAME": str(parts["dbname"]),
        "POSTGRES_HOST": str(parts.get("host") or "localhost"),
        "POSTGRES_PORT": str(parts.get("port") or "5432"),
        "POSTGRES_USER": str(parts["user"]),
        "POSTGRES_PASSWORD": str(parts.get("password") or ""),
        "POSTGRES_POOL_SIZE": str(pool_size),
        "POSTGRES_MAX_OVERFLOW": "0",
    }


def application(url: str, pool_size: int, *, create_table: bool = True) -> Application:
    """The library's application on its recorder. Its driving processes pass `create_table=False`:
    the benchmark creates the tables once before them, and the recorder's `CREATE OR REPLACE
    FUNCTION` run by four processes at once failed one of them ("tuple concurrently updated")."""
    return Application(env=environment(url, pool_size, create_table=create_table))


def commands(app: Application, count: int, events_per_command: float) -> list[Callable[[], object]]:
    """One step per thread: trigger a command's events on its own aggregate and save it."""
    steps = []
    for _ in range(count):
        fight = Fight()
        app.save(fight)
        steps.append(_command(app, fight, events_per_command))
    return steps


def _command(app: Application, fight: Fight, events_per_command: float) -> Callable[[], object]:
    owed = 0.0

    def step() -> object:
        nonlocal owed
        owed += events_per_command
        whole = max(1, int(owed))
        owed -= whole
        for _ in range(whole):
            fight.record(BODY)
        return app.save(fight)

    return step
