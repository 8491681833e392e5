"""Read models over HTTP: given a projector running beside the API, when the table acts, then
the read models show it and say which log position they reflect."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from infra.services.runtime import Runtime
from tests.api.conftest import auth
from tests.api.fight import started_fight
from tests.support.runtime import log_heads

pytestmark = pytest.mark.postgres


def caught_up(client: TestClient, path: str, token: str, runtime: Runtime) -> Any:
    """Poll a read model until it reflects the log head (eventual consistency, bounded)."""
    heads = log_heads(runtime)
    body: Any = None
    for _ in range(200):
        answer = client.get(path, headers=auth(token))
        if answer.status_code == 200:
            body = answer.json()
            reflects = body["reflects"]
            if all(reflects.get(str(s), 0) >= head for s, head in enumerate(heads)):
                return body
        time.sleep(0.05)
    raise AssertionError(f"{path} never caught up with {heads}: {body}")


def test_the_encounter_log_and_rulings_reflect_the_log_head(
    client: TestClient, runtime: Runtime
) -> None:
    runtime.start_projector()
    fight = started_fight(client)
    gm = fight.campaign.gm
    log = caught_up(client, f"/v1/encounters/{fight.id}/log", gm, runtime)
    assert log["rows"], log
    assert any("GD-INIT-1" in row["rule_ids"] for row in log["rows"])
    assert all(row["line_en"] and row["line_ja"] for row in log["rows"])
    rulings = caught_up(
        client, f"/v1/encounters/{fight.id}/rulings/search?rule_id=GD-INIT-1", gm, runtime
    )
    assert len(rulings["rows"]) == 1
    timeline = caught_up(client, f"/v1/campaigns/{fight.campaign.id}/timeline", gm, runtime)
    assert timeline["rows"]


def test_another_campaigns_token_cannot_read_the_log(client: TestClient, runtime: Runtime) -> None:
    mine, theirs = started_fight(client), started_fight(client)
    answer = client.get(f"/v1/encounters/{mine.id}/log", headers=auth(theirs.campaign.gm))
    assert answer.status_code == 403
