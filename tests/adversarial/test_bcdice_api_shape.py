"""BCDice-API's address answers only in BCDice-API's shape (issue 33 §5, issue 36 §2): a BCDice
client reads `{ok: false, reason}` and, from a browser page, can read nothing without
`Access-Control-Allow-Origin: *`. Every error a request can meet under `/bcdice/{token}/` (an
unknown path or method, a bad token, a closed log, a body too large, a shard down, an unexpected
error) keeps its status and speaks that shape; and a table is refused before any die is drawn."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.types import Receive, Scope, Send

from api.app import MAX_BODY_BYTES, create_app
from api.routes.bcdice_api import BcdiceAnswers
from domain.dice.bcdice.user_table import MAX_TABLE_ROWS
from infra.store.connect import ShardUnavailable
from tests.api.conftest import auth, open_campaign
from tests.api.test_bcdice_api import roller_for

pytestmark = pytest.mark.postgres
NOT_FOUND = {"ok": False, "reason": "not found"}


def assert_bcdice_error(answer: Any, status: int) -> dict[str, Any]:
    assert answer.status_code == status, answer.text
    assert answer.headers["access-control-allow-origin"] == "*"
    assert answer.headers["content-type"] == "application/json"
    body: dict[str, Any] = answer.json()
    assert set(body) == {"ok", "reason"}
    assert body["ok"] is False
    assert body["reason"]
    return body


def test_unknown_paths_and_methods_are_bcdice_apis_not_found_with_cors(
    client: TestClient,
) -> None:
    _, token = roller_for(open_campaign(client))
    for method, path in [
        ("GET", "/v2/nothing"),
        ("GET", "/v3/version"),
        ("GET", "/v2/original_table"),  # a POST route: Sinatra has no 405
        ("POST", "/v2/version"),
        ("DELETE", "/v2/game_system/DiceBot/roll"),
        ("OPTIONS", "/v2/game_system/DiceBot/roll"),  # Sinatra has no OPTIONS route either
        ("OPTIONS", ""),
    ]:
        answer = client.request(method, f"/bcdice/{token}{path}")
        assert assert_bcdice_error(answer, 404) == NOT_FOUND, (method, path)
    assert assert_bcdice_error(client.get("/bcdice/"), 404) == NOT_FOUND


def test_the_base_address_greets_as_bcdice_api_does_for_a_roller_token_only(
    client: TestClient,
) -> None:
    _, token = roller_for(open_campaign(client))
    for path in (f"/bcdice/{token}", f"/bcdice/{token}/"):
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == 200
        assert answer.text == "Hello. This is BCDice-API."
        assert answer.headers["content-type"] == "text/html;charset=utf-8"
        assert answer.headers["access-control-allow-origin"] == "*"
    assert_bcdice_error(client.get("/bcdice/senki.nothing"), 401)


def test_a_closed_log_is_409_in_bcdice_apis_shape(client: TestClient) -> None:
    campaign = open_campaign(client)
    log_id, token = roller_for(campaign)
    assert campaign.post(f"/v1/roll-logs/{log_id}/reveal").status_code == 200
    base = f"/bcdice/{token}/v2"
    roll = client.get(f"{base}/game_system/DiceBot/roll", params={"command": "1D6"})
    table = client.post(f"{base}/original_table", data={"table": "t\n1D2\n1:a\n2:b"})
    for answer in (roll, table):
        assert "revealed" in assert_bcdice_error(answer, 409)["reason"]


def test_a_body_too_large_is_413_in_bcdice_apis_shape(client: TestClient) -> None:
    _, token = roller_for(open_campaign(client))
    answer = client.post(
        f"/bcdice/{token}/v2/original_table", content=b"table=" + b"a" * MAX_BODY_BYTES
    )
    assert "send less" in assert_bcdice_error(answer, 413)["reason"]


def test_a_table_refused_draws_no_die_and_its_reason_quotes_none(client: TestClient) -> None:
    """Issue 33 §1: the table is checked whole before the first die, so a refusal uses up no
    roll sequence and says nothing a die decided."""
    campaign = open_campaign(client)
    log_id, token = roller_for(campaign)
    url = f"/bcdice/{token}/v2/original_table"
    refusals = {
        "no table": client.post(url),
        "blank": client.post(url, data={"table": ""}),
        "a gap": client.post(url, data={"table": "t\n1D3\n1:a\n3:c"}),
        "01 is not 1": client.post(url, data={"table": "t\n1D2\n01:a\n2:b"}),
        "no dice line": client.post(url, data={"table": "t\n1:a"}),
        "too many rows": client.post(
            url, json={"table": "t\n1D6\n" + "1:a\n" * (MAX_TABLE_ROWS + 1)}
        ),
        "a NUL": client.post(url, json={"table": "t\n1D2\n1:a\u0000\n2:b"}),
        "a lone surrogate": client.post(
            url,
            content=b'{"table": "t\\n1D2\\n1:\\ud800\\n2:b"}',
            headers={"content-type": "application/json"},
        ),
    }
    for why, answer in refusals.items():
        reason = assert_bcdice_error(answer, 400)["reason"]
        assert "(1)" not in reason, why
        assert "(2)" not in reason, why
    log = client.get(f"/v1/roll-logs/{log_id}", headers=auth(campaign.gm)).json()
    assert log["entries"] == []
    rolled = client.post(url, data={"table": "t\n1D2\n1:a\n2:b"})
    assert rolled.status_code == 200
    log = client.get(f"/v1/roll-logs/{log_id}", headers=auth(campaign.gm)).json()
    assert [e["roll_seq"] for e in log["entries"]] == [0]


class _Failing:
    def __init__(self, error: Exception) -> None:
        self.error = error

    def authenticate(self, credential: str) -> None:
        raise self.error


class _Down:
    """A running Senki whose token check meets `error` (a shard down, a bug)."""

    version = "test"

    def __init__(self, error: Exception) -> None:
        self.campaigns = _Failing(error)


@pytest.mark.parametrize(
    ("error", "status", "retry_after"),
    [
        (ShardUnavailable((1,), "connection refused"), 503, "2"),
        (RuntimeError("boom: an internal detail"), 500, None),
    ],
)
def test_outages_and_bugs_keep_their_status_in_bcdice_apis_shape(
    error: Exception, status: int, retry_after: str | None
) -> None:
    app = create_app(lambda: _Down(error), lambda _: None)  # type: ignore[arg-type,return-value]
    with TestClient(app, raise_server_exceptions=False) as client:
        answer = client.get("/bcdice/senki.x.y.z/v2/version")
        reason = assert_bcdice_error(answer, status)["reason"]
        assert "boom" not in reason
        assert "Traceback" not in reason
        assert answer.headers.get("retry-after") == retry_after
        elsewhere = client.get("/v1/log/head")
    assert elsewhere.headers["content-type"] == "application/problem+json"  # /v1 unchanged


@pytest.mark.parametrize(("status", "detail"), [(422, "bad input"), (429, "too many streams")])
def test_a_refusal_from_any_middleware_keeps_its_status_and_retry_after_in_bcdice_apis_shape(
    status: int, detail: str
) -> None:
    """Whatever answers before the routes (a rate limit, a validator) with a problem document."""

    async def refusing(scope: Scope, receive: Receive, send: Send) -> None:
        body = json.dumps({"type": "x", "title": "t", "status": status, "detail": detail})
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"retry-after", b"3"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode(), "more_body": True})
        await send({"type": "http.response.body", "body": b""})

    client = TestClient(BcdiceAnswers(refusing))  # no lifespan: the app is a bare answer
    answer = client.get("/bcdice/senki.x.y.z/v2/game_system/DiceBot/roll?command=1D6")
    elsewhere = client.get("/v1/campaigns")
    assert assert_bcdice_error(answer, status) == {"ok": False, "reason": detail}
    assert answer.headers["retry-after"] == "3"
    assert elsewhere.headers["content-type"] == "application/problem+json"


def test_a_body_nested_deeper_than_the_parser_goes_is_a_bcdice_400_not_a_500(
    client: TestClient,
) -> None:
    _, token = roller_for(open_campaign(client))
    deep = ("[" * 5000 + "]" * 5000).encode()
    headers = {"Content-Type": "application/json"}
    for path in ("/v2/original_table", "/v2/game_system/DiceBot/roll"):
        answer = client.post(f"/bcdice/{token}{path}", content=deep, headers=headers)
        assert_bcdice_error(answer, 400)
