"""A campaign with history, opened over HTTP on a live server: Aoi and her Assault Core Kurenai
(max HP 80 and 400, EX-HPS-1) through two closed scenarios and into a third, fighting in it.

Scenario 1 ends with Kurenai at 300/400 (ratio 3/4), scenario 2 at 100/400 (1/4): Kurenai
enters the third at 100/400 and Aoi's share is 20/80. The fight names the core by its unit id,
which is how the table links a combatant to its pilot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from tests.api.roster import AOI, KURENAI
from tests.e2e.demo import DemoFight, _auth, _key
from tests.unit.encounter.table import sheet

SCENARIO_ENDS = (("第1話 紅の空", 300), ("第2話 鋼の雨", 100))


@dataclass
class CrewFight:
    fight: DemoFight
    pilot: str
    unit: str
    scenarios: list[str]


def _ok(answer: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    body: dict[str, Any] = answer.json()
    return body


def _scenario(fight: DemoFight, name: str, pilot: str, unit: str) -> str:
    """Open a scenario, Aoi joins in Kurenai, the GM starts it."""
    campaign = f"/v1/campaigns/{fight.campaign_id}"
    opened = fight.post(f"{campaign}/scenarios", {"name": name})
    scenario = str(opened["id"])
    fight.post(f"/v1/scenarios/{scenario}/participants", {"character_id": pilot, "unit_id": unit})
    fight.post(f"/v1/scenarios/{scenario}/start", {})
    return scenario


def open_crew_fight(client: httpx.Client) -> CrewFight:
    """The GM, player aoi and viewer mio; two closed scenarios, then a fight in the third."""
    opened = _ok(
        client.post(
            "/v1/campaigns",
            headers=_key(),
            json={"name": "紅の記録", "gm_member_id": "gm", "options": {"faint_rule": "text"}},
        ),
        201,
    )
    fight = DemoFight(client, opened["id"], opened["token"])
    campaign = f"/v1/campaigns/{fight.campaign_id}"
    for member, role in (("aoi", "player"), ("mio", "viewer")):
        fight.post(f"{campaign}/members", {"member_id": member, "role": role})
        fight.tokens[member] = fight.post(
            f"{campaign}/tokens", {"kind": "member", "member_id": member}
        )["token"]
    pilot = fight.post(
        f"{campaign}/characters", {"owner": "aoi", "name": "蒼井ソラ", "base_stats": AOI}
    )["id"]
    unit = fight.post(
        f"{campaign}/units", {"pilot_id": pilot, "name": "紅", "base_stats": KURENAI}
    )["id"]
    scenarios = []
    for name, end_hp in SCENARIO_ENDS:
        scenario = _scenario(fight, name, pilot, unit)
        result = {"character_id": pilot, "end_hp": end_hp, "ended_on_foot": False}
        fight.post(f"/v1/scenarios/{scenario}/close", {"results": [result]})
        scenarios.append(scenario)
    scenarios.append(_scenario(fight, "第3話 蒼い残光", pilot, unit))
    encounter = fight.post(
        f"{campaign}/encounters",
        {"scenario_id": scenarios[-1], "battle_map": {"width": 10, "height": 8}},
    )
    fight.id = encounter["id"]
    core = sheet(1, 1, reaction=30, hp=400, body="assault_core") | {"hp": 100}
    for cid, controller, side, body in (
        (unit, "aoi", "pc", core),
        ("grunt", "gm", "enemy", sheet(5, 1, reaction=2, hp=200)),
    ):
        fight.command(
            {
                "command": "JoinCombatant",
                "combatant_id": cid,
                "name": "紅" if cid == unit else cid,
                "side": side,
                "controller": controller,
                "sheet": body,
            }
        )
    return CrewFight(fight, pilot, unit, scenarios)


def fight_a_little(crew: CrewFight) -> None:
    """Initiative; Kurenai cleans up and moves a square east."""
    fight, unit = crew.fight, crew.unit
    fight.command({"command": "RollInitiative"})
    fight.command({"command": "Cleanup", "combatant_id": unit}, by="aoi")
    fight.command({"command": "Move", "combatant_id": unit, "path": [{"x": 2, "y": 1}]}, "aoi")


def ccfolia(client: httpx.Client, path: str, token: str) -> Any:
    """The CCFolia clipboard JSON the server gives for a sheet."""
    return _ok(client.get(path, params={"format": "ccfolia"}, headers=_auth(token)))
