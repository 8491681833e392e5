"""A demo fight opened over HTTP on a live server: a campaign, tokens, terrain, a few actions."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.unit.encounter.table import sheet

TERRAIN = [
    {"x": 3, "y": 3, "terrain": "forest"},
    {"x": 4, "y": 3, "terrain": "forest"},
    {"x": 6, "y": 5, "terrain": "water"},
    {"x": 7, "y": 5, "terrain": "water"},
    {"x": 5, "y": 1, "terrain": "step2"},
    {"x": 8, "y": 8, "terrain": "barricade"},
]


def _key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class DemoFight:
    client: httpx.Client
    campaign_id: str
    gm: str
    id: str = ""
    tokens: dict[str, str] = field(default_factory=dict)

    def post(self, path: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
        headers = _auth(token or self.gm) | _key()
        answer = self.client.post(path, headers=headers, json=body)
        assert answer.status_code in (200, 201), answer.text
        result: dict[str, Any] = answer.json()
        return result

    def state(self) -> dict[str, Any]:
        got = self.client.get(f"/v1/encounters/{self.id}", headers=_auth(self.gm))
        assert got.status_code == 200, got.text
        result: dict[str, Any] = got.json()
        return result

    def command(self, body: dict[str, Any], by: str = "gm") -> dict[str, Any]:
        token = self.gm if by == "gm" else self.tokens[by]
        headers = _auth(token) | _key() | {"If-Match": f'"{self.state()["version"]}"'}
        answer = self.client.post(f"/v1/encounters/{self.id}/commands", headers=headers, json=body)
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    def version_of(self, event_type: str, **payload: Any) -> int:
        """The version of the first event of this type whose payload has these fields."""
        path = f"/v1/encounters/{self.id}/events"
        got = self.client.get(path, headers=_auth(self.gm), params={"limit": 500})
        for event in got.json()["events"]:
            fields = event["payload"]
            if event["type"] == event_type and all(fields.get(k) == v for k, v in payload.items()):
                return int(event["version"])
        raise AssertionError(f"no {event_type} with {payload}")

    def reveal(self) -> None:
        """The GM reveals the dice seed: from now on every die can be recomputed."""
        self.post(f"/v1/encounters/{self.id}/reveal", {})


def open_campaign(
    client: httpx.Client, name: str, members: dict[str, str], encounter: dict[str, Any]
) -> DemoFight:
    """A campaign (faint_rule: text) with its GM, `members` (id → role) and their tokens, and
    an encounter opened with `encounter` as its body."""
    opened = client.post(
        "/v1/campaigns",
        headers=_key(),
        json={"name": name, "gm_member_id": "gm", "options": {"faint_rule": "text"}},
    )
    assert opened.status_code == 201, opened.text
    fight = DemoFight(client, opened.json()["id"], opened.json()["token"])
    campaign = f"/v1/campaigns/{fight.campaign_id}"
    for member, role in members.items():
        fight.post(f"{campaign}/members", {"member_id": member, "role": role})
        issued = fight.post(f"{campaign}/tokens", {"kind": "member", "member_id": member})
        fight.tokens[member] = issued["token"]
    fight.id = fight.post(f"{campaign}/encounters", encounter)["id"]
    return fight


def open_demo(client: httpx.Client, dice: str | None = None) -> DemoFight:
    """A GM, players aoi and kai, viewer mio; ace and wing against a hidden grunt and a core.
    `dice`: whose dice the encounter rolls ('hand': the table's, asked one at a time)."""
    fight = open_campaign(
        client,
        "蒼穹",
        {"aoi": "player", "kai": "player", "mio": "viewer"},
        {"battle_map": {"width": 12, "height": 10, "squares": TERRAIN}}
        | ({"dice": dice} if dice else {}),
    )
    # Reactions far enough apart that 1D6 never changes the order: ace, wing, grunt, kou.
    join(
        fight,
        ("ace", "ace", "aoi", "pc", sheet(1, 1, reaction=30), False),
        ("wing", "wing", "kai", "pc", sheet(1, 2, reaction=15), False),
        ("grunt", "grunt", "gm", "enemy", sheet(4, 1, reaction=8, hp=321), True),
        ("kou", "kou", "gm", "enemy", sheet(9, 6, reaction=1, hp=400, body="assault_core"), False),
    )
    return fight


def join(fight: DemoFight, *combatants: tuple[str, str, str, str, dict[str, Any], bool]) -> None:
    """The GM joins each (id, name, controller, side, sheet, hidden) to the fight."""
    for cid, name, controller, side, body, hidden in combatants:
        fight.command(
            {
                "command": "JoinCombatant",
                "combatant_id": cid,
                "name": name,
                "side": side,
                "controller": controller,
                "sheet": body,
                "hidden": hidden,
            }
        )


def play_a_little(fight: DemoFight) -> None:
    """Initiative, then ace cleans up, moves a square and shoots the grunt, who takes the hit."""
    fight.command({"command": "RollInitiative"})
    fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    fight.command({"command": "Move", "combatant_id": "ace", "path": [{"x": 2, "y": 1}]}, "aoi")
    fight.command({"command": "DeclareAttack", "combatant_id": "ace", "target": "grunt"}, "aoi")
    fight.command({"command": "TakeHit", "combatant_id": "grunt"})
