"""How long a live feed lives: no longer than the access it was opened with, nor the server.

(The subprocess version, with SIGTERM and a revoked token: tests/integration/test_serve_streams.py.)
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from fastapi.testclient import TestClient

from infra.services import InvalidToken
from infra.services.runtime import Runtime
from tests.api.conftest import auth
from tests.api.fight import Fight, open_fight

pytestmark = pytest.mark.postgres

BOUND = 4.0  # seconds: a recheck each second, on a loaded machine


def open_stream(fight: Fight, member: str) -> tuple[threading.Thread, list[str]]:
    """A stream without limit, read on a thread: the body once the server ended it."""
    body: list[str] = []

    def read() -> None:
        got = fight.client.get(
            f"/v1/encounters/{fight.id}/stream", headers=auth(fight.token(member))
        )
        body.append(got.text)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.8)  # polling, and past its first recheck
    assert reader.is_alive()
    return reader, body


def closed(body: list[str]) -> dict[str, str]:
    assert body, "the stream is still open"
    last = body[0].strip().split("\n\n")[-1]
    assert last.startswith("event: closed"), last
    return dict(json.loads(last.split("data: ", 1)[1]))


def test_a_member_whose_role_changes_is_cut_off_to_read_again_as_what_they_are(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    reader, body = open_stream(fight, "aoi")
    changed = client.patch(
        f"/v1/campaigns/{fight.campaign.id}/members/aoi",
        headers=auth(fight.token("gm")),
        json={"role": "viewer"},
    )
    assert changed.status_code == 200, changed.text
    reader.join(timeout=BOUND)
    assert closed(body) == {
        "reason": "unauthorized",
        "detail": "this token now acts as viewer: reconnect to read as a viewer",
    }


def test_a_removed_members_stream_ends(client: TestClient) -> None:
    fight = open_fight(client)
    reader, body = open_stream(fight, "kai")
    removed = client.delete(
        f"/v1/campaigns/{fight.campaign.id}/members/kai", headers=auth(fight.token("gm"))
    )
    assert removed.status_code == 200, removed.text
    reader.join(timeout=BOUND)
    assert closed(body)["reason"] == "unauthorized"
    assert closed(body)["detail"] == InvalidToken.WORDING  # one wording for every refusal


def test_streams_end_when_the_server_begins_to_shut_down(
    client: TestClient, runtime: Runtime
) -> None:
    fight = open_fight(client)
    reader, body = open_stream(fight, "gm")
    runtime.shutting_down.set()
    reader.join(timeout=BOUND)
    assert closed(body)["reason"] == "shutting-down"
