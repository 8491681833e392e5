"""One wake, one read: given the GM, a player who controls a hidden combatant, a player who does
not and a viewer all listening to one encounter in one process, when the GM brings in that
hidden combatant (HP 6661), then its events are read from the store once for all four streams
(none at all when the append was this process's own: its events are handed to the streams),
and each stream sends exactly what that reader's own paged read shows (docs/visibility.md): the
sheet to the GM and to its controller, to the other player and the viewer without it."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

import api.live_reads
from api.live_reads import Taken
from infra.services import Recorded, read_page
from tests.api.fight import join, open_fight
from tests.api.test_encounter_stream import frames, stream
from tests.unit.encounter.table import sheet

pytestmark = pytest.mark.postgres

READERS = ("gm", "aoi", "kai", "mio")  # the GM, spy's controller, another player, a viewer


def test_four_readers_of_one_encounter_share_one_read_and_each_gets_its_own_view(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As when another process appended: its events are not handed to this one's streams.
    monkeypatch.setattr(api.live_reads.SharedReads, "own_append", lambda *args: None)
    found = _four_readers_hear_a_hidden_join(client, monkeypatch)
    assert [n for n in found if n] == [2], "the command and its join: read once for all four"


def test_the_streams_take_this_processs_own_append_without_reading_it(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    found = _four_readers_hear_a_hidden_join(client, monkeypatch)
    assert [n for n in found if n] == [], "the join's events came from the append itself"


def _four_readers_hear_a_hidden_join(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> list[int]:
    """Each reader's stream gets what its paged read shows; how many events each read of
    the live streams found."""
    fight = open_fight(client)
    at = fight.version()
    found: list[int] = []  # how many events each read of the live streams found

    def counted(*args: Any, **kwargs: Any) -> list[Recorded]:
        page = read_page(*args, **kwargs)
        found.append(len(page))
        return page

    monkeypatch.setattr(api.live_reads, "read_page", counted)
    waiting: set[object] = set()  # the readers whose stream has taken its first, empty, page
    took_first = threading.Condition()
    real_taken = api.live_reads.SharedReads.taken

    async def taken(self: api.live_reads.SharedReads, *args: Any, **kwargs: Any) -> Taken:
        got = await real_taken(self, *args, **kwargs)
        if not got.events:
            with took_first:
                waiting.add(args[1])  # the stream's principal
                took_first.notify_all()
        return got

    monkeypatch.setattr(api.live_reads.SharedReads, "taken", taken)
    received: dict[str, str] = {}

    def listen(by: str) -> None:
        received[by] = stream(fight, by=by, after=at, limit=2).text

    listeners = [threading.Thread(target=listen, args=(by,)) for by in READERS]
    for listener in listeners:
        listener.start()
    with took_first:  # every listener has read its first (empty) page: now it waits for a wake
        assert took_first.wait_for(lambda: len(waiting) == len(READERS), timeout=30)
    join(fight, "spy", "aoi", "enemy", sheet(9, 9, hp=6661), hidden=True)
    for listener in listeners:
        listener.join(timeout=30)

    assert sorted(received) == sorted(READERS)
    for by in READERS:
        paged = fight.get("/events", by=by, after=at).json()["events"]
        assert [f["data"] for f in frames(received[by])] == paged, by
    assert "6661" in received["gm"]
    assert "6661" in received["aoi"]  # spy is hers: hidden from the others, not from her
    assert "6661" not in received["kai"]
    assert "6661" not in received["mio"]
    return found
