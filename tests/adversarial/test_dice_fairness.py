"""Issue 33 §1 and the dice half of §2, as an attacker tried them over HTTP.

§1: a die, once drawn, decides something on the record. A command refused after its dice were
drawn is recorded (its sequence used up, its dice verifiable after the reveal) and answered as
refused and recorded, never quoting a value computed from a die; the next roll then shows the
dice of the next sequence, not the peeked one.
§2: `choice[1-100000000]` is refused by its size before a single item is built.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from domain.dice.bcdice.limits import MAX_WORK
from tests.api.conftest import Campaign, auth, open_campaign

pytestmark = pytest.mark.postgres

PEEK = "1D100*999999999999999*999999999999999"  # refused today with the die in the message
# Dice-dependent whatever the static checks: each d10000 showing 2 or more rolls again, so the
# chain passes the command's budget (MAX_WORK, 5,000 dice) about 60% of the time.
RUNAWAY = "1U10000[2]"


def _roll(campaign: Campaign, token: str, **body: Any) -> Any:
    return campaign.post(f"/v1/campaigns/{campaign.id}/rolls", token, json=body)


def _log(campaign: Campaign, token: str, *, secret: bool = False) -> str:
    opened = _roll(campaign, token, name="table", secret=secret)
    assert opened.status_code == 201, opened.text
    return str(opened.json()["roll_log"]["id"])


def _players_log(client: TestClient) -> tuple[Campaign, str, str]:
    """A campaign, its player aoi's token, and a roll log aoi opened."""
    campaign = open_campaign(client)
    player = campaign.token_for("aoi")
    return campaign, player, _log(campaign, player)


def _roller(campaign: Campaign) -> tuple[str, str]:
    """A GM's roll log and a roller token (a Discord bot's) for it."""
    log_id = _log(campaign, campaign.gm)
    issued = campaign.post(
        f"/v1/campaigns/{campaign.id}/tokens",
        json={"kind": "roller", "roll_log_id": log_id, "label": "bot"},
    )
    return log_id, str(issued.json()["token"])


def _bcdice(client: TestClient, token: str, command: str) -> Any:
    return client.get(f"/bcdice/{token}/v2/game_system/DiceBot/roll", params={"command": command})


def _refused_after_draw(campaign: Campaign, token: str, log_id: str) -> tuple[str, int]:
    """Roll RUNAWAY with client seeds until one is refused after its dice were drawn."""
    for attempt in range(40):
        answer = _roll(
            campaign, token, roll_log_id=log_id, expression=RUNAWAY, client_seed=f"try-{attempt}"
        )
        if answer.status_code != 200:
            return answer.json()["detail"], attempt
    pytest.fail("no seed ran the reroll chain past the budget")


def test_a_peek_at_the_next_die_through_an_overflow_is_not_free(client: TestClient) -> None:
    campaign, player, log_id = _players_log(client)
    details = set()
    for seed in ("a", "b", "c", "d", "e", "f"):
        refused = _roll(campaign, player, roll_log_id=log_id, expression=PEEK, client_seed=seed)
        assert refused.status_code == 422, refused.text
        details.add(refused.json()["detail"].split(": ", 1)[-1])
    # The answer is the same whatever the die: it tells the player nothing about it.
    assert len(details) == 1, details
    next_roll = _roll(campaign, player, roll_log_id=log_id, expression="1D100<=5")
    assert next_roll.status_code == 200, next_roll.text
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal").status_code == 200
    audit = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(campaign.gm)).json()
    assert audit["all_verified"], audit
    assert [c["roll_seq"] for c in audit["checks"]][-1] == next_roll.json()["roll"]["roll_seq"]


def test_a_roll_refused_after_its_dice_were_drawn_is_recorded_and_verifies(
    client: TestClient,
) -> None:
    campaign, player, log_id = _players_log(client)
    detail, attempt = _refused_after_draw(campaign, player, log_id)
    assert "refused and recorded" in detail
    assert "too much work" in detail
    entries = client.get(f"/v1/roll-logs/{log_id}", headers=auth(player)).json()["entries"]
    refused = entries[-1]
    assert (refused["roll_seq"], refused["refused"]) == (attempt, detail.split(": ", 1)[1])
    assert len(refused["rands"]) == MAX_WORK
    after = _roll(campaign, player, roll_log_id=log_id, expression="1D100")
    assert after.json()["roll"]["roll_seq"] == attempt + 1
    campaign.post(f"/v1/roll-logs/{log_id}/reveal")
    audit = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(player)).json()
    assert audit["all_verified"], audit
    assert len(audit["checks"]) == attempt + 2


def test_a_player_cannot_peek_the_gms_secret_roll_through_a_refusal(client: TestClient) -> None:
    campaign = open_campaign(client)
    player = campaign.token_for("aoi")
    log_id = _log(campaign, campaign.gm, secret=True)
    _, attempt = _refused_after_draw(campaign, player, log_id)
    secret = _roll(campaign, campaign.gm, roll_log_id=log_id, expression="1D100<=50")
    # The GM's roll takes the next sequence: its die is not the one the player's refusal drew.
    assert secret.json()["roll"]["roll_seq"] == attempt + 1
    seen = client.get(f"/v1/roll-logs/{log_id}", headers=auth(campaign.token_for("kai")))
    refused = seen.json()["entries"][attempt]
    assert refused["withheld"]
    assert refused["refused"] is None
    assert refused["rands"] == []


def test_a_bcdice_client_cannot_peek_through_an_overflow(client: TestClient) -> None:
    campaign = open_campaign(client)
    _, token = _roller(campaign)
    reasons = set()
    for command in ("1D6*999999999999999*999999999999999", "1D6*999999999999999*99999999999999"):
        answer = _bcdice(client, token, command)
        assert answer.status_code == 400, answer.text
        assert answer.json()["ok"] is False
        reasons.add(answer.json()["reason"])
    assert not any("e+" in reason for reason in reasons), reasons


def test_a_bcdice_client_refused_after_drawing_finds_the_roll_on_the_record(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    log_id, token = _roller(campaign)
    answers = [_bcdice(client, token, RUNAWAY) for _ in range(12)]
    refused = [a for a in answers if a.status_code != 200]
    assert refused, "no roll ran the reroll chain past the budget"
    assert refused[0].status_code == 400
    assert refused[0].json()["ok"] is False
    assert "refused and recorded" in refused[0].json()["reason"]
    entries = client.get(f"/v1/roll-logs/{log_id}", headers=auth(campaign.gm)).json()["entries"]
    assert len(entries) == len(answers)
    assert sum(entry["refused"] is not None for entry in entries) == len(refused)


def test_choice_of_a_hundred_million_items_is_refused_before_it_builds_one(
    client: TestClient,
) -> None:
    campaign, player, log_id = _players_log(client)
    started = time.perf_counter()
    answer = _roll(campaign, player, roll_log_id=log_id, expression="choice[1-100000000]")
    assert time.perf_counter() - started < 2
    assert answer.json()["roll"]["text"] == "項目数は100以下としてください", answer.text


def test_choice_of_a_hundred_million_items_through_bcdice_api_is_refused_quickly(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    _, token = _roller(campaign)
    started = time.perf_counter()
    answer = _bcdice(client, token, "x20 choice[1-100000000]")
    assert time.perf_counter() - started < 2
    assert answer.status_code == 200, answer.text
    assert answer.json()["text"].count("項目数は100以下としてください") == 20
