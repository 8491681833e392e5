"""The table log (issue #35 §7): given a campaign, when members roll without naming a log, then
every roll lands in the campaign's one table log; its logs are listed by name to its readers."""

from __future__ import annotations

import threading
from typing import Any
from uuid import UUID, uuid4

import pytest
from fastapi.testclient import TestClient

from infra.services.runtime import Runtime
from tests.api.conftest import Campaign, auth, open_campaign
from tests.support.runtime import start_runtime

pytestmark = pytest.mark.postgres


def rolled(campaign: Campaign, token: str | None = None, **body: object) -> dict[str, Any]:
    answer = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", token, json=body)
    assert answer.status_code in (200, 201), answer.text
    return dict(answer.json())


def listing(campaign: Campaign, token: str | None = None, **query: int) -> dict[str, Any]:
    answer = campaign.client.get(
        f"/v1/campaigns/{campaign.id}/rolls/logs", headers=auth(token or campaign.gm), params=query
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_gm_and_player_rolls_without_a_log_land_in_one_table_log(client: TestClient) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    path = f"/v1/campaigns/{campaign.id}/rolls"
    first = campaign.post(path, json={"expression": "2D6 先制"})
    assert first.status_code == 201, first.text  # the first roll opens the table log
    table = first.json()["roll_log"]
    assert first.headers["Location"] == f"/v1/roll-logs/{table['id']}"
    second = campaign.post(path, aoi, json={"expression": "1D100<=50 回避"})
    assert second.status_code == 200, second.text  # and the next rolls in it
    assert second.json()["roll_log"]["id"] == table["id"]
    assert second.json()["roll"]["roll_seq"] == 1
    read = client.get(f"/v1/roll-logs/{table['id']}", headers=auth(aoi)).json()
    assert [e["rolled_by"] for e in read["entries"]] == ["gm", "aoi"]
    assert listing(campaign, aoi)["table_log_id"] == table["id"]


def test_a_secret_roll_without_a_log_is_a_secret_roll_in_the_table_log(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    mio = campaign.token_for("mio", role="viewer")
    rolled(campaign, expression="1D6")
    hidden = rolled(campaign, expression="1D100+4271", secret=True)
    [table] = listing(campaign)["logs"]
    assert hidden["roll_log"]["id"] == table["id"]
    _, entry = client.get(f"/v1/roll-logs/{table['id']}", headers=auth(mio)).json()["entries"]
    assert entry["withheld"] is True


def test_a_named_log_is_opened_beside_the_table_log_and_listed_by_name(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    rolled(campaign, expression="2D6")
    rolled(campaign, aoi, expression="1D6")
    secret = rolled(campaign, name="GM秘匿", secret=True, expression="1D100")["roll_log"]
    named = rolled(campaign, aoi, name="探索")["roll_log"]
    rolled(campaign, aoi, roll_log_id=named["id"], expression="2D6")
    found = listing(campaign, aoi)
    assert [(log["name"], log["kind"], log["rolls"]) for log in found["logs"]] == [
        ("table rolls", "table", 2),
        ("探索", "named", 1),
        ("GM秘匿", "secret", 1),
    ]
    assert found["logs"][2]["id"] == secret["id"]
    assert found["logs"][2]["last_roll_at"] is None  # the GM's secret roll: not even when
    assert found["logs"][0]["last_roll_at"] is not None
    assert found["logs"][1]["page"] == f"/table/rolls/{named['id']}"
    assert (found["total"], found["next_offset"]) == (3, None)
    assert listing(campaign)["logs"][2]["last_roll_at"] is not None  # the GM's own


def test_the_list_pages(client: TestClient) -> None:
    campaign = open_campaign(client)
    for name in ("一", "二", "三"):
        rolled(campaign, name=name)
    first = listing(campaign, limit=2)
    assert [log["name"] for log in first["logs"]] == ["三", "二"]
    assert first["next_offset"] == 2
    second = listing(campaign, limit=2, offset=2)
    assert [log["name"] for log in second["logs"]] == ["一"]
    assert (second["next_offset"], second["table_log_id"]) == (None, None)
    too_many = client.get(
        f"/v1/campaigns/{campaign.id}/rolls/logs?limit=1000", headers=auth(campaign.gm)
    )
    assert too_many.status_code == 422


def test_opening_the_table_log_alone_opens_it_once(client: TestClient) -> None:
    campaign = open_campaign(client)
    path = f"/v1/campaigns/{campaign.id}/rolls"
    opened = campaign.post(path, json={})
    assert opened.status_code == 201, opened.text
    again = campaign.post(path, json={})
    assert again.status_code == 200, again.text
    assert again.json()["roll_log"]["id"] == opened.json()["roll_log"]["id"]
    assert again.json()["roll"] is None


def test_concurrent_first_rolls_open_one_table_log(client: TestClient) -> None:
    campaign = open_campaign(client)
    tokens = [campaign.gm, *(campaign.token_for(f"p{n}") for n in range(5))]
    barrier = threading.Barrier(len(tokens))
    answers: list[dict[str, Any]] = []

    def roll(token: str) -> None:
        barrier.wait()
        answers.append(rolled(campaign, token, expression="1D6"))

    threads = [threading.Thread(target=roll, args=(token,)) for token in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == len(tokens)  # every roll landed
    assert len({a["roll_log"]["id"] for a in answers}) == 1
    [table] = listing(campaign)["logs"]
    assert (table["kind"], table["rolls"]) == ("table", len(tokens))


def test_two_processes_opening_the_table_log_at_once_open_one(
    runtime: Runtime, app_url: str, owner_url: str
) -> None:
    """Each process has its own caches: neither knows the other is opening the table log."""
    campaign = uuid4()
    other = start_runtime(app_url, owner_url)
    try:
        barrier = threading.Barrier(2)
        opened: list[UUID] = []

        def first_roll(process: Runtime) -> None:
            barrier.wait()
            log_id, _ = process.roll_logs.table_log(campaign, by="gm")
            process.roll_logs.roll(log_id, "1D6", by="gm")
            opened.append(log_id)

        threads = [threading.Thread(target=first_roll, args=(p,)) for p in (runtime, other)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        other.close()
    assert len(opened) == 2  # both rolled
    assert len(set(opened)) == 1
    [table] = runtime.roll_logs.listed(campaign).logs
    assert runtime.roll_logs.get(table.log_id)[0].rolled_by == ("gm", "gm")


def test_after_the_reveal_the_next_roll_opens_the_next_table_log(client: TestClient) -> None:
    campaign = open_campaign(client)
    old = rolled(campaign, expression="1D6")["roll_log"]["id"]
    assert campaign.post(f"/v1/roll-logs/{old}/reveal").status_code == 200
    after = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", json={"expression": "1D6"})
    assert after.status_code == 201, after.text
    new = after.json()["roll_log"]["id"]
    assert new != old
    found = listing(campaign)
    assert found["table_log_id"] == new
    assert [(log["id"], log["revealed"]) for log in found["logs"]] == [(new, False), (old, True)]


def test_a_log_id_and_a_name_together_are_refused(client: TestClient) -> None:
    campaign = open_campaign(client)
    log = rolled(campaign)["roll_log"]
    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls",
        json={"roll_log_id": log["id"], "name": "x", "expression": "1D6"},
    )
    assert refused.status_code == 422
    assert "not both" in refused.text
