"""An HTTP client on a running Senki (real PostgreSQL), and helpers that read like a table."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from infra.services.runtime import Runtime
from tests.support.runtime import start_runtime


@pytest.fixture
def runtime(app_url: str, owner_url: str) -> Iterator[Runtime]:
    runtime = start_runtime(app_url, owner_url)
    yield runtime
    runtime.close()


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    with TestClient(create_app(lambda: runtime, lambda _: None)) as client:
        yield client


def key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4())}


def auth(token: str, **headers: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} | headers


@dataclass
class Campaign:
    """A campaign opened through the API, with tokens for each role."""

    id: str
    gm: str
    client: TestClient

    def post(self, path: str, token: str | None = None, **kwargs: Any) -> httpx.Response:
        headers = auth(token or self.gm) | key() | kwargs.pop("headers", {})
        return self.client.post(path, headers=headers, **kwargs)

    def token_for(self, member_id: str, role: str = "player") -> str:
        self.post(f"/v1/campaigns/{self.id}/members", json={"member_id": member_id, "role": role})
        issued = self.post(
            f"/v1/campaigns/{self.id}/tokens", json={"kind": "member", "member_id": member_id}
        )
        assert issued.status_code == 201, issued.text
        return str(issued.json()["token"])

    def site_token(self) -> str:
        issued = self.post(
            f"/v1/campaigns/{self.id}/tokens", json={"kind": "site", "label": "wiki"}
        )
        return str(issued.json()["token"])


def open_campaign(client: TestClient, name: str = "蒼穹", **options: Any) -> Campaign:
    response = client.post(
        "/v1/campaigns",
        headers=key(),
        json={"name": name, "gm_member_id": "gm", "options": options},
    )
    assert response.status_code == 201, response.text
    body = response.json()
    return Campaign(body["id"], body["token"], client)
