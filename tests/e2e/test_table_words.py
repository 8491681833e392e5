"""The Japanese table page speaks Japanese where the rules speak (issue 35 §4): a ruling's
rules show the seed's own words beside the digest, and a refusal shows its Japanese text."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.demo import DemoFight
from tests.e2e.test_table_page import fight  # noqa: F401 (the page's fixture; the browser is conftest's)

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.slow]


def test_a_japanese_table_shows_the_seeds_words_and_refuses_in_japanese(
    browser: Any,
    live_server: LiveServer,
    fight: DemoFight,  # noqa: F811
) -> None:
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{live_server.base_url}/table/encounters/{fight.id}")
    page.get_by_label("Token").fill(fight.gm)
    page.get_by_role("button", name="Open").click()
    page.wait_for_selector(f'#board svg[data-version="{fight.state()["version"]}"]')
    page.get_by_label("Language").select_option("ja")

    # Given a ruling opened on the Japanese page, its rule shows the seed's own lines.
    ruled = fight.version_of("RulingRecorded", rule_ids=["GD-INIT-1"])
    initiative = page.locator(f'#log details[data-version="{ruled}"]')
    initiative.locator(":scope > summary").click()
    words = initiative.locator(".seed-words").first
    words.wait_for(timeout=15_000)
    assert "原文" in words.inner_text()
    assert "「反応値＋1D6」の合計数値の高い順に早く行動できます" in words.inner_text()
    source = words.locator(".seed-source").get_attribute("title") or ""
    assert "seeds/000_cdc17195a0f4ea3d.txt" in source, source

    # When the GM disputes it twice, the second is refused, in Japanese.
    initiative.get_by_label("この裁定のどこが誤りですか？").fill("順番が違う")
    initiative.get_by_role("button", name="異議を申し立てる").click()
    initiative.locator(".dispute").wait_for(timeout=15_000)
    initiative.get_by_label("この裁定のどこが誤りですか？").fill("もう一度")
    initiative.get_by_role("button", name="異議を申し立てる").click()
    status = page.locator("#status", has_text="すでに異議が出ています")
    status.wait_for(timeout=15_000)
    assert f"バージョン {ruled} の裁定にはすでに異議が出ています" in status.inner_text()
    assert errors == []
