"""A PostgreSQL cluster per shard (issue #18): home holds the placement directory and the read
models; shard i's events, snapshots and idempotency rows live on shard i's cluster.

Two private servers on loopback: server A holds the home database, which is also shard 0's
(a shard URL may equal the home URL), and server B holds shard 1. Given campaigns placed on
each shard, when server B stops, then the campaigns of shard 0 keep serving reads and writes,
those of shard 1 answer 503 with Retry-After naming shard 1, /readyz stays 200 `degraded`
with a report per shard, the projector keeps projecting shard 0, and once B is back every
shard catches up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from api.app import create_app
from infra import bootstrap
from infra.postgres.database import Database
from infra.projector.runner import Projector, ProjectorOptions
from infra.settings import Settings
from infra.store.migrate import SCHEMA_VERSION, migrate
from projections.catalog import PROJECTIONS
from tests.api.conftest import Campaign, auth, open_campaign
from tests.api.roster import AOI, ok, register_pilot
from tests.support.databases import APP_ROLE
from tests.support.private_pg import PrivateServer
from tests.support.processes import free_port
from tests.support.readside import project_until_caught_up
from tests.support.runtime import TEST_DICE_KEY

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@dataclass
class Deployment:
    """Home (and shard 0) on server A, shard 1 on server B."""

    a: PrivateServer
    b: PrivateServer
    home: str  # database name on A
    shard1: str  # database name on B

    def settings(self) -> Settings:
        home_app, home_owner = self.a.url(self.home, APP_ROLE), self.a.url(self.home)
        return Settings(
            database_url=SecretStr(home_app),
            migration_database_url=SecretStr(home_owner),
            shard_urls=[SecretStr(home_app), SecretStr(self.b.url(self.shard1, APP_ROLE))],
            shard_migration_urls=[SecretStr(home_owner), SecretStr(self.b.url(self.shard1))],
            dice_master_key=SecretStr(TEST_DICE_KEY),
        )

    @property
    def home_app(self) -> str:
        return self.a.url(self.home, APP_ROLE)

    def env(self) -> dict[str, str]:
        """The same deployment as SENKI_* variables, for the `senki` command."""
        settings = self.settings()
        return {
            "SENKI_DATABASE_URL": self.home_app,
            "SENKI_MIGRATION_DATABASE_URL": self.a.url(self.home),
            "SENKI_SHARD_URLS": json.dumps([u.get_secret_value() for u in settings.shard_urls]),
            "SENKI_SHARD_MIGRATION_URLS": json.dumps(
                [u.get_secret_value() for u in settings.shard_migration_urls]
            ),
            "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,
        }

    def senki(self, *args: str) -> subprocess.CompletedProcess[str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SENKI_")}
        return subprocess.run(
            [str(Path(sys.executable).with_name("senki")), *args],
            capture_output=True,
            text=True,
            env=clean | self.env() | {"COLUMNS": "160"},
            timeout=120,
            check=False,
        )


def migrate_as_the_cli_does(settings: Settings) -> int:
    """What `senki db migrate` runs (infra/cli.py)."""
    with Database(settings) as urls:
        return migrate(
            urls.owner,
            app_role=settings.app_role,
            shards=settings.shard_count(),
            shard_owner_urls=urls.shard_owners,
        )


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[PrivateServer, PrivateServer]]:
    with PrivateServer(free_port()) as a, PrivateServer(free_port()) as b:
        yield a, b


@pytest.fixture(scope="module")
def deployment(servers: tuple[PrivateServer, PrivateServer]) -> Deployment:
    a, b = servers
    a.create_database("home")
    b.create_database("shard1")
    found = Deployment(a, b, "home", "shard1")
    assert migrate_as_the_cli_does(found.settings()) == SCHEMA_VERSION
    return found


@pytest.fixture(scope="module")
def runtime(deployment: Deployment) -> Iterator[bootstrap.Runtime]:
    running = bootstrap.start(deployment.settings())
    yield running
    running.close()


@pytest.fixture(scope="module")
def client(runtime: bootstrap.Runtime) -> Iterator[TestClient]:
    with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
        yield client


@pytest.fixture(scope="module")
def campaigns(client: TestClient, runtime: bootstrap.Runtime) -> dict[int, Campaign]:
    """One campaign on each shard (ids are random: open until both shards have one)."""
    found: dict[int, Campaign] = {}
    for n in range(40):
        campaign = open_campaign(client, f"卓{n}")
        found.setdefault(runtime.ledger.shard_of(uuid.UUID(campaign.id)), campaign)
        if len(found) == 2:
            return found
    raise AssertionError("forty random campaigns all hashed to one shard")


def tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema IN ('senki', 'senki_read')"
        ).fetchall()
    return {row[0] for row in rows}


def streams_on(url: str, shard: int) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(f"SELECT DISTINCT originator_id FROM senki.events_{shard}").fetchall()
    return {str(row[0]) for row in rows}


def test_migrate_puts_each_shards_tables_on_its_cluster_and_the_directory_on_home(
    deployment: Deployment,
) -> None:
    on_home = tables(deployment.a.url(deployment.home))
    on_b = tables(deployment.b.url(deployment.shard1))
    assert {"senki.placements", "senki_read.tracking", "senki_read.parked"} <= on_home
    assert {"senki.events_0", "senki.idempotency_0", "senki.snapshots_0"} <= on_home
    assert not {t for t in on_home if t.endswith("_1")}, "shard 1's tables are on B only"
    assert {"senki.events_1", "senki.idempotency_1", "senki.snapshots_1"} <= on_b
    assert not {t for t in on_b if t.startswith("senki_read.") or t == "senki.placements"}
    assert not {t for t in on_b if t.endswith("_0")}
    for url in (deployment.a.url(deployment.home), deployment.b.url(deployment.shard1)):
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT max(version) FROM senki.schema_migrations").fetchone()
        assert row == (SCHEMA_VERSION,), "each cluster records its own migration"
    # Safe to run again.
    assert migrate_as_the_cli_does(deployment.settings()) == SCHEMA_VERSION


def test_a_campaigns_streams_land_only_on_its_shards_cluster(
    deployment: Deployment, campaigns: dict[int, Campaign]
) -> None:
    pilots = {shard: register_pilot(c, owner="gm")["id"] for shard, c in campaigns.items()}
    home_db, b_db = deployment.a.url(deployment.home), deployment.b.url(deployment.shard1)
    on_a, on_b = streams_on(home_db, 0), streams_on(b_db, 1)
    assert {campaigns[0].id, pilots[0]} <= on_a
    assert {campaigns[1].id, pilots[1]} <= on_b
    assert not {campaigns[1].id, pilots[1]} & on_a
    assert not {campaigns[0].id, pilots[0]} & on_b
    with psycopg.connect(home_db) as conn:
        placed = dict(
            conn.execute(
                "SELECT stream_id::text, shard FROM senki.placements WHERE stream_id = ANY(%s)",
                ([uuid.UUID(pilots[0]), uuid.UUID(pilots[1])],),
            ).fetchall()
        )
    assert placed == {pilots[0]: 0, pilots[1]: 1}, "the directory on home says where each is"


def test_the_projector_builds_the_read_models_from_both_clusters(
    deployment: Deployment,
    runtime: bootstrap.Runtime,
    client: TestClient,
    campaigns: dict[int, Campaign],
) -> None:
    project_until_caught_up(deployment.home_app, runtime.ledger)
    for campaign in campaigns.values():
        timeline = client.get(f"/v1/campaigns/{campaign.id}/timeline", headers=auth(campaign.gm))
        assert ok(timeline)["rows"], f"campaign {campaign.id} is in the read model"
    assert tracked(deployment) == heads(runtime)


def test_an_append_on_a_shard_cluster_is_heard_by_every_process(
    deployment: Deployment, runtime: bootstrap.Runtime, campaigns: dict[int, Campaign]
) -> None:
    """Cached token checks and sheets stay correct: the watch LISTENs on shard 1's cluster."""
    watch = runtime.append_watch
    assert watch.wait_listening(10)
    ticket = watch.ticket()
    assert ticket is not None
    other = bootstrap.start(deployment.settings())  # another API process
    try:
        with TestClient(create_app(lambda: other, lambda _: None)) as elsewhere:
            away = campaigns[1]
            pilot = register_pilot(Campaign(away.id, away.gm, elsewhere), owner="gm")["id"]
    finally:
        other.close()
    assert other.ledger.shard_of(uuid.UUID(pilot)) == 1
    assert watch.wait_past(ticket, 10), "the append on B was heard here"
    assert not watch.still(ticket, uuid.UUID(pilot))


def test_a_stopped_shard_cluster_stops_only_its_own_campaigns_and_catches_up_after(
    deployment: Deployment,
    runtime: bootstrap.Runtime,
    client: TestClient,
    campaigns: dict[int, Campaign],
) -> None:
    # Live read models first: a generation built from nothing goes live only once it has
    # seen every shard's head, which a down shard cannot show.
    project_until_caught_up(deployment.home_app, runtime.ledger)
    stop = threading.Event()
    projector = Projector(
        deployment.home_app, runtime.ledger, PROJECTIONS, ProjectorOptions(poll_s=0.2)
    )
    worker = threading.Thread(target=projector.run, args=(stop,), daemon=True)
    worker.start()
    healthy, stranded = campaigns[0], campaigns[1]
    try:
        deployment.b.stop("immediate")
        # The append watch hears B go away, so no cached state of shard 1 is served.
        refused = eventually(
            lambda: client.get(f"/v1/campaigns/{stranded.id}", headers=auth(stranded.gm)), 503
        )
        assert refused.headers["Retry-After"]
        problem = refused.json()
        assert problem["type"].endswith("/shard-unavailable")
        assert problem["shards"] == [1]
        assert "shard 1" in problem["detail"]
        write = stranded.post(f"/v1/campaigns/{stranded.id}/characters", json=pilot_body())
        assert write.status_code == 503
        assert write.headers["Retry-After"]

        assert ok(client.get(f"/v1/campaigns/{healthy.id}", headers=auth(healthy.gm)))
        register_pilot(healthy, owner="gm")  # writes on shard 0 go on
        ready = client.get("/readyz")
        assert ready.status_code == 200
        assert ready.json() == {
            "status": "degraded",
            "shards": [{"shard": 0, "status": "ok"}, {"shard": 1, "status": "unavailable"}],
        }
        # A process started during the outage serves too (a new pod, a restarted one).
        fresh = bootstrap.start(deployment.settings())
        try:
            with TestClient(create_app(lambda: fresh, lambda _: None)) as late:
                assert ok(late.get(f"/v1/campaigns/{healthy.id}", headers=auth(healthy.gm)))
                assert late.get("/readyz").json()["status"] == "degraded"
        finally:
            fresh.close()
        # The projector keeps projecting shard 0 while shard 1 is down.
        head0 = runtime.ledger.head(shard=0).position
        assert wait_until(lambda: tracked(deployment).get(0) == head0), "shard 0 projected"
        assert projector.state == "active"
    finally:
        deployment.b.start()
    try:
        eventually(
            lambda: client.get(f"/v1/campaigns/{stranded.id}", headers=auth(stranded.gm)), 200
        )
        register_pilot(stranded, owner="gm")  # writes on shard 1 again
        assert client.get("/readyz").json()["status"] == "ready"
        assert wait_until(lambda: tracked(deployment) == heads(runtime)), "shard 1 caught up"
    finally:
        stop.set()
        worker.join(10)


def test_operator_surfaces_report_per_shard_while_a_shard_cluster_is_down(
    deployment: Deployment,
    runtime: bootstrap.Runtime,
    client: TestClient,
    campaigns: dict[int, Campaign],
) -> None:
    """Given server B (shard 1) stopped, when an operator asks for the log head, /metrics,
    `senki projections status` and `senki verify`, then shard 0 is reported as usual and
    shard 1 is named unavailable (verify exits non-zero: it did not read shard 1's chain);
    once B is back, every surface is whole again."""
    project_until_caught_up(deployment.home_app, runtime.ledger)
    deployment.b.stop("immediate")
    try:
        down = eventually(lambda: client.get("/v1/log/head"), 200)
        assert wait_until(lambda: client.get("/v1/log/head").json()["status"] == "degraded", 30), (
            "the head read notices B is gone"
        )
        heads = client.get("/v1/log/head").json()
        assert heads["heads"][1] == {"shard": 1, "status": "unavailable"}
        shard0 = heads["heads"][0]
        assert shard0["status"] == "ok"
        assert shard0["position"] == runtime.ledger.head(shard=0).position
        assert shard0["chain_hash"] == runtime.ledger.head(shard=0).chain_hash
        assert down.status_code == 200

        assert wait_until(lambda: shard_up(client) == {"0": 1.0, "1": 0.0}, 30)
        found = scrape(client)
        lagged = {s.labels["shard"] for s in found["senki_projection_lag_events"].samples}
        assert lagged == {"0"}, "shard 0's lag exported, shard 1's unknown"
        assert [s.value for s in found["senki_database_up"].samples] == [1]
        assert {s.labels["shard"] for s in found["senki_log_head_position"].samples} == {"0"}

        status = deployment.senki("projections", "status")
        assert status.returncode == 0, status.stdout + status.stderr
        assert "UNAVAILABLE shard 1" in status.stdout
        rows = [line for line in status.stdout.splitlines() if "│" in line and " live " in line]
        assert any("unavailable" in line for line in rows)
        assert any("unavailable" not in line for line in rows), "shard 0's rows as usual"
        strict = deployment.senki("projections", "status", "--fail-unavailable")
        assert strict.returncode == 3, strict.stdout + strict.stderr

        verify = deployment.senki("verify", "--json")
        assert verify.returncode == 3, verify.stdout + verify.stderr
        report = json.loads(verify.stdout)
        assert report["ok"] is False
        assert report["complete"] is False
        assert [u["shard"] for u in report["unavailable"]] == [1]
        by_shard = {s["shard"]: s for s in report["shards"]}
        assert by_shard[0]["chain"]["intact"] is True
        assert by_shard[1] == {"shard": 1, "status": "unavailable"}
        plain = deployment.senki("verify")
        assert plain.returncode == 3
        assert "UNAVAILABLE shard 1" in plain.stdout
        assert "verdict: INCOMPLETE: shard 1 not verified" in plain.stdout
        assert "everything holds" not in plain.stdout
    finally:
        deployment.b.start()
    assert wait_until(lambda: client.get("/v1/log/head").json()["status"] == "ok", 60)
    assert all(h["status"] == "ok" for h in client.get("/v1/log/head").json()["heads"])
    assert wait_until(lambda: shard_up(client) == {"0": 1.0, "1": 1.0}, 30)
    assert deployment.senki("projections", "status", "--fail-unavailable").returncode == 0
    whole = deployment.senki("verify")
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert "verdict: everything holds" in whole.stdout


def scrape(client: TestClient) -> dict[str, Any]:
    answer = client.get("/metrics")
    assert answer.status_code == 200
    return {f.name: f for f in text_string_to_metric_families(answer.text)}


def shard_up(client: TestClient) -> dict[str, float]:
    found = scrape(client).get("senki_shard_up")
    return {} if found is None else {s.labels["shard"]: s.value for s in found.samples}


def test_adding_a_shard_cluster_places_new_campaigns_on_it_too(
    servers: tuple[PrivateServer, PrivateServer],
) -> None:
    """Growth: restart with a longer SENKI_SHARD_URLS and migrate; old campaigns stay."""
    a, b = servers
    a.create_database("grown_home")
    b.create_database("grown_1")
    home_app, home_owner = a.url("grown_home", APP_ROLE), a.url("grown_home")
    common: dict[str, Any] = {
        "database_url": SecretStr(home_app),
        "migration_database_url": SecretStr(home_owner),
        "dice_master_key": SecretStr(TEST_DICE_KEY),
    }
    one = Settings(**common, shard_urls=[SecretStr(home_app)])
    migrate_as_the_cli_does(one)
    first = bootstrap.start(one)
    try:
        with TestClient(create_app(lambda: first, lambda _: None)) as single:
            old = open_campaign(single, "一枚")
    finally:
        first.close()
    two = Settings(
        **common,
        shard_urls=[SecretStr(home_app), SecretStr(b.url("grown_1", APP_ROLE))],
        shard_migration_urls=[SecretStr(home_owner), SecretStr(b.url("grown_1"))],
    )
    migrate_as_the_cli_does(two)
    grown = bootstrap.start(two)
    try:
        with TestClient(create_app(lambda: grown, lambda _: None)) as both:
            assert ok(both.get(f"/v1/campaigns/{old.id}", headers=auth(old.gm)))
            placed = [open_campaign(both, f"二枚{n}") for n in range(12)]
            shards = {grown.ledger.shard_of(uuid.UUID(c.id)) for c in placed}
            pilot = register_pilot(Campaign(old.id, old.gm, both), owner="gm")["id"]
    finally:
        grown.close()
    assert shards == {0, 1}, "new campaigns spread over both clusters"
    assert {old.id, pilot} <= streams_on(a.url("grown_home"), 0), "old campaigns stay home"
    on_b = streams_on(b.url("grown_1"), 1)
    assert {c.id for c in placed if uuid.UUID(c.id).int % 2 == 1} <= on_b


def pilot_body() -> dict[str, Any]:
    return {"owner": "gm", "name": "蒼井ソラ", "base_stats": AOI}


def heads(runtime: bootstrap.Runtime) -> dict[int, int]:
    return {s: runtime.ledger.head(shard=s).position for s in range(len(runtime.ledger.shards))}


def tracked(deployment: Deployment) -> dict[int, int]:
    """Where every live generation stands per shard (one value per shard once level)."""
    with psycopg.connect(deployment.a.url(deployment.home)) as conn:
        rows = conn.execute(
            "SELECT t.shard, min(t.position) FROM senki_read.tracking t "
            "JOIN senki_read.projections p ON p.name = t.projection "
            "AND p.live_generation = t.generation GROUP BY t.shard"
        ).fetchall()
    return {int(shard): int(position) for shard, position in rows}


def wait_until(check: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def eventually(request: Callable[[], Any], status: int, timeout: float = 60.0) -> Any:
    """The answer once it has `status` (a pool notices a stopped or started server soon)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = request()
        if answer.status_code == status or time.monotonic() > deadline:
            assert answer.status_code == status, answer.text
            return answer
        time.sleep(0.2)
