"""Free rolls over HTTP: given a campaign, when a member rolls, then a log anyone can verify."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import Campaign, auth, key, open_campaign

pytestmark = pytest.mark.postgres


def rolled(campaign: Campaign, token: str | None = None, **body: object) -> dict[str, Any]:
    answer = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", token, json=body)
    assert answer.status_code in (200, 201), answer.text
    return dict(answer.json())


def test_a_first_roll_opens_a_log_with_a_commitment(client: TestClient) -> None:
    campaign = open_campaign(client)
    answer = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls",
        json={"expression": "2D6+3>=10 攻撃", "client_seed": "aoi"},
    )
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["roll"]["expression"] == "2D6+3>=10"
    assert body["roll"]["comment"] == "攻撃"
    assert len(body["roll"]["faces"]) == 2
    assert body["roll"]["total"] == sum(body["roll"]["faces"]) + 3
    assert body["roll"]["client_seed"] == "aoi"
    assert len(body["roll_log"]["commitment"]) == 64
    assert answer.headers["Location"] == f"/v1/roll-logs/{body['roll_log']['id']}"


def test_players_roll_on_in_an_open_log_and_everyone_reads_it(client: TestClient) -> None:
    campaign = open_campaign(client)
    aoi, mio = campaign.token_for("aoi"), campaign.token_for("mio", role="viewer")
    log = rolled(campaign, name="GM秘匿")["roll_log"]
    again = rolled(campaign, aoi, roll_log_id=log["id"], expression="1D100<=50")
    assert again["roll"]["roll_seq"] == 0
    read = client.get(f"/v1/roll-logs/{log['id']}", headers=auth(mio)).json()
    assert read["name"] == "GM秘匿"
    assert [e["expression"] for e in read["entries"]] == ["1D100<=50"]


def test_a_viewer_cannot_roll(client: TestClient) -> None:
    campaign = open_campaign(client)
    mio = campaign.token_for("mio", role="viewer")
    refused = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", mio, json={"expression": "1D6"})
    assert refused.status_code == 403


def test_bad_dice_are_a_422(client: TestClient) -> None:
    campaign = open_campaign(client)
    log = rolled(campaign)["roll_log"]
    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", json={"roll_log_id": log["id"], "expression": "2X6"}
    )
    assert refused.status_code == 422


def test_a_retried_roll_gets_the_same_dice_and_rolls_once(client: TestClient) -> None:
    campaign = open_campaign(client)
    headers = auth(campaign.gm) | key()
    path = f"/v1/campaigns/{campaign.id}/rolls"
    first = client.post(path, headers=headers, json={"expression": "3D6"}).json()
    again = client.post(path, headers=headers, json={"expression": "3D6"}).json()
    assert again == first
    log = client.get(f"/v1/roll-logs/{first['roll_log']['id']}", headers=auth(campaign.gm))
    assert log.json()["rolls"] == 1


def test_after_the_reveal_every_roll_verifies_and_no_more_rolls(client: TestClient) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    log_id = rolled(campaign, expression="2D6")["roll_log"]["id"]
    rolled(campaign, aoi, roll_log_id=log_id, expression="1D20+2")
    assert client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(aoi)).status_code == 409
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal", aoi).status_code == 403
    revealed = campaign.post(f"/v1/roll-logs/{log_id}/reveal")
    assert revealed.status_code == 200, revealed.text
    seed = bytes.fromhex(revealed.json()["revealed_seed"])
    assert hashlib.sha256(seed).hexdigest() == revealed.json()["commitment"]
    audit = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(aoi)).json()
    assert audit["all_verified"] is True
    assert [c["roll_seq"] for c in audit["checks"]] == [0, 1]
    closed = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", json={"roll_log_id": log_id, "expression": "1D6"}
    )
    assert closed.status_code == 409


def test_another_campaigns_token_cannot_read_a_log(client: TestClient) -> None:
    campaign = open_campaign(client)
    log_id = rolled(campaign, expression="1D6")["roll_log"]["id"]
    other = open_campaign(client, "別卓")
    assert client.get(f"/v1/roll-logs/{log_id}", headers=auth(other.gm)).status_code == 403
    refused = other.post(
        f"/v1/campaigns/{other.id}/rolls", json={"roll_log_id": log_id, "expression": "1D6"}
    )
    assert refused.status_code == 403


def test_dice_entered_by_hand_roll_in_bcdice_language_and_shape(client: TestClient) -> None:
    campaign = open_campaign(client)
    answer = rolled(campaign, expression="2R6>=5 回避", hand_faces=[5, 2, 6, 1])
    roll = answer["roll"]
    assert roll["source"] == "hand"
    assert roll["text"] == "(2R6[5]>=5) ＞ 5,2 + 6 + 1 ＞ 成功数2"
    assert roll["rands"] == [{"kind": "normal", "sides": 6, "value": v} for v in (5, 2, 6, 1)]
    assert (roll["total"], roll["comment"], roll["secret"]) == (2, "回避", False)
    add = rolled(
        campaign, roll_log_id=answer["roll_log"]["id"], expression="2D6+3>=10", hand_faces=[3, 4]
    )
    assert add["roll"]["text"] == "(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"
    assert (add["roll"]["success"], add["roll"]["failure"]) == (True, False)


@pytest.mark.parametrize(
    ("faces", "named"),
    [([5, 6], "die 3 (a d6) has no face"), ([3, 4, 2], "face 3"), ([3, 9], "die 2 is a d6")],
)
def test_hand_faces_that_do_not_fit_are_a_422_naming_the_die(
    client: TestClient, faces: list[int], named: str
) -> None:
    campaign = open_campaign(client)
    command = "2R6>=5" if faces == [5, 6] else "2D6"
    refused = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", json={"expression": command, "hand_faces": faces}
    )
    assert refused.status_code == 422, refused.text
    assert named in refused.json()["detail"]


def test_plain_chat_is_not_rolled(client: TestClient) -> None:
    campaign = open_campaign(client)
    refused = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", json={"expression": "こんにちは"})
    assert refused.status_code == 422
    assert "not a dice command" in refused.json()["detail"]


def test_every_command_kind_verifies_from_the_seed_after_the_reveal(client: TestClient) -> None:
    campaign = open_campaign(client)
    log_id = rolled(campaign, expression="3R6>=4")["roll_log"]["id"]
    for command in ("4U6[5]", "S2D6+1", "choice[赤,青]", "x3 1D6", "5D10KH3>=12", "D66"):
        answer = rolled(campaign, roll_log_id=log_id, expression=command)["roll"]
        assert answer["source"] == "server"
        assert answer["secret"] is (command == "S2D6+1")
    rolled(campaign, roll_log_id=log_id, expression="1D6", hand_faces=[4])
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal").status_code == 200
    audit = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(campaign.gm)).json()
    assert [c["verified"] for c in audit["checks"]] == [True] * 7 + [False]
    assert audit["checks"][-1]["problems"] == []  # by hand: consistent, not recomputable
