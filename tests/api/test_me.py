"""`GET /v1/me`: given a token, when the table page asks who it is, then its campaign, role,
what it may do and the characters it may act for — and a problem without a valid token."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.services.runtime import Runtime
from tests.api.conftest import Campaign, auth, open_campaign
from tests.api.roster import ok, register_pilot

pytestmark = pytest.mark.postgres


def me(client: TestClient, token: str) -> dict[str, Any]:
    return ok(client.get("/v1/me", headers=auth(token)))


def listed(client: TestClient, token: str, count: int) -> dict[str, Any]:
    """Poll until the character list (a read model) holds `count` characters (bounded)."""
    body: dict[str, Any] = {}
    for _ in range(200):
        body = me(client, token)
        if len(body["characters"]) >= count:
            return body
        time.sleep(0.05)
    raise AssertionError(f"the character list never reached {count}: {body}")


@pytest.fixture
def campaign(client: TestClient, runtime: Runtime) -> Campaign:
    """Players aoi (one character) and kai (another), with the projector running."""
    runtime.start_projector()
    campaign = open_campaign(client, name="蒼穹")
    register_pilot(campaign, campaign.token_for("aoi"), name="蒼井ソラ")
    register_pilot(campaign, campaign.token_for("kai"), owner="kai", name="甲斐")
    return campaign


def test_a_player_sees_their_role_and_only_their_own_characters(
    client: TestClient, campaign: Campaign
) -> None:
    aoi = campaign.token_for("aoi")
    body = listed(client, aoi, 1)
    assert body["campaign_id"] == campaign.id
    assert body["campaign_name"] == "蒼穹"
    assert (body["role"], body["member_id"]) == ("player", "aoi")
    assert body["token_id"] == aoi.split(".")[2]
    assert [c["name"] for c in body["characters"]] == ["蒼井ソラ"]
    assert {"dispute", "command"} <= set(body["may"])
    assert not {"settle", "reveal", "manage"} & set(body["may"])
    assert body["characters_reflect"]


def test_the_gm_may_act_for_every_character_and_settle(
    client: TestClient, campaign: Campaign
) -> None:
    body = listed(client, campaign.gm, 2)
    assert body["role"] == "gm"
    assert sorted(c["owner"] for c in body["characters"]) == ["aoi", "kai"]
    assert {"settle", "reveal", "what_if"} <= set(body["may"])


@pytest.mark.parametrize("kind", ["viewer", "site"])
def test_a_viewer_or_a_site_only_reads_and_acts_for_no_one(
    client: TestClient, campaign: Campaign, kind: str
) -> None:
    token = campaign.token_for("mio", role="viewer") if kind == "viewer" else campaign.site_token()
    body = me(client, token)
    assert body["role"] == kind
    assert body["member_id"] == ("mio" if kind == "viewer" else None)
    assert body["characters"] == []
    assert not {"command", "dispute", "settle", "reveal"} & set(body["may"])


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer senki.nope"}])
def test_without_a_valid_token_the_answer_is_a_problem(
    client: TestClient, headers: dict[str, str]
) -> None:
    answer = client.get("/v1/me", headers=headers)
    assert answer.status_code == 401
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert "token" in answer.json()["detail"].lower()
