"""The table page in headless Chromium (issue 9): a demo fight opened over HTTP, then seen,
followed live, travelled through and verified in a real browser, with basic accessibility.

Chromium is Debian's package (/usr/bin/chromium), driven by Playwright's Python package; the
Playwright-downloaded browsers are never used. Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.demo import DemoFight, open_demo, play_a_little
from tests.support.leaks import shows_number

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]


@pytest.fixture
def fight(live_server: LiveServer) -> DemoFight:
    fight = open_demo(live_server.client)
    play_a_little(fight)
    return fight


def _luminance(rgb: str) -> float:
    """WCAG relative luminance of a computed `rgb(r, g, b)` colour."""
    parts = [int(p) for p in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
    linear = [
        c / 255 / 12.92 if c / 255 <= 0.03928 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in parts
    ]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _token_square(page: Any, combatant: str) -> tuple[str, str]:
    square = page.locator(f'#board g[data-combatant="{combatant}"] rect.occupied')
    return square.get_attribute("x"), square.get_attribute("y")


UNLABELLED = """() => [...document.querySelectorAll('input, select, textarea')]
  .filter((el) => el.type !== 'hidden' && el.labels.length === 0 && !el.getAttribute('aria-label'))
  .map((el) => el.id || el.outerHTML)"""

HP_COLOURS = """() => [...document.querySelectorAll('#combatants .hp-track')].map((track) => [
  getComputedStyle(track.querySelector('.hp-fill')).backgroundColor,
  getComputedStyle(track).backgroundColor,
])"""


def test_the_table_shows_follows_and_verifies_a_fight(
    browser: Any, live_server: LiveServer, fight: DemoFight
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console", lambda m: errors.append(f"{m.text} {m.location}") if m.type == "error" else None
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    now = fight.state()["version"]

    # Given the address of the fight, the page asks for a token and opens it.
    page.goto(f"{live_server.base_url}/table/encounters/{fight.id}")
    page.get_by_label("Token").fill(fight.gm)
    page.get_by_role("button", name="Open").click()
    page.wait_for_selector(f'#board svg[data-version="{now}"]')
    assert page.evaluate("() => sessionStorage.getItem('senki.token')") == fight.gm
    # localStorage keeps only the witness's checkpoints (issue 37), never the token.
    stored = page.evaluate("() => Object.fromEntries(Object.entries(localStorage))")
    assert set(stored) <= {"senki.witness"}
    assert fight.gm not in json.dumps(stored)

    # The board: grid, terrain, every combatant by side, the HP it may see, the acting one.
    assert page.locator('#board rect[data-terrain="forest"]').count() == 2
    assert page.locator("#board g.side-pc").count() == 2
    assert page.locator("#board g.side-enemy").count() == 2
    assert "Assault Core" in page.locator('#combatants [data-combatant="kou"]').inner_text()
    assert _token_square(page, "ace") == (str(18 + 2 * 40 + 1), str(18 + 1 * 40 + 1))
    assert "Turn 1" in page.locator("#procedure").inner_text()
    assert page.locator("#order li").all_inner_texts() == ["ace", "wing", "grunt", "kou"]
    assert page.locator("#order li.acting").inner_text() == "wing"
    grunt_hp = page.locator('#combatants [data-combatant="grunt"] .hp').inner_text()
    assert "/321" in grunt_hp
    assert "321/321" not in grunt_hp

    # The log, every event; a ruling opens to its rules, inputs, dice and options.
    assert page.locator("#log > li").count() == now
    ruled = fight.version_of("RulingRecorded", rule_ids=["GD-INIT-1"])
    initiative = page.locator(f'#log details[data-version="{ruled}"]')
    initiative.locator("summary").click()
    opened = initiative.inner_text()
    assert "GD-INIT-1" in opened
    assert "Inputs" in opened
    assert "GD-INIT-1 ace" in opened
    # Words, not internals: facts labelled in sentences, rule texts as text.
    for internal in ("{", '"', "**", "`", "_"):
        assert internal not in opened, (internal, opened)
    page.locator("#board-panel").screenshot(path=str(ARTIFACTS / "table-board.png"))

    # A dispute filed from the ruling, and the GM's answer beside it, from the same place.
    initiative.get_by_label("Why is this ruling wrong?").fill("ace rolled before the GM said go")
    initiative.get_by_role("button", name="File a dispute").click()
    dispute = initiative.locator(".dispute")
    dispute.wait_for(timeout=15_000)
    assert "ace rolled before the GM said go" in dispute.inner_text()
    dispute.get_by_label("Note (optional)").fill("the order stands")
    dispute.get_by_role("button", name="Uphold").click()
    initiative.locator(".dispute", has_text="upheld").wait_for(timeout=15_000)
    now = fight.state()["version"]
    page.wait_for_selector(f'#board svg[data-version="{now}"]')

    # The history slider redraws the board as it stood before ace moved.
    before = fight.version_of("gd.CombatantMoved", combatant="ace") - 1
    page.get_by_label("Encounter version shown on the board").fill(str(before))
    page.wait_for_selector(f'#board svg[data-version="{before}"]')
    assert _token_square(page, "ace") == (str(18 + 1 * 40 + 1), str(18 + 1 * 40 + 1))
    assert page.locator("#log li.future").count() == now - before
    assert f"Showing version {before} of" in page.locator("#history-out").inner_text()
    page.get_by_role("button", name="Back to live").click()
    page.wait_for_selector(f'#board svg[data-version="{now}"]')

    # Live: commands issued elsewhere reach the board through the event stream, no reload.
    fight.command({"command": "Cleanup", "combatant_id": "wing"}, by="kai")
    fight.command({"command": "Move", "combatant_id": "wing", "path": [{"x": 1, "y": 3}]}, "kai")
    moved = fight.state()["version"]
    page.wait_for_selector(f'#board svg[data-version="{moved}"]', timeout=15_000)
    assert _token_square(page, "wing") == (str(18 + 1 * 40 + 1), str(18 + 3 * 40 + 1))
    assert page.locator("#board polyline.path").count() == 1
    assert page.locator("#board g.range rect").count() > 0

    # Before the reveal the badge says so; after it, every die recomputes.
    assert "not revealed" in page.locator("#badge").inner_text()
    fight.reveal()
    page.wait_for_selector("#badge.ok", timeout=15_000)
    assert "dice recomputed from the revealed seed" in page.locator("#badge").inner_text()
    # The page is a witness: every checkpoint since it opened proved an extension of the last,
    # every event shown proved in the signed log, with WebCrypto's Ed25519.
    facts = page.locator("#verify-facts").inner_text()
    assert "consistent with everything this browser has seen since" in facts
    kept = json.loads(page.evaluate("() => localStorage.getItem('senki.witness')"))
    origins = [note.split("\n")[0] for note in kept["checkpoints"].values()]
    assert origins, kept
    assert all(o.endswith(f"/shard/{i}") for i, o in enumerate(origins)), origins
    page.locator("#verify-panel").screenshot(path=str(ARTIFACTS / "table-audit.png"))
    with page.expect_download() as download:
        page.get_by_role("button", name="Download the audit bundle").click()
    bundle_path = ARTIFACTS / "table-audit-bundle.json"
    download.value.save_as(str(bundle_path))
    bundle = json.loads(bundle_path.read_text(encoding="utf-8"))
    assert bundle["audit"]["all_verified"]
    assert len(bundle["events"]) == fight.state()["version"]

    # What if: a replay under the options in force changes nothing, and stores nothing.
    page.get_by_role("button", name="Replay").click()
    page.locator("#whatif-result", has_text="No differences.").wait_for(timeout=15_000)
    assert "Complete: ✓" in page.locator("#whatif-result").inner_text()
    assert fight.state()["version"] == len(bundle["events"])

    # Japanese: the log switches to the rulings' Japanese summaries.
    page.get_by_label("Language").select_option("ja")
    log_ja = page.locator("#log").inner_text()
    assert "行動順：ace→wing→grunt→kou" in log_ja
    # No event's or command's internal name stands in the Japanese log ("CleanupCompleted").
    assert re.findall(r"[A-Z][a-z]+[A-Z][A-Za-z]+", log_ja) == [], log_ja
    assert page.evaluate("() => document.documentElement.lang") == "ja"
    page.get_by_label("言語").select_option("en")

    # Accessibility basics: landmarks, labels, HP bars readable against their track.
    for role in ("banner", "navigation", "main", "contentinfo"):
        assert page.get_by_role(role).count() >= 1, role
    assert page.evaluate(UNLABELLED) == []
    assert page.locator('[role="meter"]').count() == 4
    for fill, track in page.evaluate(HP_COLOURS):
        assert _contrast(fill, track) >= 4.5, (fill, track)

    # A phone: nothing wider than the screen.
    page.set_viewport_size({"width": 375, "height": 800})
    page.wait_for_timeout(200)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    page.screenshot(path=str(ARTIFACTS / "table-phone.png"), full_page=True)

    context.close()
    assert errors == []


def test_a_viewer_sees_no_hidden_hp_and_a_bad_token_is_refused(
    browser: Any, live_server: LiveServer, fight: DemoFight
) -> None:
    page = browser.new_page()
    page.goto(f"{live_server.base_url}/table/encounters/{fight.id}")
    page.get_by_label("Token").fill(fight.tokens["mio"])
    page.get_by_role("button", name="Open").click()
    page.wait_for_selector("#board svg")
    grunt = page.locator('#combatants [data-combatant="grunt"]').inner_text()
    assert "HP hidden" in grunt
    assert not shows_number(grunt, 321)
    assert not shows_number(page.locator("#board").inner_html(), 321)

    page.evaluate("() => sessionStorage.clear()")
    page.goto(f"{live_server.base_url}/table/encounters/{fight.id}")
    page.get_by_label("Token").fill("senki.not-a-token")
    page.get_by_role("button", name="Open").click()
    page.locator("#status", has_text="may not read").wait_for()
    assert page.locator("#table").is_hidden()
