"""Hand dice over HTTP, and the richer command answer (issue 19 items 1–2).

Given a fight opened with the table's dice, when a command needs a die, then the answer says
which die is awaited and for whom (any reader sees it on the encounter), the right player or
the GM enters it with `EnterDie`, and the answer carries the facts (redacted as /events),
the new version (also the ETag) and what is awaited next, so no second read is needed.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import open_campaign
from tests.api.fight import Fight, join
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres


def hand_fight(client: TestClient, dice: str = "hand") -> Fight:
    """aoi controls `ace`, kai `wing`, the GM a hidden `grunt`; the table rolls the dice."""
    campaign = open_campaign(client, faint_rule="text")
    tokens = {"aoi": campaign.token_for("aoi"), "kai": campaign.token_for("kai")}
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/encounters",
        json={"battle_map": {"width": 12, "height": 12}, "dice": dice},
    )
    assert opened.status_code == 201, opened.text
    fight = Fight(campaign, opened.json()["id"], tokens)
    join(fight, "ace", "aoi", "pc", sheet(1, 1, reaction=20))
    join(fight, "wing", "kai", "pc", sheet(1, 2, reaction=10))
    join(fight, "grunt", "gm", "enemy", sheet(4, 1, reaction=2, hp=321), hidden=True)
    return fight


def ok(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    assert answer.headers["ETag"] == f'"{body["version"]}"'
    return body


def test_the_engine_asks_for_each_die_and_the_right_member_enters_it(client: TestClient) -> None:
    fight = hand_fight(client)
    assert fight.get().json()["dice"] == "hand"
    waited = ok(fight.command({"command": "RollInitiative"}))
    assert [f["type"] for f in waited["facts"]] == ["CommandIssued", "RollAwaited"]
    die = waited["awaiting"]["die"]
    assert (die["notation"], die["for_member"], die["rule_id"]) == ("1D6", "aoi", "GD-INIT-1")
    assert die["text_en"] == "1D6 roll for ace, GD-INIT-1"
    assert [c["command"] for c in waited["awaiting"]["commands"]] == [
        "EnterDie",
        "WithdrawAwaitedRoll",
    ]
    # Any reader sees what is awaited; only aoi (or the GM) enters it.
    seen = fight.get(by="kai").json()
    assert seen["awaited_die"]["text_en"] == "1D6 roll for ace, GD-INIT-1"
    refused = fight.command({"command": "EnterDie", "faces": [3]}, by="kai")
    assert refused.status_code == 403, refused.text
    assert "aoi" in refused.json()["detail"]
    entered = ok(fight.command({"command": "EnterDie", "faces": [3]}, by="aoi"))
    assert entered["awaiting"]["die"]["text_en"] == "1D6 roll for wing, GD-INIT-1"
    # While a die is awaited, any other command is refused, saying what is awaited.
    other = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    assert other.status_code in (409, 422), other.text
    assert "1D6 roll for wing" in other.json()["detail"]
    ok(fight.command({"command": "EnterDie", "faces": [4]}, by="kai"))
    resolved = ok(fight.command({"command": "EnterDie", "faces": [5]}))  # the grunt's: the GM's
    assert resolved["awaiting"]["die"] is None
    assert {"command": "Cleanup", "issuer": "controller", "combatant": "ace"} in resolved[
        "awaiting"
    ]["commands"]
    rolls = [f for f in resolved["facts"] if f["type"] == "EncounterDiceRolled"]
    results = [r["payload"]["result"] for r in rolls]
    assert [(r["total"], r["source"]) for r in results] == [(3, "hand"), (4, "hand"), (5, "hand")]
    assert fight.get().json()["awaited_die"] is None


def test_the_facts_answered_are_the_events_as_the_caller_reads_them(client: TestClient) -> None:
    """The same redaction as /events: aoi's attack on the hidden grunt answers with exactly
    what aoi reads of those versions afterwards (the GM sees the grunt's numbers)."""
    fight = hand_fight(client, dice="server")
    ok(fight.command({"command": "RollInitiative"}))
    ok(fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi"))
    attack = {"command": "DeclareAttack", "combatant_id": "ace", "target": "grunt"}
    declared = ok(fight.command(attack, by="aoi"))
    hit = ok(fight.command({"command": "TakeHit", "combatant_id": "grunt"}))
    for answer, who in ((declared, "aoi"), (hit, "gm")):
        facts = answer["facts"]
        assert facts[-1]["version"] == answer["version"]
        after = facts[0]["version"] - 1
        page = fight.get("/events", by=who, after=after, limit=len(facts)).json()["events"]
        # The answer is given before its positions are read back: it cannot know the log
        # position, nor so the event's leaf in the tree.
        unknown = [{"position": e["position"], "log": e["log"]} for e in page]
        assert [f | u for f, u in zip(facts, unknown, strict=True)] == page


def test_per_roll_a_command_body_chooses_its_dice(client: TestClient) -> None:
    fight = hand_fight(client, dice="per_roll")
    waited = ok(fight.command({"command": "RollInitiative", "dice": "hand"}))
    assert waited["awaiting"]["die"]["text_en"] == "1D6 roll for ace, GD-INIT-1"
    withdrawn = ok(fight.command({"command": "WithdrawAwaitedRoll", "reason": "server dice"}))
    assert [f["type"] for f in withdrawn["facts"]] == ["CommandIssued", "AwaitedRollWithdrawn"]
    rolled = ok(fight.command({"command": "RollInitiative", "dice": "server"}))
    sources = {
        f["payload"]["result"]["source"] for f in rolled["facts"] if "result" in f["payload"]
    }
    assert sources == {"server"}
    assert rolled["awaiting"]["die"] is None


def test_a_dice_choice_in_an_encounter_of_one_kind_of_dice_is_a_clear_problem(
    client: TestClient,
) -> None:
    fight = hand_fight(client, dice="server")
    refused = fight.command({"command": "RollInitiative", "dice": "hand"})
    assert refused.status_code in (409, 422), refused.text
    assert "per_roll" in refused.json()["detail"]
