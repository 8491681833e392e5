"""Numbers a client sends are bounded at the edge: a 422 that names the field and the range,
never a 201 for a sheet the read models cannot hold (issue #15, section 2)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter, ValidationError

from api.encounter_commands import EncounterCommand
from tests.api.conftest import Campaign, open_campaign
from tests.api.roster import AOI, register_pilot

pytestmark = pytest.mark.postgres


@pytest.fixture
def campaign(client: TestClient) -> Campaign:
    campaign = open_campaign(client)
    campaign.token_for("aoi")
    return campaign


def refused(campaign: Campaign, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = campaign.post(path, json=body)
    assert answer.status_code == 422, answer.text
    problem: dict[str, Any] = answer.json()
    return problem


def test_gd_stat_a_pilot_with_hp_ten_to_the_nineteen_is_a_422_naming_the_field(
    campaign: Campaign,
) -> None:
    body = {"owner": "aoi", "name": "Aoi", "base_stats": AOI | {"hp": 10**19}}
    problem = refused(campaign, f"/v1/campaigns/{campaign.id}/characters", body)
    assert [e["field"] for e in problem["errors"]] == ["body.base_stats.hp"]
    assert "9999" in problem["detail"]


def test_gd_stat_1_a_pilot_of_level_two_to_the_sixty_third_is_a_422(campaign: Campaign) -> None:
    body = {"owner": "aoi", "name": "Aoi", "level": 2**63, "base_stats": AOI}
    problem = refused(campaign, f"/v1/campaigns/{campaign.id}/characters", body)
    assert [e["field"] for e in problem["errors"]] == ["body.level"]
    assert "999" in problem["detail"]


def test_gd_cost_1_an_item_costing_past_the_bound_is_a_422(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)
    item = {"name": "剣", "slot": "weapon", "cost": 2**40, "stats": {"hp": -(2**40)}}
    problem = refused(campaign, f"/v1/characters/{pilot['id']}/items", item)
    assert {e["field"] for e in problem["errors"]} == {"body.cost", "body.stats.hp"}


def test_gd_stat_a_unit_with_a_huge_stat_is_a_422(campaign: Campaign) -> None:
    pilot = register_pilot(campaign)
    body = {"pilot_id": pilot["id"], "name": "紅", "base_stats": AOI | {"capacity": 10**10}}
    problem = refused(campaign, f"/v1/campaigns/{campaign.id}/units", body)
    assert [e["field"] for e in problem["errors"]] == ["body.base_stats.capacity"]


COMMANDS = TypeAdapter(EncounterCommand)


@pytest.mark.parametrize(
    ("command", "field"),
    [
        ({"command": "Move", "combatant_id": "a", "path": [{"x": 10**12, "y": 0}]}, "x"),
        (
            {"command": "GrantSituationModifier", "defender": "a", "percent": 101, "reason": "r"},
            "percent",
        ),
        (
            {"command": "InflictStatus", "target": "a", "status": "s", "effect_value": 10**6},
            "effect_value",
        ),
        (
            {
                "command": "JoinCombatant",
                "combatant_id": "a",
                "name": "a",
                "side": "enemy",
                "controller": "gm",
                "sheet": {"stats": {"hp": 10**19}},
            },
            "sheet",
        ),
        (
            {"command": "Declare", "combatant_id": "a", "form": "c", "full": "x", "ini": 2**63},
            "ini",
        ),
        (
            {
                "command": "ApplyArmorEffect",
                "target": "b",
                "armor": "physical",
                "amount": -(2**40),
                "mode": "reduced",
                "reason": "r",
            },
            "amount",
        ),
        ({"command": "StartMove", "unit_id": "r", "f_steps": [{"x": 2**40, "y": 0}]}, "x"),
        ({"command": "Dodge", "combatant_id": "a", "hand_faces": [2**40]}, "hand_faces"),
    ],
)
def test_encounter_command_numbers_are_bounded_for_every_rule_system(
    command: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as invalid:
        COMMANDS.validate_python(command)
    assert any(field in map(str, error["loc"]) for error in invalid.value.errors())
