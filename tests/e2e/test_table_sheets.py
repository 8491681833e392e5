"""The table page's second half in headless Chromium (issue 9): a pilot in an Assault Core with
both HP bars, the history slider's turn/phase/step stops, the character and unit sheets with
their HP-ratio chart and "copy for CCFolia", and the controls each role is shown.

Same browser and fixtures as test_table_page.py; screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.services.runtime import Runtime
from tests.e2e.conftest import LiveServer
from tests.e2e.crew_demo import CrewFight, ccfolia, fight_a_little, open_crew_fight
from tests.e2e.demo import DemoFight, _auth, open_demo, play_a_little
from tests.e2e.test_table_page import (
    ARTIFACTS,
    UNLABELLED,
    _contrast,
    _token_square,
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]

METERS = """() => [...document.querySelectorAll('[role="meter"]')].map((m) => [
  getComputedStyle(m.querySelector('.hp-fill')).backgroundColor,
  getComputedStyle(m).backgroundColor,
  m.getAttribute('aria-label'),
])"""
NO_CLIPBOARD = "Object.defineProperty(navigator, 'clipboard', { value: undefined });"


@pytest.fixture
def crew(live_server: LiveServer, e2e_runtime: Runtime) -> CrewFight:
    """The HP ledger is a read model: the projector runs beside the server, as `serve` does."""
    e2e_runtime.start_projector()
    crew = open_crew_fight(live_server.client)
    fight_a_little(crew)
    return crew


def _watch(page: Any) -> list[str]:
    errors: list[str] = []
    page.on(
        "console", lambda m: errors.append(f"{m.text} {m.location}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _open(page: Any, base_url: str, encounter: str, token: str) -> None:
    page.goto(f"{base_url}/table/encounters/{encounter}")
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Open").click()
    page.wait_for_selector("#board svg")


def _accessible(page: Any, width: int = 375) -> None:
    """Landmarks, labelled fields, HP bars readable on their track, nothing wider than a phone."""
    for role in ("banner", "navigation", "main", "contentinfo"):
        assert page.get_by_role(role).count() >= 1, role
    assert page.evaluate(UNLABELLED) == []
    for fill, track, label in page.evaluate(METERS):
        assert label
        assert _contrast(fill, track) >= 4.5, (fill, track)
    page.set_viewport_size({"width": width, "height": 800})
    page.wait_for_timeout(200)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width


def test_a_pilot_in_an_assault_core_shows_both_bars_and_the_slider_stops_at_steps(
    browser: Any, live_server: LiveServer, crew: CrewFight
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    errors = _watch(page)
    fight, unit = crew.fight, crew.unit
    now = fight.state()["version"]
    _open(page, live_server.base_url, fight.id, fight.gm)
    page.wait_for_selector(f'#board svg[data-version="{now}"]')

    # Kurenai at 100/400 (ratio 1/4): Aoi's share is 20/80, shown as a second bar and in words.
    core = page.locator(f'#combatants [data-combatant="{unit}"]')
    core.locator('[data-pilot] [role="meter"]').nth(1).wait_for()
    meters = core.locator('[role="meter"]')
    assert meters.count() == 2
    assert (
        meters.nth(0).get_attribute("aria-valuenow"),
        meters.nth(0).get_attribute("aria-valuemax"),
    ) == ("100", "400")
    assert (
        meters.nth(1).get_attribute("aria-valuenow"),
        meters.nth(1).get_attribute("aria-valuemax"),
    ) == ("20", "80")
    assert "蒼井ソラ" in (meters.nth(1).get_attribute("aria-label") or "")
    assert "1/4 = 25%" in core.inner_text()
    assert page.locator(f'#board g[data-combatant="{unit}"] rect.token-pilot-hp-fill').count() == 1
    page.locator("#board-panel").screenshot(path=str(ARTIFACTS / "table-crew-board.png"))
    page.locator("#order-panel").screenshot(path=str(ARTIFACTS / "table-crew-bars.png"))

    # The history select jumps to the last stop before Kurenai moved: the board goes back.
    points = live_server.client.get(f"/v1/encounters/{fight.id}/points", headers=_auth(fight.gm))
    moved = fight.version_of("gd.CombatantMoved", combatant=unit)
    before_move = [p for p in points.json() if p["version"] < moved][-1]
    assert before_move["acting"] == unit
    assert _token_square(page, unit) == (str(18 + 2 * 40 + 1), str(18 + 1 * 40 + 1))
    page.get_by_label("Jump to a turn / phase / step").select_option(str(before_move["version"]))
    page.wait_for_selector(f'#board svg[data-version="{before_move["version"]}"]')
    assert _token_square(page, unit) == (str(18 + 1 * 40 + 1), str(18 + 1 * 40 + 1))
    step = before_move["step"].replace("_", " ")
    assert f"Step: {step}" in page.locator("#procedure").inner_text()
    assert page.get_by_label("Encounter version shown on the board").input_value() == str(
        before_move["version"]
    )
    page.get_by_role("button", name="Back to live").click()
    page.wait_for_selector(f'#board svg[data-version="{now}"]')

    _accessible(page)
    page.close()
    assert errors == []


def test_the_sheets_show_stats_the_ratio_history_and_copy_for_ccfolia(
    browser: Any, live_server: LiveServer, crew: CrewFight
) -> None:
    context = browser.new_context(
        viewport={"width": 1100, "height": 1000},
        permissions=["clipboard-read", "clipboard-write"],
    )
    page = context.new_page()
    errors = _watch(page)
    fight = crew.fight
    _open(page, live_server.base_url, fight.id, fight.tokens["aoi"])

    # From the board to Kurenai's sheet: stats under Aoi's piloting, HP at her ratio.
    page.get_by_role("link", name="Sheet: 紅").click()
    page.wait_for_url(f"**/table/units/{crew.unit}")
    page.wait_for_selector("#hp-chart svg")
    assert page.locator('#stats tr[data-stat="hp"] td').first.inner_text() == "400"
    assert "1/4" in page.locator("#sheet-ratio").inner_text()
    hp = page.locator('#sheet-hp [role="meter"]')
    assert (hp.get_attribute("aria-valuenow"), hp.get_attribute("aria-valuemax")) == ("100", "400")

    # One point per scenario Aoi entered: two closed (3/4, then 1/4) and one in progress.
    ledger = live_server.client.get(
        f"/v1/characters/{crew.pilot}/hp-ledger", headers=_auth(fight.gm)
    ).json()["rows"]
    assert len(ledger) == len(crew.scenarios)
    chart = page.locator("#hp-chart svg")
    assert chart.get_attribute("data-points") == str(len(crew.scenarios))
    closed = page.locator("#hp-chart circle.point.closed")
    assert [closed.nth(i).get_attribute("data-ratio") for i in range(closed.count())] == [
        "3/4",
        "1/4",
    ]
    assert page.locator("#hp-chart circle.point.open").count() == 1
    assert page.locator("#hp-table tbody tr").count() == len(crew.scenarios)
    page.locator("#main").screenshot(path=str(ARTIFACTS / "sheet-unit.png"))

    # Copy for CCFolia: the clipboard holds exactly what the sheet endpoint gives.
    page.get_by_role("button", name="Copy for CCFolia").click()
    page.locator("#copy-status", has_text="Copied").wait_for()
    copied = json.loads(page.evaluate("() => navigator.clipboard.readText()"))
    unit_path = f"/v1/units/{crew.unit}/sheet"
    assert copied == ccfolia(live_server.client, unit_path, fight.gm)
    assert copied["kind"] == "character"

    # The pilot's sheet, from the unit's: level, effective stats, her own clipboard JSON.
    page.get_by_role("link", name="蒼井ソラ").click()
    page.wait_for_url(f"**/table/characters/{crew.pilot}")
    page.wait_for_selector("#hp-chart svg")
    assert page.locator('#stats tr[data-stat="evasion"] td').first.inner_text() == "12"
    hp = page.locator('#sheet-hp [role="meter"]')
    assert (hp.get_attribute("aria-valuenow"), hp.get_attribute("aria-valuemax")) == ("20", "80")
    assert page.locator("#hp-chart circle.point").count() == len(crew.scenarios)
    page.get_by_role("button", name="Copy for CCFolia").click()
    page.locator("#copy-status", has_text="Copied").wait_for()
    copied = json.loads(page.evaluate("() => navigator.clipboard.readText()"))
    pilot_path = f"/v1/characters/{crew.pilot}/sheet"
    assert copied == ccfolia(live_server.client, pilot_path, fight.gm)
    page.locator("#main").screenshot(path=str(ARTIFACTS / "sheet-pilot.png"))
    # localStorage keeps only the table page's witness checkpoints (issue 37), never a token.
    stored = page.evaluate("() => Object.fromEntries(Object.entries(localStorage))")
    assert set(stored) <= {"senki.witness"}
    assert fight.tokens["aoi"] not in json.dumps(stored)

    # Japanese: the sheet's words and the stats' names switch, the numbers stay.
    page.get_by_label("Language").select_option("ja")
    assert page.locator("#stats-title").inner_text() == "実効能力値"
    evasion = page.locator('#stats tr[data-stat="evasion"]').inner_text()
    assert "回避" in evasion
    assert "12" in evasion
    page.get_by_label("言語").select_option("en")
    _accessible(page)
    page.screenshot(path=str(ARTIFACTS / "sheet-phone.png"), full_page=True)
    context.close()

    # Without a clipboard the JSON is shown selected, to be copied by hand.
    bare = browser.new_context(viewport={"width": 1100, "height": 900})
    bare.add_init_script(NO_CLIPBOARD)
    page = bare.new_page()
    errors += _watch(page)
    page.goto(f"{live_server.base_url}/table/characters/{crew.pilot}")
    page.get_by_label("Token").fill(fight.tokens["mio"])
    page.get_by_role("button", name="Open").click()
    page.get_by_role("button", name="Copy for CCFolia").click()
    box = page.get_by_label("CCFolia clipboard JSON")
    box.wait_for()
    assert json.loads(box.input_value()) == ccfolia(live_server.client, pilot_path, fight.gm)
    selected = page.evaluate(
        "() => { const b = document.getElementById('ccfolia-text');"
        " return b.selectionEnd - b.selectionStart === b.value.length; }"
    )
    assert selected
    bare.close()
    assert errors == []


def test_each_role_sees_only_the_controls_it_may_use(browser: Any, live_server: LiveServer) -> None:
    fight: DemoFight = open_demo(live_server.client)
    play_a_little(fight)
    ruled = fight.version_of("RulingRecorded", rule_ids=["GD-INIT-1"])
    fight.post(
        f"/v1/encounters/{fight.id}/disputes",
        {"ruling_version": ruled, "reason": "too early"},
        token=fight.tokens["aoi"],
    )
    seen: dict[str, dict[str, int]] = {}
    for member in ("mio", "aoi", "gm"):
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        errors = _watch(page)
        token = fight.gm if member == "gm" else fight.tokens[member]
        _open(page, live_server.base_url, fight.id, token)
        page.locator("#me", has_text="Signed in as").wait_for()
        ruling = page.locator(f'#log details[data-version="{ruled}"]')
        ruling.locator("summary").click()
        ruling.locator(".dispute").wait_for()
        seen[member] = {
            "dispute": ruling.locator(".dispute-form").count(),
            "settle": ruling.locator(".settle-form").count(),
            "reveal": page.locator("#reveal:visible").count(),
            "what_if": page.locator("#whatif-form:visible").count(),
        }
        if member == "mio":
            assert "Read only" in page.locator("#me").inner_text()
            page.locator("#log-panel").screenshot(path=str(ARTIFACTS / "table-viewer-log.png"))
        if member == "aoi":
            assert "(you)" in page.locator('#combatants [data-combatant="ace"]').inner_text()
        page.close()
        assert errors == [], member
    assert seen["mio"] == {"dispute": 0, "settle": 0, "reveal": 0, "what_if": 1}
    assert seen["aoi"] == {"dispute": 1, "settle": 0, "reveal": 0, "what_if": 1}
    assert seen["gm"] == {"dispute": 1, "settle": 1, "reveal": 1, "what_if": 1}
