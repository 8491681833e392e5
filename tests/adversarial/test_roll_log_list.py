"""Attacks on the table log and the list of a campaign's roll logs (issue #35 §7): learn the
names of logs one may not read, steer the table's rolls into a log of one's choosing, freeze
the table log, flood the list with logs."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from domain.roll_logs import MAX_OPENED_BY_ONE
from tests.api.conftest import Campaign, auth, open_campaign
from tests.api.test_bcdice_api import roller_for

pytestmark = pytest.mark.postgres

SECRET_NAME = "黒幕の正体は3817"


def logs_path(campaign: Campaign) -> str:
    return f"/v1/campaigns/{campaign.id}/rolls/logs"


def a_table_with_a_named_log(client: TestClient) -> Campaign:
    campaign = open_campaign(client)
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", json={"name": SECRET_NAME, "secret": True}
    )
    assert opened.status_code == 201, opened.text
    return campaign


def test_no_one_outside_the_campaign_learns_its_logs_names(client: TestClient) -> None:
    campaign = a_table_with_a_named_log(client)
    _, roller = roller_for(campaign)
    stranger = open_campaign(client, "別卓")
    asked = {
        "anonymous": client.get(logs_path(campaign)),
        "made-up token": client.get(logs_path(campaign), headers=auth("senki.x.y.z")),
        "another campaign's GM": client.get(logs_path(campaign), headers=auth(stranger.gm)),
        "roller token as Bearer": client.get(logs_path(campaign), headers=auth(roller)),
        "roller token in a query": client.get(logs_path(campaign), params={"token": roller}),
    }
    for who, answer in asked.items():
        assert answer.status_code in (401, 403), (who, answer.status_code)
        assert SECRET_NAME not in answer.text, who
        assert "BCDice" not in answer.text, who


def test_a_viewer_and_a_site_read_the_list_but_open_no_log(client: TestClient) -> None:
    campaign = a_table_with_a_named_log(client)
    for token in (campaign.token_for("mio", role="viewer"), campaign.site_token()):
        listed = client.get(logs_path(campaign), headers=auth(token))
        assert listed.status_code == 200, listed.text
        opened = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", token, json={"name": "x"})
        assert opened.status_code == 403
    names = [
        log["name"] for log in client.get(logs_path(campaign), headers=auth(token)).json()["logs"]
    ]
    assert names == [SECRET_NAME]  # the refused openings listed nothing


def test_a_player_cannot_steer_the_tables_rolls_into_a_log_of_theirs(client: TestClient) -> None:
    """A player names their own log "table rolls": the table's rolls still go to the table log,
    whose id comes from the campaign, and the list tells the two apart by kind."""
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    rolls = f"/v1/campaigns/{campaign.id}/rolls"
    decoy = campaign.post(rolls, aoi, json={"name": "table rolls"}).json()["roll_log"]["id"]
    gm_roll = campaign.post(rolls, json={"expression": "1D100<=47", "secret": True}).json()
    assert gm_roll["roll_log"]["id"] != decoy
    listed = client.get(logs_path(campaign), headers=auth(aoi)).json()
    assert listed["table_log_id"] == gm_roll["roll_log"]["id"]
    assert [(log["id"], log["kind"]) for log in listed["logs"]] == [
        (gm_roll["roll_log"]["id"], "table"),
        (decoy, "named"),
    ]
    decoy_log = client.get(f"/v1/roll-logs/{decoy}", headers=auth(aoi)).json()
    assert decoy_log["rolls"] == 0


def test_a_player_cannot_freeze_the_table_log(client: TestClient) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    rolls = f"/v1/campaigns/{campaign.id}/rolls"
    table = campaign.post(rolls, aoi, json={"expression": "1D6"}).json()["roll_log"]["id"]
    assert campaign.post(f"/v1/roll-logs/{table}/reveal", aoi).status_code == 403
    again = campaign.post(rolls, aoi, json={"expression": "1D6"})
    assert again.status_code == 200, again.text
    assert again.json()["roll_log"]["id"] == table


def test_one_member_cannot_bury_the_list_under_logs(client: TestClient) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    rolls = f"/v1/campaigns/{campaign.id}/rolls"
    for n in range(MAX_OPENED_BY_ONE):
        assert campaign.post(rolls, aoi, json={"name": f"log {n}"}).status_code == 201
    refused = campaign.post(rolls, aoi, json={"name": "one more", "expression": "1D6"})
    assert refused.status_code == 409, refused.text
    assert "GET /v1/campaigns/{id}/rolls/logs" in refused.json()["detail"]
    listed = client.get(logs_path(campaign), headers=auth(aoi), params={"limit": 100}).json()
    assert listed["total"] == MAX_OPENED_BY_ONE  # the refused opening is not listed
    assert "one more" not in str(listed)
    assert campaign.post(rolls, aoi, json={"expression": "1D6"}).status_code == 201  # the table
    assert campaign.post(rolls, json={"name": "GM's own"}).status_code == 201  # and the GM
