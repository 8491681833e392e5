"""BCDice-API's own `test/test_api_v2.rb` (bcdice/bcdice-api, 11 cases), case for case, against a
roller token's base address: a BCDice client pointed at `/bcdice/{token}` sees BCDice-API.

One case is adapted: `test_detailed` rolls Cthulhu7th's `CC1` for its `tens_d10` die, a system
Senki does not serve (it answers 400 "unsupported game system", as BCDice-API does for a system
it lacks); here it checks the same thing, detailed `rands`, on a system Senki serves."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import open_campaign
from tests.api.test_bcdice_api import roller_for

pytestmark = pytest.mark.postgres


class Peer:
    """Rack::Test's `get`/`post` and `last_response`, at a roller token's base address."""

    def __init__(self, client: TestClient) -> None:
        _, token = roller_for(open_campaign(client))
        self.client = client
        self.base = f"/bcdice/{token}"

    def get(self, path: str) -> tuple[int, dict[str, str], Any]:
        answer = self.client.get(self.base + path)
        return answer.status_code, dict(answer.headers), answer.json()

    def post(self, path: str, form: dict[str, str]) -> tuple[int, dict[str, str], Any]:
        answer = self.client.post(self.base + path, data=form)
        return answer.status_code, dict(answer.headers), answer.json()


@pytest.fixture
def peer(client: TestClient) -> Peer:
    return Peer(client)


def assert_boolean(value: object) -> None:
    assert value is True or value is False


def assert_roll(status: int, json: Any) -> None:
    assert status == 200
    assert json["ok"]
    assert json["text"]
    assert json["secret"] is False
    assert_boolean(json["success"])
    assert_boolean(json["failure"])
    assert json["critical"] is False
    assert json["fumble"] is False
    assert isinstance(json["rands"], list)


def test_version(peer: Peer) -> None:
    status, headers, json = peer.get("/v2/version")
    assert status == 200
    assert headers["access-control-allow-origin"] == "*"
    assert "bcdice" in json
    assert "api" in json


def test_game_system_list(peer: Peer) -> None:
    status, _, json = peer.get("/v2/game_system")
    assert status == 200
    assert json["game_system"]
    assert isinstance(json["game_system"], list)
    first = json["game_system"][0]
    assert {"name", "id", "sort_key"} <= set(first)


def test_game_system_info(peer: Peer) -> None:
    status, _, json = peer.get("/v2/game_system/DiceBot")
    assert status == 200
    assert json["ok"]
    assert json["id"] == "DiceBot"
    for field in ("name", "command_pattern", "sort_key", "help_message"):
        assert isinstance(json[field], str)
        assert json[field]


def test_diceroll(peer: Peer) -> None:
    status, _, json = peer.get("/v2/game_system/DiceBot/roll?command=1d100<=70")
    assert_roll(status, json)


def test_diceroll_with_post(peer: Peer) -> None:
    status, _, json = peer.post("/v2/game_system/DiceBot/roll", {"command": "1d100<=70"})
    assert_roll(status, json)


def test_detailed(peer: Peer) -> None:
    """Adapted (see the module's note): detailed rands, `{kind, sides, value}` per die."""
    status, _, json = peer.get("/v2/game_system/GloriousDrive/roll?command=GD20>=80")
    assert status == 200
    assert json["ok"]
    assert [r["kind"] for r in json["rands"]] == ["normal"]
    assert [r["sides"] for r in json["rands"]] == [100]
    status, _, json = peer.get("/v2/game_system/Cthulhu7th/roll?command=CC1")
    assert (status, json) == (400, {"ok": False, "reason": "unsupported game system"})


def assert_refused(status: int, json: Any, reason: str) -> None:
    assert status == 400
    assert json["ok"] is False
    assert json["reason"] == reason


def test_unexpected_game_system(peer: Peer) -> None:
    status, _, json = peer.get("/v2/game_system/Hoge/roll?command=1d100<=70")
    assert_refused(status, json, "unsupported game system")


def test_unexpected_command(peer: Peer) -> None:
    status, _, json = peer.get("/v2/game_system/DiceBot/roll?command=a")
    assert_refused(status, json, "unsupported command")


def test_no_command(peer: Peer) -> None:
    status, _, json = peer.get("/v2/game_system/DiceBot/roll")
    assert_refused(status, json, "unsupported command")


def test_blank_command(peer: Peer) -> None:
    status, _, json = peer.get("/v2/game_system/DiceBot/roll?command=")
    assert_refused(status, json, "unsupported command")


def test_original_table(peer: Peer) -> None:
    drinks = ["水", "緑茶", "麦茶", "コーラ", "オレンジジュース", "選ばれし者の知的飲料"]
    table_text = "飲み物表\n1D6\n" + "".join(f"{n}:{d}\n" for n, d in enumerate(drinks, 1))
    status, _, json = peer.post("/v2/original_table", {"table": table_text})
    assert status == 200
    assert json["ok"] is True
    assert isinstance(json["text"], str)
    assert json["text"].startswith("飲み物表(")
    assert isinstance(json["rands"], list)
