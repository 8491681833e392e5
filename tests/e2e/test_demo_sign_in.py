"""Issue 19 item 6: `senki demo` ends with a link that opens its fight on the table page as
the GM, and the token in it (a URL fragment) reaches the server in no request line."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from rich.console import Console

from infra.demo import run_demo
from tests.e2e.conftest import LiveServer

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.postgres,
    pytest.mark.slow,
]
LINK = re.compile(r"(http://\S+/table/encounters/([0-9a-f-]{36}))#token=(senki\.\S+)")


def test_the_demos_link_opens_its_fight_as_the_gm_and_the_token_stays_in_the_fragment(
    browser: Any, live_server: LiveServer
) -> None:
    out = io.StringIO()
    assert run_demo(live_server.client, Console(file=out, width=80))
    found = LINK.search(out.getvalue())
    assert found, out.getvalue()
    link, address, encounter, token = found.group(0), found.group(1), found.group(2), found[3]
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))

    page.goto(link)
    page.wait_for_selector("#board svg[data-version]")

    assert page.evaluate("() => sessionStorage.getItem('senki.token')") == token
    assert page.url == address  # the token is out of the address (and so of the history)
    assert page.locator("#access").is_hidden()
    assert encounter in page.url
    assert not [url for url in requested if token in url or "token=" in url]
    me = live_server.client.get("/v1/me", headers={"Authorization": f"Bearer {token}"}).json()
    assert me["role"] == "gm", me
