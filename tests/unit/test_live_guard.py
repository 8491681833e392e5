"""Idle live streams sleep until an append wakes them, so what no append announces wakes them
from the live feeds' guard: given a stream waiting with nothing new, when the server begins to
shut down, or the append watch stops vouching (its connection gone silent), then the stream
is woken, to end or to fall back to polling."""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import cast

from api.live import GUARD_SECONDS, LiveFeeds
from infra.services import AppendWatch

BOUND = GUARD_SECONDS * 4  # only a broken guard waits this long


class Watch:
    """The parts of the append watch the live feeds use: whether it vouches."""

    def __init__(self, *, vouches: bool) -> None:
        self.vouches = vouches
        self.listeners: list[object] = []

    def ticket(self) -> int | None:
        return 1 if self.vouches else None


async def woken_within(feeds: LiveFeeds, watch: Watch, stop: threading.Event) -> bool:
    with feeds.following(cast(AppendWatch, watch), uuid.uuid4(), stop=stop) as woken:
        try:
            await asyncio.wait_for(woken.wait(), BOUND)
        except TimeoutError:
            return False
        return True


def test_a_waiting_stream_is_woken_when_the_server_begins_to_shut_down() -> None:
    stop = threading.Event()
    stop.set()
    assert asyncio.run(woken_within(LiveFeeds(), Watch(vouches=True), stop))


def test_a_waiting_stream_is_woken_when_the_watch_stops_vouching() -> None:
    assert asyncio.run(woken_within(LiveFeeds(), Watch(vouches=False), threading.Event()))
