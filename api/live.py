"""One LISTEN per process, fanned out to its live streams.

The append watch (infra/services/append_watch.py) already holds the process's one LISTENing
connection per cluster and hears every append's NOTIFY, and every append of this process as
it commits. `LiveFeeds` turns what it hears into wake-ups: a stream waits on an event of its
own, set when one of the streams it follows (its encounter, its token's campaign) is appended
to, or when the watch cannot say which (then every waiting stream wakes and reads). So an idle
live stream costs no query: it reads the database only when something may have arrived.

Nor does it wake on a timer of its own to look for what no append announces: the server
beginning to shut down, or the watch no longer vouching (its connection silent past its trust
window). One guard thread per app looks every `GUARD_SECONDS` while streams wait, and wakes
them all when either is the case; an idle stream otherwise sleeps until its next keep-alive.
"""

from __future__ import annotations

import asyncio
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from uuid import UUID

from api.live_reads import SharedReads
from infra.services import AppendWatch

_Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]
# How long a shutdown, or a watch that stopped vouching, goes unnoticed by idle streams.
GUARD_SECONDS = 1.5


class LiveFeeds:
    """The waiting streams of one app, by the stream ids they follow."""

    def __init__(self) -> None:
        self._waiting: dict[UUID, set[_Waiter]] = {}
        # The watches told to wake us (a test may swap the runtime's).
        self._watches: weakref.WeakSet[AppendWatch] = weakref.WeakSet()
        self._lock = threading.Lock()
        # What a wake reads, read once for all the streams of an encounter (api/live_reads.py).
        self.reads = SharedReads()
        self._stops: weakref.WeakSet[threading.Event] = weakref.WeakSet()
        self._guard: threading.Thread | None = None

    @contextmanager
    def following(
        self, watch: AppendWatch, *streams: UUID, stop: threading.Event
    ) -> Iterator[asyncio.Event]:
        """An event set whenever one of `streams` may have been appended to, and while `stop`
        is set or the watch does not vouch (every `GUARD_SECONDS`); the caller clears it
        before it reads."""
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:  # one block: a guard that finds no waiter ends, and is started again
            if watch not in self._watches:
                self._watches.add(watch)
                watch.listeners.append(self.heard)
            self._stops.add(stop)
            for stream in streams:
                self._waiting.setdefault(stream, set()).add(waiter)
            if self._guard is None:
                self._guard = threading.Thread(
                    target=self._guarding, name="live-guard", daemon=True
                )
                self._guard.start()
        try:
            yield waiter[1]
        finally:
            with self._lock:
                for stream in streams:
                    followers = self._waiting.get(stream, set())
                    followers.discard(waiter)
                    if not followers:
                        self._waiting.pop(stream, None)

    def _guarding(self) -> None:
        """While streams wait: wake them all when the server stops or a watch cannot vouch."""
        while True:
            time.sleep(GUARD_SECONDS)
            with self._lock:
                if not self._waiting:
                    self._guard = None  # the next stream to follow starts another
                    return
                watches, stops = list(self._watches), list(self._stops)
            if any(stop.is_set() for stop in stops) or any(w.ticket() is None for w in watches):
                self.heard(None)

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
