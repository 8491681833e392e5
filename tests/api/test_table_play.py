"""What the table page plays from: given a fight after initiative, the commands legal now
come with their body schemas, and each says whether this caller may issue it (GD-TURN-1: the
acting combatant's controller, or the GM)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from domain.encounter.rulesets import RULESETS
from tests.api.conftest import Campaign, key, open_campaign
from tests.api.fight import Fight, join
from tests.api.roster import ok
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres


@pytest.fixture
def fight(client: TestClient) -> Fight:
    """aoi's ace acts first; the GM's grunt waits its turn."""
    campaign = open_campaign(client)
    tokens = {"aoi": campaign.token_for("aoi"), "mio": campaign.token_for("mio", role="viewer")}
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/encounters",
        json={"battle_map": {"width": 12, "height": 12}},
    )
    fight = Fight(campaign, ok(opened, 201)["id"], tokens)
    join(fight, "ace", "aoi", "pc", sheet(1, 1, reaction=30))
    join(fight, "grunt", "gm", "enemy", sheet(5, 5, reaction=1))
    ok(fight.command({"command": "RollInitiative"}))
    return fight


def playable(fight: Fight, by: str) -> dict[str, Any]:
    answer: dict[str, Any] = ok(fight.get("/playable", by=by))
    return answer


def test_the_acting_players_commands_are_theirs_and_the_gms_are_not(fight: Fight) -> None:
    seen = playable(fight, "aoi")
    mine = {c["command"] for c in seen["commands"] if c["yours"]}
    assert "Cleanup" in mine
    assert all(c["combatant"] == "ace" for c in seen["commands"] if c["yours"])
    assert "EndCombat" not in mine  # GD-END: the GM records the end
    gm = playable(fight, "gm")
    assert all(c["yours"] for c in gm["commands"])
    assert {c["command"] for c in gm["commands"]} == {c["command"] for c in seen["commands"]}


def test_a_viewer_may_issue_nothing(fight: Fight) -> None:
    assert not any(c["yours"] for c in playable(fight, "mio")["commands"])


def test_each_command_carries_its_body_schema_without_the_dice_fields(fight: Fight) -> None:
    gm = playable(fight, "gm")
    end = next(c for c in gm["commands"] if c["command"] == "EndCombat")
    schema = end["body_schema"]
    assert schema["properties"]["clause"]["enum"] == ["GD-END-1", "GD-END-2", "GD-END-3"]
    assert set(schema["required"]) == {"clause", "reason"}  # `command` is the tag
    assert "hand_faces" not in schema["properties"]
    assert gm["ruleset_id"] == "glorious_drive"
    assert gm["version"] == fight.get().json()["version"]
    assert "faint_rule" in gm["options_schema"]["properties"]


def test_the_page_reads_each_commands_name_from_the_rule_system(fight: Fight) -> None:
    """The page keeps no list of command names: every command the encounter takes comes
    with its rule system's label in English and Japanese, for a viewer too."""
    seen = playable(fight, "mio")
    labels = seen["labels"]
    assert {c["command"] for c in playable(fight, "gm")["commands"]} <= set(labels)
    assert labels["DeclareAttack"] == {"en": "Declare Attack", "ja": "攻撃宣言"}
    assert labels["EnterDie"] == {"en": "Enter Die", "ja": "出目を入力"}
    assert "Declare" not in labels  # Wizardry Round's, not this Glorious Drive fight's


@pytest.mark.parametrize("ruleset_id", sorted(RULESETS))
def test_the_page_reads_each_phases_name_from_the_rule_system(
    client: TestClient, ruleset_id: str
) -> None:
    """Issue 34 §2: the phase and step names come with /playable too, in both languages, as the
    encounter's rule system declares them (GD-TURN-1, WZ-1..10, AK-TURN-1), for a viewer too."""
    opened = client.post(
        "/v1/campaigns",
        headers=key(),
        json={"name": "段取り", "gm_member_id": "gm", "ruleset": ruleset_id},
    )
    campaign = Campaign(ok(opened, 201)["id"], opened.json()["token"], client)
    tokens = {"mio": campaign.token_for("mio", role="viewer")}
    board = {"width": 8, "height": 3} if ruleset_id == "armor_knights" else {}  # AK's lanes
    encounter = campaign.post(f"/v1/campaigns/{campaign.id}/encounters", json={"battle_map": board})
    fight = Fight(campaign, ok(encounter, 201)["id"], tokens)
    seen = playable(fight, "mio")
    declared = RULESETS[ruleset_id].phase_labels
    assert seen["phase_labels"] == {w: {"en": en, "ja": ja} for w, (en, ja) in declared.items()}
    assert fight.get().json()["procedure"]["phase"] in seen["phase_labels"]


def test_the_glorious_drive_steps_are_served_by_the_seeds_names(fight: Fight) -> None:
    names = playable(fight, "gm")["phase_labels"]
    assert names["main_action"] == {"en": "main action", "ja": "メイン行動フェーズ"}
    assert names["weapon_swap"] == {"en": "weapon swap", "ja": "武器持ち替えステップ"}
