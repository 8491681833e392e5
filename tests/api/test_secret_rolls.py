"""Secret rolls (GM秘匿): given a secret roll log or a secret roll, when anyone but the GM or
the roller reads the log before its seed is revealed, then only that a roll happened shows;
after the reveal every face shows and every roll verifies (docs/visibility.md)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import Campaign, auth, open_campaign

pytestmark = pytest.mark.postgres

# A target number a GM would keep to themselves, distinctive enough to search for.
SECRET_TARGET = 4271


def rolled(campaign: Campaign, token: str | None = None, **body: object) -> dict[str, Any]:
    answer = campaign.post(f"/v1/campaigns/{campaign.id}/rolls", token, json=body)
    assert answer.status_code in (200, 201), answer.text
    return dict(answer.json())


def readers(campaign: Campaign) -> dict[str, str]:
    return {
        "aoi": campaign.token_for("aoi"),
        "mio": campaign.token_for("mio", role="viewer"),
        "site": campaign.site_token(),
    }


def read(campaign: Campaign, log_id: str, token: str) -> dict[str, Any]:
    answer = campaign.client.get(f"/v1/roll-logs/{log_id}", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def shows(text: str, value: int) -> bool:
    return re.search(rf"(?<![\w.])(?<!\w-){value}(?![\w\-]|\.\d)", text) is not None


def test_a_secret_logs_faces_stay_with_the_gm_until_the_seed_is_revealed(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    tokens = readers(campaign)
    first = rolled(campaign, name="GM秘匿", secret=True, expression=f"1D100+{SECRET_TARGET}")
    log_id, total = first["roll_log"]["id"], first["roll"]["total"]
    assert first["roll_log"]["secret"]
    assert first["roll"]["secret"]
    assert shows(str(first), total)  # the GM, who rolled it, sees it in the answer
    gm_view = read(campaign, log_id, campaign.gm)
    assert gm_view["entries"][0]["total"] == total
    for who, token in tokens.items():
        text = str(read(campaign, log_id, token))
        assert not shows(text, total), (who, text)
        assert not shows(text, SECRET_TARGET), (who, text)
        [entry] = read(campaign, log_id, token)["entries"]
        assert entry["withheld"]
        assert entry["faces"] == []
        assert entry["total"] is None
    revealed = campaign.post(f"/v1/roll-logs/{log_id}/reveal")
    assert revealed.status_code == 200, revealed.text
    for token in tokens.values():
        [entry] = read(campaign, log_id, token)["entries"]
        assert (entry["withheld"], entry["total"]) == (False, total)
        verified = client.get(f"/v1/roll-logs/{log_id}/verify", headers=auth(token)).json()
        assert verified["all_verified"] is True


def test_one_secret_roll_in_an_open_log_hides_only_itself(client: TestClient) -> None:
    campaign = open_campaign(client)
    tokens = readers(campaign)
    log_id = rolled(campaign, expression="1D6")["roll_log"]["id"]
    secret = rolled(campaign, roll_log_id=log_id, expression=f"1D100+{SECRET_TARGET}", secret=True)[
        "roll"
    ]
    for token in tokens.values():
        open_roll, hidden = read(campaign, log_id, token)["entries"]
        assert not open_roll["withheld"]
        assert len(open_roll["faces"]) == 1
        assert hidden["withheld"]
        assert hidden["roll_seq"] == secret["roll_seq"]
        assert not shows(str(hidden), secret["total"])


def test_a_players_own_secret_roll_shows_to_them_and_the_gm_only(client: TestClient) -> None:
    campaign = open_campaign(client)
    tokens = readers(campaign)
    log_id = rolled(campaign, expression="1D6")["roll_log"]["id"]
    mine = rolled(
        campaign,
        tokens["aoi"],
        roll_log_id=log_id,
        expression=f"1D100+{SECRET_TARGET}",
        secret=True,
    )["roll"]
    assert read(campaign, log_id, tokens["aoi"])["entries"][1]["total"] == mine["total"]
    assert read(campaign, log_id, campaign.gm)["entries"][1]["total"] == mine["total"]
    assert read(campaign, log_id, tokens["mio"])["entries"][1]["withheld"] is True


def test_a_withheld_roll_names_no_leaf_to_whom_it_is_withheld_until_the_reveal(
    client: TestClient,
) -> None:
    """Every roll names the leaf of the event that recorded it (issue 37), but a withheld one
    shows only its number: its position and leaf are a hash of all of it, and given only to
    those who see it (the GM, the roller), then to everyone once the seed is revealed."""
    campaign = open_campaign(client)
    tokens = readers(campaign)
    log_id = rolled(campaign, expression="1D6")["roll_log"]["id"]
    mine = rolled(campaign, tokens["aoi"], roll_log_id=log_id, expression="1D100", secret=True)[
        "roll"
    ]
    leaf = read(campaign, log_id, campaign.gm)["entries"][1]["log"]
    assert leaf is not None
    assert mine["log"] == leaf  # the roller's own answer names it
    assert read(campaign, log_id, tokens["aoi"])["entries"][1]["log"] == leaf
    for who in ("mio", "site"):
        shown, withheld = read(campaign, log_id, tokens[who])["entries"]
        assert shown["log"] is not None, who
        assert (withheld["withheld"], withheld["position"], withheld["log"]) == (True, None, None)
        assert leaf["chain_hash"] not in str(read(campaign, log_id, tokens[who])), who
    campaign.post(f"/v1/roll-logs/{log_id}/reveal")
    for who, token in tokens.items():
        assert read(campaign, log_id, token)["entries"][1]["log"] == leaf, who
