"""Characters over HTTP: given a campaign and its members, when a sheet changes, then the answer."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import Campaign, auth, open_campaign
from tests.api.roster import AOI, ok, register_pilot

pytestmark = pytest.mark.postgres

SWORD = {"name": "高周波ブレード", "slot": "weapon", "cost": 150, "stats": {"melee_hit": 5}}


@pytest.fixture
def campaign(client: TestClient) -> Campaign:
    return open_campaign(client)


def test_a_player_registers_their_own_pilot_at_full_hp(campaign: Campaign) -> None:
    aoi = campaign.token_for("aoi")

    registered = campaign.client.post(
        f"/v1/campaigns/{campaign.id}/characters",
        headers=auth(aoi, **{"Idempotency-Key": "register-aoi-1"}),
        json={"name": "蒼井ソラ", "base_stats": AOI},
    )

    body = ok(registered, 201)
    assert (body["owner"], body["level"], body["max_hp"], body["current_hp"]) == ("aoi", 1, 80, 80)
    assert registered.headers["Location"] == f"/v1/characters/{body['id']}"
    assert registered.headers["ETag"] == '"1"'


def test_a_player_may_not_register_someone_elses_pilot(campaign: Campaign) -> None:
    aoi = campaign.token_for("aoi")
    campaign.token_for("kai")

    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/characters",
        aoi,
        json={"owner": "kai", "name": "Kai", "base_stats": AOI},
    )

    assert refused.status_code == 403


def test_incomplete_stats_are_a_422_naming_the_missing_keys(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/characters",
        json={"owner": "aoi", "name": "Aoi", "base_stats": {"hp": 80}},
    )
    assert refused.status_code == 422
    assert "capacity" in refused.json()["detail"]


def test_members_and_sites_read_a_character_and_304_when_unchanged(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)
    path = f"/v1/characters/{pilot['id']}"

    for token in (campaign.token_for("mio", "viewer"), campaign.site_token()):
        read = campaign.client.get(path, headers=auth(token))
        assert ok(read)["name"] == "蒼井ソラ"
        again = campaign.client.get(path, headers=auth(token, **{"If-None-Match": '"1"'}))
        assert again.status_code == 304


def test_equipping_over_capacity_lowers_max_hp_and_unequipping_does_not_restore_hp(
    campaign: Campaign,
) -> None:
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)

    equipped = ok(campaign.post(f"/v1/characters/{pilot['id']}/items", json=SWORD))
    assert (equipped["max_hp"], equipped["current_hp"]) == (40, 40)  # EX-COST-1

    removed = campaign.client.delete(
        f"/v1/characters/{pilot['id']}/items/{SWORD['name']}", headers=auth(campaign.gm)
    )
    assert (ok(removed)["max_hp"], ok(removed)["current_hp"]) == (80, 40)  # GD-COST-2


def test_learning_and_forgetting_a_skill(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)
    skill = {"name": "緊急回避", "cost": 10, "uses": 1}

    learned = ok(campaign.post(f"/v1/characters/{pilot['id']}/skills", json=skill))
    assert learned["skills"] == [skill]
    again = campaign.post(f"/v1/characters/{pilot['id']}/skills", json=skill)
    assert again.status_code == 409

    forgot = campaign.client.delete(
        f"/v1/characters/{pilot['id']}/skills/緊急回避", headers=auth(campaign.gm)
    )
    assert ok(forgot)["skills"] == []


def test_advancing_records_the_new_level_and_stats(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)

    advanced = ok(
        campaign.post(
            f"/v1/characters/{pilot['id']}/advance",
            json={"level": 2, "base_stats": AOI | {"hp": 90}},
            headers={"If-Match": '"1"'},
        )
    )

    assert (advanced["level"], advanced["max_hp"], advanced["current_hp"]) == (2, 90, 80)
    assert advanced["version"] == 2


def test_a_stale_if_match_is_412(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)
    campaign.post(f"/v1/characters/{pilot['id']}/skills", json={"name": "a", "cost": 0, "uses": 1})

    stale = campaign.post(
        f"/v1/characters/{pilot['id']}/skills",
        json={"name": "b", "cost": 0, "uses": 1},
        headers={"If-Match": '"1"'},
    )

    assert stale.status_code == 412
    assert stale.json()["current_version"] == 2


def test_a_player_editing_someone_elses_character_is_403(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    kai = campaign.token_for("kai")
    pilot = register_pilot(campaign)

    refused = campaign.post(f"/v1/characters/{pilot['id']}/items", kai, json=SWORD)

    assert refused.status_code == 403
    assert "own" in refused.json()["detail"]


def test_the_owner_edits_their_own_character(campaign: Campaign) -> None:
    aoi = campaign.token_for("aoi")
    pilot = register_pilot(campaign)
    equipped = campaign.post(f"/v1/characters/{pilot['id']}/items", aoi, json=SWORD)
    assert ok(equipped)["items"][0]["name"] == SWORD["name"]


def test_viewers_and_sites_may_not_write(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)
    for token in (campaign.token_for("mio", "viewer"), campaign.site_token()):
        refused = campaign.post(f"/v1/characters/{pilot['id']}/items", token, json=SWORD)
        assert refused.status_code == 403


def test_a_retried_equip_appends_nothing(campaign: Campaign) -> None:
    campaign.token_for("aoi")
    pilot = register_pilot(campaign)
    headers = auth(campaign.gm, **{"Idempotency-Key": "equip-sword-1"})
    path = f"/v1/characters/{pilot['id']}/items"

    first = ok(campaign.client.post(path, headers=headers, json=SWORD))
    again = ok(campaign.client.post(path, headers=headers, json=SWORD))

    assert first == again
    assert (
        ok(campaign.client.get(f"/v1/characters/{pilot['id']}", headers=auth(campaign.gm)))[
            "version"
        ]
        == 2
    )


def test_an_unknown_character_is_404(campaign: Campaign) -> None:
    missing = campaign.client.get(
        "/v1/characters/00000000-0000-0000-0000-000000000001", headers=auth(campaign.gm)
    )
    assert missing.status_code == 404
