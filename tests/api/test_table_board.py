"""What the table page reads beside the encounter: given a scenario fight with Aoi in her
Assault Core, then the core's crew and both HP (GD-HPS-1), and the procedure's stops."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth, open_campaign
from tests.api.fight import Fight, join
from tests.api.roster import ok, register_core, register_pilot, start_scenario
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres


def scenario_fight(client: TestClient, *, hidden: bool = False) -> Fight:
    """Aoi (max HP 80) rides Kurenai (max HP 400, EX-HPS-1) in a started scenario's fight; a
    hidden enemy core of the GM's shares the map. Initiative is rolled."""
    campaign = open_campaign(client)
    tokens = {"aoi": campaign.token_for("aoi"), "mio": campaign.token_for("mio", role="viewer")}
    aoi = register_pilot(campaign)["id"]
    core = register_core(campaign, aoi)["id"]
    scenario = start_scenario(campaign, {aoi: core})
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/encounters",
        json={"scenario_id": scenario, "battle_map": {"width": 12, "height": 12}},
    )
    fight = Fight(campaign, ok(opened, 201)["id"], tokens)
    body = sheet(1, 1, reaction=20, hp=400, body="assault_core") | {"hp": 100}
    join(fight, core, "aoi", "pc", body, hidden=hidden)
    join(fight, "foe", "gm", "enemy", sheet(5, 5, hp=300, body="assault_core"), hidden=True)
    ok(fight.command({"command": "RollInitiative"}))
    return fight


@pytest.fixture
def fight(client: TestClient) -> Fight:
    return scenario_fight(client)


def crews(fight: Fight, by: str = "gm") -> list[dict[str, Any]]:
    answer: list[dict[str, Any]] = fight.get("/crews", by=by).json()
    return answer


def test_the_core_names_its_pilot_and_both_hp_at_the_shared_ratio(fight: Fight) -> None:
    [crew] = crews(fight, by="mio")
    assert (crew["pilot_name"], crew["unit_name"]) == ("蒼井ソラ", "紅")
    assert crew["combatant_id"] == crew["unit_id"]
    assert (crew["pilot_hp"], crew["pilot_max_hp"]) == (20, 80)
    assert (crew["ratio"]["numerator"], crew["ratio"]["denominator"]) == (1, 4)


def test_the_crew_of_a_hidden_core_keeps_its_hp_from_a_viewer(client: TestClient) -> None:
    fight = scenario_fight(client, hidden=True)
    [seen_by_viewer] = crews(fight, by="mio")
    assert seen_by_viewer["pilot_name"] == "蒼井ソラ"
    assert (seen_by_viewer["pilot_hp"], seen_by_viewer["ratio"]) == (None, None)
    [seen_by_pilot] = crews(fight, by="aoi")
    assert seen_by_pilot["pilot_hp"] == 20


def test_the_crews_travel_in_time_with_the_board(fight: Fight) -> None:
    opened = fight.get("/crews", version=1).json()  # before anyone joined
    assert opened == []
    assert len(fight.get("/crews", version=fight.version()).json()) == 1


def test_a_fight_outside_a_scenario_has_no_crews(client: TestClient) -> None:
    from tests.api.fight import open_fight

    plain = open_fight(client)
    assert plain.get("/crews").json() == []


def test_the_points_are_the_procedures_stops_in_order(fight: Fight) -> None:
    points = fight.get("/points", by="mio").json()
    assert points, points
    versions = [p["version"] for p in points]
    assert versions == sorted(set(versions))
    assert points[-1]["version"] <= fight.version()
    first_turn = [p for p in points if p["turn"] == 1]
    assert first_turn
    assert first_turn[0]["phase"] in ("initiative", "main_action")
    at = fight.get(f"?version={first_turn[0]['version']}").json()
    assert at["procedure"]["turn"] == 1


def test_another_campaign_cannot_read_the_crews(client: TestClient, fight: Fight) -> None:
    other = open_campaign(client)
    answer = client.get(f"/v1/encounters/{fight.id}/crews", headers=auth(other.gm))
    assert answer.status_code == 403
