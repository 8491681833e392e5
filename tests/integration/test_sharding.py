"""The sharded log (issue #7): campaigns are placed on shards by id, and everything of a campaign
follows it; the projector merges every shard; the shard count can grow but never shrink.

Given a log of four shards, when several campaigns play over HTTP, then each campaign's streams
(the campaign, its pilots, cores, scenarios, encounters and roll logs) are all in one events
table, the one `campaign id mod 4` names, and the read models hold every campaign.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from api.app import create_app
from domain import roll_logs
from infra import bootstrap
from infra.settings import Settings
from infra.store.migrate import migrate
from infra.store.placement import ShardsShrunk, shard_for_campaign
from tests.api.conftest import Campaign, auth, key, open_campaign
from tests.api.roster import ok, register_core, register_pilot, start_scenario
from tests.support import databases
from tests.support.databases import APP_ROLE
from tests.support.readside import project_until_caught_up
from tests.support.runtime import TEST_DICE_KEY

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
SHARDS = 4


def settings(app_url: str, shards: int) -> Settings:
    return Settings(
        database_url=SecretStr(app_url),
        dice_master_key=SecretStr(TEST_DICE_KEY),
        shards=shards,
    )


@pytest.fixture
def sharded(pg_server: databases.TestServer) -> Iterator[tuple[str, str]]:
    """A database migrated with four shards: (service URL, owner URL)."""
    with pg_server.fresh_database(shards=SHARDS) as name:
        yield pg_server.url(name, user=APP_ROLE), pg_server.url(name)


@pytest.fixture
def runtime(sharded: tuple[str, str]) -> Iterator[bootstrap.Runtime]:
    running = bootstrap.start(settings(sharded[0], SHARDS))
    yield running
    running.close()


@pytest.fixture
def client(runtime: bootstrap.Runtime) -> Iterator[TestClient]:
    with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
        yield client


def play_a_campaign(client: TestClient, name: str) -> tuple[Campaign, set[str]]:
    """A campaign with a pilot, a core, a started scenario, an encounter and its table log
    (with the list of its roll logs); returns it and the ids of every stream it made."""
    campaign = open_campaign(client, name)
    campaign.token_for("aoi")  # the pilot's owner is a player of the campaign
    pilot = register_pilot(campaign)["id"]
    core = register_core(campaign, pilot)["id"]
    scenario = start_scenario(campaign, {pilot: core})
    fight = ok(
        campaign.post(
            f"/v1/campaigns/{campaign.id}/encounters",
            json={"scenario_id": scenario, "battle_map": {"width": 8, "height": 8}},
        ),
        201,
    )
    rolled = ok(
        campaign.post(f"/v1/campaigns/{campaign.id}/rolls", json={"expression": "2D6"}), 201
    )
    listed = str(roll_logs.stream_of(uuid.UUID(campaign.id)))
    made = {campaign.id, pilot, core, scenario, fight["id"], rolled["roll_log"]["id"], listed}
    return campaign, made


def shards_of_streams(owner_url: str, shards: int) -> dict[str, set[int]]:
    """Every stream id in the log and the events tables it has events in."""
    found: dict[str, set[int]] = {}
    with psycopg.connect(owner_url) as conn:
        for index in range(shards):
            rows = conn.execute(
                f"SELECT DISTINCT originator_id FROM senki.events_{index}"
            ).fetchall()
            for (stream,) in rows:
                found.setdefault(str(stream), set()).add(index)
    return found


def test_every_stream_of_a_campaign_lands_on_the_campaigns_shard(
    client: TestClient, sharded: tuple[str, str]
) -> None:
    played = [play_a_campaign(client, f"卓{n}") for n in range(8)]
    where = shards_of_streams(sharded[1], SHARDS)
    for campaign, streams in played:
        home = shard_for_campaign(uuid.UUID(campaign.id), SHARDS)
        assert {stream: where[stream] for stream in streams} == {
            stream: {home} for stream in streams
        }
    used = {shard_for_campaign(uuid.UUID(c.id), SHARDS) for c, _ in played}
    assert len(used) >= 2, "eight random campaigns should not all hash to one shard"


def test_reads_find_each_stream_on_its_shard_after_a_restart(
    client: TestClient, sharded: tuple[str, str]
) -> None:
    campaign, streams = play_a_campaign(client, "再開")
    fresh = bootstrap.start(settings(sharded[0], SHARDS))  # a new process: an empty cache
    try:
        with TestClient(create_app(lambda: fresh, lambda _: None)) as other:
            got = other.get(f"/v1/campaigns/{campaign.id}", headers=auth(campaign.gm))
            events = other.get(
                f"/v1/encounters/{_encounter(streams, fresh)}/events", headers=auth(campaign.gm)
            )
    finally:
        fresh.close()
    assert ok(got)["name"] == "再開"
    assert ok(events)["events"], "the encounter's events are read from its own shard"


def _encounter(streams: set[str], runtime: bootstrap.Runtime) -> str:
    from domain.encounter.events import EncounterOpened

    for stream in streams:
        first = runtime.ledger.read(uuid.UUID(stream), upto=1)
        if first and isinstance(first[0].event, EncounterOpened):
            return stream
    raise AssertionError("no encounter among the campaign's streams")


def test_a_retried_create_answers_once_on_every_shard(client: TestClient) -> None:
    """Idempotency records live on the stream's shard: a retried create must find its own.
    (Sent with the GM's token: an anonymous retry is never shown the first answer's token.)"""
    campaign = open_campaign(client, "再送")
    headers = auth(campaign.gm) | key()
    body: dict[str, Any] = {"name": "再送の表"}
    path = f"/v1/campaigns/{campaign.id}/rolls"
    first = client.post(path, headers=headers, json=body)
    again = client.post(path, headers=headers, json=body)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()


def test_the_projector_merges_every_shard(
    client: TestClient, runtime: bootstrap.Runtime, sharded: tuple[str, str]
) -> None:
    played = [play_a_campaign(client, f"投影{n}") for n in range(6)]
    project_until_caught_up(sharded[0], runtime.ledger)
    for campaign, _ in played:
        timeline = client.get(f"/v1/campaigns/{campaign.id}/timeline", headers=auth(campaign.gm))
        assert ok(timeline)["rows"], f"campaign {campaign.id} is in the read model"
    heads = {index: runtime.ledger.head(shard=index).position for index in range(SHARDS)}
    with psycopg.connect(sharded[1]) as conn:
        tracked = conn.execute(
            "SELECT DISTINCT t.shard, t.position FROM senki_read.tracking t "
            "JOIN senki_read.projections p ON p.name = t.projection "
            "AND p.live_generation = t.generation"
        ).fetchall()
    assert dict(tracked) == heads
    for index in range(SHARDS):
        assert runtime.ledger.verify(shard=index).ok


def test_the_shard_count_grows_and_old_campaigns_stay_where_they_are(
    pg_server: databases.TestServer,
) -> None:
    with pg_server.fresh_database(shards=1) as name:
        app_url, owner_url = pg_server.url(name, user=APP_ROLE), pg_server.url(name)
        one = bootstrap.start(settings(app_url, 1))
        try:
            with TestClient(create_app(lambda: one, lambda _: None)) as single:
                old, old_streams = play_a_campaign(single, "一枚")
        finally:
            one.close()
        migrate(owner_url, app_role=APP_ROLE, shards=SHARDS)
        four = bootstrap.start(settings(app_url, SHARDS))
        try:
            with TestClient(create_app(lambda: four, lambda _: None)) as grown:
                assert ok(grown.get(f"/v1/campaigns/{old.id}", headers=auth(old.gm)))
                more = [play_a_campaign(grown, f"四枚{n}")[0] for n in range(6)]
                # A new stream of an old campaign follows the campaign, not the new count.
                pilot = register_pilot(Campaign(old.id, old.gm, grown))["id"]
        finally:
            four.close()
        where = shards_of_streams(owner_url, SHARDS)
        assert {where[s] == {0} for s in {*old_streams, pilot}} == {True}
        assert {shard_for_campaign(uuid.UUID(c.id), SHARDS) for c in more} != {0}
        with pytest.raises(ShardsShrunk, match="at least"):
            bootstrap.start(settings(app_url, 1))
