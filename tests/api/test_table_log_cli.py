"""`senki dice roll --campaign` and `senki dice logs` (issue #35 §7): given a campaign whose
player rolled at the table over HTTP, when the GM rolls from a terminal without --log, then
the roll lands in the same table log, and `senki dice logs` lists the logs by name."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import open_campaign
from tests.integration.test_cli import assert_one_clear_line, run
from tests.support.databases import shard_count
from tests.support.runtime import TEST_DICE_KEY

pytestmark = pytest.mark.postgres


def test_the_terminal_rolls_in_the_table_log_and_lists_the_logs(
    client: TestClient, app_url: str, owner_url: str
) -> None:
    campaign = open_campaign(client)
    aoi = campaign.token_for("aoi")
    rolls = f"/v1/campaigns/{campaign.id}/rolls"
    table = campaign.post(rolls, aoi, json={"expression": "2D6"}).json()["roll_log"]["id"]
    assert campaign.post(rolls, json={"name": "[bold]GM秘匿[/]", "secret": True}).status_code == 201
    env = {
        "SENKI_DATABASE_URL": app_url,
        "SENKI_MIGRATION_DATABASE_URL": owner_url,
        "SENKI_DICE_MASTER_KEY": TEST_DICE_KEY,  # the API's: one seed per log
        "SENKI_SHARDS": str(shard_count()),
        "COLUMNS": "200",
    }
    rolled = run("dice", "roll", "1D100<=50 目星", "--campaign", campaign.id, **env)
    assert rolled.returncode == 0, rolled.stderr
    assert "new roll log" not in rolled.stdout  # the player's first roll opened it
    assert f"(log {table})" in rolled.stdout
    assert "#1 目星: (1D100<=50) ＞ " in rolled.stdout
    listed = run("dice", "logs", "--campaign", campaign.id, **env)
    assert listed.returncode == 0, listed.stderr
    assert "[bold]GM秘匿[/]" in listed.stdout  # the name as typed, not rich markup
    [table_line] = [line for line in listed.stdout.splitlines() if "table rolls" in line]
    assert " table " in table_line
    assert " 2 " in table_line  # the player's roll and the terminal's
    nowhere = run("dice", "logs", "--campaign", str(uuid.uuid4()), **env)
    assert nowhere.returncode != 0
    assert_one_clear_line(nowhere, "campaign")
    stray = run("dice", "roll", "1D6", "--campaign", str(uuid.uuid4()), **env)
    assert stray.returncode != 0
    assert_one_clear_line(stray, "campaign")
