"""Play a fight from the table page alone (issue 19 item 3): the page turns what the
encounter awaits into controls built from the commands' JSON schemas, and the test only
clicks and fills them. The fight is set up over HTTP as the demos do (tests/e2e/demo.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.demo import DemoFight, open_demo
from tests.e2e.test_table_page import ARTIFACTS, CHROMIUM

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed"),
]
UNLABELLED = """() => [...document.querySelectorAll('#play input, #play select, #play textarea')]
  .filter((el) => el.labels.length === 0 && !el.getAttribute('aria-label')).map((el) => el.id)"""
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


@pytest.fixture
def browser(live_server: LiveServer) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield launched
        finally:
            launched.close()


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
            raise AssertionError(f"no new version after a command; the page says: {said}") from error
        self.page.wait_for_timeout(300)

    def square(self, x: int, y: int) -> None:
        """Click the middle of square (x, y) on the board."""
        cell = self.page.locator(f'#board rect[data-square="{x},{y}"]')
        box = cell.bounding_box()
        self.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _hp(fight: DemoFight, combatant: str) -> int:
    found = next(c for c in fight.state()["combatants"] if c["combatant_id"] == combatant)
    return int(found["status"]["hp"])


def test_a_glorious_drive_fight_is_played_from_the_page(
    browser: Any, live_server: LiveServer
) -> None:
    fight = open_demo(live_server.client)
    gm = Table(browser, live_server, fight.id, fight.gm)

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

    # ace shoots the grunt, picked by name; the grunt's controller (the GM) takes the hit.
    attack = gm.open("DeclareAttack", "ace")
    attack.get_by_label("Target").select_option(label="grunt")
    gm.send(attack)
    hp_before = _hp(fight, "grunt")
    gm.click("TakeHit", "grunt")
    assert _hp(fight, "grunt") < hp_before
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
    gm.page.screenshot(path=str(ARTIFACTS / "table-play-gd.png"), full_page=True)
    assert gm.page.evaluate(UNLABELLED) == []
    assert gm.errors == []
