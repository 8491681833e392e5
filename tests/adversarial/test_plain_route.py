"""Issue 33 §5: the command route reads a hostile body as FastAPI reads any body, and refuses it
with a problem, not a 500 and a traceback in the server's log."""

from __future__ import annotations

import logging
import uuid

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth, key
from tests.api.fight import open_fight

pytestmark = pytest.mark.postgres

DEEP = 5_000


def nested(depth: int) -> bytes:
    """A JSON body of about 10 KB, arrays nested `depth` deep (deeper than Python's parser goes)."""
    return b"[" * depth + b"]" * depth


def _commands(encounter_id: str) -> str:
    return f"/v1/encounters/{encounter_id}/commands"


def test_a_body_nested_5000_deep_without_a_token_is_a_problem_not_a_traceback(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sent = client.post(
        _commands(str(uuid.uuid4())),
        content=nested(DEEP),
        headers={"Content-Type": "application/json"} | key(),
    )
    # FastAPI reads the body before it solves any dependency (the token is one): a body its
    # JSON parser cannot read is refused as unreadable before anyone is asked who is calling.
    assert sent.status_code == 400, sent.text
    assert sent.headers["content-type"] == "application/problem+json"
    assert "body" in sent.json()["detail"]
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


def test_a_body_nested_5000_deep_from_a_player_changes_nothing(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    fight = open_fight(client)
    before = fight.version()
    caplog.set_level(logging.DEBUG)
    headers = auth(fight.token("aoi"), **{"If-Match": f'"{before}"'}) | key()
    sent = client.post(
        _commands(fight.id),
        content=nested(DEEP),
        headers=headers | {"Content-Type": "application/json"},
    )
    assert sent.status_code == 400, sent.text
    assert sent.headers["content-type"] == "application/problem+json"
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
    assert fight.version() == before


def test_a_command_nested_deep_inside_its_fields_is_refused_by_its_schema(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Parsed, but of no command's shape: FastAPI's validation names what is wrong (422)."""
    fight = open_fight(client)
    caplog.set_level(logging.DEBUG)
    body = b'{"command": "Pass", "combatant_id": ' + nested(500) + b"}"
    headers = auth(fight.token("aoi"), **{"If-Match": f'"{fight.version()}"'}) | key()
    sent = client.post(
        _commands(fight.id), content=body, headers=headers | {"Content-Type": "application/json"}
    )
    assert sent.status_code == 422, sent.text
    assert sent.headers["content-type"] == "application/problem+json"
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]


# Deeper than Python's parser goes: not read, so the route answers (a player may not reveal);
# just within it: read, and its NUL refused.
@pytest.mark.parametrize(("depth", "status"), [(DEEP, 403), (850, 422)])
def test_a_deep_body_holding_a_nul_escape_on_a_route_without_a_body_is_not_a_500(
    client: TestClient, caplog: pytest.LogCaptureFixture, depth: int, status: int
) -> None:
    """The NUL check (api/writes.py) reads every write's body, bodiless routes' too."""
    fight = open_fight(client)
    caplog.set_level(logging.DEBUG)
    body = b"[" * depth + b'"\\u0000"' + b"]" * depth
    sent = client.post(
        f"/v1/encounters/{fight.id}/reveal",
        content=body,
        headers=auth(fight.token("aoi")) | key() | {"Content-Type": "application/json"},
    )
    assert sent.status_code == status, sent.text
    assert sent.headers["content-type"] == "application/problem+json"
    assert not [r for r in caplog.records if r.exc_info or "Traceback" in r.getMessage()]
