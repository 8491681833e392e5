"""Every player a witness (issue 37): the log publishes signed checkpoints of each shard's
Merkle tree, proves each one extends the last, and proves an event is in it, to anyone who
checks with a verifier that shares no code with the server (tests/support/transparency.py)."""

from __future__ import annotations

import base64
from typing import Any
from uuid import UUID

import psycopg
import pytest
from fastapi.testclient import TestClient

from infra.services.runtime import Runtime
from tests.api.conftest import Campaign, auth, key, open_campaign
from tests.api.fight import open_fight, started_fight
from tests.support import transparency as independent

pytestmark = pytest.mark.postgres


def leaves(owner_url: str, shard: int) -> list[tuple[int, bytes]]:
    """The shard's log as the database holds it: (position, chain hash), in log order."""
    with psycopg.connect(owner_url) as conn:
        query = f"SELECT notification_id, chain_hash FROM senki.events_{shard} ORDER BY 1"
        rows = conn.execute(query).fetchall()  # type: ignore[call-overload]
    return [(int(p), bytes(h)) for p, h in rows]


def trusted(client: TestClient) -> independent.Vkey:
    keys = client.get("/v1/log/key").json()
    return independent.parse_vkey(keys["vkeys"][-1])


def checkpoint(client: TestClient, shard: int) -> tuple[str, independent.Checkpoint]:
    response = client.get(f"/v1/log/{shard}/checkpoint")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    return response.text, independent.open_checkpoint(response.text, trusted(client))


def shard_of(runtime: Runtime, campaign: Campaign) -> int:
    return runtime.ledger.shard_of(UUID(campaign.id))


def grow(campaign: Campaign, name: str) -> None:
    created = campaign.post(f"/v1/campaigns/{campaign.id}/scenarios", json={"name": name})
    assert created.status_code == 201, created.text


def b64(hashes: list[str]) -> list[bytes]:
    return [base64.b64decode(h) for h in hashes]


def test_the_checkpoint_is_a_signed_note_of_the_events_chain_hashes(
    client: TestClient, runtime: Runtime, owner_url: str
) -> None:
    campaign = open_campaign(client)
    shard = shard_of(runtime, campaign)
    keys: dict[str, Any] = client.get("/v1/log/key").json()
    assert keys["origins"] == [
        f"127.0.0.1:8000/shard/{i}" for i in range(len(runtime.ledger.shards))
    ]
    _, signed = checkpoint(client, shard)
    log = leaves(owner_url, shard)
    assert signed.origin == keys["origins"][shard]
    assert signed.size == len(log)
    assert signed.root == independent.mth([chain_hash for _, chain_hash in log])


def test_a_later_checkpoint_is_proved_to_extend_the_one_kept(
    client: TestClient, runtime: Runtime
) -> None:
    campaign = open_campaign(client)
    shard = shard_of(runtime, campaign)
    _, kept = checkpoint(client, shard)
    grow(campaign, "第1話")
    grow(campaign, "第2話")
    _, latest = checkpoint(client, shard)
    assert latest.size > kept.size
    proof = client.get(
        f"/v1/log/{shard}/consistency", params={"first": kept.size, "second": latest.size}
    )
    assert proof.status_code == 200, proof.text
    hashes = b64(proof.json()["hashes"])
    assert independent.consistent(kept.size, latest.size, kept.root, latest.root, hashes)


def test_every_checkpoint_served_is_stored(
    client: TestClient, runtime: Runtime, owner_url: str
) -> None:
    campaign = open_campaign(client)
    shard = shard_of(runtime, campaign)
    first, _ = checkpoint(client, shard)
    grow(campaign, "第1話")
    second, _ = checkpoint(client, shard)
    with psycopg.connect(owner_url) as conn:
        stored = [
            str(row[0])
            for row in conn.execute(f"SELECT note FROM senki.checkpoints_{shard} ORDER BY 1")
        ]
    assert first in stored
    assert second in stored


def test_an_inclusion_proof_puts_a_readers_event_under_the_checkpoint(
    client: TestClient, runtime: Runtime, owner_url: str
) -> None:
    campaign = open_campaign(client)
    shard = shard_of(runtime, campaign)
    grow(campaign, "第1話")
    _, signed = checkpoint(client, shard)
    log = leaves(owner_url, shard)
    position, chain_hash = log[0]
    answer = client.get(
        f"/v1/log/{shard}/inclusion",
        params={"position": position, "size": signed.size},
        headers=auth(campaign.gm),
    )
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["leaf_index"] == 0
    assert body["tree_size"] == signed.size
    root = independent.root_from_inclusion(0, signed.size, chain_hash, b64(body["hashes"]))
    assert root == signed.root


def test_an_inclusion_proof_is_404_to_a_token_of_another_campaign_as_for_no_event(
    client: TestClient, runtime: Runtime, owner_url: str
) -> None:
    campaign = open_campaign(client)
    stranger = open_campaign(client, "別卓")
    shard = shard_of(runtime, campaign)
    _, signed = checkpoint(client, shard)
    position = leaves(owner_url, shard)[0][0]
    theirs = client.get(
        f"/v1/log/{shard}/inclusion",
        params={"position": position, "size": signed.size},
        headers=auth(stranger.gm),
    )
    nothing = client.get(
        f"/v1/log/{shard}/inclusion",
        params={"position": 10**9, "size": signed.size},
        headers=auth(campaign.gm),
    )
    anonymous = client.get(
        f"/v1/log/{shard}/inclusion", params={"position": position, "size": signed.size}
    )
    assert (theirs.status_code, nothing.status_code, anonymous.status_code) == (404, 404, 401)
    assert str(position) in theirs.json()["detail"]
    assert str(campaign.id) not in theirs.text


def test_proofs_of_sizes_the_log_never_had_are_refused_with_422(
    client: TestClient, runtime: Runtime
) -> None:
    campaign = open_campaign(client)
    shard = shard_of(runtime, campaign)
    _, signed = checkpoint(client, shard)
    too_big = client.get(
        f"/v1/log/{shard}/consistency", params={"first": 1, "second": signed.size + 5}
    )
    backwards = client.get(
        f"/v1/log/{shard}/consistency", params={"first": signed.size, "second": 1}
    )
    no_shard = client.get("/v1/log/99/checkpoint")
    assert (too_big.status_code, backwards.status_code, no_shard.status_code) == (422, 422, 404)
    assert too_big.headers["content-type"] == "application/problem+json"


def test_the_head_says_how_many_events_each_shards_tree_holds(
    client: TestClient, runtime: Runtime, owner_url: str
) -> None:
    campaign = open_campaign(client)
    shard = shard_of(runtime, campaign)
    unbuilt = client.get("/v1/log/head").json()["heads"][shard]
    checkpoint(client, shard)  # the first checkpoint builds the tree from the log
    grow(campaign, "第1話")
    heads = client.get("/v1/log/head").json()["heads"]
    assert "tree_size" not in unbuilt  # the head never waits for a whole log to be read
    assert heads[shard]["tree_size"] == len(leaves(owner_url, shard))


def test_every_event_a_reader_gets_names_its_leaf_and_its_inclusion_proof_holds(
    client: TestClient,
) -> None:
    fight = started_fight(client)
    player = fight.tokens["aoi"]
    events = fight.get("/events", by="aoi").json()["events"]
    streamed = client.get(
        f"/v1/encounters/{fight.id}/stream", params={"after": 0, "limit": 2}, headers=auth(player)
    ).text
    log = events[-1]["log"]
    assert [e["log"]["position"] for e in events] == [e["position"] for e in events]
    assert f'"leaf_index":{events[1]["log"]["leaf_index"]}' in streamed.replace(" ", "")
    _, signed = checkpoint(client, log["shard"])
    proof = client.get(
        f"/v1/log/{log['shard']}/inclusion",
        params={"position": log["position"], "size": signed.size},
        headers=auth(player),
    ).json()
    assert proof["leaf_index"] == log["leaf_index"]
    leaf = bytes.fromhex(log["chain_hash"])
    root = independent.root_from_inclusion(
        log["leaf_index"], signed.size, leaf, b64(proof["hashes"])
    )
    assert root == signed.root


def test_a_commands_answer_names_each_facts_leaf_as_events_does_and_so_does_its_retry(
    client: TestClient,
) -> None:
    """A command's facts are placed by its append (their positions come back with it): the
    answer names the same leaves `/events` does; a retry (the same Idempotency-Key) too."""
    fight = open_fight(client)
    at = fight.version()
    sent = auth(fight.campaign.gm, **{"If-Match": f'"{at}"'}) | key()
    body = {"command": "RollInitiative"}
    path = f"/v1/encounters/{fight.id}/commands"
    answered = client.post(path, headers=sent, json=body).json()
    retried = client.post(path, headers=sent, json=body).json()
    events = fight.get("/events", after=at).json()["events"]
    assert [f["log"] for f in answered["facts"]] == [e["log"] for e in events]
    assert [f["position"] for f in answered["facts"]] == [e["position"] for e in events]
    assert all(f["log"] is not None for f in answered["facts"])
    assert retried["facts"] == answered["facts"]


def test_every_roll_of_a_roll_log_names_its_events_leaf_and_its_inclusion_proof_holds(
    client: TestClient, runtime: Runtime, owner_url: str
) -> None:
    campaign = open_campaign(client)
    player = campaign.token_for("aoi")
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", json={"expression": "2D6", "name": "卓"}
    )
    assert opened.status_code == 201, opened.text
    log_id = opened.json()["roll_log"]["id"]
    second = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls",
        player,
        json={"expression": "1D6", "roll_log_id": log_id},
    ).json()["roll"]
    read = client.get(f"/v1/roll-logs/{log_id}", headers=auth(player)).json()["entries"]
    shard = shard_of(runtime, campaign)
    held = dict(leaves(owner_url, shard))
    order = [p for p, _ in leaves(owner_url, shard)]
    assert [r["log"] for r in read][1] == second["log"]
    assert [r["log"]["position"] for r in read] == [r["position"] for r in read]
    for roll in read:
        log = roll["log"]
        assert log["shard"] == shard
        assert bytes.fromhex(log["chain_hash"]) == held[log["position"]]
        assert log["leaf_index"] == order.index(log["position"])
    _, signed = checkpoint(client, shard)
    proof = client.get(
        f"/v1/log/{shard}/inclusion",
        params={"position": second["log"]["position"], "size": signed.size},
        headers=auth(player),
    ).json()
    root = independent.root_from_inclusion(
        second["log"]["leaf_index"],
        signed.size,
        bytes.fromhex(second["log"]["chain_hash"]),
        b64(proof["hashes"]),
    )
    assert root == signed.root
    stranger = open_campaign(client)  # a token of another campaign: as if nothing stood there
    theirs = client.get(
        f"/v1/log/{shard}/inclusion",
        params={"position": second["log"]["position"], "size": signed.size},
        headers=auth(stranger.gm),
    )
    assert theirs.status_code == 404, theirs.text
