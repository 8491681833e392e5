"""Given steps for the sheet tests: pilots, Assault Cores and scenarios, registered over HTTP.

Aoi (max HP 80, capacity 100, piloting 150) and her Assault Core Kurenai (base HP 160,
capacity 40): GD-STAT-2 boosts the core × 2.5, so its max HP is 400 — the EX-HPS-1 numbers.
"""

from __future__ import annotations

from typing import Any

import httpx

from domain.rules.glorious_drive.stats import STAT_KEYS
from tests.api.conftest import Campaign


def stats(**values: int) -> dict[str, int]:
    """A full GD-STAT block: zeros except the named values (max HP 80, capacity 100)."""
    return dict.fromkeys(STAT_KEYS, 0) | {"hp": 80, "capacity": 100} | values


AOI = stats(piloting=150, evasion=12, reaction=9, ranged_hit=14)
KURENAI = stats(hp=160, capacity=40, phys_atk=20)


def ok(response: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    return body


def register_pilot(campaign: Campaign, token: str | None = None, **body: Any) -> dict[str, Any]:
    payload = {"owner": "aoi", "name": "蒼井ソラ", "base_stats": AOI} | body
    return ok(campaign.post(f"/v1/campaigns/{campaign.id}/characters", token, json=payload), 201)


def register_core(
    campaign: Campaign, pilot_id: str, token: str | None = None, **body: Any
) -> dict[str, Any]:
    payload = {"pilot_id": pilot_id, "name": "紅", "base_stats": KURENAI} | body
    return ok(campaign.post(f"/v1/campaigns/{campaign.id}/units", token, json=payload), 201)


def start_scenario(campaign: Campaign, deployments: dict[str, str | None]) -> str:
    """Open a scenario, join each pilot (with a unit id, or None on foot), start it."""
    opened = ok(
        campaign.post(f"/v1/campaigns/{campaign.id}/scenarios", json={"name": "第1話"}), 201
    )
    for pilot, unit in deployments.items():
        ok(
            campaign.post(
                f"/v1/scenarios/{opened['id']}/participants",
                json={"character_id": pilot, "unit_id": unit},
            )
        )
    ok(campaign.post(f"/v1/scenarios/{opened['id']}/start"))
    return str(opened["id"])
