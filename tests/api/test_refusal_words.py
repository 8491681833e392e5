"""A refusal answers in both languages: `detail` in English, `detail_ja` in Japanese.

Given a fight or a campaign, when a member sends what the rules, their role or the state of the
game forbids, then the problem answer carries the same refusal in English and in Japanese (the
rule ID leading both), and a hidden combatant's numbers are withheld from both alike.
"""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from domain.visibility.encounter import WITHHELD_TEXT
from tests.api.conftest import open_campaign
from tests.api.fight import Fight, join, open_fight
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def test_a_refusal_by_the_rules_answers_in_english_and_in_japanese(client: TestClient) -> None:
    fight = open_fight(client)
    refused = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    assert refused.status_code == 422
    problem = refused.json()
    assert problem["rule_id"] == "GD-TURN-1"
    assert problem["detail"].startswith("GD-TURN-1: Cleanup for ace is not legal now")
    # The commands are named as the Japanese table names them, awaited ones too.
    assert problem["detail_ja"].startswith("GD-TURN-1: クリーンナップ（ace）は今は行えません")
    assert "待っているもの：イニシアチブを振る" in problem["detail_ja"], problem["detail_ja"]
    assert JAPANESE.search(problem["detail_ja"])


def test_a_refusal_by_role_answers_in_both_languages(client: TestClient) -> None:
    fight = open_fight(client)
    fight.command({"command": "RollInitiative"})
    refused = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="kai")
    assert refused.status_code == 403
    problem = refused.json()
    assert "kai" in problem["detail"]
    assert problem["detail_ja"] == "kai は ace のCleanupを出せません"


def test_a_refusal_by_the_state_of_the_game_answers_in_both_languages(client: TestClient) -> None:
    campaign = open_campaign(client)
    campaign.token_for("aoi")
    again = campaign.post(
        f"/v1/campaigns/{campaign.id}/members", json={"member_id": "aoi", "role": "player"}
    )
    assert again.status_code == 409
    problem = again.json()
    assert "member already" in problem["detail"]
    assert problem["detail_ja"] == "'aoi' はすでにメンバーです。役割を変更してください"


def test_the_openapi_document_describes_the_japanese_detail(client: TestClient) -> None:
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert "detail_ja" in schemas["Problem"]["properties"]
    assert "detail" in schemas["Problem"]["required"]


def _lending_to_a_hidden_ally(client: TestClient) -> Fight:
    """Given ace (aoi) holding a medkit and acting first, and her ally wing (kai) hidden nine
    squares away: ace's cleanup is done, her action step next."""
    campaign = open_campaign(client)
    tokens = {"aoi": campaign.token_for("aoi"), "kai": campaign.token_for("kai")}
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/encounters",
        json={"options": {}, "battle_map": {"width": 12, "height": 12}},
    )
    assert opened.status_code == 201, opened.text
    fight = Fight(campaign, opened.json()["id"], tokens)
    medkit = {"name": "medkit", "kind": "general", "rules": "heal 20"}
    join(fight, "ace", "aoi", "pc", sheet(1, 1, reaction=20, items=[medkit]))
    join(fight, "wing", "kai", "pc", sheet(1, 10, reaction=10), hidden=True)
    join(fight, "grunt", "gm", "enemy", sheet(4, 1, reaction=2))
    assert fight.command({"command": "RollInitiative"}).status_code == 200
    done = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    assert done.status_code == 200, done.text
    return fight


def test_a_hidden_combatants_numbers_are_withheld_from_both_languages(
    client: TestClient,
) -> None:
    fight = _lending_to_a_hidden_ally(client)
    before = fight.version()
    lend = {"command": "LendItem", "combatant_id": "ace", "item": "medkit", "borrower": "wing"}
    as_gm = fight.command(lend).json()  # the GM sees all: the distance in both languages
    assert "wing is 9 squares away" in as_gm["detail"]
    assert "wing は 9 スクエア先です" in as_gm["detail_ja"]
    refused = fight.command(lend, by="aoi")
    assert refused.status_code == 422
    problem = refused.json()
    assert problem["rule_id"] == "GD-MAIN-5"
    for text in (problem["detail"], problem["detail_ja"]):
        assert "9" not in text
        assert WITHHELD_TEXT in text
    assert JAPANESE.search(problem["detail_ja"])
    assert fight.version() == before  # neither refusal recorded anything
