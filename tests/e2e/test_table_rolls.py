"""The table page's roll log (issue 17, "Where it shows") in headless Chromium: BCDice's result
text for every roll, its outcome highlighted, server or hand dice, who rolled; a secret roll is
"secret" and nothing else to whoever may not see it, until the GM reveals the seed, after which
every reader sees every roll and its check (docs/visibility.md, "Secret rolls").

Same browser and fixtures as test_table_sheets.py; screenshots go to test-artifacts/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.demo import _auth, _key, open_demo
from tests.e2e.test_table_page import ARTIFACTS, UNLABELLED

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]

PHONE = 375
# A target a GM keeps to themselves, distinctive enough to search a page's text for.
GM_TARGET = 4271


@dataclass
class Table:
    campaign_id: str
    tokens: dict[str, str]  # gm, aoi (player), mio (viewer)


@pytest.fixture
def table(live_server: LiveServer) -> Table:
    client = live_server.client
    opened = client.post(
        "/v1/campaigns", headers=_key(), json={"name": "蒼穹", "gm_member_id": "gm"}
    )
    assert opened.status_code == 201, opened.text
    campaign, gm = opened.json()["id"], opened.json()["token"]
    tokens = {"gm": gm}
    for member, role in (("aoi", "player"), ("mio", "viewer")):
        path = f"/v1/campaigns/{campaign}"
        added = client.post(
            f"{path}/members", headers=_auth(gm) | _key(), json={"member_id": member, "role": role}
        )
        assert added.status_code in (200, 201), added.text
        issued = client.post(
            f"{path}/tokens",
            headers=_auth(gm) | _key(),
            json={"kind": "member", "member_id": member},
        )
        assert issued.status_code in (200, 201), issued.text
        tokens[member] = issued.json()["token"]
    return Table(campaign, tokens)


def _watch(page: Any) -> list[str]:
    """Console errors, but not the browser's own line for a refusal the page then shows."""
    errors: list[str] = []
    page.on(
        "console",
        lambda m: (
            errors.append(m.text) if m.type == "error" and "status of 422" not in m.text else None
        ),
    )
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _sign_in(page: Any, address: str, token: str) -> None:
    page.goto(address)
    page.get_by_label("Token").fill(token)
    page.get_by_role("button", name="Open", exact=True).click()


def _open_log(browser: Any, base_url: str, log_id: str, token: str) -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    errors = _watch(page)
    _sign_in(page, f"{base_url}/table/rolls/{log_id}", token)
    page.locator("#roll-list").wait_for()
    return page, errors


def _roll(page: Any, command: str, faces: str = "", secret: bool = False) -> None:
    before = page.locator("#roll-list li.roll").count()
    page.get_by_label("BCDice command").fill(command)
    page.get_by_label("Dice rolled by hand").fill(faces)
    page.get_by_label("Secret roll").set_checked(secret)
    page.get_by_role("button", name="Roll", exact=True).click()
    page.locator("#roll-list li.roll").nth(before).wait_for()


def _entry(page: Any, seq: int) -> Any:
    return page.locator(f'#roll-list li[data-seq="{seq}"]')


def _withheld(page: Any, seq: int) -> None:
    """Shown as a secret roll and nothing else: no command, text, faces, source or roller."""
    entry = _entry(page, seq)
    assert entry.get_attribute("data-withheld") == "true"
    assert entry.inner_text().split() == [f"#{seq + 1}", "secret"]


def test_secret_rolls_stay_secret_until_the_reveal_then_every_roll_verifies(
    browser: Any, live_server: LiveServer, table: Table
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    base = live_server.base_url

    # The GM opens a log from the campaign's page and lands on its address.
    gm = browser.new_page(viewport={"width": 1100, "height": 900})
    gm_errors = _watch(gm)
    _sign_in(gm, f"{base}/table/campaigns/{table.campaign_id}/rolls", table.tokens["gm"])
    gm.get_by_label("Log name").fill("第1話")
    gm.get_by_role("button", name="Open a new roll log").click()
    gm.wait_for_url(re.compile(r".*/table/rolls/[0-9a-f-]{36}$"))
    log_id = gm.url.rsplit("/", 1)[1]
    gm.locator("#roll-list").wait_for()
    assert gm.locator("#rolls-name").inner_text() == "第1話"

    # Dice rolled at the table, typed in: BCDice's text, marked "hand", a success highlighted.
    _roll(gm, "2D6+3>=10 命中", faces="3, 4")
    first = _entry(gm, 0)
    assert first.locator(".roll-text").inner_text() == "(2D6+3>=10) ＞ 7[3,4]+3 ＞ 10 ＞ 成功"
    assert first.get_attribute("data-source") == "hand"
    assert first.get_attribute("data-outcome") == "success"
    assert "success" in (first.get_attribute("class") or "")
    assert first.locator(".tag-source-hand").inner_text() == "hand"
    assert "rolled by gm (you)" in first.inner_text()

    # The GM's secret roll (BCDice's S prefix): the GM sees it whole, marked secret.
    _roll(gm, f"S1D100<={GM_TARGET}")
    secret = _entry(gm, 1)
    assert secret.locator(".roll-text").inner_text().startswith(f"(1D100<={GM_TARGET}) ＞ ")
    assert secret.locator(".tag-secret").count() == 1
    assert secret.get_attribute("data-source") == "server"

    # The player sees the hand roll, and of the GM's secret roll only that it happened.
    aoi, aoi_errors = _open_log(browser, base, log_id, table.tokens["aoi"])
    assert _entry(aoi, 0).locator(".roll-text").inner_text().endswith("＞ 成功")
    assert "rolled by gm" in _entry(aoi, 0).inner_text()
    _withheld(aoi, 1)
    assert str(GM_TARGET) not in aoi.locator("main").inner_text()

    # The player's own secret roll: theirs and the GM's to see, a viewer's only as "secret".
    _roll(aoi, "1D6 こっそり", secret=True)
    mine = _entry(aoi, 2)
    assert re.fullmatch(r"\(1D6\) ＞ [1-6]", mine.locator(".roll-text").inner_text())
    assert "rolled by aoi (you)" in mine.inner_text()
    mio, mio_errors = _open_log(browser, base, log_id, table.tokens["mio"])
    _withheld(mio, 1)
    _withheld(mio, 2)
    assert mio.locator("#roll-form:visible").count() == 0
    assert "Read only" in mio.locator("#roll-panel").inner_text()
    assert mio.locator("#rolls-reveal:visible").count() == 0
    assert aoi.locator("#rolls-reveal:visible").count() == 0

    # The GM's page picks up the player's roll by polling, and shows the GM its faces.
    gm_sees = _entry(gm, 2)
    gm_sees.wait_for()
    assert gm_sees.get_attribute("data-withheld") == "false"
    assert "こっそり" in gm_sees.inner_text()

    # A refused command: the page shows the problem's detail, and the log is unchanged.
    aoi.get_by_label("BCDice command").fill("こんにちは")
    aoi.get_by_label("Secret roll").set_checked(False)
    aoi.get_by_role("button", name="Roll", exact=True).click()
    aoi.locator("#status", has_text="not a dice command").wait_for()
    aoi.get_by_label("BCDice command").fill("2D6")
    aoi.get_by_label("Dice rolled by hand").fill("3 9")
    aoi.get_by_role("button", name="Roll", exact=True).click()
    aoi.locator("#status", has_text="die 2 is a d6").wait_for()
    assert aoi.locator("#roll-list li.roll").count() == 3

    # In Japanese a withheld roll reads シークレット; the viewer's page fits a phone.
    mio.get_by_label("Language").select_option("ja")
    assert _entry(mio, 1).inner_text().split() == ["#2", "シークレット"]
    assert mio.locator("#roll-title").inner_text() == "振る"
    mio.get_by_label("言語").select_option("en")
    mio.set_viewport_size({"width": PHONE, "height": 800})
    mio.wait_for_timeout(200)
    assert mio.evaluate("() => document.documentElement.scrollWidth") <= PHONE
    mio.screenshot(path=str(ARTIFACTS / "rolls-viewer-phone.png"), full_page=True)
    assert gm.evaluate(UNLABELLED) == []

    # The GM reveals the seed: every roll shows to everyone, each server roll with its ✓; the
    # hand roll is sound but no seed recomputes physical dice, and the page says so.
    gm.get_by_role("button", name="Reveal the seed").click()
    gm.locator("#rolls-badge.ok").wait_for()
    assert gm.locator("#roll-form:visible").count() == 0
    assert "no more rolls" in gm.locator("#roll-closed").inner_text()
    for reader in (gm, aoi, mio):
        reader.locator("#rolls-badge.ok").wait_for()  # the others by polling
        assert reader.locator("#rolls-badge").inner_text().startswith("✓")
        assert reader.locator("#roll-list li.withheld").count() == 0
        assert [_entry(reader, n).locator(".roll-tags li").last.inner_text() for n in range(3)] == [
            "— entered by hand: no seed can recompute it",
            "✓ recomputes",
            "✓ recomputes",
        ]
        text = _entry(reader, 1).locator(".roll-text").inner_text()
        assert text.startswith(f"(1D100<={GM_TARGET}) ＞ ")
    audit = live_server.client.get(
        f"/v1/roll-logs/{log_id}/verify", headers=_auth(table.tokens["mio"])
    ).json()
    assert [(c["verified"], c["problems"]) for c in audit["checks"]] == [
        (False, []),
        (True, []),
        (True, []),
    ]
    assert [c["text"] for c in audit["checks"]] == [
        _entry(mio, n).locator(".roll-text").inner_text() for n in range(3)
    ]
    gm.locator("#main").screenshot(path=str(ARTIFACTS / "rolls-gm-revealed.png"))
    for page in (gm, aoi, mio):
        page.close()
    assert gm_errors + aoi_errors + mio_errors == []


def test_the_pages_own_logic_reads_flags_faces_and_withheld_rolls(
    browser: Any, live_server: LiveServer, table: Table
) -> None:
    """rolls.js's pure functions, called in the page itself (no JavaScript test runner)."""
    page = browser.new_page()
    _sign_in(page, f"{live_server.base_url}/table/campaigns/{table.campaign_id}/rolls", "x")
    checked = page.evaluate(
        """async () => {
          const m = await import('/table/static/rolls.js');
          const base = { roll_seq: 4, withheld: false, source: 'server', secret: false,
            text: '(1D100<=5) ＞ 1 ＞ 決定的成功', comment: '', rolled_by: 'aoi',
            success: true, failure: false, critical: true, fumble: false };
          const hidden = { roll_seq: 5, withheld: true, source: 'hand', secret: true,
            text: '(secret roll)', rolled_by: null, success: null, failure: null,
            critical: null, fumble: null };
          return {
            faces: [m.parseFaces(''), m.parseFaces('3, 4 5'), m.parseFaces('3 x'),
                    m.parseFaces('１'), m.parseFaces('6、1')],
            flags: m.outcomes(base),
            shown: m.describe(base, 'ja', { memberId: 'aoi',
              check: { verified: true, problems: [], unverifiable: null } }),
            hidden: m.describe(hidden, 'en'),
            hiddenJa: m.describe(hidden, 'ja').text,
          };
        }"""
    )
    assert checked["faces"] == [None, [3, 4, 5], None, None, [6, 1]]
    assert checked["flags"] == ["critical", "success"]
    shown = checked["shown"]
    assert (shown["seq"], shown["text"]) == ("#5", "(1D100<=5) ＞ 1 ＞ 決定的成功")
    assert [tag["text"] for tag in shown["tags"]] == [
        "クリティカル",
        "成功",
        "サーバー",
        "振った人 aoi (あなた)",
        "✓ 再計算一致",
    ]
    assert checked["hidden"] == {"seq": "#6", "text": "secret", "tags": [], "withheld": True}
    assert checked["hiddenJa"] == "シークレット"
    page.close()


def test_the_encounter_page_links_to_the_campaigns_roll_log(
    browser: Any, live_server: LiveServer
) -> None:
    """From the signed-in section to the campaign's roll-log page: the GM may open a log there,
    a viewer only go to one by its id (the server would refuse the viewer's log anyway)."""
    fight = open_demo(live_server.client)
    offered = {}
    for member in ("mio", "gm"):
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        errors = _watch(page)
        token = fight.gm if member == "gm" else fight.tokens[member]
        _sign_in(page, f"{live_server.base_url}/table/encounters/{fight.id}", token)
        page.get_by_role("link", name="Roll log").click()
        page.wait_for_url(f"**/table/campaigns/{fight.campaign_id}/rolls")
        page.get_by_label("Roll log ID").wait_for()
        offered[member] = page.locator("#new-log-form:visible").count()
        page.close()
        assert errors == [], member
    assert offered == {"mio": 0, "gm": 1}
