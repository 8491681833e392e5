"""A read model that stands still while its log moves on is degraded (issue 33, section 2).

Given read models behind their log whose tracking has not moved for longer than the bound
(SENKI_PROJECTION_STALL_S), then `senki projections status`, /readyz and /metrics say so;
a quiet log is not a stall (a caught-up projector says it is current now and then), and a
projector stuck retrying an error of the database's state stalls its models, visibly.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from uuid import UUID

import psycopg
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.projector import admin
from infra.projector.runner import Projector, ProjectorOptions
from infra.services.runtime import Runtime
from infra.store.ledger import Ledger
from projections.catalog import PROJECTIONS
from projections.character_sheets import CharacterSheetsV1
from tests.support.forced_errors import ForcedErrors, a_log_with, counter, forced_ledger
from tests.support.processes import run_cli
from tests.support.readside import caught_up_within
from tests.support.runtime import start_runtime
from tests.support.story import campaign_story, write

pytestmark = pytest.mark.postgres


@pytest.fixture
def ledger(app_url: str, owner_url: str) -> Iterator[Ledger]:
    with forced_ledger(app_url, owner_url) as opened:
        yield opened


def still_for(url: str, seconds: int) -> None:
    """As if the projector had not moved any model for `seconds` (it died, or it is stuck)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "UPDATE senki_read.tracking SET updated_at = now() - make_interval(secs => %s)",
            (seconds,),
        )


def behind_for_an_hour(app_url: str, owner_url: str, ledger: Ledger) -> None:
    """Every model projected, then a campaign written while no projector ran for an hour."""
    table, versions = campaign_story(), dict[UUID, int]()
    write(ledger, table.log, versions)
    assert caught_up_within(60, app_url, ledger, PROJECTIONS)
    written = len(table.log)
    campaign_story(table)
    write(ledger, table.log[written:], versions)
    still_for(owner_url, 3_600)


def test_a_model_behind_its_log_and_still_past_the_bound_is_stalled_in_status(
    app_url: str, owner_url: str, ledger: Ledger
) -> None:
    behind_for_an_hour(app_url, owner_url, ledger)

    rows = admin.status(app_url, ledger, PROJECTIONS, stall_s=60)

    assert {r.projection for r in rows if r.stalled} == {p.name for p in PROJECTIONS}
    assert all(r.still_s >= 3_600 for r in rows)
    assert not any(r.stalled for r in admin.status(app_url, ledger, PROJECTIONS, stall_s=7_200))
    shown = run_cli(app_url, owner_url, "projections", "status")
    assert shown.returncode == 0, shown.stderr
    assert "DEGRADED rulings g1 shard 0: stalled at position" in shown.stdout


def test_readyz_stays_ready_but_says_degraded_naming_the_stalled_models(
    app_url: str, owner_url: str, ledger: Ledger
) -> None:
    runtime: Runtime = start_runtime(app_url, owner_url)
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            assert client.get("/readyz").json() == {"status": "ready"}
            behind_for_an_hour(app_url, owner_url, ledger)

            ready = client.get("/readyz")

    finally:
        runtime.close()
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "degraded"
    assert {(p["projection"], p["status"]) for p in body["projections"]} == {
        (p.name, "stalled") for p in PROJECTIONS
    }


def test_a_quiet_log_is_not_a_stall_the_caught_up_projector_says_it_is_current(
    app_url: str, ledger: Ledger
) -> None:
    write(ledger, campaign_story().log)
    assert caught_up_within(60, app_url, ledger, PROJECTIONS)
    options = ProjectorOptions(poll_s=0.05, touch_s=0.1)
    projector, stop = Projector(app_url, ledger, PROJECTIONS, options), threading.Event()
    worker = threading.Thread(target=projector.run, args=(stop,))
    worker.start()
    try:
        time.sleep(1.5)  # a quiet log: nothing to project
        rows = admin.status(app_url, ledger, PROJECTIONS, stall_s=1.0)
    finally:
        stop.set()
        worker.join(30)
    assert rows
    assert max(r.still_s for r in rows) < 1.0  # touched while quiet, though it never moved


def test_a_projector_stuck_retrying_the_database_s_error_stalls_its_models_visibly(
    app_url: str, ledger: Ledger
) -> None:
    name = counter(app_url, "forced_stuck")
    table, _ = a_log_with(f"raise:57014/{10**9}/{name}")  # cancelled, every time
    write(ledger, table.log)
    models = [ForcedErrors(), CharacterSheetsV1()]

    assert not caught_up_within(2, app_url, ledger, models, poll_s=0.05)

    rows = admin.status(app_url, ledger, models, stall_s=0.5)
    assert rows
    assert all(r.stalled for r in rows if r.lag)
    assert {r.projection for r in rows if r.stalled} == {"forced_errors", "character_sheets"}
    assert sum(r.parked for r in rows) == 0  # retried, never parked
