"""Campaigns over HTTP: given a campaign, when a member acts, then the answer (or the problem)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth, key, open_campaign

pytestmark = pytest.mark.postgres


def test_creating_a_campaign_returns_the_gms_first_token_once(client: TestClient) -> None:
    campaign = open_campaign(client)
    got = client.get(f"/v1/campaigns/{campaign.id}", headers=auth(campaign.gm))
    assert got.status_code == 200
    assert got.json()["members"] == [{"member_id": "gm", "role": "gm"}]
    assert "token" not in got.json()


def test_a_retried_creation_opens_nothing_more_and_shows_no_token_again(
    client: TestClient,
) -> None:
    """Anyone without a token could be the one retrying (issue 33 §3): the GM token is shown
    in the first answer only, and the retry opens no second campaign."""
    headers = key()
    body = {"name": "retry", "gm_member_id": "gm"}
    first = client.post("/v1/campaigns", headers=headers, json=body).json()
    again = client.post("/v1/campaigns", headers=headers, json=body)
    assert again.status_code == 409
    assert first["token"] not in again.text
    got = client.get(f"/v1/campaigns/{first['id']}", headers=auth(first["token"]))
    assert got.json()["version"] == first["version"]


def test_the_same_key_with_another_body_is_refused(client: TestClient) -> None:
    headers = key()
    client.post("/v1/campaigns", headers=headers, json={"name": "a", "gm_member_id": "gm"})
    reused = client.post("/v1/campaigns", headers=headers, json={"name": "b", "gm_member_id": "gm"})
    assert reused.status_code == 422
    assert reused.json()["type"].endswith("/idempotency-key-reused")


def test_a_post_without_an_idempotency_key_is_refused(client: TestClient) -> None:
    response = client.post("/v1/campaigns", json={"name": "a", "gm_member_id": "gm"})
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["detail"]


def test_text_holding_a_nul_character_is_a_422_not_a_500(client: TestClient) -> None:
    """PostgreSQL cannot store U+0000 in text or jsonb (Schemathesis found it in an option
    name): the write is refused up front and nothing is stored."""
    body = {"name": "a", "gm_member_id": "gm", "options": {"\x00odd": False}}
    response = client.post("/v1/campaigns", headers=key(), json=body)
    assert response.status_code == 422
    assert "NUL" in response.json()["detail"]


def test_bad_house_rules_are_a_422_naming_the_option(client: TestClient) -> None:
    response = client.post(
        "/v1/campaigns",
        headers=key(),
        json={"name": "a", "gm_member_id": "gm", "options": {"faint_rule": "whatever"}},
    )
    assert response.status_code == 422
    assert "faint_rule" in response.json()["detail"]


def test_the_etag_is_the_version_and_if_none_match_gives_304(client: TestClient) -> None:
    campaign = open_campaign(client)
    first = client.get(f"/v1/campaigns/{campaign.id}", headers=auth(campaign.gm))
    same = client.get(
        f"/v1/campaigns/{campaign.id}",
        headers=auth(campaign.gm, **{"If-None-Match": first.headers["ETag"]}),
    )
    assert same.status_code == 304


def test_a_stale_if_match_is_412_with_the_current_version(client: TestClient) -> None:
    campaign = open_campaign(client)
    campaign.token_for("aoi")
    stale = campaign.post(
        f"/v1/campaigns/{campaign.id}/members",
        json={"member_id": "kai", "role": "viewer"},
        headers={"If-Match": '"1"'},
    )
    assert stale.status_code == 412
    assert stale.headers["ETag"] == f'"{stale.json()["current_version"]}"'
    assert stale.json()["current_version"] > 1


def test_a_player_cannot_add_members(client: TestClient) -> None:
    campaign = open_campaign(client)
    player = campaign.token_for("aoi")
    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/members", token=player, json={"member_id": "kai"}
    )
    assert refused.status_code == 403


def test_a_revoked_token_stops_working_at_once(client: TestClient) -> None:
    campaign = open_campaign(client)
    player = campaign.token_for("aoi")
    tokens = client.get(f"/v1/campaigns/{campaign.id}/tokens", headers=auth(campaign.gm)).json()
    aoi = next(t for t in tokens if t["member_id"] == "aoi")
    assert (
        client.delete(
            f"/v1/campaigns/{campaign.id}/tokens/{aoi['token_id']}", headers=auth(campaign.gm)
        ).status_code
        == 200
    )
    assert client.get(f"/v1/campaigns/{campaign.id}", headers=auth(player)).status_code == 401


def test_a_removed_members_token_stops_working(client: TestClient) -> None:
    campaign = open_campaign(client)
    player = campaign.token_for("aoi")
    client.delete(f"/v1/campaigns/{campaign.id}/members/aoi", headers=auth(campaign.gm))
    assert client.get(f"/v1/campaigns/{campaign.id}", headers=auth(player)).status_code == 401


def test_another_campaigns_token_is_forbidden(client: TestClient) -> None:
    mine, theirs = open_campaign(client), open_campaign(client)
    response = client.get(f"/v1/campaigns/{mine.id}", headers=auth(theirs.gm))
    assert response.status_code == 403


@pytest.mark.parametrize("token", ["", "garbage", "senki.nothex.1.2", "senki." + "0" * 32 + ".1.2"])
def test_a_bad_token_is_401_with_a_problem(client: TestClient, token: str) -> None:
    campaign = open_campaign(client)
    response = client.get(f"/v1/campaigns/{campaign.id}", headers=auth(token))
    assert response.status_code in (401, 403)
    assert response.headers["content-type"] == "application/problem+json"


def test_the_token_list_never_shows_a_secret_or_hash(client: TestClient) -> None:
    campaign = open_campaign(client)
    campaign.site_token()
    listed = client.get(f"/v1/campaigns/{campaign.id}/tokens", headers=auth(campaign.gm)).text
    assert "secret" not in listed
    assert campaign.gm.rsplit(".", 1)[1] not in listed
