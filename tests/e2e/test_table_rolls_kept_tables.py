"""The roll log page rolls a dice table the GM keeps (issue 36 §3) in headless Chromium: the
player picks it by name in the roll form, and the log shows BCDice's table text and names the
table and its version. Same browser and fixtures as test_table_rolls.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.demo import _auth, _key
from tests.e2e.test_table_rolls import Table, _entry, _open_log, table

__all__ = ["table"]  # the fixture, shared

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]

DRINKS = (
    "飲み物表\n1D6\n1:水\n2:緑茶\n3:麦茶\n4:コーラ\n5:オレンジジュース\n6:選ばれし者の知的飲料\n"
)


def test_a_player_rolls_a_kept_table_from_the_roll_form(
    browser: Any, live_server: LiveServer, table: Table
) -> None:
    client, gm = live_server.client, table.tokens["gm"]
    tables = f"/v1/campaigns/{table.campaign_id}/tables"
    saved = client.post(tables, headers=_auth(gm) | _key(), json={"name": "飲み物", "text": DRINKS})
    assert saved.status_code == 200, saved.text
    opened = client.post(
        f"/v1/campaigns/{table.campaign_id}/rolls",
        headers=_auth(gm) | _key(),
        json={"name": "卓"},
    )
    log_id = opened.json()["roll_log"]["id"]

    aoi, errors = _open_log(browser, live_server.base_url, log_id, table.tokens["aoi"])
    aoi.get_by_label("Or a dice table the GM keeps").select_option("飲み物")
    aoi.get_by_role("button", name="Roll", exact=True).click()
    _entry(aoi, 0).wait_for()
    shown = _entry(aoi, 0)
    assert re.fullmatch(r"飲み物表\([1-6]\) ＞ .+", shown.locator(".roll-text").inner_text())
    assert "表「飲み物」v1" in shown.inner_text()
    assert errors == []
