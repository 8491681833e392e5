"""`senki project` waits for an unreachable PostgreSQL instead of exiting (a supervisor may
start it while the database restarts), but not for an embedded server it cannot start."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from infra.cli import projections as cli_projections
from infra.postgres.database import DatabaseUnavailable
from infra.settings import Settings

KEY = SecretStr("ab" * 32)


def flaky_start(failures: int) -> tuple[list[Settings], Any]:
    calls: list[Settings] = []

    def start(settings: Settings) -> Any:
        calls.append(settings)
        if len(calls) <= failures:
            raise DatabaseUnavailable("cannot reach PostgreSQL at the configured URL: refused")
        return "runtime"

    return calls, start


def test_a_projector_waits_while_its_external_database_is_down(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    slept: list[float] = []
    monkeypatch.setattr(cli_projections.time, "sleep", slept.append)
    settings = Settings(database_url=SecretStr("postgresql://x@127.0.0.1:1/x"), dice_master_key=KEY)
    calls, start = flaky_start(failures=5)

    assert cli_projections._start_when_reachable(start, settings) == "runtime"

    assert len(calls) == 6
    assert slept == [0.5, 1.0, 2.0, 4.0, 5.0]  # backing off, never past 5 s
    assert capsys.readouterr().out.count("waiting for PostgreSQL") == 5


def test_an_embedded_server_that_cannot_start_still_ends_the_projector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(cli_projections.time, "sleep", lambda _: pytest.fail("must not wait"))
    calls, start = flaky_start(failures=1)

    with pytest.raises(DatabaseUnavailable):
        cli_projections._start_when_reachable(start, Settings(database_url=None))

    assert len(calls) == 1
