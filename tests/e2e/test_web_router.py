"""The table page's router on its own: the page, its files, and nothing else (no browser)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.web.router import STATIC
from api.web.router import router as web_router


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = FastAPI()
    app.include_router(web_router)
    with TestClient(app) as client:
        yield client


ID = "0b0e8f6e-3c5c-4b8e-9d2a-1f5e7c9a1b2c"


@pytest.mark.parametrize(
    "path",
    [
        "/table",
        f"/table/encounters/{ID}",
        f"/table/characters/{ID}",
        f"/table/units/{ID}",
        f"/table/rolls/{ID}",
        f"/table/campaigns/{ID}/rolls",
    ],
)
def test_the_page_is_served_with_a_strict_content_security_policy(
    client: TestClient, path: str
) -> None:
    page = client.get(path)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "<main" in page.text
    is_sheet = "/characters/" in path or "/units/" in path
    assert ("/table/static/sheet.js" in page.text) == is_sheet
    assert ("/table/static/rolls.js" in page.text) == ("rolls" in path)


def test_every_file_the_page_loads_is_served_from_this_origin(client: TestClient) -> None:
    html = "".join(p.read_text(encoding="utf-8") for p in STATIC.glob("*.html"))
    scripts = [p.read_text(encoding="utf-8") for p in STATIC.glob("*.js")]
    referenced = set(re.findall(r'(?:href|src)="(/table/static/[^"]+)"', html))
    for script in scripts:
        referenced |= {f"/table/static/{m}" for m in re.findall(r'from "\./([^"]+)"', script)}
    assert referenced, "the page loads its own files"
    for path in sorted(referenced):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert "http://" not in html + "".join(scripts).replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html + "".join(scripts)


@pytest.mark.parametrize(
    "path", ["/table/static/nothing.js", "/table/static/..%2Frouter.py", "/table/static/.hidden.js"]
)
def test_nothing_else_is_reachable(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 404


@pytest.mark.parametrize(
    "path",
    [
        "/table/encounters/not-an-id",
        "/table/characters/not-an-id",
        "/table/units/not-an-id",
        "/table/rolls/not-an-id",
        "/table/campaigns/not-an-id/rolls",
    ],
)
def test_an_address_must_be_an_id(client: TestClient, path: str) -> None:
    assert client.get(path).status_code == 422
