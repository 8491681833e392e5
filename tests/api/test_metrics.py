"""GET /metrics: given commands through the API, when Prometheus scrapes, then it reads the
request latency by route template, commands by kind and outcome, conflicts, dice, and the
projection lag per read model and shard (parsed as Prometheus parses it, not by regex)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from api.app import create_app
from api.metrics import projections
from infra.services.runtime import Runtime
from tests.api.conftest import auth, key
from tests.api.fight import open_fight, started_fight
from tests.support.readside import project_until_caught_up

pytestmark = pytest.mark.postgres

COMMANDS = "/v1/encounters/{encounter_id}/commands"


def scrape(client: TestClient) -> list[Sample]:
    answer = client.get("/metrics")
    assert answer.status_code == 200, answer.text
    return [s for family in text_string_to_metric_families(answer.text) for s in family.samples]


def value(samples: list[Sample], name: str, **labels: str) -> float:
    """The one sample of that name whose labels include `labels` (0 when there is none)."""
    found = [s for s in samples if s.name == name and labels.items() <= s.labels.items()]
    assert len(found) <= 1, found
    return found[0].value if found else 0.0


def commands_timed(samples: list[Sample], status: str) -> float:
    """How many encounter commands were answered with `status`, by the latency histogram."""
    return value(
        samples,
        "senki_http_request_duration_seconds_count",
        method="POST",
        route=COMMANDS,
        status=status,
    )


def commands(samples: list[Sample], ruleset: str, command: str, outcome: str) -> float:
    return value(samples, "senki_commands_total", ruleset=ruleset, command=command, outcome=outcome)


def test_requests_are_timed_by_route_template_and_commands_counted_by_kind(
    client: TestClient,
) -> None:
    fight = started_fight(client)  # three JoinCombatant and one RollInitiative
    client.get("/no/such/page")

    samples = scrape(client)

    assert commands_timed(samples, "200") == 4
    assert value(
        samples, "senki_http_request_duration_seconds_count", route="unmatched", status="404"
    )
    assert not [s for s in samples if fight.id in str(s.labels)]  # ids never become labels
    assert commands(samples, "glorious_drive", "JoinCombatant", "accepted") == 3
    assert commands(samples, "glorious_drive", "RollInitiative", "accepted") == 1
    assert commands(samples, "none", "open_encounter", "accepted") == 1
    assert commands(samples, "none", "create_campaign", "accepted") == 1


def test_a_stale_if_match_and_a_missing_one_are_counted_as_conflicts(
    client: TestClient,
) -> None:
    fight = started_fight(client)
    now = fight.version()
    stale = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi", version=now - 1)
    assert stale.status_code == 412, stale.text
    bare = auth(fight.token("aoi")) | key()
    missing = client.post(
        f"/v1/encounters/{fight.id}/commands",
        headers=bare,
        json={"command": "Cleanup", "combatant_id": "ace"},
    )
    assert missing.status_code == 428, missing.text

    samples = scrape(client)

    assert value(samples, "senki_write_conflicts_total", reason="stale_if_match") == 1
    assert value(samples, "senki_write_conflicts_total", reason="if_match_missing") == 1
    assert commands(samples, "glorious_drive", "Cleanup", "conflict") == 2
    assert commands(samples, "glorious_drive", "Cleanup", "accepted") == 0


def test_a_command_out_of_turn_is_counted_as_refused_by_rule(client: TestClient) -> None:
    fight = open_fight(client)
    refused = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    assert refused.status_code == 422

    samples = scrape(client)

    assert commands(samples, "glorious_drive", "Cleanup", "refused_by_rule") == 1
    assert value(samples, "senki_write_conflicts_total") == 0


def test_dice_are_counted_by_who_rolled_them_and_a_retry_counts_none(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    by_hand = fight.command({"command": "RollInitiative", "hand_faces": [6, 5, 4]})
    assert by_hand.status_code == 200, by_hand.text
    retry = auth(fight.campaign.gm) | key()
    path = f"/v1/campaigns/{fight.campaign.id}/rolls"
    first = client.post(path, headers=retry, json={"expression": "2D6+3>=10 攻撃"})
    again = client.post(path, headers=retry, json={"expression": "2D6+3>=10 攻撃"})
    assert first.status_code == 201, first.text  # it opened the table log
    assert again.status_code == 200, again.text  # the retry finds it open: the same answer
    assert again.json() == first.json()  # answered from the idempotency store

    samples = scrape(client)

    assert value(samples, "senki_dice_rolls_total", source="hand") == len(by_hand.json()["rolls"])
    assert value(samples, "senki_dice_rolls_total", source="server") == 1
    assert commands(samples, "none", "roll", "accepted") == 1
    assert commands(samples, "none", "roll", "replayed") == 1


def test_a_command_retried_with_its_key_counts_as_replayed_and_its_dice_once(
    client: TestClient,
) -> None:
    """Counted where it is executed (the command route), from what the service answered."""
    fight = open_fight(client)
    sent = auth(fight.campaign.gm, **{"If-Match": f'"{fight.version()}"'}) | key()
    path = f"/v1/encounters/{fight.id}/commands"
    first = client.post(path, headers=sent, json={"command": "RollInitiative"})
    again = client.post(path, headers=sent, json={"command": "RollInitiative"})
    assert first.status_code == again.status_code == 200, first.text
    assert again.json() == first.json()

    samples = scrape(client)

    assert commands(samples, "glorious_drive", "RollInitiative", "accepted") == 1
    assert commands(samples, "glorious_drive", "RollInitiative", "replayed") == 1
    rolled = len(first.json()["rolls"])
    assert rolled > 0
    assert value(samples, "senki_dice_rolls_total", source="server") == rolled


def test_a_body_of_no_command_is_timed_but_counted_as_no_command(client: TestClient) -> None:
    """Refused before the route reads it: no ruleset or command label is made from it."""
    fight = open_fight(client)
    refused = fight.command({"command": "NoSuchCommand"})
    assert refused.status_code == 422, refused.text

    samples = scrape(client)

    assert commands_timed(samples, "422") == 1
    assert not [s for s in samples if "NoSuchCommand" in str(s.labels)]


def test_an_event_stream_is_timed_to_its_first_byte_while_it_still_streams(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    at = fight.version()
    received: list[str] = []

    def listen() -> None:  # waits for the one next event, however long it takes
        answer = fight.get("/stream", after=at, limit=1)
        received.append(answer.text)

    listener = threading.Thread(target=listen)
    listener.start()
    timed = 0.0
    for _ in range(200):  # bounded: the stream's response starts at once
        timed = value(
            scrape(client),
            "senki_http_request_duration_seconds_count",
            route="/v1/encounters/{encounter_id}/stream",
        )
        if timed:
            break
        time.sleep(0.05)
    assert timed == 1  # recorded while the stream is open, not when it closes
    assert listener.is_alive()
    assert fight.command({"command": "RollInitiative"}).status_code == 200
    listener.join(timeout=30)
    assert f"id: {at + 1}\nevent: CommandIssued" in received[0]  # it streamed, untouched


@pytest.fixture
def uncached(runtime: Runtime, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    """A client whose /metrics reads the database on every scrape (no 2 s cache)."""
    monkeypatch.setattr(projections, "CACHE_SECONDS", 0.0)
    with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
        yield client


def lags(samples: list[Sample]) -> dict[tuple[str, str], float]:
    return {
        (s.labels["projection"], s.labels["shard"]): s.value
        for s in samples
        if s.name == "senki_projection_lag_events" and s.labels["role"] == "live"
    }


def test_projection_lag_per_projection_and_shard_falls_to_zero_once_projected(
    uncached: TestClient, runtime: Runtime
) -> None:
    url, ledger = runtime.urls.service, runtime.ledger
    shards = {str(s) for s in range(len(ledger.shards))}
    project_until_caught_up(url, ledger)
    caught_up = scrape(uncached)
    assert value(caught_up, "senki_database_up") == 1
    assert {shard for _, shard in lags(caught_up)} == shards
    assert set(lags(caught_up).values()) == {0}

    started_fight(uncached)  # events the projector has not seen
    behind = scrape(uncached)
    for projection in {p for p, _ in lags(behind)}:
        assert sum(v for (p, _), v in lags(behind).items() if p == projection) > 0, projection
    for head in runtime.log_heads():
        assert value(behind, "senki_log_head_position", shard=str(head.shard)) == head.position

    project_until_caught_up(url, ledger)
    after = scrape(uncached)
    assert set(lags(after).values()) == {0}
    for sample in (s for s in after if s.name == "senki_projection_position"):
        head = value(after, "senki_log_head_position", shard=sample.labels["shard"])
        assert sample.value == head, sample
