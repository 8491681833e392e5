"""The campaign's roll-log page (issue #35 §7) in headless Chromium: the logs listed by name with
links, a roll form that rolls into the table log unless another log is picked by name (no raw
"Roll log ID" box), the GM's and the player's rolls in one table log, a viewer reading the list
only, in English and Japanese. Same browser and fixtures as test_table_rolls.py."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.demo import _auth
from tests.e2e.test_table_page import ARTIFACTS, UNLABELLED
from tests.e2e.test_table_rolls import PHONE, Table, _entry, _sign_in, _watch, table

__all__ = ["table"]  # the fixture, shared (the browser is conftest's)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]

LOG_PAGE = re.compile(r".*/table/rolls/[0-9a-f-]{36}$")


def _campaign_page(browser: Any, live_server: LiveServer, table: Table, who: str) -> Any:
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    _sign_in(
        page, f"{live_server.base_url}/table/campaigns/{table.campaign_id}/rolls", table.tokens[who]
    )
    page.locator("#log-list li").first.wait_for()
    return page


def _roll_at_table(page: Any, command: str, log: str | None = None) -> str:
    """Roll from the campaign's page (in the table log, or in `log` picked by name); the page
    then shows the log the roll went to: its id."""
    if log is not None:
        page.get_by_label("Roll in", exact=True).select_option(label=log)
    page.get_by_label("Dice to roll").fill(command)
    page.get_by_role("button", name="Roll in that log").click()
    page.wait_for_url(LOG_PAGE)
    page.locator("#roll-list li.roll").first.wait_for()
    return str(page.url.rsplit("/", 1)[1])


def _listed(live_server: LiveServer, table: Table) -> dict[str, Any]:
    answer = live_server.client.get(
        f"/v1/campaigns/{table.campaign_id}/rolls/logs", headers=_auth(table.tokens["gm"])
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_the_campaigns_page_lists_its_logs_and_rolls_at_the_table_by_default(
    browser: Any, live_server: LiveServer, table: Table
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    errors: list[str] = []

    # Before any roll: the list says the first roll opens the table log; no ID box anywhere.
    gm = _campaign_page(browser, live_server, table, "gm")
    errors += _watch(gm)
    assert "first roll opens the table log" in gm.locator("#log-list").inner_text()
    assert gm.get_by_label("Roll log ID").count() == 0
    assert gm.evaluate(UNLABELLED) == []

    # The GM rolls from the form as it comes: into the table log, which the first roll opens.
    table_log = _roll_at_table(gm, "2D6 先制")
    assert _listed(live_server, table)["table_log_id"] == table_log

    # The player, on the same page, rolls into the same log, and finds it listed by name.
    aoi = _campaign_page(browser, live_server, table, "aoi")
    errors += _watch(aoi)
    first = aoi.locator("#log-list li").first
    assert first.get_attribute("data-log") == table_log
    assert first.locator("a").inner_text() == "Table log (everyone's rolls)"
    assert "Rolls: 1" in first.inner_text()
    assert _roll_at_table(aoi, "1D100<=50 回避") == table_log
    assert [e.inner_text().split()[0] for e in aoi.locator("#roll-list li.roll").all()] == [
        "#1",
        "#2",
    ]
    assert "rolled by aoi (you)" in _entry(aoi, 1).inner_text()

    # The GM opens a named log, then back on the campaign's page picks it by name to roll in.
    gm.goto(f"{live_server.base_url}/table/campaigns/{table.campaign_id}/rolls")
    gm.get_by_label("Log name").fill("探索")
    gm.get_by_role("button", name="Open a new roll log").click()
    gm.wait_for_url(LOG_PAGE)
    named = gm.url.rsplit("/", 1)[1]
    gm.get_by_role("link", name="The campaign's roll logs").click()
    gm.locator(f'#log-list li[data-log="{named}"]').wait_for()
    assert _roll_at_table(gm, "1D6 足跡", log="探索") == named
    listed = _listed(live_server, table)["logs"]
    assert [(log["name"], log["kind"], log["rolls"]) for log in listed] == [
        ("table rolls", "table", 2),
        ("探索", "named", 1),
    ]

    # A viewer reads the list, follows a link by name, and is offered no form to roll or open.
    mio = _campaign_page(browser, live_server, table, "mio")
    errors += _watch(mio)
    assert mio.locator("#table-roll-form:visible").count() == 0
    assert mio.locator("#new-log-form:visible").count() == 0
    mio.get_by_label("Language").select_option("ja")
    assert mio.locator("#logs-title").inner_text() == "このキャンペーンのダイスログ"
    assert mio.locator("#log-list li a").all_inner_texts() == [
        "卓のダイスログ（全員のダイス）",
        "探索",
    ]
    assert "ダイス数: 1" in mio.locator(f'#log-list li[data-log="{named}"]').inner_text()
    mio.set_viewport_size({"width": PHONE, "height": 800})
    mio.wait_for_timeout(200)
    assert mio.evaluate("() => document.documentElement.scrollWidth") <= PHONE
    mio.screenshot(path=str(ARTIFACTS / "roll-logs-viewer-phone-ja.png"), full_page=True)
    mio.get_by_role("link", name="探索").click()
    mio.wait_for_url(f"**/table/rolls/{named}")
    mio.locator("#rolls-name", has_text="探索").wait_for()

    aoi.goto(f"{live_server.base_url}/table/campaigns/{table.campaign_id}/rolls")
    aoi.locator(f'#log-list li[data-log="{named}"]').wait_for()
    aoi.locator("#main").screenshot(path=str(ARTIFACTS / "roll-logs-player.png"))
    for page in (gm, aoi, mio):
        page.close()
    assert errors == []
