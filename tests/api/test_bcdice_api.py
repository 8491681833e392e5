"""BCDice-API v2 over a real socket: given a GM's roller token for a roll log, when a BCDice
client points at `/bcdice/{token}` and rolls, then it gets BCDice-API's documented answers and
every roll lands in the log, verifiable after the reveal."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from api.app import create_app
from infra.services.runtime import Runtime
from tests.api.conftest import Campaign, auth, open_campaign
from tests.support.processes import free_port

pytestmark = pytest.mark.postgres

# BCDice-API v2's documented answers (docs/api_v2.md): each field and its JSON type.
ROLL_FIELDS = {
    "ok": bool,
    "text": str,
    "secret": bool,
    "success": bool,
    "failure": bool,
    "critical": bool,
    "fumble": bool,
    "rands": list,
}
RAND_FIELDS = {"kind": str, "sides": int, "value": int}
INFO_FIELDS = {
    "ok": bool,
    "id": str,
    "name": str,
    "sort_key": str,
    "command_pattern": str,
    "help_message": str,
}


@pytest.fixture
def live(runtime: Runtime) -> Iterator[str]:
    """Senki served by uvicorn on a loopback port, as `senki serve` does."""
    port = free_port()
    config = uvicorn.Config(
        create_app(lambda: runtime, lambda _: None), port=port, log_level="info"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def roller_for(campaign: Campaign) -> tuple[str, str]:
    """A new roll log of the campaign and a roller token for it."""
    opened = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", json={"name": "BCDice"})
    log_id = opened.json()["roll_log"]["id"]
    issued = campaign.post(
        f"/v1/campaigns/{campaign.id}/tokens",
        json={"kind": "roller", "roll_log_id": log_id, "label": "Discord bot"},
    )
    assert issued.status_code == 201, issued.text
    return log_id, str(issued.json()["token"])


def assert_shape(body: dict[str, Any], fields: dict[str, type]) -> None:
    assert set(body) == set(fields)
    for name, kind in fields.items():
        assert isinstance(body[name], kind), (name, body[name])


def test_a_bcdice_client_rolls_recorded_dice_that_verify(client: TestClient, live: str) -> None:
    campaign = open_campaign(client)
    log_id, token = roller_for(campaign)
    with httpx.Client(base_url=f"{live}/bcdice/{token}", timeout=30) as bcdice:
        assert bcdice.get("/v2/version").json() == {"api": "3.0.0", "bcdice": "3.16.1"}
        by_get = bcdice.get("/v2/game_system/DiceBot/roll", params={"command": "2D6+3>=10 攻撃"})
        by_post = bcdice.post("/v2/game_system/DiceBot/roll", data={"command": "3B6>=4"})
        secret = bcdice.get("/v2/game_system/DiceBot/roll", params={"command": "S1D100<=50"})
        check = bcdice.get("/v2/game_system/GloriousDrive/roll", params={"command": "GD20>=80"})
    for answer in (by_get, by_post, secret, check):
        assert answer.status_code == 200, answer.text
        assert answer.headers["access-control-allow-origin"] == "*"
        body = answer.json()
        assert_shape(body, ROLL_FIELDS)
        for rand in body["rands"]:
            assert_shape(rand, RAND_FIELDS)
    assert by_get.json()["text"].startswith("(2D6+3>=10) ＞ ")
    assert by_post.json()["text"].endswith(tuple(f"成功数{n}" for n in range(4)))
    assert secret.json()["secret"] is True
    assert check.json()["text"].startswith("(GD20>=80) ＞ ")
    log = client.get(f"/v1/roll-logs/{log_id}", headers=auth(campaign.gm)).json()
    assert [e["command"] for e in log["entries"]] == [
        "2D6+3>=10 攻撃",
        "3B6>=4",
        "S1D100<=50",
        "GD20>=80",
    ]
    assert {e["purpose"] for e in log["entries"]} == {"BCDice-API"}
    assert log["entries"][1]["faces"] == [r["value"] for r in by_post.json()["rands"]]
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal").status_code == 200
    audit = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(campaign.gm)).json()
    assert audit["all_verified"] is True


def test_game_systems_are_dicebot_and_the_three_rule_systems(client: TestClient, live: str) -> None:
    _, token = roller_for(open_campaign(client))
    with httpx.Client(base_url=f"{live}/bcdice/{token}", timeout=30) as bcdice:
        listed = bcdice.get("/v2/game_system").json()["game_system"]
        infos = {s["id"]: bcdice.get(f"/v2/game_system/{s['id']}").json() for s in listed}
    assert {s["id"] for s in listed} == {
        "DiceBot",
        "GloriousDrive",
        "WizardryRound",
        "ArmorKnights",
    }
    assert [s["sort_key"] for s in listed] == sorted(s["sort_key"] for s in listed)
    for info in infos.values():
        assert_shape(info, INFO_FIELDS)
    assert "GD-CHK-1" in infos["GloriousDrive"]["help_message"]
    assert "AK-OOR-1" in infos["ArmorKnights"]["help_message"]
    assert infos["DiceBot"]["command_pattern"].startswith("^S?([+\\-(]*(\\d+|D\\d+)|")


def test_errors_have_bcdice_apis_shape(client: TestClient, live: str) -> None:
    campaign = open_campaign(client)
    _, token = roller_for(campaign)
    with httpx.Client(base_url=f"{live}/bcdice/{token}", timeout=30) as bcdice:
        no_system = bcdice.get("/v2/game_system/Cthulhu7th/roll", params={"command": "1D100"})
        chat = bcdice.get("/v2/game_system/DiceBot/roll", params={"command": "こんにちは"})
        nothing = bcdice.post("/v2/game_system/DiceBot/roll")
        info = bcdice.get("/v2/game_system/Cthulhu7th")
    assert (no_system.status_code, no_system.json()) == (
        400,
        {"ok": False, "reason": "unsupported game system"},
    )
    assert (chat.status_code, chat.json()) == (400, {"ok": False, "reason": "unsupported command"})
    assert nothing.json() == {"ok": False, "reason": "unsupported command"}
    assert info.status_code == 400


def test_only_a_live_roller_token_opens_the_address(client: TestClient, live: str) -> None:
    campaign = open_campaign(client)
    log_id, token = roller_for(campaign)
    member = campaign.token_for("aoi")
    with httpx.Client(base_url=live, timeout=30) as http:
        assert http.get(f"/bcdice/{member}/v2/version").status_code == 403
        assert http.get("/bcdice/senki.nothing/v2/version").status_code == 401
        # the roller token does nothing else: not even read its own log
        assert http.get(f"/v1/roll-logs/{log_id}", headers=auth(token)).status_code == 403
        token_id = token.split(".")[2]
        revoked = client.delete(
            f"/v1/campaigns/{campaign.id}/tokens/{token_id}", headers=auth(campaign.gm)
        )
        assert revoked.status_code == 200, revoked.text
        gone = http.get(f"/bcdice/{token}/v2/game_system/DiceBot/roll", params={"command": "1D6"})
        assert gone.status_code == 401
        assert gone.json()["ok"] is False


def test_the_credential_stays_out_of_the_access_log_and_metrics(
    client: TestClient, live: str, caplog: pytest.LogCaptureFixture
) -> None:
    _, token = roller_for(open_campaign(client))
    secret = token.split(".")[3]
    with (
        caplog.at_level(logging.INFO, logger="uvicorn.access"),
        httpx.Client(base_url=live) as http,
    ):
        assert http.get(f"/bcdice/{token}/v2/version").status_code == 200
        metrics = http.get("/metrics").text
    logged = [r.getMessage() for r in caplog.records if r.name == "uvicorn.access"]
    assert any("/bcdice/***/v2/version" in line for line in logged), logged
    assert not any(secret in line for line in logged)
    assert secret not in metrics
    assert "/bcdice/{credential}/v2/version" in metrics


DRINKS = (
    "飲み物表\n1D6\n1:水\n2:緑茶\n3:麦茶\n4:コーラ\n5:オレンジジュース\n6:選ばれし者の知的飲料\n"
)
D66S = "表\nD66S\n" + "".join(f"{t}{o}:{t}と{o}\n" for t in range(1, 7) for o in range(t, 7))


def test_an_original_table_rolls_recorded_dice_that_verify_with_its_text(
    client: TestClient, live: str
) -> None:
    campaign = open_campaign(client)
    log_id, token = roller_for(campaign)
    with httpx.Client(base_url=f"{live}/bcdice/{token}", timeout=30) as bcdice:
        by_form = bcdice.post("/v2/original_table", data={"table": DRINKS})
        by_json = bcdice.post("/v2/original_table", json={"table": D66S})
    for answer in (by_form, by_json):
        assert answer.status_code == 200, answer.text
        assert answer.headers["access-control-allow-origin"] == "*"
        assert set(answer.json()) == {"ok", "text", "rands"}
    drink = by_form.json()
    face = drink["rands"][0]["value"]
    assert drink["rands"] == [{"kind": "normal", "sides": 6, "value": face}]
    assert drink["text"] == f"飲み物表({face}) ＞ {DRINKS.splitlines()[face + 1][2:]}"
    first, second = (r["value"] for r in by_json.json()["rands"])
    low, high = sorted((first, second))
    assert by_json.json()["text"] == f"表({low}{high}) ＞ {low}と{high}"
    log = client.get(f"/v1/roll-logs/{log_id}", headers=auth(campaign.gm)).json()
    assert [e["command"] for e in log["entries"]] == [DRINKS, D66S]  # the table, for the audit
    assert [e["text"] for e in log["entries"]] == [drink["text"], by_json.json()["text"]]
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal").status_code == 200
    audit = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(campaign.gm)).json()
    assert audit["all_verified"] is True
