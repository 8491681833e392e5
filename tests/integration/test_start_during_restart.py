"""A process that starts while its external PostgreSQL restarts (a supervisor's restart).

The schema check may pass and the server go away a moment later, while the ledger opens. That
is the same situation as a server that never answered, and must be refused the same way
(`DatabaseUnavailable`, "cannot reach PostgreSQL"), so that `senki project` waits for it as a
standby would, instead of exiting with code 3 and being restarted in a loop. (Seen once in
the loopback fault test: a projector restarted just as PostgreSQL restarted exited 3.)
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from pydantic import SecretStr

from infra import bootstrap
from infra.cli import projections as cli_projections
from infra.postgres.database import DatabaseUnavailable
from infra.settings import Settings
from tests.support.runtime import TEST_DICE_KEY

pytestmark = [pytest.mark.postgres]


def connection_lost(url: str) -> psycopg.OperationalError:
    """What psycopg raises when the server closes a connection under a query: made for real,
    by ending the session from another one."""
    with psycopg.connect(url, autocommit=True) as victim, psycopg.connect(url) as other:
        pid = victim.info.backend_pid
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))
        try:
            victim.execute("SELECT 1")
        except psycopg.OperationalError as error:
            return error
    raise AssertionError("the ended session still answered")


def lost_once(monkeypatch: pytest.MonkeyPatch, error: Exception) -> list[str]:
    """The ledger's opening fails once with `error`, as if the server went away just then."""
    opened: list[str] = []
    real = bootstrap.open_ledger

    def opening(*args: Any, **kwargs: Any) -> Any:
        opened.append("lost" if not opened else "opened")
        if len(opened) == 1:
            raise error
        return real(*args, **kwargs)

    monkeypatch.setattr(bootstrap, "open_ledger", opening)
    return opened


def test_the_server_going_away_after_the_schema_check_is_an_unreachable_database(
    app_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(database_url=SecretStr(app_url), dice_master_key=SecretStr(TEST_DICE_KEY))
    lost_once(monkeypatch, connection_lost(owner_url))

    with pytest.raises(DatabaseUnavailable, match="cannot reach PostgreSQL at the configured URL"):
        bootstrap.start(settings)


def test_a_projector_started_meanwhile_waits_and_then_starts(
    app_url: str, owner_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(database_url=SecretStr(app_url), dice_master_key=SecretStr(TEST_DICE_KEY))
    opened = lost_once(monkeypatch, connection_lost(owner_url))
    monkeypatch.setattr(cli_projections.time, "sleep", lambda _: None)

    runtime = cli_projections._start_when_reachable(bootstrap.start, settings)
    try:
        assert opened == ["lost", "opened"]
        assert runtime.ledger.shards  # a working runtime, not a half-open one
    finally:
        runtime.close()


def test_a_bug_at_start_is_not_taken_for_an_unreachable_database(
    app_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(database_url=SecretStr(app_url), dice_master_key=SecretStr(TEST_DICE_KEY))
    lost_once(monkeypatch, KeyError("a bug"))

    with pytest.raises(KeyError):
        bootstrap.start(settings)
