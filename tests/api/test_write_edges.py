"""The edges of a write: whose retry a key is, bodies too large, what the OpenAPI says."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from api.app import MAX_BODY_BYTES
from tests.api.conftest import auth, open_campaign

pytestmark = pytest.mark.postgres


def _spellings(token: str) -> list[str]:
    """One token, written every way the server accepts it: the same caller each time."""
    prefix, campaign_hex, token_id, secret = token.split(".")
    dashed = str(uuid.UUID(hex=campaign_hex))
    return [
        f"Bearer {token}",
        f"bearer {token}",
        f"BEARER  {token}",
        f"Bearer {prefix}.{campaign_hex.upper()}.{token_id}.{secret}",
        f"Bearer {prefix}.{dashed}.{token_id}.{secret}",
    ]


def test_a_key_retried_with_another_spelling_of_the_same_token_appends_once(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    body = {"kind": "site", "label": "wiki"}
    answers = []
    for spelling in _spellings(campaign.gm):
        response = client.post(
            f"/v1/campaigns/{campaign.id}/tokens",
            headers=headers | {"Authorization": spelling},
            json=body,
        )
        assert response.status_code == 201, (spelling, response.text)
        answers.append(response.json()["token_id"])
    assert len(set(answers)) == 1, "each spelling was taken for another caller"
    tokens = client.get(f"/v1/campaigns/{campaign.id}/tokens", headers=auth(campaign.gm)).json()
    assert len(tokens) == 2  # the GM's first token and the one site token


def test_the_same_key_from_two_tokens_is_two_requests(client: TestClient) -> None:
    campaign = open_campaign(client)
    other = campaign.token_for("mika", role="gm")
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    for token in (campaign.gm, other):
        response = client.post(
            f"/v1/campaigns/{campaign.id}/tokens",
            headers=headers | auth(token),
            json={"kind": "site", "label": "wiki"},
        )
        assert response.status_code == 201, response.text
    tokens = client.get(f"/v1/campaigns/{campaign.id}/tokens", headers=auth(campaign.gm)).json()
    assert len([t for t in tokens if t["kind"] == "site"]) == 2


def _json_with_a_key() -> dict[str, str]:
    return {"Idempotency-Key": str(uuid.uuid4()), "Content-Type": "application/json"}


def test_a_chunked_body_over_the_limit_is_413_not_400(client: TestClient) -> None:
    campaign = open_campaign(client)

    def chunks() -> Iterator[bytes]:
        yield b'{"kind": "site", "label": "'
        for _ in range(MAX_BODY_BYTES // 4096 + 2):
            yield b"x" * 4096
        yield b'"}'

    response = client.post(
        f"/v1/campaigns/{campaign.id}/tokens",
        headers=auth(campaign.gm, **_json_with_a_key()),
        content=chunks(),
    )
    assert "content-length" not in response.request.headers
    assert response.status_code == 413, response.text
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"].endswith("/too-large")


def test_a_chunked_body_under_the_limit_is_read_whole(client: TestClient) -> None:
    campaign = open_campaign(client)

    def chunks() -> Iterator[bytes]:
        yield b'{"kind": "site", '
        yield b'"label": "wiki"}'

    response = client.post(
        f"/v1/campaigns/{campaign.id}/tokens",
        headers=auth(campaign.gm, **_json_with_a_key()),
        content=chunks(),
    )
    assert response.status_code == 201, response.text


def test_openapi_marks_the_idempotency_key_required_on_every_post(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    posts = {path: ops["post"] for path, ops in paths.items() if "post" in ops}
    assert len(posts) > 10
    for path, operation in posts.items():
        if path in _POSTS_WITHOUT_KEY:
            continue
        keys = [
            p for p in operation.get("parameters", []) if p["name"].lower() == "idempotency-key"
        ]
        assert keys, f"POST {path} does not document its Idempotency-Key"
        assert keys[0]["in"] == "header"
        assert keys[0]["required"] is True, f"POST {path}: Idempotency-Key shown as optional"


# POSTs that are reads (no write, so no key is asked for).
# BCDice-API v2's roll and original table: its clients (CCFolia, Discord bots) send no
# headers, so the protocol has no Idempotency-Key; a repeated POST is a second roll, as on any
# BCDice-API server.
_POSTS_WITHOUT_KEY: frozenset[str] = frozenset(
    {
        "/bcdice/{credential}/v2/game_system/{system_id}/roll",
        "/bcdice/{credential}/v2/original_table",
    }
)


def test_a_post_without_its_key_is_still_a_400_problem_saying_what_to_send(
    client: TestClient,
) -> None:
    campaign = open_campaign(client)
    response = client.post(
        f"/v1/campaigns/{campaign.id}/tokens",
        headers=auth(campaign.gm),
        json={"kind": "site", "label": "wiki"},
    )
    assert response.status_code == 400
    assert response.headers["content-type"] == "application/problem+json"
    assert "Idempotency-Key" in response.json()["detail"]
