"""Disputes, what-if replays and time travel over HTTP (issue 6): given a fight with a hit,
when a player disputes the ruling and the GM settles it, then the history and corrections."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth, key
from tests.api.fight import Fight, started_fight

pytestmark = pytest.mark.postgres


def a_hit_on_grunt(client: TestClient) -> Fight:
    """Ace (attack 120) hits the grunt (defence 50, HP 321) after a medium 50 % modifier."""
    fight = started_fight(client)
    for body in (
        {"command": "Cleanup", "combatant_id": "ace"},
        {"command": "DeclareAttack", "combatant_id": "ace", "target": "grunt"},
        {
            "command": "GrantSituationModifier",
            "defender": "grunt",
            "percent": 50,
            "grade": "medium",
            "reason": "careless",
        },
        {"command": "TakeHit", "combatant_id": "grunt"},
    ):
        by = "aoi" if body.get("combatant_id") == "ace" else "gm"
        answer = fight.command(body, by=by)
        assert answer.status_code == 200, answer.text
    return fight


def damage_ruling(fight: Fight) -> int:
    events = fight.get("/events", limit=500).json()["events"]
    return next(
        e["version"]
        for e in events
        if e["type"] == "RulingRecorded" and "GD-DMG-1" in e["payload"]["rule_ids"]
    )


def modifier_command(fight: Fight) -> int:
    events = fight.get("/events", limit=500).json()["events"]
    commands = [e for e in events if e["type"] == "CommandIssued"]
    return next(
        i
        for i, e in enumerate(commands)
        if e["payload"]["command_type"] == "GrantSituationModifier"
    )


def post(fight: Fight, path: str, body: dict[str, Any], by: str = "gm") -> Any:
    return fight.client.post(
        f"/v1/encounters/{fight.id}{path}", headers=auth(fight.token(by)) | key(), json=body
    )


def test_a_what_if_replay_shows_the_divergence_and_stores_nothing(client: TestClient) -> None:
    fight = a_hit_on_grunt(client)
    before = fight.version()
    answer = post(fight, "/replay", {"options": {"situation_bonus_applies_to": "damage"}})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["complete"]
    assert body["divergence"]["command_type"] == "TakeHit"
    # attack 180 − 50 = 130 vs damage 70 × 1.5 = 105
    assert body["differences"]["grunt"]["hp"] == {"original": 321 - 130, "replay": 321 - 105}
    assert fight.version() == before


def test_a_player_may_not_replay_a_fight_with_a_hidden_combatant(client: TestClient) -> None:
    """The grunt is hidden from aoi: a replay's answer would tell its numbers by what changes
    in it, so the replay is the GM's (docs/visibility.md "A what-if is not an oracle")."""
    fight = a_hit_on_grunt(client)
    answer = post(fight, "/replay", {"options": {"situation_bonus_applies_to": "damage"}}, by="aoi")
    assert answer.status_code == 403, answer.text
    assert "the GM's" in answer.json()["detail"]


def test_a_player_disputes_and_the_gm_amends_medium_to_large(client: TestClient) -> None:
    """Large 80 %: 120 × 1.8 = 216 − 50 = 166 instead of 130 → HP 155 instead of 191."""
    fight = a_hit_on_grunt(client)
    filed = post(
        fight,
        "/disputes",
        {"ruling_version": damage_ruling(fight), "reason": "it never saw ace coming"},
        by="aoi",
    )
    assert filed.status_code == 201, filed.text
    dispute = filed.json()["dispute_id"]
    refused = post(fight, f"/disputes/{dispute}/amend", {}, by="aoi")
    assert refused.status_code == 403
    amended = post(
        fight,
        f"/disputes/{dispute}/amend",
        {
            "note": "large after all",
            "amendment": {
                "command": modifier_command(fight),
                "payload": {
                    "defender": "grunt",
                    "percent": 80,
                    "grade": "large",
                    "reason": "unaware",
                },
            },
        },
    )
    assert amended.status_code == 200, amended.text
    events = fight.get("/events", limit=500).json()["events"]
    types = [e["type"] for e in events]
    assert types.count("RulingRecorded") >= 3  # the original damage ruling is still there
    correction = next(e for e in events if e["type"] == "CombatantCorrected")
    assert correction["payload"]["previous"] == {"hp": 191}
    assert correction["payload"]["changes"] == {"hp": 155}
    disputes = fight.get("/disputes").json()
    assert [(d["status"], d["filed_by"]) for d in disputes] == [("amended", "aoi")]


def test_the_gm_upholds_a_dispute(client: TestClient) -> None:
    fight = a_hit_on_grunt(client)
    filed = post(
        fight, "/disputes", {"ruling_version": damage_ruling(fight), "reason": "no"}, by="aoi"
    ).json()
    upheld = post(fight, f"/disputes/{filed['dispute_id']}/uphold", {"note": "medium"})
    assert upheld.status_code == 200
    assert fight.get("/disputes").json()[0]["status"] == "upheld"


def test_disputing_something_that_is_not_a_ruling_is_409(client: TestClient) -> None:
    fight = a_hit_on_grunt(client)
    answer = post(fight, "/disputes", {"ruling_version": 1, "reason": "?"}, by="aoi")
    assert answer.status_code == 409
    assert "not a ruling" in answer.json()["detail"]


def test_a_viewer_cannot_dispute(client: TestClient) -> None:
    fight = a_hit_on_grunt(client)
    answer = post(
        fight, "/disputes", {"ruling_version": damage_ruling(fight), "reason": "x"}, by="mio"
    )
    assert answer.status_code == 403


def test_time_travel_to_the_start_of_a_step(client: TestClient) -> None:
    fight = a_hit_on_grunt(client)
    at = fight.get("/at", turn=1, phase="main_action", step="reaction")
    assert at.status_code == 200, at.text
    assert at.json()["procedure"]["step"] == "reaction"
    assert fight.get("/at", turn=7).status_code == 409


def test_the_audit_trail_shows_each_ruling_with_its_rule_text(client: TestClient) -> None:
    fight = a_hit_on_grunt(client)
    trail = fight.get("/rulings")
    assert trail.status_code == 200, trail.text
    entries = trail.json()
    damage = next(e for e in entries if any(r["rule_id"] == "GD-DMG-1" for r in e["rules"]))
    assert all(r["text"] for r in damage["rules"])
    assert damage["command"]["command_type"] == "TakeHit"


def test_the_audit_trail_gives_the_seeds_own_words_beside_the_digest(client: TestClient) -> None:
    fight = a_hit_on_grunt(client)
    entries = fight.get("/rulings").json()
    cited = {r["rule_id"]: r for e in entries for r in e["rules"]}
    damage = cited["GD-DMG-1"]["ja_source"]
    assert "（『攻撃力』－『防御力』）" in damage["text"]  # the seed's own line, verbatim
    assert damage["source"].startswith("seeds/000_cdc17195a0f4ea3d.txt lines ")
    assert all(r["ja_source"]["text"] or r["ja_source"]["source"] for r in cited.values())
