"""Encounters over HTTP: given a fight at a table, when a member acts, then the answer."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.services import Runtime, ShardUnavailable
from tests.api.conftest import auth, key, open_campaign
from tests.api.fight import open_fight, started_fight
from tests.support.leaks import shows_number

pytestmark = pytest.mark.postgres


def test_the_gm_opens_a_fight_under_the_campaigns_house_rules(client: TestClient) -> None:
    fight = open_fight(client, status_recovery_difficulty=9)
    got = fight.get()
    assert got.status_code == 200, got.text
    body = got.json()
    assert body["campaign_id"] == fight.campaign.id
    assert body["ruleset_id"] == "glorious_drive"
    assert body["options"]["faint_rule"] == "text"  # the campaign's
    assert body["options"]["status_recovery_difficulty"] == 9  # this fight's
    assert len(body["commitment"]) == 64
    assert body["revealed_seed"] is None
    assert got.headers["ETag"] == f'"{body["version"]}"'
    same = client.get(
        f"/v1/encounters/{fight.id}",
        headers=auth(fight.campaign.gm, **{"If-None-Match": got.headers["ETag"]}),
    )
    assert same.status_code == 304


def test_a_player_cannot_open_a_fight(client: TestClient) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    refused = campaign.post(f"/v1/campaigns/{campaign.id}/encounters", aoi, json={})
    assert refused.status_code == 403


def test_the_state_shows_the_procedure_point_and_legal_commands(client: TestClient) -> None:
    fight = started_fight(client)
    body = fight.get(by="aoi").json()
    point = body["procedure"]
    assert (point["turn"], point["phase"], point["step"], point["acting"]) == (
        1,
        "main_action",
        "cleanup",
        "ace",
    )
    assert {"command": "Cleanup", "issuer": "controller", "combatant": "ace"} in body[
        "legal_commands"
    ]
    assert [c["combatant_id"] for c in body["combatants"]] == ["ace", "wing", "grunt"]


def test_players_and_sites_do_not_see_a_hidden_enemys_stats(client: TestClient) -> None:
    fight = open_fight(client)
    for reader in ("aoi", "mio", "site"):
        grunt = next(c for c in fight.get(by=reader).json()["combatants"] if c["hidden"])
        assert grunt["sheet"] is None
        assert "hp" not in grunt["status"]
        assert grunt["status"]["position"] == {"x": 4, "y": 1, "z": 0}
        joined = fight.get("/events", by=reader).json()["events"]
        assert not any(shows_number(e["payload"], 321) for e in joined)
    gm_view = next(c for c in fight.get().json()["combatants"] if c["hidden"])
    assert gm_view["sheet"]["stats"]["hp"] == 321
    assert gm_view["status"]["hp"] == 321


def test_a_player_sees_the_stats_of_their_own_combatant(client: TestClient) -> None:
    fight = open_fight(client)
    ace = fight.get(by="aoi").json()["combatants"][0]
    assert ace["sheet"]["stats"]["reaction"] == 20


def test_a_command_answers_with_its_dice_and_rulings(client: TestClient) -> None:
    fight = open_fight(client)
    before = fight.version()
    rolled = fight.command({"command": "RollInitiative", "client_seed": "table-1"})
    assert rolled.status_code == 200, rolled.text
    answer = rolled.json()
    assert answer["events"][:2] == ["CommandIssued", "EncounterDiceRolled"]  # command first
    assert all(r["client_seed"] == "table-1" for r in answer["rolls"])
    assert "GD-INIT-1" in answer["rulings"][0]["rule_ids"]
    assert answer["version"] == before + len(answer["events"])
    assert rolled.headers["ETag"] == f'"{answer["version"]}"'


def test_a_command_whose_write_fails_voids_every_cached_state(
    client: TestClient, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a fight, and a store that fails the next write (it may have appended first)
    fight = open_fight(client)
    voided = runtime.append_watch.voided_at

    def failing(*args: Any, **kwargs: Any) -> None:
        raise ShardUnavailable((0,), "the server closed the connection unexpectedly")

    monkeypatch.setattr(runtime.encounters, "command", failing)
    # When a command is sent, then it is a 503 and no state cached before it is trusted
    refused = fight.command({"command": "RollInitiative"})
    assert refused.status_code == 503, refused.text
    assert runtime.append_watch.voided_at > voided


def test_the_gm_may_enter_dice_rolled_at_the_table(client: TestClient) -> None:
    fight = open_fight(client)
    rolled = fight.command({"command": "RollInitiative", "hand_faces": [6, 5, 4]})
    assert rolled.status_code == 200, rolled.text
    assert [r["source"] for r in rolled.json()["rolls"]] == ["hand"] * 3


def test_a_player_may_not_enter_hand_dice(client: TestClient) -> None:
    fight = started_fight(client)
    refused = fight.command(
        {"command": "Cleanup", "combatant_id": "ace", "hand_faces": [3]}, by="aoi"
    )
    assert refused.status_code == 403


def test_a_player_acts_for_their_own_combatant(client: TestClient) -> None:
    fight = started_fight(client)
    done = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    assert done.status_code == 200, done.text
    assert fight.get().json()["procedure"]["step"] == "weapon_swap"


def test_a_player_acting_for_anothers_combatant_is_refused(client: TestClient) -> None:
    fight = started_fight(client)
    before = fight.version()
    refused = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="kai")
    assert refused.status_code == 403
    assert "kai" in refused.json()["detail"]
    assert fight.version() == before


def test_a_player_may_not_issue_the_gms_commands(client: TestClient) -> None:
    fight = open_fight(client)
    refused = fight.command({"command": "RollInitiative"}, by="aoi")
    assert refused.status_code == 403


@pytest.mark.parametrize("reader", ["mio", "site"])
def test_viewers_and_sites_cannot_command(client: TestClient, reader: str) -> None:
    fight = open_fight(client)
    refused = fight.command({"command": "RollInitiative"}, by=reader)
    assert refused.status_code == 403


def test_a_token_of_another_campaign_reaches_no_fight(client: TestClient) -> None:
    fight = open_fight(client)
    other = open_campaign(client, "別卓")
    assert client.get(f"/v1/encounters/{fight.id}", headers=auth(other.gm)).status_code == 403


def test_a_command_out_of_turn_cites_the_rule(client: TestClient) -> None:
    fight = open_fight(client)
    refused = fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    assert refused.status_code == 422
    assert refused.json()["rule_id"] == "GD-TURN-1"


def test_an_unknown_command_is_a_422_naming_the_field(client: TestClient) -> None:
    fight = open_fight(client)
    refused = fight.command({"command": "Teleport", "combatant_id": "ace"})
    assert refused.status_code == 422
    assert "command" in refused.json()["detail"]


def test_a_command_without_if_match_is_428(client: TestClient) -> None:
    fight = open_fight(client)
    sent = client.post(
        f"/v1/encounters/{fight.id}/commands",
        headers=auth(fight.campaign.gm) | key(),
        json={"command": "RollInitiative"},
    )
    assert sent.status_code == 428


def test_a_command_without_an_idempotency_key_is_refused(client: TestClient) -> None:
    fight = open_fight(client)
    sent = client.post(
        f"/v1/encounters/{fight.id}/commands",
        headers=auth(fight.campaign.gm, **{"If-Match": f'"{fight.version()}"'}),
        json={"command": "RollInitiative"},
    )
    assert sent.status_code == 400


def test_a_stale_if_match_is_412_with_the_current_version(client: TestClient) -> None:
    fight = open_fight(client)
    now = fight.version()
    stale = fight.command({"command": "RollInitiative"}, version=now - 1)
    assert stale.status_code == 412
    assert stale.json()["current_version"] == now


def test_two_clients_on_the_same_version_exactly_one_wins(client: TestClient) -> None:
    fight = started_fight(client)
    at = fight.version()
    barrier = threading.Barrier(2)
    codes: list[int] = []

    def send(by: str, body: dict[str, str]) -> None:
        barrier.wait()
        codes.append(fight.command(body, by=by, version=at).status_code)

    bodies = [
        ("aoi", {"command": "Cleanup", "combatant_id": "ace"}),
        ("gm", {"command": "Wait", "combatant_id": "ace"}),
    ]
    threads = [threading.Thread(target=send, args=pair) for pair in bodies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [200, 412]


def test_a_retried_command_gets_the_same_answer_and_appends_once(client: TestClient) -> None:
    fight = open_fight(client)
    at = fight.version()
    headers = auth(fight.campaign.gm, **{"If-Match": f'"{at}"'}) | key()
    path = f"/v1/encounters/{fight.id}/commands"
    first = client.post(path, headers=headers, json={"command": "RollInitiative"})
    again = client.post(path, headers=headers, json={"command": "RollInitiative"})
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    events = fight.get("/events").json()["events"]
    assert [e["version"] for e in events] == list(range(1, first.json()["version"] + 1))
    assert sum(e["type"] == "EncounterDiceRolled" for e in events) == 3  # one die each
    assert fight.version() == first.json()["version"]


def test_time_travel_shows_the_fight_as_it_stood(client: TestClient) -> None:
    fight = started_fight(client)
    then = fight.get(version=3).json()  # opened, ace's join recorded, ace joined
    assert then["version"] == 3
    assert [c["combatant_id"] for c in then["combatants"]] == ["ace"]
    assert then["procedure"]["phase"] == "setup"
    assert fight.get().json()["procedure"]["phase"] == "main_action"
    assert fight.get(version=999).status_code == 404


def test_events_are_paged_by_cursor(client: TestClient) -> None:
    fight = started_fight(client)
    first = fight.get("/events", limit=2).json()
    assert [e["version"] for e in first["events"]] == [1, 2]
    assert first["events"][0]["type"] == "EncounterOpened"
    assert first["events"][0]["by"] == "gm"
    assert first["events"][0]["position"] >= 1
    assert first["more"] is True
    rest = fight.get("/events", after=first["next_cursor"], limit=500).json()
    assert rest["events"][0]["version"] == 3
    assert rest["more"] is False
    assert rest["next_cursor"] == fight.version()


def test_the_audit_recomputes_every_die_after_the_reveal(client: TestClient) -> None:
    fight = started_fight(client)
    assert fight.get("/audit").status_code == 409  # not revealed yet
    refused = client.post(
        f"/v1/encounters/{fight.id}/reveal", headers=auth(fight.token("aoi")) | key()
    )
    assert refused.status_code == 403
    revealed = client.post(
        f"/v1/encounters/{fight.id}/reveal", headers=auth(fight.campaign.gm) | key()
    )
    assert revealed.status_code == 200, revealed.text
    state = fight.get(by="aoi").json()
    seed = bytes.fromhex(state["revealed_seed"])
    assert hashlib.sha256(seed).hexdigest() == state["commitment"]
    audit = fight.get("/audit", by="aoi").json()
    assert audit["all_verified"] is True
    assert len(audit["checks"]) == state["roll_count"] == 3
