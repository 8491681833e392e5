"""One LISTEN per process, fanned out to its live streams.

The append watch (infra/services/append_watch.py) already holds the process's one LISTENing
connection per cluster and hears every append's NOTIFY, and every append of this process as
it commits. `LiveFeeds` turns what it hears into wake-ups: a stream waits on an event of its
own, set when one of the streams it follows (its encounter, its token's campaign) is appended
to, or when the watch cannot say which (then every waiting stream wakes and reads). So an idle
live stream costs no query: it reads the database only when something may have arrived.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from api.live_reads import SharedReads
from infra.services import AppendWatch

_Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]


class LiveFeeds:
    """The waiting streams of one app, by the stream ids they follow."""

    def __init__(self) -> None:
        self._waiting: dict[UUID, set[_Waiter]] = {}
        # The watches told to wake us (a test may swap the runtime's).
        self._watches: weakref.WeakSet[AppendWatch] = weakref.WeakSet()
        self._lock = threading.Lock()
        # What a wake reads, read once for all the streams of an encounter (api/live_reads.py).
        self.reads = SharedReads()

    @contextmanager
    def following(self, watch: AppendWatch, *streams: UUID) -> Iterator[asyncio.Event]:
        """An event set whenever one of `streams` may have been appended to; the caller clears
        it before it reads."""
        with self._lock:
            if watch not in self._watches:
                self._watches.add(watch)
                watch.listeners.append(self.heard)
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            for stream in streams:
                self._waiting.setdefault(stream, set()).add(waiter)
        try:
            yield waiter[1]
        finally:
            with self._lock:
                for stream in streams:
                    followers = self._waiting.get(stream, set())
                    followers.discard(waiter)
                    if not followers:
                        self._waiting.pop(stream, None)

    def heard(self, streams: list[UUID] | None) -> None:
        """From any thread: wake the followers of `streams` (None: every follower)."""
        with self._lock:
            if streams is None:
                woken = {w for followers in self._waiting.values() for w in followers}
            else:
                woken = {w for s in streams for w in self._waiting.get(s, ())}
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Event]] = {}
        for loop, event in woken:
            by_loop.setdefault(loop, []).append(event)
        for loop, events in by_loop.items():
            if not loop.is_closed():
                loop.call_soon_threadsafe(_set_all, events)


def _set_all(events: list[asyncio.Event]) -> None:
    for event in events:
        event.set()
