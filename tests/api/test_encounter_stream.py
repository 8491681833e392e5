"""The live feed of a fight: Server-Sent Events, one per recorded event, resumable."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth
from tests.api.fight import Fight, open_fight

pytestmark = pytest.mark.postgres


def frames(text: str) -> list[dict[str, Any]]:
    """The events of an SSE body: id, event and the JSON data of each."""
    found = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "id" in fields:
            found.append(
                {"id": int(fields["id"]), "event": fields["event"]}
                | {"data": json.loads(fields["data"])}
            )
    return found


def stream(
    fight: Fight, by: str = "gm", headers: dict[str, str] | None = None, **params: Any
) -> httpx.Response:
    return fight.client.get(
        f"/v1/encounters/{fight.id}/stream",
        headers=auth(fight.token(by)) | (headers or {}),
        params=params,
    )


def test_the_stream_sends_each_event_with_its_version_as_id(client: TestClient) -> None:
    fight = open_fight(client)
    got = stream(fight, limit=4)
    assert got.status_code == 200
    assert got.headers["content-type"].startswith("text/event-stream")
    sent = frames(got.text)
    assert [f["id"] for f in sent] == [1, 2, 3, 4]
    assert [f["event"] for f in sent][:3] == ["EncounterOpened", "CommandIssued", "CombatantJoined"]
    assert sent[0]["data"]["version"] == 1


def test_the_stream_resumes_after_the_last_event_id(client: TestClient) -> None:
    fight = open_fight(client)
    got = stream(fight, headers={"Last-Event-ID": "2"}, limit=2)
    assert [f["id"] for f in frames(got.text)] == [3, 4]


def test_the_stream_delivers_new_rulings_as_they_are_made(client: TestClient) -> None:
    fight = open_fight(client)
    at = fight.version()
    received: list[str] = []

    def listen() -> None:
        received.append(stream(fight, by="aoi", after=at, limit=2).text)

    listener = threading.Thread(target=listen)
    listener.start()
    time.sleep(0.5)  # the listener is polling an idle fight
    assert fight.command({"command": "RollInitiative"}).status_code == 200
    listener.join(timeout=30)
    assert [f["id"] for f in frames(received[0])] == [at + 1, at + 2]
    assert [f["event"] for f in frames(received[0])] == ["CommandIssued", "EncounterDiceRolled"]


def test_a_hidden_sheet_stays_hidden_in_the_stream(client: TestClient) -> None:
    fight = open_fight(client)
    command, joined = frames(stream(fight, by="aoi", after=5, limit=2).text)  # third join
    assert command["event"] == "CommandIssued"  # the GM's join command carries the sheet too
    assert command["data"]["payload"]["payload"]["hidden"] is True
    assert command["data"]["payload"]["payload"]["sheet"] is None
    assert joined["data"]["payload"]["hidden"] is True
    assert joined["data"]["payload"]["sheet"] is None


def test_a_bad_last_event_id_is_a_400(client: TestClient) -> None:
    fight = open_fight(client)
    assert stream(fight, headers={"Last-Event-ID": "abc"}, limit=1).status_code == 400
