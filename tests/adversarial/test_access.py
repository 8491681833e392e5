"""Issue 33 §3: only a die's owner enters it; only a member's tokens act for them.

Each test is an attack that worked on main at 365a7c7, kept so it cannot work again: a player
entering the GM's or another player's die, a removed member's token coming back, a stream id
of one kind read as another, a credential replayed to a caller who did not earn it, and a 401
that told whether the token's campaign exists.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth, key, open_campaign
from tests.api.fight import Fight, join
from tests.api.test_authorization_matrix import TABLE, call, world
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres


def ok(answer: httpx.Response) -> dict[str, Any]:
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def hand_fight(
    client: TestClient, *, grunt_reaction: int = 2, ace_hp: int = 100, **options: Any
) -> Fight:
    """aoi controls `ace`, kai `wing`, the GM `grunt`; the table rolls its own dice."""
    campaign = open_campaign(client, **({"faint_rule": "text"} | options))
    tokens = {"aoi": campaign.token_for("aoi"), "kai": campaign.token_for("kai")}
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/encounters",
        json={"battle_map": {"width": 12, "height": 12}, "dice": "hand"},
    )
    assert opened.status_code == 201, opened.text
    fight = Fight(campaign, opened.json()["id"], tokens)
    join(fight, "ace", "aoi", "pc", sheet(1, 1, reaction=20, hp=ace_hp))
    join(fight, "wing", "kai", "pc", sheet(1, 2, reaction=10))
    join(fight, "grunt", "gm", "enemy", sheet(4, 1, reaction=grunt_reaction))
    return fight


def dice_rolled(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [f["payload"] for f in answer["facts"] if f["type"] == "EncounterDiceRolled"]


# --- a die is entered only by the member it is for, or the GM ---------------------------


def test_a_player_entering_several_faces_cannot_set_other_members_dice(
    client: TestClient,
) -> None:
    """aoi's initiative die is awaited; her EnterDie [6, 1, 1] also set kai's and the GM's
    grunt's initiative dice (only the first face's owner was checked)."""
    fight = hand_fight(client)
    ok(fight.command({"command": "RollInitiative"}))
    version = fight.version()
    refused = fight.command({"command": "EnterDie", "faces": [6, 1, 1]}, by="aoi")
    assert refused.status_code == 403, refused.text
    assert "kai" in refused.json()["detail"]
    assert fight.version() == version  # nothing recorded
    # Her own die alone is hers to enter; kai's is then awaited, and his to enter.
    after = ok(fight.command({"command": "EnterDie", "faces": [6]}, by="aoi"))
    assert after["awaiting"]["die"]["for_member"] == "kai"


def test_a_players_hand_faces_cannot_set_the_gm_attackers_hit_die(client: TestClient) -> None:
    """The grunt attacks ace; aoi's Dodge with `hand_faces: [1, 100]` set the grunt's hit die
    (GD-REACT-1, rolled by the attacker: the GM's) to 1 and her evasion to 100."""
    fight = hand_fight(client, grunt_reaction=30)
    ok(fight.command({"command": "RollInitiative", "hand_faces": [1, 1, 1]}))  # the GM's: any
    ok(fight.command({"command": "DeclareAttack", "combatant_id": "grunt", "target": "ace"}))
    version = fight.version()
    dodge = {"command": "Dodge", "combatant_id": "ace", "hand_faces": [1, 100]}
    refused = fight.command(dodge, by="aoi")
    assert refused.status_code == 403, refused.text
    assert "GD-REACT-1" in refused.json()["detail"]
    assert fight.version() == version


def test_each_hand_die_records_who_entered_it(client: TestClient) -> None:
    """The same Dodge, one die at a time: the GM enters the grunt's hit die, aoi her own
    evasion die, and the record says who entered each face."""
    fight = hand_fight(client, grunt_reaction=30)
    ok(fight.command({"command": "RollInitiative", "hand_faces": [1, 1, 1]}))
    ok(fight.command({"command": "DeclareAttack", "combatant_id": "grunt", "target": "ace"}))
    waited = ok(fight.command({"command": "Dodge", "combatant_id": "ace"}, by="aoi"))
    assert waited["awaiting"]["die"]["for_member"] == "gm"  # the attacker's hit die
    refused = fight.command({"command": "EnterDie", "faces": [1]}, by="aoi")
    assert refused.status_code == 403, refused.text
    waited = ok(fight.command({"command": "EnterDie", "faces": [90]}))
    assert waited["awaiting"]["die"]["for_member"] == "aoi"  # her evasion die
    resolved = ok(fight.command({"command": "EnterDie", "faces": [5]}, by="aoi"))
    rolled = dice_rolled(resolved)
    assert [(r["result"]["purpose"], r["entered_by"]) for r in rolled[:2]] == [
        ("GD-REACT-1 hit grunt", "gm"),
        ("GD-REACT-1 evasion", "aoi"),
    ]


def test_a_players_command_may_carry_her_own_dice(client: TestClient) -> None:
    """`hand_faces` holding only the sender's own dice is still taken: aoi takes the grunt's
    hit and gives her own faint check's die (GD-INJ-1) with the command."""
    fight = hand_fight(client, grunt_reaction=30, ace_hp=1)
    ok(fight.command({"command": "RollInitiative", "hand_faces": [1, 1, 1]}))
    ok(fight.command({"command": "DeclareAttack", "combatant_id": "grunt", "target": "ace"}))
    taken = {"command": "TakeHit", "combatant_id": "ace", "hand_faces": [6]}
    hit = ok(fight.command(taken, by="aoi"))
    # Her faint die (GD-INJ-1) is taken; her critical die (GD-INJ-2) is asked for next.
    [waited] = [f["payload"] for f in hit["facts"] if f["type"] == "RollAwaited"]
    assert (waited["pending"]["faces"], waited["pending"]["entered_by"]) == ([6], ["aoi"])
    assert waited["die"]["purpose"] == "GD-INJ-2 critical ace"
    assert waited["die"]["for_member"] == "aoi"


# --- removing a member revokes their tokens for good -------------------------------------


def test_a_removed_member_added_again_does_not_get_the_old_token_back(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    old = campaign.token_for("aoi")
    gm = auth(campaign.gm)
    client.delete(f"/v1/campaigns/{campaign.id}/members/aoi", headers=gm)
    assert client.get(f"/v1/campaigns/{campaign.id}", headers=auth(old)).status_code == 401
    added = campaign.post(
        f"/v1/campaigns/{campaign.id}/members", json={"member_id": "aoi", "role": "player"}
    )
    assert added.status_code in (200, 201), added.text
    assert client.get(f"/v1/campaigns/{campaign.id}", headers=auth(old)).status_code == 401
    wrote = campaign.post(
        f"/v1/campaigns/{campaign.id}/rolls", token=old, json={"expression": "1D6"}
    )
    assert wrote.status_code == 401
    listed = client.get(f"/v1/campaigns/{campaign.id}/tokens", headers=gm).json()
    assert all(t["revoked"] for t in listed if t["member_id"] == "aoi")


# --- a stream id of one kind is no other kind's ------------------------------------------

# Which world id each route placeholder takes, and the ids of other kinds to try in its place.
_KINDS = ("campaign", "character", "unit", "scenario", "encounter", "roll_log")


def test_a_wrong_kind_id_is_404_on_every_route_family(client: TestClient) -> None:
    """A roll log's id read as an encounter answered 500 with a traceback ('RollLog' object
    has no attribute 'ruleset'): the state cache was keyed by stream id alone. Every route
    given another kind's id (each read first as its own kind, so the cache holds it) answers
    404 — or 403 where the id is the token's campaign's own place (`/v1/campaigns/{id}`)."""
    fight, _, ids = world(client)
    for kind in _KINDS:  # warm every state into the caches
        for rule in TABLE:
            if rule.method == "GET" and f"{{{kind}}}" in rule.path:
                call(client, rule, ids["gm"], ids)
                break
    wrong: list[str] = []
    for rule in TABLE:
        place = rule.path.split("/")[3:4]  # the id the route is about: /v1/<kind>s/{id}/…
        own = next((k for k in _KINDS if [f"{{{k}}}"] == place), None)
        if own is None:
            continue
        for other in _KINDS:
            if other == own:
                continue
            wrong_place = replace(rule, path=rule.path.replace(f"{{{own}}}", ids[other]))
            status = call(client, wrong_place, ids["gm"], ids)
            want = 403 if own == "campaign" else 404
            if status != want:
                wrong.append(f"{rule.method} {rule.path} with a {other} id: {status}, want {want}")
    assert not wrong, "\n".join(wrong)
    assert fight.get().status_code == 200


def test_a_roller_token_is_issued_only_for_a_roll_log(client: TestClient) -> None:
    fight, _, ids = world(client)
    campaign = fight.campaign
    for other in ("encounter", "campaign", "character", "scenario"):
        refused = campaign.post(
            f"/v1/campaigns/{campaign.id}/tokens",
            json={"kind": "roller", "roll_log_id": ids[other]},
        )
        assert refused.status_code == 404, (other, refused.text)


# --- a credential is never replayed to a caller who did not earn it ----------------------


def test_another_anonymous_caller_with_the_same_key_and_body_gets_no_gm_token(
    client: TestClient,
) -> None:
    headers = key()
    body = {"name": "狙われた卓", "gm_member_id": "gm"}
    first = client.post("/v1/campaigns", headers=headers, json=body)
    assert first.status_code == 201, first.text
    token = first.json()["token"]
    again = client.post("/v1/campaigns", headers=headers, json=body)
    assert token not in again.text
    assert token.rsplit(".", 1)[1] not in again.text
    assert again.status_code == 409, again.text
    assert "new Idempotency-Key" in again.json()["detail"]
    assert "新しい Idempotency-Key" in again.json()["detail_ja"]


def test_a_gm_retrying_a_token_issue_gets_it_and_no_one_else_does(client: TestClient) -> None:
    """Issued tokens replay only into the scope of the token that issued them."""
    campaign = open_campaign(client)
    second_gm = campaign.token_for("gm2", role="gm")
    headers = auth(campaign.gm) | key()
    body = {"kind": "site", "label": "wiki"}
    path = f"/v1/campaigns/{campaign.id}/tokens"
    first = client.post(path, headers=headers, json=body).json()["token"]
    assert client.post(path, headers=headers, json=body).json()["token"] == first
    other = client.post(
        path, headers=headers | {"Authorization": f"Bearer {second_gm}"}, json=body
    ).json()["token"]
    assert other != first


# --- one wording for every refusal of a credential ---------------------------------------


def test_a_401_does_not_say_whether_the_tokens_campaign_exists(client: TestClient) -> None:
    campaign = open_campaign(client)
    player = campaign.token_for("aoi")
    real_id = player.split(".")[1]
    forged = [
        f"senki.{uuid.uuid4().hex}.abcd1234.secret",  # no such campaign
        f"senki.{real_id}.abcd1234.secret",  # the campaign exists, the token does not
        player[:-2] + "xx",  # a real token id with a wrong secret
        "senki.nothex.1.2",  # malformed
    ]
    client.delete(f"/v1/campaigns/{campaign.id}/members/aoi", headers=auth(campaign.gm))
    forged.append(player)  # its member left
    details = set()
    for token in forged:
        refused = client.get(f"/v1/campaigns/{campaign.id}", headers=auth(token))
        assert refused.status_code == 401, (token, refused.text)
        details.add(refused.json()["detail"])
    assert len(details) == 1, details
