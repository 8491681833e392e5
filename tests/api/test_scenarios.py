"""Scenarios over HTTP: given pilots and cores, when a scenario starts and closes, then their HP.

EX-HPS-1: pilot max 80, AC max 400. The AC ends at 100/400 → the pilot is carried at 20/80,
and in the next scenario the AC enters at 100/400 and the pilot on foot at 20/80.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from fastapi.testclient import TestClient

from infra.services.runtime import Runtime
from tests.api.conftest import auth, key, open_campaign
from tests.api.roster import ok, register_core, register_pilot, start_scenario
from tests.support.runtime import log_heads

pytestmark = pytest.mark.postgres


class Table:
    """A campaign with Aoi and her Assault Core Kurenai registered at full HP."""

    def __init__(self, client: TestClient) -> None:
        self.campaign = open_campaign(client)
        self.aoi_token = self.campaign.token_for("aoi")
        self.aoi = register_pilot(self.campaign)["id"]
        self.kurenai = register_core(self.campaign, self.aoi)["id"]

    def get(self, path: str) -> dict[str, Any]:
        return ok(self.campaign.client.get(path, headers=auth(self.campaign.gm)))

    def close(self, scenario: str, end_hp: int, **headers: str) -> Any:
        results = [{"character_id": self.aoi, "end_hp": end_hp}]
        return self.campaign.client.post(
            f"/v1/scenarios/{scenario}/close",
            headers=auth(self.campaign.gm) | key() | headers,
            json={"results": results},
        )


@pytest.fixture
def table(client: TestClient) -> Table:
    return Table(client)


def test_the_gm_opens_a_scenario_and_anyone_of_the_campaign_reads_it(table: Table) -> None:
    opened = table.campaign.post(
        f"/v1/campaigns/{table.campaign.id}/scenarios", json={"name": "第1話"}
    )
    body = ok(opened, 201)
    assert (body["status"], body["participants"]) == ("open", [])
    read = table.campaign.client.get(
        f"/v1/scenarios/{body['id']}", headers=auth(table.campaign.site_token())
    )
    assert ok(read)["name"] == "第1話"
    unchanged = table.campaign.client.get(
        f"/v1/scenarios/{body['id']}", headers=auth(table.aoi_token, **{"If-None-Match": '"1"'})
    )
    assert unchanged.status_code == 304


def test_a_player_may_not_open_start_or_close_a_scenario(table: Table) -> None:
    path = f"/v1/campaigns/{table.campaign.id}/scenarios"
    assert table.campaign.post(path, table.aoi_token, json={"name": "x"}).status_code == 403
    scenario = ok(table.campaign.post(path, json={"name": "x"}), 201)["id"]
    joined = table.campaign.post(
        f"/v1/scenarios/{scenario}/participants",
        table.aoi_token,
        json={"character_id": table.aoi, "unit_id": table.kurenai},
    )
    assert joined.status_code == 200  # a player joins their own pilot
    started = table.campaign.post(f"/v1/scenarios/{scenario}/start", table.aoi_token)
    assert started.status_code == 403


def test_a_player_may_not_join_someone_elses_pilot(table: Table) -> None:
    kai = table.campaign.token_for("kai")
    path = f"/v1/campaigns/{table.campaign.id}/scenarios"
    scenario = ok(table.campaign.post(path, json={"name": "x"}), 201)["id"]
    refused = table.campaign.post(
        f"/v1/scenarios/{scenario}/participants", kai, json={"character_id": table.aoi}
    )
    assert refused.status_code == 403


def test_starting_records_entering_hp_at_the_carried_ratio(table: Table) -> None:
    scenario = start_scenario(table.campaign, {table.aoi: table.kurenai})

    entry = table.get(f"/v1/scenarios/{scenario}")["entries"][0]

    assert (entry["pilot_hp"], entry["pilot_max_hp"]) == (80, 80)
    assert (entry["unit_hp"], entry["unit_max_hp"]) == (400, 400)


def test_EX_HPS_1_closing_carries_the_cores_ratio_to_the_pilot_and_into_the_next_scenario(
    table: Table,
) -> None:
    first = start_scenario(table.campaign, {table.aoi: table.kurenai})

    closed = ok(table.close(first, 100))

    assert closed["status"] == "closed"
    outcome = closed["outcomes"][0]
    assert (outcome["fought_in"], outcome["end_hp"], outcome["max_hp"]) == (table.kurenai, 100, 400)
    assert (outcome["ratio"]["numerator"], outcome["ratio"]["denominator"]) == (1, 4)
    pilot = table.get(f"/v1/characters/{table.aoi}")
    assert (pilot["current_hp"], pilot["max_hp"], pilot["carried_ratio"]["value"]) == (20, 80, 0.25)
    assert table.get(f"/v1/units/{table.kurenai}")["current_hp"] == 100

    second = start_scenario(table.campaign, {table.aoi: table.kurenai})
    entry = table.get(f"/v1/scenarios/{second}")["entries"][0]
    assert (entry["unit_hp"], entry["unit_max_hp"]) == (100, 400)
    on_foot = start_scenario(table.campaign, {table.aoi: None})
    entry = table.get(f"/v1/scenarios/{on_foot}")["entries"][0]
    assert (entry["pilot_hp"], entry["pilot_max_hp"], entry["unit_hp"]) == (20, 80, None)


def test_a_retried_close_and_a_second_close_append_nothing(table: Table, runtime: Runtime) -> None:
    scenario = start_scenario(table.campaign, {table.aoi: table.kurenai})
    retry = {"Idempotency-Key": "close-scenario-1"}
    first = ok(table.close(scenario, 100, **retry))
    head = log_heads(runtime)

    again = ok(table.close(scenario, 100, **retry))
    second = ok(table.close(scenario, 300))  # a new request: the scenario is closed already

    assert again == first
    assert second["outcomes"] == first["outcomes"]
    assert log_heads(runtime) == head
    assert table.get(f"/v1/characters/{table.aoi}")["current_hp"] == 20


def test_the_close_and_every_carry_land_in_one_append(table: Table, runtime: Runtime) -> None:
    scenario = start_scenario(table.campaign, {table.aoi: table.kurenai})
    shard = runtime.ledger.shard_of(UUID(scenario))  # the campaign's, and so every carry's
    before = runtime.ledger.head(shard=shard).position

    ok(table.close(scenario, 100))

    appended = runtime.ledger.read_log(after=before, shard=shard)
    assert [r.event.event_type for r in appended] == [
        "ScenarioClosed",
        "ScenarioHpCarried",
        "UnitScenarioHpCarried",
    ]


def test_closing_with_a_stale_if_match_is_412_and_changes_nothing(table: Table) -> None:
    scenario = start_scenario(table.campaign, {table.aoi: table.kurenai})
    stale = table.close(scenario, 100, **{"If-Match": '"1"'})
    assert stale.status_code == 412
    assert table.get(f"/v1/characters/{table.aoi}")["current_hp"] == 80


def test_closing_before_the_start_is_409_and_a_missing_result_names_the_pilot(
    table: Table,
) -> None:
    path = f"/v1/campaigns/{table.campaign.id}/scenarios"
    scenario = ok(table.campaign.post(path, json={"name": "x"}), 201)["id"]
    assert table.close(scenario, 100).status_code == 409

    started = start_scenario(table.campaign, {table.aoi: None})
    missing = table.campaign.post(f"/v1/scenarios/{started}/close", json={"results": []})
    assert missing.status_code == 409
    assert table.aoi in missing.json()["detail"]


def test_a_dead_pilot_is_lost_and_cannot_join_again(table: Table) -> None:
    scenario = start_scenario(table.campaign, {table.aoi: None})
    results = [{"character_id": table.aoi, "end_hp": -200, "injury": "dead"}]
    ok(table.campaign.post(f"/v1/scenarios/{scenario}/close", json={"results": results}))

    assert table.get(f"/v1/characters/{table.aoi}")["lost"] is True
    path = f"/v1/campaigns/{table.campaign.id}/scenarios"
    later = ok(table.campaign.post(path, json={"name": "次"}), 201)["id"]
    refused = table.campaign.post(
        f"/v1/scenarios/{later}/participants", json={"character_id": table.aoi}
    )
    assert refused.status_code == 422
    assert refused.json()["rule_id"] == "GD-INJ-4"
