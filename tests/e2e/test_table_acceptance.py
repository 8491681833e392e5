"""Issue 35's acceptance: the table page played as a table plays it. The GM and two players
each in a browser of their own (their own tokens), clicking and typing as people would: a
whole Glorious Drive fight to its end with hand dice entered by their owners (one player on a
Japanese phone), an attack by server dice with what-if after the live updates, a
Wizardry-style round and an Armor Knights phase. Checked as a person would check: no event
listed twice, the outcome in words after each attack and drawn on the board, verification
honest on a hand-dice fight, names (never ids) in every line, nothing in English on the
Japanese page, no raw JSON or markup.

Each seat counts its inputs (clicks, key presses); the counts of one attack with a dodge are
written to docs (README, "The table page") — reported, not asserted.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright import sync_api

from infra.demo.ak import COMBATANTS as AK_COMBATANTS
from infra.demo.table import DemoTable, open_table
from infra.demo.wz import COMBATANTS as WZ_COMBATANTS
from infra.demo.wz import DECLARED as WZ_DECLARED
from tests.e2e.conftest import LiveServer
from tests.e2e.demo import DemoFight, join, open_campaign
from tests.e2e.test_table_page import ARTIFACTS
from tests.unit.encounter.table import sheet, weapon

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.slow]

# Ids no person should read: each combatant has a name.
NAMES = {"c-ace": "エース", "c-wing": "ウィング", "nm-a": "ナイトメアA"}
RIFLE = [weapon("ライフル")]  # a Japanese table names its weapons in Japanese
READ = ("#procedure", "#play", "#board", "#combatants", "#order", "#log")


def open_fight(client: Any, dice: str | None) -> DemoFight:
    """The GM, players aoi (エース) and kai (ウィング), and the GM's hidden ナイトメアA (HP 30)."""
    fight = open_campaign(
        client,
        "夜明け",
        {"aoi": "player", "kai": "player"},
        {"battle_map": {"width": 8, "height": 6}} | ({"dice": dice} if dice else {}),
    )
    join(
        fight,
        ("c-ace", NAMES["c-ace"], "aoi", "pc", sheet(1, 1, reaction=30, weapons=RIFLE), False),
        ("c-wing", NAMES["c-wing"], "kai", "pc", sheet(1, 3, reaction=15, weapons=RIFLE), False),
        ("nm-a", NAMES["nm-a"], "gm", "enemy", sheet(4, 1, reaction=8, hp=30, weapons=RIFLE), True),
    )
    return fight


class Seat:
    """One person at the table in a browser of their own: every click and key press they make
    goes through `click`, `type` and `press`, and is counted."""

    def __init__(
        self, browser: Any, server: LiveServer, encounter: str, token: str, **how: Any
    ) -> None:
        width, height = how.get("viewport", (1280, 1000))
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.clicks = 0
        self.keys = 0
        self.page.goto(f"{server.base_url}/table/encounters/{encounter}")
        if how.get("lang") == "ja":  # chosen before signing in: not part of playing
            self.page.get_by_label("Language").select_option("ja")
            self.page.get_by_label("トークン").fill(token)
            self.page.get_by_role("button", name="開く").click()
        else:
            self.page.get_by_label("Token").fill(token)
            self.page.get_by_role("button", name="Open").click()
        self.page.wait_for_selector("#board svg")

    def inputs(self) -> tuple[int, int]:
        return self.clicks, self.keys

    def click(self, target: Any) -> None:
        self.clicks += 1
        target.click()

    def type(self, target: Any, text: str) -> None:
        self.keys += len(text)
        target.press_sequentially(text)

    def press(self, target: Any, key: str) -> None:
        self.keys += 1
        target.press(key)

    def version(self) -> int:
        return int(self.page.locator("#board svg").get_attribute("data-version"))

    def reach(self, version: int) -> None:
        """Wait until the live feed has brought this seat to `version`."""
        self.page.wait_for_function(
            f"() => Number(document.querySelector('#board svg').dataset.version) >= {version}",
            timeout=15_000,
        )
        self.page.wait_for_timeout(250)

    def button(self, command: str, who: str = "gm") -> Any:
        return self.page.locator(f'#play button[data-command="{command}"][data-for="{who}"]')

    def sent(self, act: Any) -> None:
        """Do `act` (a click or a key) and wait for the version it makes."""
        before = self.version()
        act()
        try:
            self.reach(before + 1)
        except sync_api.TimeoutError as error:
            said = self.page.locator("#status").inner_text()
            raise AssertionError(f"no new version; the page says: {said}") from error

    def one_click(self, command: str, who: str = "gm") -> None:
        self.sent(lambda: self.click(self.button(command, who)))

    def form(self, command: str, who: str = "gm") -> Any:
        self.click(self.button(command, who))
        found = self.page.locator(f'#play form.play-command[data-command="{command}"]')
        found.wait_for()
        return found

    def send(self, form: Any) -> None:
        self.sent(lambda: self.click(form.locator('button[type="submit"]')))

    def token(self, combatant: str) -> None:
        """Click a combatant's token on the board (a target picked where it stands)."""
        self.click(self.page.locator(f'#board g[data-combatant="{combatant}"]'))

    def enter_die(self, face: int) -> None:
        """The die asked of this seat: its face typed, Enter pressed."""
        entry = self.page.locator("#play form.die-entry")
        entry.wait_for(timeout=15_000)
        field = entry.locator("input")
        if not field.evaluate("(el) => el === document.activeElement"):
            self.click(field)
        self.sent(lambda: (self.type(field, str(face)), self.press(field, "Enter")))

    def read(self) -> str:
        return "\n".join(self.page.locator(where).inner_text() for where in READ)

    def close(self) -> None:
        assert self.errors == [], self.errors
        self.context.close()


def attack_with_a_dodge(
    attacker: Seat, gm: Seat, who: str, dice: HandDice | None = None
) -> dict[str, tuple[int, int]]:
    """`who` shoots the hidden ナイトメアA, who dodges: the player declares (the button, the
    target's token, Send), the GM answers Dodge; with `dice`, each die is entered by its
    owner on their own page. Returns each seat's inputs."""
    start = {id(s): s.inputs() for s in (attacker, gm)}
    declare = attacker.form("DeclareAttack", who)
    attacker.token("nm-a")
    assert declare.locator('[data-field="target"]').input_value() == "nm-a"
    attacker.send(declare)
    gm.reach(attacker.version())
    if dice is None:
        gm.one_click("Dodge", "nm-a")
    else:
        gm.sent(lambda: gm.click(gm.button("Dodge", "nm-a")))  # then waits for the hit die
        dice.enter()
    attacker.reach(gm.version())

    def spent(seat: Seat) -> tuple[int, int]:
        clicks, keys = seat.inputs()
        return clicks - start[id(seat)][0], keys - start[id(seat)][1]

    return {"attacker": spent(attacker), "gm": spent(gm)}


class HandDice:
    """The dice a hand-dice fight awaits, each entered on its owner's page (the member the
    encounter names for it). `faces`: a word of the die's purpose → its face (else 2)."""

    def __init__(self, fight: DemoFight, seats: dict[str, Seat]) -> None:
        self.fight = fight
        self.seats = seats
        self.faces: dict[str, int] = {}
        self.entered = 0

    def enter(self, **faces: int) -> None:
        self.faces = faces or self.faces
        for _ in range(12):
            die = self.fight.state().get("awaited_die")
            if not die:
                return
            version = self.fight.state()["version"]
            for member, seat in self.seats.items():
                seat.reach(version)
                # Offered only to the die's owner, and to the GM.
                offered = seat.page.locator("#play form.die-entry").count()
                assert offered == (1 if member in (die["for_member"], "gm") else 0), (member, die)
            face = next((f for w, f in self.faces.items() if w in die["purpose"]), 2)
            self.seats[die["for_member"]].enter_die(face)
            self.entered += 1
        raise AssertionError("more dice than a fight asks for")


def drawn_at(seat: Seat, combatant: str) -> str:
    """The words drawn on the board beside a combatant (the result of what it just faced)."""
    return str(
        seat.page.locator(f'#board g.attack-result[data-target="{combatant}"]').evaluate(
            "(g) => [...g.querySelectorAll('text')].map((t) => t.textContent).join(' / ')"
        )
    )


def listed_once(seat: Seat) -> None:
    listed = seat.page.locator("#log li[data-version]").evaluate_all(
        "items => items.map((item) => Number(item.dataset.version))"
    )
    assert len(listed) == len(set(listed)), sorted(v for v in listed if listed.count(v) > 1)
    assert sorted(listed) == list(range(1, seat.version() + 1))


IDS = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, NAMES)) + r")(?![\w-])")
# A name given twice where the line gave "name (id)": "エース（エース）".
TWICE = re.compile("(" + "|".join(map(re.escape, NAMES.values())) + r") ?[（(]\1[）)]")
MARKUP = re.compile(r"[{}<>`]|\*\*|\b[a-z]+_[a-z_]+\b|\bnull\b|\bundefined\b|\bNaN\b")
# What a Japanese page may show in Latin letters: rule IDs, dice, HP and the like, the members'
# own handles, the names the table gave, and hashes.
ALLOWED_LATIN = re.compile(
    r"(?<![A-Za-z])([A-Z]{2,3}(-[A-Z]+)*-\d+[a-z]?|\d*D\d+|HP|GM|TP|AC|ID|v\d+|aoi|kai|gm"
    r"|[0-9a-f]{6,}…?)(?![A-Za-z])|ナイトメアA"
)


def person_reads_it(seat: Seat) -> None:
    """What a person would check on any page: each event once, names not ids, no JSON."""
    listed_once(seat)
    text = seat.read()
    for pattern in (IDS, TWICE, MARKUP):
        found = [text[max(0, m.start() - 40) : m.end() + 20] for m in pattern.finditer(text)]
        assert found == [], found


def in_japanese(seat: Seat) -> None:
    left = ALLOWED_LATIN.sub("", seat.read())
    english = sorted(set(re.findall(r"[A-Za-z]{2,}", left)))
    assert english == [], (english, left)


def outcome_in_words(seat: Seat, dodged: bool, lang: str = "en") -> None:
    """After an attack: where you play, the ruling in words, newest first; on the board, the
    arrow from the attacker and the result beside ナイトメアA."""
    recent = seat.page.locator("#play .recent li").all_inner_texts()
    said = next(line for line in recent if line.startswith("GD-REACT-1"))
    words = {("en", True): "dodged", ("en", False): "hit", ("ja", True): "回避成功"}
    assert words.get((lang, dodged), "命中") in said, said
    assert seat.page.locator("#board g.attack line.attack-line").count() >= 1
    result = drawn_at(seat, "nm-a")
    verdict = {("en", True): "dodged", ("en", False): "hit", ("ja", True): "回避"}
    assert result.startswith(verdict.get((lang, dodged), "命中")), result


def test_a_glorious_drive_fight_by_hand_dice_to_its_end(
    browser: Any, live_server: LiveServer
) -> None:
    fight = open_fight(live_server.client, dice="hand")
    gm = Seat(browser, live_server, fight.id, fight.gm)
    aoi = Seat(browser, live_server, fight.id, fight.tokens["aoi"])
    # kai plays on a phone, in Japanese.
    kai = Seat(browser, live_server, fight.id, fight.tokens["kai"], viewport=(375, 800), lang="ja")
    seats = (aoi, kai, gm)
    dice = HandDice(fight, {"aoi": aoi, "kai": kai, "gm": gm})
    gm.sent(lambda: gm.click(gm.button("RollInitiative")))
    # Each initiative die is entered by its owner, on their own page.
    dice.enter(**{"c-ace": 6, "c-wing": 5, "nm-a": 1})
    aoi.reach(gm.version())
    aoi.one_click("Cleanup", "c-ace")
    gm.reach(aoi.version())

    # エース shoots; ナイトメアA dodges: 50+10 = 60 against 50+90 = 140.
    dice.faces = {"hit": 10, "evasion": 90}
    spent = attack_with_a_dodge(aoi, gm, "c-ace", dice)
    for seat in seats:
        seat.reach(gm.version())
    outcome_in_words(gm, dodged=True)
    outcome_in_words(aoi, dodged=True)
    outcome_in_words(kai, dodged=True, lang="ja")
    assert "60 vs 140" in drawn_at(gm, "nm-a")
    for player in (aoi, kai):  # ナイトメアA is hidden: its numbers are the GM's
        drawn = drawn_at(player, "nm-a")
        assert not re.search(r"\d", drawn), drawn
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "acceptance-inputs.txt").write_text(
        f"hand dice, one attack with a dodge: player {spent['attacker']}, GM {spent['gm']}\n"
    )

    # ウィング shoots from the phone; the dodge fails: 50+90 = 140 against 50+2 = 52, 70
    # damage, and the injury dice (the GM's) leave ナイトメアA incapacitated.
    kai.one_click("Cleanup", "c-wing")
    gm.reach(kai.version())
    dice.faces = {"hit": 90, "evasion": 2}
    attack_with_a_dodge(kai, gm, "c-wing", dice)
    for seat in seats:
        seat.reach(gm.version())
    outcome_in_words(gm, dodged=False)
    outcome_in_words(kai, dodged=False, lang="ja")
    drawn = drawn_at(gm, "nm-a")
    for said in ("hit 140 vs 52", "−70 HP", "incapacitated"):
        assert said in drawn, drawn
    drawn = drawn_at(kai, "nm-a")
    assert "再起不能" in drawn, drawn
    assert not re.search(r"\d", drawn), drawn
    gm.page.locator("#board").screenshot(path=str(ARTIFACTS / "acceptance-board-attack.png"))
    kai.page.locator("#board").screenshot(path=str(ARTIFACTS / "acceptance-board-attack-ja.png"))

    # No side of ナイトメアA's is left able to fight: the GM ends it by GD-END-3.
    end = gm.form("EndCombat")
    gm.click(end.get_by_label("Clause"))
    end.get_by_label("Clause").select_option("GD-END-3")
    gm.click(end.get_by_label("Reason"))
    gm.type(end.get_by_label("Reason"), "撃破")
    gm.send(end)
    assert fight.state()["ended"]
    for seat in seats:
        seat.reach(gm.version())
    assert "Combat over" in gm.page.locator("#play").inner_text()
    assert "戦闘終了" in kai.page.locator("#play").inner_text()
    assert not gm.page.locator("#board g.attack").count()  # cleared: play moved on

    # Revealed, the honest hand-dice fight holds: every die recorded by hand, none failed.
    gm.page.get_by_role("button", name="Reveal the dice seed").click()
    for seat in (gm, kai):
        seat.page.wait_for_selector("#badge.ok", timeout=15_000)
        assert seat.page.locator("#checks li.bad").count() == 0
        assert seat.page.locator("#checks li.hand").count() == dice.entered
    assert "entered by hand" in gm.page.locator("#badge").inner_text()

    # A ruling opened, as a player would to argue it: labelled facts, no JSON.
    kai.page.locator("#log details:not(.rule-digest) > summary").last.click()
    for seat in seats:
        person_reads_it(seat)
    in_japanese(kai)
    assert kai.page.evaluate("() => document.documentElement.scrollWidth") <= 375
    kai.page.screenshot(path=str(ARTIFACTS / "acceptance-phone-ja.png"), full_page=True)
    gm.page.screenshot(path=str(ARTIFACTS / "acceptance-gm.png"), full_page=True)
    for seat in seats:
        seat.close()


def test_an_attack_by_server_dice_then_what_if_after_the_live_updates(
    browser: Any, live_server: LiveServer
) -> None:
    fight = open_fight(live_server.client, dice=None)
    gm = Seat(browser, live_server, fight.id, fight.gm)
    aoi = Seat(browser, live_server, fight.id, fight.tokens["aoi"])
    kai = Seat(browser, live_server, fight.id, fight.tokens["kai"])
    seats = (aoi, kai, gm)
    gm.one_click("RollInitiative")
    aoi.reach(gm.version())
    aoi.one_click("Cleanup", "c-ace")
    gm.reach(aoi.version())
    spent = attack_with_a_dodge(aoi, gm, "c-ace")
    with (ARTIFACTS / "acceptance-inputs.txt").open("a") as counts:
        counts.write(
            f"server dice, one attack with a dodge: player {spent['attacker']}, GM {spent['gm']}\n"
        )
    for seat in seats:
        seat.reach(gm.version())
    dodged = "dodged" in gm.page.locator("#play .recent").inner_text()
    for seat in (aoi, gm):
        outcome_in_words(seat, dodged)

    # The players play on while the GM's page follows live; then the GM asks what-if.
    kai.reach(gm.version())
    if kai.button("Cleanup", "c-wing").count():
        kai.one_click("Cleanup", "c-wing")
        kai.send(kai.form("ForgoAction", "c-wing"))
    gm.reach(kai.version())
    panel = gm.page.locator("#whatif-panel")
    commands = panel.get_by_label("Recorded command to amend")
    listed = commands.locator("option").all_inner_texts()
    assert len(listed) == len(set(listed)), listed
    dodge = next(o for o in listed if "Dodge" in o)
    commands.select_option(label=dodge)
    panel.get_by_role("button", name="Replay").click()
    result = gm.page.locator("#whatif-result .whatif-complete")
    result.wait_for(timeout=15_000)
    # The Dodge picked is the one recorded: replayed as it stands, the fight is the same.
    said = gm.page.locator("#whatif-result").inner_text()
    assert "Complete: ✓" in said, said
    assert "no recorded command" not in said, said
    for seat in seats:
        person_reads_it(seat)
        seat.close()


def test_a_wizardry_round_draws_each_check_beside_who_made_it(
    browser: Any, live_server: LiveServer
) -> None:
    wz = DemoTable(live_server.client)
    open_table(wz, "迷宮", "wizardry_round", {}, WZ_COMBATANTS)
    gm = Seat(browser, live_server, wz.encounter, wz.tokens["gm"])
    surprise = gm.form("ResolveSurprise")
    surprise.locator('[data-field="note"]').fill("both sides saw each other")
    gm.send(surprise)
    checked = 0
    for _ in range(40):
        state = wz.state()
        procedure = state["procedure"]
        if procedure["turn"] == 2:
            break
        gm.reach(state["version"])
        offered = [
            (b.get_attribute("data-command"), b.get_attribute("data-for"))
            for b in gm.page.locator("#play button[data-command]").all()
        ]
        if procedure["phase"] == "declaration":
            who = next(w for c, w in offered if c == "Declare")
            form = gm.form("Declare", who)
            form.locator('[data-field="form"]').select_option("c")
            form.locator('[data-field="full"]').fill("attack")
            form.locator('[data-field="ini"]').fill(str(WZ_DECLARED[who]["ini"]))
            gm.send(form)
        elif procedure["phase"] == "initiative":
            form = gm.form("RollInitiative")
            form.locator('[data-field="representative"]').select_option(label="戦士 (Fighter)")
            gm.send(form)
        elif procedure["phase"] == "action":
            who = dict(offered)["Act"]
            check = gm.form("RollCheck", who)
            check.locator('[data-field="expression"]').fill("1D20")
            gm.send(check)
            ruling = gm.form("RuleCheck")
            ruling.locator('[data-field="success"]').check()
            ruling.locator('[data-field="outcome"]').fill("the blow lands")
            gm.send(ruling)
            # The check and its ruling, beside the one who made it, and in words.
            drawn = drawn_at(gm, who)
            assert re.fullmatch(r"check \d+ ✓ success", drawn), drawn
            assert "the blow lands" in gm.page.locator("#play .recent").inner_text()
            checked += 1
            gm.send(gm.form("Act", who))
        else:
            gm.one_click("EndPhase")
    assert checked == 4
    listed_once(gm)
    gm.close()


def test_an_armor_knights_phase_draws_the_attack_on_the_board(
    browser: Any, live_server: LiveServer
) -> None:
    ak = DemoTable(live_server.client)
    open_table(ak, "決闘", "armor_knights", {"width": 8, "height": 3}, AK_COMBATANTS)
    gm = Seat(browser, live_server, ak.encounter, ak.tokens["gm"])
    gm.one_click("RollFirstMove")
    acting = ak.state()["procedure"]["acting"]
    other = "blue" if acting == "red" else "red"
    here = next(c for c in ak.state()["combatants"] if c["combatant_id"] == acting)
    x, way = here["status"]["cell"]["x"], (1 if acting == "red" else -1)
    start = gm.form("StartMove", acting)  # the F move (AK-MOV-1) two cells nearer
    gm.click(start.locator('[data-pick="f_steps"]'))
    for step in (1, 2):
        gm.click(gm.page.locator(f'#board rect[data-square="{x + step * way},1"]'))
    gm.send(start)
    advance = gm.form("AdvanceMove", acting)
    advance.locator('[data-field="steps"]').fill("2")
    gm.send(advance)
    attack = gm.form("DeclareAttack", acting)
    gm.send(attack)
    assert gm.page.locator("#board g.attack line.attack-line").count() == 1
    if gm.button("Evade", other).count():
        gm.one_click("Evade", other)
    ruling = gm.form("ResolveAttack")
    ruling.locator('[data-field="hit"]').check()
    ruling.locator('[data-field="reason"]').fill("the rifle hits")
    gm.send(ruling)
    drawn = drawn_at(gm, other)
    assert drawn == "hit", drawn
    gm.one_click("EndPhase", acting)
    assert ak.state()["procedure"]["acting"] == other
    assert gm.page.locator("#board g.attack").count() == 0  # the next phase: cleared
    listed_once(gm)
    gm.close()
