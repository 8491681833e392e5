"""Moving a campaign to another shard (issue #18): `senki campaigns move <id> --to <shard>`.

Given a campaign played on one shard of a two-shard log, when it is moved, then every one of
its streams is on the other shard with the same events in the same order (chained there at
new positions), the directory names the new shard, the old shard refuses appends to them,
both chains verify, retried requests find their first answers, commands sent while it moves
are all kept exactly once, and the read models equal a rebuild. Interrupted at any step, the
move runs again from where it stopped.
"""

from __future__ import annotations

import itertools
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from uuid import UUID

import psycopg
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from api.app import create_app
from infra import bootstrap
from infra.cli.main import app as cli_app
from infra.projector.admin import request_rebuild
from infra.services.executor import Idempotency
from infra.services.roll_answers import RollAnswer
from infra.settings import Settings
from infra.store.ledger import ConcurrencyConflict, Ledger, StreamMoved, StreamWrite
from infra.store.move import STEPS, MoveRefused, move_campaign
from infra.store.placement import shard_for_campaign
from projections.catalog import PROJECTIONS
from tests.api.conftest import Campaign, auth, key, open_campaign
from tests.api.roster import ok, register_core, register_pilot, start_scenario
from tests.integration.test_sharding import play_a_campaign, settings
from tests.support import databases
from tests.support.databases import APP_ROLE
from tests.support.readside import Snapshot, project_until_caught_up, snapshot

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
SHARDS = 2


@dataclass
class Table:
    """A two-shard deployment with one campaign played on it."""

    runtime: bootstrap.Runtime
    client: TestClient
    app_url: str
    owner_url: str
    campaign: str
    gm: str
    streams: set[str]
    roll_logs: list[UUID] = field(default_factory=list)

    @property
    def source(self) -> int:
        return self.runtime.ledger.placements.lookup(UUID(self.campaign))

    def roll(self, log: UUID, idem: str | None = None) -> RollAnswer:
        return self.runtime.roll_logs.roll(
            log, "2D6", by="gm", idempotency=Idempotency(idem or str(uuid.uuid4()), "fp")
        )


@pytest.fixture
def table(pg_server: databases.TestServer) -> Iterator[Table]:
    with pg_server.fresh_database(shards=SHARDS) as name:
        app_url, owner_url = pg_server.url(name, user=APP_ROLE), pg_server.url(name)
        runtime = bootstrap.start(settings(app_url, SHARDS))
        try:
            with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
                campaign, streams = play_a_campaign(client, "引越")
                found = Table(
                    runtime, client, app_url, owner_url, campaign.id, campaign.gm, streams
                )
                for n in range(2):  # two logs of their own beside the table log
                    rolled = ok(
                        campaign.post(
                            f"/v1/campaigns/{campaign.id}/rolls",
                            json={"name": f"log {n}", "expression": "1D6"},
                        ),
                        201,
                    )
                    found.roll_logs.append(UUID(rolled["roll_log"]["id"]))
                found.streams |= {str(log) for log in found.roll_logs}
                yield found
        finally:
            runtime.close()


def events_of(owner_url: str, shard: int, stream: str) -> list[tuple[int, str, bytes]]:
    with psycopg.connect(owner_url) as conn:
        rows = conn.execute(
            f"SELECT originator_version, topic, state FROM senki.events_{shard} "
            "WHERE originator_id = %s ORDER BY originator_version",
            (stream,),
        ).fetchall()
    return [(int(v), str(t), bytes(s)) for v, t, s in rows]


def relocations(owner_url: str) -> list[tuple[str, int]]:
    with psycopg.connect(owner_url) as conn:
        rows = conn.execute("SELECT stream_id, shard FROM senki.relocations").fetchall()
    return sorted((str(s), int(t)) for s, t in rows)


def test_a_moved_campaign_lives_on_its_new_shard_and_the_old_copy_is_fenced(
    table: Table,
) -> None:
    source = table.source
    target = 1 - source
    before = {s: events_of(table.owner_url, source, s) for s in table.streams}
    log = table.roll_logs[0]
    # Another API process, which has the roll log's old placement cached.
    stale = bootstrap.start(settings(table.app_url, SHARDS))
    assert stale.ledger.shard_of(log) == source

    report = move_campaign(table.runtime.ledger, UUID(table.campaign), target)

    assert report.streams == len(table.streams)
    assert report.events_copied == sum(len(e) for e in before.values())
    assert {s: events_of(table.owner_url, target, s) for s in table.streams} == before
    assert relocations(table.owner_url) == sorted((s, target) for s in table.streams)
    # The source keeps its rows (append-only) and both chains still verify.
    assert {s: events_of(table.owner_url, source, s) for s in table.streams} == before
    ledger = table.runtime.ledger
    assert ledger.verify(shard=source).ok
    assert ledger.verify(shard=target).ok
    try:
        # The old shard refuses an append to a moved stream, whatever a process has cached…
        last = stale.ledger.read(log)[-1]
        assert stale.ledger.shard_of(log) == source
        with pytest.raises(StreamMoved, match="being moved"):
            stale.ledger.append([StreamWrite(log, last.version, [last.event])])
        # …and that process's next command finds the new shard and lands there.
        rolled = stale.roll_logs.roll(log, "2D6", by="gm")
    finally:
        stale.close()
    assert rolled.roll_log.version == last.version + 1
    assert len(events_of(table.owner_url, target, str(log))) == last.version + 1
    assert len(events_of(table.owner_url, source, str(log))) == last.version
    fresh = bootstrap.start(settings(table.app_url, SHARDS))
    try:
        with TestClient(create_app(lambda: fresh, lambda _: None)) as other:
            got = other.get(f"/v1/roll-logs/{log}", headers=auth(table.gm))
            opened = other.post(
                f"/v1/campaigns/{table.campaign}/rolls",
                headers=auth(table.gm) | key(),
                json={"name": "after the move", "expression": "2D6"},
            )
        new_log = ok(opened, 201)["roll_log"]["id"]
        assert fresh.ledger.placements.lookup(UUID(new_log)) == target
    finally:
        fresh.close()
    assert ok(got)["version"] == last.version + 1
    assert events_of(table.owner_url, target, new_log)
    assert not events_of(table.owner_url, source, new_log)


def test_a_second_run_finds_the_campaign_moved_and_changes_nothing(table: Table) -> None:
    target = 1 - table.source
    move_campaign(table.runtime.ledger, UUID(table.campaign), target)
    moved = relocations(table.owner_url)
    again = move_campaign(table.runtime.ledger, UUID(table.campaign), target)
    assert again.already_there
    assert relocations(table.owner_url) == moved


def test_a_request_retried_after_the_move_gets_its_first_answer(table: Table) -> None:
    log = table.roll_logs[0]
    first = table.roll(log, idem="roll-before-the-move")
    move_campaign(table.runtime.ledger, UUID(table.campaign), 1 - table.source)
    again = table.roll(log, idem="roll-before-the-move")
    # The same answer, but for where its event stands now: moved, it has a new position on
    # its new shard (issue 37: a roll names its event's position).
    moved = {"roll": {"position"}}
    assert again.model_dump(exclude=moved) == first.model_dump(exclude=moved)
    assert again.roll is not None
    assert again.roll.position is not None
    assert len(events_of(table.owner_url, 1 - table.source, str(log))) == first.roll_log.version


@pytest.mark.parametrize("step", STEPS)
def test_a_move_interrupted_at_any_step_resumes_when_run_again(table: Table, step: str) -> None:
    source = table.source
    target = 1 - source
    before = {s: events_of(table.owner_url, source, s) for s in table.streams}

    def interrupt(now: str) -> None:
        if now == step:
            raise KeyboardInterrupt(f"operator pressed ^C before {step}")

    with pytest.raises(KeyboardInterrupt):
        move_campaign(table.runtime.ledger, UUID(table.campaign), target, hook=interrupt)
    assert table.source == source, "the placement switches only at the last step"
    if STEPS.index(step) > STEPS.index("fence"):
        # Fenced but not switched: a command is answered 503 and retried by its client.
        with pytest.raises(StreamMoved):
            table.roll(table.roll_logs[0])
    move_campaign(table.runtime.ledger, UUID(table.campaign), target)

    assert {s: events_of(table.owner_url, target, s) for s in table.streams} == before
    assert relocations(table.owner_url) == sorted((s, target) for s in table.streams)
    assert table.runtime.ledger.verify(shard=target).ok
    assert (
        table.roll(table.roll_logs[0]).roll_log.version == len(before[str(table.roll_logs[0])]) + 1
    )


def test_moving_is_refused_when_it_cannot_be_done(table: Table) -> None:
    ledger = table.runtime.ledger
    with pytest.raises(MoveRefused, match="no shard 5"):
        move_campaign(ledger, UUID(table.campaign), 5)
    from domain.aggregate import NotFound

    with pytest.raises(NotFound, match="no campaign"):
        move_campaign(ledger, uuid.uuid4(), 0)
    source = table.source
    move_campaign(ledger, UUID(table.campaign), 1 - source)
    with pytest.raises(MoveRefused, match="moved away from shard"):
        move_campaign(ledger, UUID(table.campaign), source)


def test_the_cli_moves_a_campaign_and_says_what_it_did(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.runtime import TEST_DICE_KEY

    monkeypatch.setenv("SENKI_DATABASE_URL", table.app_url)
    monkeypatch.setenv("SENKI_DICE_MASTER_KEY", TEST_DICE_KEY)
    monkeypatch.setenv("SENKI_SHARDS", str(SHARDS))
    runner = CliRunner()
    target = 1 - table.source
    moved = runner.invoke(cli_app, ["campaigns", "move", table.campaign, "--to", str(target)])
    assert moved.exit_code == 0, moved.output
    assert f"to shard {target}" in moved.output
    assert f"{len(table.streams)} streams" in moved.output
    again = runner.invoke(cli_app, ["campaigns", "move", table.campaign, "--to", str(target)])
    assert "nothing to do" in again.output
    bad = runner.invoke(cli_app, ["campaigns", "move", "not-an-id", "--to", "1"])
    assert bad.exit_code == 2
    assert "not a campaign id" in bad.output


def test_commands_sent_while_the_campaign_moves_are_kept_exactly_once(table: Table) -> None:
    """Threads keep rolling (each retrying a refused roll with its own key, as a client does
    on a 503) while a campaign of about 2,000 events moves; every acknowledged roll is in the
    log once, on the new shard."""
    logs = table.roll_logs
    for n in range(2000):
        table.roll(logs[n % len(logs)])
    source, target = table.source, 1 - table.source
    acknowledged: dict[UUID, list[int]] = {log: [] for log in logs}
    refused = [0]
    moving = threading.Event()
    stop = threading.Event()
    during = [0]

    crashed: list[BaseException] = []

    def writer(log: UUID) -> None:
        try:
            write(log)
        except BaseException as error:  # a command that fails is a lost command: say so
            crashed.append(error)
            raise

    def write(log: UUID) -> None:
        while not stop.is_set():
            idem = str(uuid.uuid4())
            while True:
                try:
                    answer = table.roll(log, idem)
                    break
                except (StreamMoved, ConcurrencyConflict):
                    # A 503 while fenced, or a 409 when the two writers of one log keep
                    # colliding: a client sends the same request again, with the same key.
                    refused[0] += 1
                    time.sleep(0.01)
            assert answer.roll is not None
            acknowledged[log].append(answer.roll.roll_seq)
            if moving.is_set():
                during[0] += 1

    threads = [threading.Thread(target=writer, args=(log,)) for log in logs for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    total = sum(len(events_of(table.owner_url, source, s)) for s in table.streams)
    moving.set()
    marks: list[tuple[str, float]] = []
    report = move_campaign(
        table.runtime.ledger,
        UUID(table.campaign),
        target,
        hook=lambda step: marks.append((step, time.monotonic())),
    )
    moving.clear()
    time.sleep(0.3)
    stop.set()
    for thread in threads:
        thread.join(30)
    print(
        f"\nmove of {total}+ events: {report.seconds:.2f} s, {report.events_copied} copied, "
        f"{during[0]} rolls acknowledged during it, {refused[0]} refusals retried; steps: "
        + ", ".join(f"{a} {b[1] - a_t:.2f}" for (a, a_t), b in itertools.pairwise(marks))
    )
    assert not crashed, f"a writer failed: {crashed[0]!r}" if crashed else ""
    assert total >= 2000
    for log in logs:
        state, version = table.runtime.roll_logs.get(log)
        seqs = [roll.roll_seq for roll in state.rolls]
        assert len(seqs) == len(set(seqs)), "no roll is recorded twice"
        assert set(acknowledged[log]) <= set(seqs), "every acknowledged roll is kept"
        assert len(events_of(table.owner_url, target, str(log))) == version
    assert table.runtime.ledger.verify(shard=target).ok
    assert table.runtime.ledger.verify(shard=source).ok


def rebuilt_in_small_batches(url: str, ledger: Ledger) -> dict[str, Snapshot]:
    """Every read model built again from position 0, five events per batch, so the rebuild
    goes back and forth between the shards' logs."""
    for projection in PROJECTIONS:
        request_rebuild(url, projection, shards=len(ledger.shards))
    project_until_caught_up(url, ledger, batch_size=5)
    return {p.name: snapshot(url, p) for p in PROJECTIONS}


def test_read_models_after_a_move_equal_a_rebuild(table: Table) -> None:
    """Moved from shard 1 to shard 0: shard 0 holds the copies and then the campaign's new
    events, at positions lower than its old events on shard 1. Nothing is applied twice, and
    a rebuild applies each stream's events in version order: equal to the live models."""
    ledger = table.runtime.ledger
    campaign = open_campaign_on(table.client, 1)
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)["id"]
    scenario = start_scenario(campaign, {pilot: register_core(campaign, pilot)["id"]})
    busy = open_campaign_on(table.client, 1)
    for n in range(40):  # the old shard's log runs well past the campaign's events
        rolled = busy.post(f"/v1/campaigns/{busy.id}/rolls", json={"expression": "1D6"})
        ok(rolled, 201 if n == 0 else 200)  # the first opens the table log
    project_until_caught_up(table.app_url, ledger)
    move_campaign(ledger, UUID(campaign.id), 0)
    # The moved streams go on, on shard 0: the scenario closes (its HP rows depend on the
    # scenario's earlier events), a member joins.
    result = {"character_id": pilot, "end_hp": 80, "ended_on_foot": False, "injury": "none"}
    ok(campaign.post(f"/v1/scenarios/{scenario}/close", json={"results": [result]}))
    campaign.token_for("hikari")
    assert ledger.shard_of(UUID(scenario)) == 0
    project_until_caught_up(table.app_url, ledger)
    live = {p.name: snapshot(table.app_url, p) for p in PROJECTIONS}
    timeline = table.client.get(f"/v1/campaigns/{campaign.id}/timeline", headers=auth(campaign.gm))
    closed = [row for row in ok(timeline)["rows"] if "close" in str(row).lower()]
    assert len(closed) == 1, "the scenario's close, after the move, is in the timeline once"
    assert rebuilt_in_small_batches(table.app_url, ledger) == live


def open_campaign_on(client: TestClient, shard: int) -> Campaign:
    """A campaign opened on a chosen shard (ids are random: open until one lands there)."""
    while True:
        campaign = open_campaign(client, "賑")
        if shard_for_campaign(UUID(campaign.id), SHARDS) == shard:
            return campaign


@pytest.fixture
def two_clusters() -> Iterator[tuple[str, str, str, str]]:
    """Two PostgreSQL servers of the test's own: home (with shard 0) and shard 1's cluster,
    migrated as in production; yields (home service, shard 1 service, home owner, 1 owner)."""
    from tests.support.private_pg import PrivateServer
    from tests.support.processes import free_port

    servers = [PrivateServer(free_port()), PrivateServer(free_port())]
    try:
        for server in servers:
            server.start()
        owners = [server.url() for server in servers]
        migrate_clusters(owners)
        yield (
            servers[0].url(user=APP_ROLE),
            servers[1].url(user=APP_ROLE),
            owners[0],
            owners[1],
        )
    finally:
        for server in servers:
            server.stop()


def migrate_clusters(owners: list[str]) -> None:
    from infra.store.migrate import migrate

    migrate(owners[0], app_role=APP_ROLE, shards=SHARDS, shard_owner_urls=owners)


def test_a_campaign_moves_from_one_cluster_to_another(
    two_clusters: tuple[str, str, str, str],
) -> None:
    """Shard 0 on the home cluster, shard 1 on a cluster of its own: the move copies across
    servers through each one's own append function, and both chains verify on their servers."""
    from pydantic import SecretStr

    from tests.support.runtime import TEST_DICE_KEY

    home, far, home_owner, far_owner = two_clusters
    config = Settings(
        database_url=SecretStr(home),
        dice_master_key=SecretStr(TEST_DICE_KEY),
        shard_urls=[SecretStr(home), SecretStr(far)],
    )
    runtime = bootstrap.start(config)
    try:
        with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
            campaign, streams = play_a_campaign(client, "越境")
            source = runtime.ledger.placements.lookup(UUID(campaign.id))
            target = 1 - source
            owners = {0: home_owner, 1: far_owner}
            before = {s: events_of(owners[source], source, s) for s in streams}
            report = move_campaign(runtime.ledger, UUID(campaign.id), target)
            assert report.streams == len(streams)
            assert {s: events_of(owners[target], target, s) for s in streams} == before
            assert runtime.ledger.verify(shard=0).ok
            assert runtime.ledger.verify(shard=1).ok
            got = client.get(f"/v1/campaigns/{campaign.id}", headers=auth(campaign.gm))
            assert ok(got)["name"] == "越境"
            rolled = ok(
                campaign.post(f"/v1/campaigns/{campaign.id}/rolls", json={"expression": "2D6"}),
                200,  # in the table log, moved with the campaign
            )
            assert events_of(owners[target], target, rolled["roll_log"]["id"])
    finally:
        runtime.close()


def test_a_write_between_the_fence_and_the_switch_is_a_503_then_lands_on_the_new_shard(
    table: Table,
) -> None:
    def stop_before_the_switch(step: str) -> None:
        if step == "switch":
            raise KeyboardInterrupt("the operator's terminal closed")

    target = 1 - table.source
    with pytest.raises(KeyboardInterrupt):
        move_campaign(
            table.runtime.ledger, UUID(table.campaign), target, hook=stop_before_the_switch
        )
    headers = auth(table.gm) | key()
    body = {"expression": "2D6", "roll_log_id": str(table.roll_logs[0])}
    path = f"/v1/campaigns/{table.campaign}/rolls"
    refused = table.client.post(path, headers=headers, json=body)
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == "1"
    assert refused.json()["type"].endswith("campaign-moving")
    assert "Idempotency-Key" in refused.json()["detail"]
    move_campaign(table.runtime.ledger, UUID(table.campaign), target)
    retried = ok(table.client.post(path, headers=headers, json=body))
    log = str(table.roll_logs[0])
    assert len(events_of(table.owner_url, target, log)) == retried["roll_log"]["version"]
