"""Play a fight from the table page alone (issue 19 item 3): the page turns what the
encounter awaits into controls built from the commands' JSON schemas, and the test only
clicks and fills them. The fight is set up over HTTP as the demos do (tests/e2e/demo.py).
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright import sync_api

from domain.encounter.rulesets import RULESETS
from infra.demo.ak import COMBATANTS as AK_COMBATANTS
from infra.demo.table import DemoTable, open_table
from infra.demo.wz import COMBATANTS as WZ_COMBATANTS
from infra.demo.wz import DECLARED as WZ_DECLARED
from tests.e2e.conftest import LiveServer
from tests.e2e.crew_demo import fight_a_little, open_crew_fight
from tests.e2e.demo import DemoFight, open_demo
from tests.e2e.test_table_page import ARTIFACTS

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]
UNLABELLED = """() => [...document.querySelectorAll('#play input, #play select, #play textarea')]
  .filter((el) => el.labels.length === 0 && !el.getAttribute('aria-label')).map((el) => el.id)"""


class Table:
    """One browser tab at the table, signed in with a token: it only clicks and fills."""

    def __init__(self, browser: Any, live_server: LiveServer, encounter: str, token: str) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 1000})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(f"{live_server.base_url}/table/encounters/{encounter}")
        self.page.get_by_label("Token").fill(token)
        self.page.get_by_role("button", name="Open").click()
        self.page.wait_for_selector("#board svg")
        self.page.wait_for_selector("#play button, #play .note")

    def version(self) -> int:
        return int(self.page.locator("#board svg").get_attribute("data-version"))

    def awaited(self) -> str:
        return str(self.page.locator("#play").inner_text())

    def button(self, command: str, who: str = "gm") -> Any:
        return self.page.locator(f'#play button[data-command="{command}"][data-for="{who}"]')

    def click(self, command: str, who: str = "gm") -> None:
        """A command with nothing to fill in: one click sends it."""
        before = self.version()
        self.button(command, who).click()
        self.settled(before)

    def open(self, command: str, who: str = "gm") -> Any:
        self.button(command, who).click()
        form = self.page.locator(f'#play form.play-command[data-command="{command}"]')
        form.wait_for()
        return form

    def send(self, form: Any) -> None:
        before = self.version()
        form.get_by_role("button", name="Send").click()
        self.settled(before)

    def settled(self, before: int) -> None:
        """The board and the play panel have caught up with the command just sent."""
        try:
            self.page.wait_for_function(
                f"() => Number(document.querySelector('#board svg').dataset.version) > {before}",
                timeout=15_000,
            )
        except sync_api.TimeoutError as error:
            said = self.page.locator("#status").inner_text()
            raise AssertionError(f"no new version; the page says: {said}") from error
        self.page.wait_for_timeout(300)

    def square(self, x: int, y: int) -> None:
        """Click the middle of square (x, y) on the board."""
        cell = self.page.locator(f'#board rect[data-square="{x},{y}"]')
        box = cell.bounding_box()
        self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _hp(fight: DemoFight, combatant: str) -> int:
    found = next(c for c in fight.state()["combatants"] if c["combatant_id"] == combatant)
    return int(found["status"]["hp"])


def _names_the_point_in_japanese(table: Table, ruleset_id: str, procedure: Any) -> None:
    """Issue 34 §2: in Japanese, the procedure panel names the phase (and step) as the rule
    system declares them (served with /playable), not by their ids."""
    names = RULESETS[ruleset_id].phase_labels
    shown = table.page.locator("#procedure").inner_text()
    assert f"{names[procedure['phase']].ja}" in shown, shown
    if procedure["step"] in names:
        assert names[procedure["step"]].ja in shown, shown
    assert procedure["phase"] not in shown, shown
    stops = table.page.locator("#history-point option").all_inner_texts()
    assert any(names[procedure["phase"]].ja in stop for stop in stops), stops


def _listed_versions(table: Table) -> list[int]:
    return list(
        table.page.locator("#log li[data-version]").evaluate_all(
            "items => items.map((item) => Number(item.dataset.version))"
        )
    )


def test_each_event_is_listed_once_when_the_live_feed_outruns_the_pages_catch_up(
    browser: Any, live_server: LiveServer
) -> None:
    fight = open_demo(live_server.client)
    gm = Table(browser, live_server, fight.id, fight.gm)

    # The page's own catch-up after its command answers late, so the live feed brings the
    # same events first: before one feed keyed by version, both were listed.
    def late(route: Any) -> None:
        time.sleep(1.0)
        route.continue_()

    gm.page.route(re.compile(r"/events\?after="), late)
    gm.click("RollInitiative")
    gm.page.wait_for_timeout(1500)
    listed = _listed_versions(gm)
    assert len(listed) == len(set(listed)), sorted(v for v in listed if listed.count(v) > 1)
    assert sorted(listed) == list(range(1, fight.state()["version"] + 1))


def test_a_glorious_drive_fight_is_played_from_the_page(
    browser: Any, live_server: LiveServer
) -> None:
    fight = open_demo(live_server.client)
    gm = Table(browser, live_server, fight.id, fight.gm)

    # The house rules: those in force are listed; the GM sets the campaign's from a form.
    rules = gm.page.locator("#play details.house-rules")
    rules.locator("summary").click()
    assert "floor" in rules.locator("dl").inner_text()
    rules.locator('[data-field="piloting_rounding"]').select_option("ceil")
    rules.get_by_role("button", name="Set the campaign's house rules (GM)").click()
    gm.page.locator("#status", has_text="House rules saved.").wait_for()
    campaign = live_server.client.get(
        f"/v1/campaigns/{fight.campaign_id}", headers={"Authorization": f"Bearer {fight.gm}"}
    )
    assert campaign.json()["options"]["piloting_rounding"] == "ceil"

    # Given four combatants in, the GM's one control is the roll of initiative.
    gm.click("RollInitiative")
    assert "ace" in gm.page.locator("#procedure").inner_text()

    # ace cleans up, then moves along squares clicked on the board.
    gm.click("Cleanup", "ace")
    move = gm.open("Move", "ace")
    gm.square(2, 1)
    gm.square(3, 1)
    assert move.locator('output[data-field="path"]').inner_text() == "2,1 → 3,1"
    gm.send(move)
    state = fight.state()
    ace = next(c for c in state["combatants"] if c["combatant_id"] == "ace")
    assert (ace["status"]["position"]["x"], ace["status"]["position"]["y"]) == (3, 1)

    # ace shoots the grunt, its token clicked on the board (the select of names says so);
    # the grunt's controller (the GM) takes the hit.
    attack = gm.open("DeclareAttack", "ace")
    gm.square(4, 1)
    assert attack.get_by_label("Target").input_value() == "grunt"
    gm.send(attack)
    # The reaction asked says what it answers: who attacks whom, with what, at what hit.
    answered = gm.page.locator("#play .attack-answered").inner_text()
    assert answered.startswith("ace attacks grunt with "), answered
    assert "(hit " in answered
    hp_before = _hp(fight, "grunt")
    gm.click("TakeHit", "grunt")
    assert _hp(fight, "grunt") < hp_before
    # What just happened is said where you play, newest first, in words: the damage ruling
    # and the HP it cost the grunt, after ace's phase ending above them.
    recent = gm.page.locator("#play .recent li").all_inner_texts()
    damage = next(i for i, line in enumerate(recent) if line.startswith("GD-DMG-1"))
    took = next(i for i, line in enumerate(recent) if line.startswith("grunt took"))
    assert took < damage, recent
    assert not any("{" in line for line in recent), recent
    # A player's tab offers only what is theirs: kai plays wing's turn from it.
    kai = Table(browser, live_server, fight.id, fight.tokens["kai"])
    assert kai.button("Cleanup", "wing").count() == 1
    assert kai.page.locator('#play button[data-for="gm"]').count() == 0
    assert kai.page.locator('#play button[data-for="grunt"]').count() == 0
    kai.click("Cleanup", "wing")
    kai.send(kai.open("ForgoAction", "wing"))
    kai.context.close()

    # The GM plays the enemies' turns: each cleans up and passes.
    gm.page.wait_for_selector('#play button[data-command="Cleanup"][data-for="grunt"]')
    for who in ("grunt", "kou"):
        gm.click("Cleanup", who)
        gm.send(gm.open("ForgoAction", who))

    # Turn 2 begins with a new initiative; then the GM ends the fight by a clause from a list.
    gm.click("RollInitiative")
    assert "Turn 2" in gm.page.locator("#procedure").inner_text()
    end = gm.open("EndCombat")
    end.get_by_label("Clause").select_option("GD-END-1")
    end.get_by_label("Reason").fill("everyone still standing agrees to stop")
    gm.send(end)
    assert fight.state()["ended"]
    assert "Combat over" in gm.awaited()
    assert "null" not in gm.page.locator("#procedure").inner_text()  # once "Combat overnull"
    gm.page.screenshot(path=str(ARTIFACTS / "table-play-gd.png"), full_page=True)
    assert gm.page.evaluate(UNLABELLED) == []
    assert gm.errors == []


def _offered(table: Table) -> list[tuple[str, str]]:
    """The commands the play panel offers now, as (command, for whom)."""
    found = table.page.locator("#play button[data-command]")
    return [(b.get_attribute("data-command"), b.get_attribute("data-for")) for b in found.all()]


def _field(form: Any, name: str) -> Any:
    return form.locator(f'[data-field="{name}"]')


def test_a_wizardry_round_is_played_from_the_page(browser: Any, live_server: LiveServer) -> None:
    wz = DemoTable(live_server.client)
    open_table(wz, "迷宮", "wizardry_round", {}, WZ_COMBATANTS)
    gm = Table(browser, live_server, wz.encounter, wz.tokens["gm"])

    surprise = gm.open("ResolveSurprise")
    _field(surprise, "note").fill("both sides saw each other")
    gm.send(surprise)
    for _ in range(40):
        procedure = wz.state()["procedure"]
        if procedure["turn"] == 2:
            break
        offered = dict(_offered(gm))
        phase = procedure["phase"]
        if phase == "declaration":
            who = next(w for c, w in _offered(gm) if c == "Declare")
            form = gm.open("Declare", who)
            _field(form, "form").select_option("c")
            _field(form, "full").fill("attack")
            _field(form, "ini").fill(str(WZ_DECLARED[who]["ini"]))
            gm.send(form)
        elif phase == "initiative":
            form = gm.open("RollInitiative")
            _field(form, "representative").select_option(label="戦士 (Fighter)")
            gm.send(form)
        elif phase == "action":
            # WZ-8: the actor's check by the server's dice, the GM's ruling, then the act.
            who = offered["Act"]
            check = gm.open("RollCheck", who)
            _field(check, "expression").fill("1D20")
            gm.send(check)
            ruling = gm.open("RuleCheck")
            _field(ruling, "success").check()
            _field(ruling, "outcome").fill("the blow lands")
            gm.send(ruling)
            gm.send(gm.open("Act", who))
        else:
            gm.click("EndPhase")
    assert wz.state()["procedure"]["turn"] == 2, wz.state()["procedure"]
    kinds = [e["type"] for e in wz.call("GET", f"/v1/encounters/{wz.encounter}/events")["events"]]
    assert kinds.count("wz.ActionTaken") == 4, kinds  # all four acted in round 1
    assert kinds.count("wz.CheckRuled") == 4, kinds
    # Drawn as it is played: no positions, so its parties, not an empty grid; and no "HP
    # hidden" on a card, even to the GM: the system has no HP.
    assert gm.page.locator("#board svg.parties").count() == 1
    assert gm.page.locator("#board rect[data-square]").count() == 0
    assert gm.page.locator('#board g[data-combatant="goblin"]').count() == 1
    assert "HP hidden" not in gm.page.locator("#combatants").inner_text()
    gm.page.get_by_label("Language").select_option("ja")
    _names_the_point_in_japanese(gm, "wizardry_round", wz.state()["procedure"])
    assert gm.errors == []


def test_an_armor_knights_turn_is_played_from_the_page(
    browser: Any, live_server: LiveServer
) -> None:
    ak = DemoTable(live_server.client)
    open_table(ak, "決闘", "armor_knights", {"width": 8, "height": 3}, AK_COMBATANTS)
    gm = Table(browser, live_server, ak.encounter, ak.tokens["gm"])
    assert gm.page.locator('#board g[data-combatant="red"]').count() == 1
    # Each side its colour; each card its armour by type and its points; no phantom HP.
    circles = {
        side: gm.page.locator(f'#board g[data-combatant="{side}"] circle').last
        for side in ("red", "blue")
    }
    fills = {side: circle.get_attribute("fill") for side, circle in circles.items()}
    assert fills["red"] != fills["blue"], fills
    card = gm.page.locator('#combatants [data-combatant="red"]').inner_text()
    assert "armour:" in card, card
    assert "active points" in card, card
    assert "response points" in card, card
    assert "HP hidden" not in card

    gm.click("RollFirstMove")
    acting = ak.state()["procedure"]["acting"]
    other = "blue" if acting == "red" else "red"
    here = next(c for c in ak.state()["combatants"] if c["combatant_id"] == acting)
    x = here["status"]["cell"]["x"]
    way = 1 if acting == "red" else -1
    start = gm.open("StartMove", acting)
    start.locator('[data-pick="f_steps"]').click()  # the F move (AK-MOV-1), not the M move
    gm.square(x + way, 1)
    gm.square(x + 2 * way, 1)
    gm.send(start)
    advance = gm.open("AdvanceMove", acting)
    _field(advance, "steps").fill("2")
    gm.send(advance)
    attack = gm.open("DeclareAttack", acting)
    assert _field(attack, "weapon").input_value() == "rifle"  # from the sheet
    gm.send(attack)
    if gm.button("Evade", other).count():
        gm.click("Evade", other)
    ruling = gm.open("ResolveAttack")
    _field(ruling, "hit").check()
    _field(ruling, "reason").fill("GM: the rifle hits")
    gm.send(ruling)
    gm.click("EndPhase", acting)
    assert ak.state()["procedure"]["acting"] == other
    kinds = [e["type"] for e in ak.call("GET", f"/v1/encounters/{ak.encounter}/events")["events"]]
    assert any("Attack" in k for k in kinds), kinds
    gm.page.get_by_label("Language").select_option("ja")
    _names_the_point_in_japanese(gm, "armor_knights", ak.state()["procedure"])
    assert gm.errors == []


def test_hand_dice_are_entered_from_the_page_one_at_a_time(
    browser: Any, live_server: LiveServer
) -> None:
    fight = open_demo(live_server.client, dice="hand")
    gm = Table(browser, live_server, fight.id, fight.gm)
    kai = Table(browser, live_server, fight.id, fight.tokens["kai"])
    before = gm.version()
    gm.button("RollInitiative").click()
    gm.settled(before)
    # Each die the rules wait for is asked by name and rule; the GM types the face. A player
    # is offered the entry of their own die only, never the GM's or another player's.
    entered = 0
    while fight.state().get("awaited_die"):
        die = fight.state()["awaited_die"]
        kai.page.wait_for_function(
            f"() => Number(document.querySelector('#board svg').dataset.version) >= {gm.version()}"
        )
        offered = kai.page.locator("#play form.die-entry").count()
        assert offered == (1 if die["for_member"] == "kai" else 0), die
        entry = gm.page.locator("#play form.die-entry")
        assert die["text_en"] in entry.inner_text()
        assert entry.get_by_label("Face").get_attribute("max") == str(die["sides"])
        entry.get_by_label("Face").fill("4")
        before = gm.version()
        entry.get_by_role("button", name="Enter the die").click()
        gm.settled(before)
        entered += 1
    assert entered == 4  # one 1D6 per combatant (GD-INIT-1)
    kai.context.close()
    assert fight.state()["procedure"]["phase"] == "main_action"
    # Revealed, an honest hand-dice fight holds: its dice are recorded, not failed (the panel
    # once read "✗ Some dice do NOT recompute (4/4)", as if the GM had cheated).
    gm.page.get_by_role("button", name="Reveal the dice seed").click()
    gm.page.wait_for_selector("#badge.ok", timeout=15_000)
    badge = gm.page.locator("#badge").inner_text()
    assert "4 entered by hand" in badge, badge
    assert gm.page.locator("#checks li.bad").count() == 0
    assert gm.page.locator("#checks li.hand").count() == 4
    gm.page.get_by_label("Language").select_option("ja")
    assert "クリーンナップ" in gm.awaited()
    assert "Cleanup" not in gm.awaited()
    gm.page.set_viewport_size({"width": 375, "height": 800})
    gm.open("Move", "ace")
    gm.page.wait_for_timeout(200)
    assert gm.page.evaluate("() => document.documentElement.scrollWidth") <= 375
    # On a phone, with something of yours to play, the Play panel comes first, in view.
    play_top = gm.page.locator("#play-panel").bounding_box()["y"]
    board_top = gm.page.locator("#board-panel").bounding_box()["y"]
    assert play_top < board_top, (play_top, board_top)
    gm.page.screenshot(path=str(ARTIFACTS / "table-play-phone-ja.png"), full_page=True)
    assert gm.errors == []


def test_a_crewed_assault_core_is_named_never_shown_by_its_uuid(
    browser: Any, live_server: LiveServer
) -> None:
    crew = open_crew_fight(live_server.client)
    fight_a_little(crew)
    gm = Table(browser, live_server, crew.fight.id, crew.fight.gm)
    log = gm.page.locator("#log").inner_text()
    assert crew.unit in {c["combatant_id"] for c in crew.fight.state()["combatants"]}
    for where in (log, gm.page.locator("#procedure").inner_text(), gm.awaited()):
        assert crew.unit not in where
    assert gm.errors == []


def test_a_japanese_table_reads_every_play_label_in_japanese(
    browser: Any, live_server: LiveServer
) -> None:
    fight = open_demo(live_server.client)
    gm = Table(browser, live_server, fight.id, fight.gm)
    gm.page.get_by_label("Language").select_option("ja")
    gm.click("RollInitiative")
    gm.click("Cleanup", "ace")
    gm.open("DeclareAttack", "ace")
    gm.page.locator("#play details.house-rules summary").click()
    labels = gm.page.locator("#play label, #play button, #play summary, #play dt").all_inner_texts()
    english = [text for text in labels if text.isascii() and any(c.isalpha() for c in text)]
    assert english == [], english
    assert "対象" in labels, labels
    assert "気絶の判定（GD-INJ-1a）" in labels, labels
    procedure = fight.state()["procedure"]
    assert (procedure["phase"], procedure["step"]) == ("main_action", "weapon_swap")
    _names_the_point_in_japanese(gm, "glorious_drive", procedure)
    assert "メイン行動フェーズ" in gm.page.locator("#procedure").inner_text()
    assert gm.errors == []
