"""The live stream judges each page with the fight as it stands when the page is read: given a
player listening, when the GM brings in a hidden combatant (HP 6661) mid-stream, then neither
its join command nor its join reaches the player with its sheet (docs/visibility.md)."""

from __future__ import annotations

import threading
import time

import pytest
from fastapi.testclient import TestClient

from tests.api.fight import join, open_fight
from tests.api.test_encounter_stream import frames, stream
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres


def test_a_combatant_hidden_while_a_player_listens_reaches_them_without_its_sheet(
    client: TestClient,
) -> None:
    fight = open_fight(client)
    at = fight.version()
    received: list[str] = []

    def listen() -> None:
        received.append(stream(fight, by="aoi", after=at, limit=2).text)

    listener = threading.Thread(target=listen)
    listener.start()
    time.sleep(0.5)  # the listener is polling, its view made before the spy existed
    join(fight, "spy", "gm", "enemy", sheet(9, 9, hp=6661), hidden=True)
    listener.join(timeout=30)
    command, joined = frames(received[0])
    assert command["data"]["payload"]["payload"]["sheet"] is None
    assert joined["data"]["payload"]["sheet"] is None
    assert "6661" not in received[0]
