"""A fight opened through the API: a campaign, its members' tokens, and combatants joined."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi.testclient import TestClient

from tests.api.conftest import Campaign, auth, key, open_campaign
from tests.unit.encounter.table import sheet, weapon


@dataclass
class Fight:
    """An open encounter: aoi controls `ace`, kai controls `wing`, the GM a hidden `grunt`."""

    campaign: Campaign
    id: str
    tokens: dict[str, str] = field(default_factory=dict)

    @property
    def client(self) -> TestClient:
        return self.campaign.client

    def token(self, member: str) -> str:
        return self.campaign.gm if member == "gm" else self.tokens[member]

    def version(self) -> int:
        got = self.client.get(f"/v1/encounters/{self.id}", headers=auth(self.campaign.gm))
        return int(got.json()["version"])

    def command(
        self,
        body: dict[str, Any],
        *,
        by: str = "gm",
        version: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """Send a command on `version` (default: the version now), with a fresh key."""
        at = self.version() if version is None else version
        sent = auth(self.token(by), **{"If-Match": f'"{at}"'}) | key() | (headers or {})
        return self.client.post(f"/v1/encounters/{self.id}/commands", headers=sent, json=body)

    def get(self, path: str = "", *, by: str = "gm", **params: Any) -> httpx.Response:
        return self.client.get(
            f"/v1/encounters/{self.id}{path}", headers=auth(self.token(by)), params=params
        )


def join(
    fight: Fight, cid: str, controller: str, side: str, body: dict[str, Any], **more: Any
) -> None:
    answer = fight.command(
        {
            "command": "JoinCombatant",
            "combatant_id": cid,
            "name": cid,
            "side": side,
            "controller": controller,
            "sheet": body,
        }
        | more
    )
    assert answer.status_code == 200, answer.text


def open_fight(client: TestClient, grunt: dict[str, Any] | None = None, **options: Any) -> Fight:
    """Given a campaign with players aoi and kai and viewer mio, the GM opens a fight
    (the hidden grunt's sheet: `grunt`, by default defence 50 and HP 321)."""
    campaign = open_campaign(client, faint_rule="text")
    tokens = {
        "aoi": campaign.token_for("aoi"),
        "kai": campaign.token_for("kai"),
        "mio": campaign.token_for("mio", role="viewer"),
        "site": campaign.site_token(),
    }
    opened = campaign.post(
        f"/v1/campaigns/{campaign.id}/encounters",
        json={"options": options, "battle_map": {"width": 12, "height": 12}},
    )
    assert opened.status_code == 201, opened.text
    fight = Fight(campaign, opened.json()["id"], tokens)
    join(fight, "ace", "aoi", "pc", sheet(1, 1, reaction=20))
    join(fight, "wing", "kai", "pc", sheet(1, 2, reaction=10))
    grunt = grunt if grunt is not None else sheet(4, 1, reaction=2, hp=321)
    join(fight, "grunt", "gm", "enemy", grunt, hidden=True)
    return fight


def started_fight(client: TestClient, grunt: dict[str, Any] | None = None) -> Fight:
    """Given an open fight, the GM rolls initiative: ace acts first, in its cleanup step."""
    fight = open_fight(client, grunt)
    rolled = fight.command({"command": "RollInitiative"})
    assert rolled.status_code == 200, rolled.text
    return fight


ACE_JOIN = 0  # a started fight's recorded commands: joins of ace, wing, grunt; initiative; …


def ace_join(attack: int) -> dict[str, Any]:
    """Ace's JoinCombatant with her rifle's attack changed (her attack: 100 + the rifle's)."""
    body = sheet(1, 1, reaction=20, weapons=[weapon(attack=attack)])
    return {"combatant_id": "ace", "name": "ace", "side": "pc", "controller": "aoi", "sheet": body}


def ace_shoots_grunt(client: TestClient, grunt: dict[str, Any]) -> Fight:
    """Given a started fight with this hidden grunt, ace shoots it and it takes the hit."""
    fight = started_fight(client, grunt)
    for body, by in (
        ({"command": "Cleanup", "combatant_id": "ace"}, "aoi"),
        ({"command": "DeclareAttack", "combatant_id": "ace", "target": "grunt"}, "aoi"),
        ({"command": "TakeHit", "combatant_id": "grunt"}, "gm"),
    ):
        answer = fight.command(body, by=by)
        assert answer.status_code == 200, answer.text
    return fight
