"""Units over HTTP: given a pilot, when their Assault Core is registered or equipped, its HP."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import Campaign, auth, open_campaign
from tests.api.roster import KURENAI, ok, register_core, register_pilot

pytestmark = pytest.mark.postgres

RIFLE = {"name": "ビームライフル", "slot": "weapon", "cost": 150, "stats": {"ranged_hit": 5}}


@pytest.fixture
def campaign(client: TestClient) -> Campaign:
    return open_campaign(client)


def test_a_core_is_registered_at_full_max_hp_under_its_pilots_piloting(campaign: Campaign) -> None:
    aoi = campaign.token_for("aoi")
    pilot = register_pilot(campaign)

    core = register_core(campaign, pilot["id"], aoi)

    assert (core["kind"], core["max_hp"], core["current_hp"]) == ("assault_core", 400, 400)
    assert core["base_stats"] == KURENAI
    got = campaign.client.get(f"/v1/units/{core['id']}", headers=auth(campaign.site_token()))
    assert ok(got)["pilot_id"] == pilot["id"]
    assert got.headers["ETag"] == '"1"'


def test_a_player_may_not_register_a_core_for_someone_elses_pilot(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    kai = campaign.token_for("kai")
    pilot = register_pilot(campaign)

    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/units",
        kai,
        json={"pilot_id": pilot["id"], "name": "紅", "base_stats": KURENAI},
    )

    assert refused.status_code == 403


def test_a_pilot_of_another_campaign_is_404(client: TestClient, campaign: Campaign) -> None:
    other = open_campaign(client)
    other.token_for("aoi")
    stranger = register_pilot(other)

    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/units",
        json={"pilot_id": stranger["id"], "name": "紅", "base_stats": KURENAI},
    )

    assert refused.status_code == 404


def test_equipping_a_core_over_its_boosted_capacity_lowers_its_max(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    core = register_core(campaign, register_pilot(campaign)["id"])

    equipped = ok(
        campaign.post(f"/v1/units/{core['id']}/items", json=RIFLE, headers={"If-Match": '"1"'})
    )

    # Capacity 40 × 2.5 = 100; the rifle costs 150: excess 50 → max 400 × 50 % (GD-COST-1).
    assert (equipped["max_hp"], equipped["current_hp"], equipped["version"]) == (200, 200, 2)
    removed = campaign.client.delete(
        f"/v1/units/{core['id']}/items/{RIFLE['name']}", headers=auth(campaign.gm)
    )
    assert (ok(removed)["max_hp"], ok(removed)["current_hp"]) == (400, 200)


def test_a_player_may_not_equip_someone_elses_core_but_may_their_own(campaign: Campaign) -> None:
    aoi = campaign.token_for("aoi")
    kai = campaign.token_for("kai")
    core = register_core(campaign, register_pilot(campaign)["id"])

    assert campaign.post(f"/v1/units/{core['id']}/items", kai, json=RIFLE).status_code == 403
    assert campaign.post(f"/v1/units/{core['id']}/items", aoi, json=RIFLE).status_code == 200


def test_unequipping_what_is_not_equipped_is_409(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    core = register_core(campaign, register_pilot(campaign)["id"])
    refused = campaign.client.delete(
        f"/v1/units/{core['id']}/items/nothing", headers=auth(campaign.gm)
    )
    assert refused.status_code == 409


def test_a_stale_if_match_on_a_core_is_412(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    core = register_core(campaign, register_pilot(campaign)["id"])
    stale = campaign.post(f"/v1/units/{core['id']}/items", json=RIFLE, headers={"If-Match": '"7"'})
    assert stale.status_code == 412
