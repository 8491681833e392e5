"""The what-if panel in headless Chromium (issue 19 item 4): given a recorded hit after a
medium situation modifier, when the GM changes an option from its select, amends a recorded
command through the form built from its schema, or amends the shot out of range, then the
panel says what would change in words, and lists every command the replay could not apply.

Ace (attack 120) hits the hidden grunt (defence 50, HP 321) after a 50 % modifier: on the
attack (GD-DMG-4a, the default) 180 − 50 = 130 → HP 191; on the damage 70 × 1.5 = 105 → 216.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.demo import DemoFight, open_demo
from tests.e2e.test_table_page import ARTIFACTS, UNLABELLED

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]


@pytest.fixture
def fight(live_server: LiveServer) -> DemoFight:
    fight = open_demo(live_server.client)
    fight.command({"command": "RollInitiative"})
    fight.command({"command": "Cleanup", "combatant_id": "ace"}, by="aoi")
    fight.command({"command": "DeclareAttack", "combatant_id": "ace", "target": "grunt"}, "aoi")
    modifier = {"defender": "grunt", "percent": 50, "grade": "medium", "reason": "careless"}
    fight.command({"command": "GrantSituationModifier"} | modifier)
    fight.command({"command": "TakeHit", "combatant_id": "grunt"})
    return fight


DODGE_FLIPS = """async () => {
  const words = await import("/table/static/whatif_words.js");
  const ruling = (dodged, summary) => ({ type: "RulingRecorded", outcome: { dodged },
    summary_en: summary, summary_ja: summary });
  return words.rulingLines({ original: [ruling(false, "hit (GD-REACT-1)")],
    replayed: [ruling(true, "dodged (GD-REACT-1)")] }, "en");
}"""


def _replay(page: Any, expected: str) -> str:
    page.get_by_role("button", name="Replay").click()
    result = page.locator("#whatif-result")
    try:
        result.locator("li", has_text=expected).first.wait_for(timeout=15_000)
    except Exception:
        raise AssertionError(f"{expected!r} not in {result.inner_text()!r}") from None
    return str(result.inner_text())


def test_the_gm_tries_an_option_amends_a_command_and_reads_the_diff(
    browser: Any, live_server: LiveServer, fight: DemoFight
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    recorded = fight.state()["version"]
    page.goto(f"{live_server.base_url}/table/encounters/{fight.id}")
    page.get_by_label("Token").fill(fight.gm)
    page.get_by_role("button", name="Open").click()
    panel = page.locator("#whatif-panel")

    # The options come from the ruleset's schema, each with its alternatives and rule ID.
    situation = panel.get_by_label("situation bonus applies to (GD-DMG-4a)")
    situation.wait_for(timeout=15_000)
    faint = panel.get_by_label("faint rule (GD-INJ-1a)")
    assert faint.locator("option").all_inner_texts() == ["example", "text (in force)"]
    assert panel.get_by_label("skill cost clamps hp (GD-COST-3a)").get_attribute("type") == (
        "checkbox"
    )

    # When the GM tries the other reading of GD-DMG-4a, then the grunt's HP differs.
    situation.select_option("damage")
    said = _replay(page, "grunt's HP: 191 → 216")
    assert "Complete: ✓" in said
    situation.select_option("attack")

    # When the GM amends the recorded modifier to large 100 % through its form, then
    # 120 × 2 = 240 − 50 = 190 → HP 131.
    commands = panel.get_by_label("Recorded command to amend")
    modifier = next(
        o for o in commands.locator("option").all_inner_texts() if "Grant Situation Modifier" in o
    )
    commands.select_option(label=modifier)
    amend = panel.locator("#whatif-amend fieldset")
    assert amend.get_by_label("percent *").input_value() == "50"
    amend.get_by_label("percent *").fill("100")
    amend.get_by_label("grade", exact=True).select_option(label="large")
    _replay(page, "grunt's HP: 191 → 131")
    assert fight.state()["version"] == recorded  # a replay stores nothing

    # When the shot is amended to a target out of range (kou, 13 squares away), then the
    # shot is refused (GD-RNG-1) and the modifier and the reaction are listed as needing a
    # declaration the record lacks: every command the replay could not apply.
    attack = next(o for o in commands.locator("option").all_inner_texts() if "Declare Attack" in o)
    commands.select_option(label=attack)
    panel.locator("#whatif-amend fieldset").get_by_label("target", exact=True).select_option("kou")
    said = _replay(page, "GD-RNG-1")
    skipped = page.locator("#whatif-result .whatif-unapplied li")
    assert skipped.count() == 3
    reasons = [skipped.nth(i).get_attribute("data-reason") for i in range(3)]
    assert reasons == ["refused", "needs_declaration", "needs_declaration"]
    assert "needs a declaration the record lacks" in said
    assert "DeclareAttack(ace)" in skipped.nth(2).inner_text()
    page.locator("#whatif-panel").screenshot(path=str(ARTIFACTS / "table-whatif.png"))

    # In Japanese the panel relabels and the answer is said again.
    page.get_by_label("Language").select_option("ja")
    panel.get_by_label("気絶の判定 (GD-INJ-1a)").wait_for(timeout=5_000)
    assert "記録にない宣言が必要" in page.locator("#whatif-result").inner_text()
    page.get_by_label("言語").select_option("en")

    # A ruling whose yes/no outcome flips is said as the table says it (GD-REACT-1's dodge).
    lines = page.evaluate(DODGE_FLIPS)
    assert lines[0] == "the dodge now succeeds"
    assert lines[1].startswith("The ruling now: dodged")
    assert page.evaluate(DODGE_FLIPS.replace('"en"', '"ja"'))[0] == "回避が成功するようになる"

    assert page.evaluate(UNLABELLED) == []
    page.set_viewport_size({"width": 375, "height": 800})
    page.wait_for_timeout(200)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 375
    context.close()
    assert errors == []
