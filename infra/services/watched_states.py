"""Aggregate states held in memory for as long as the append watch vouches they are current.

A token check needs its campaign's tokens and roles, a sheet read its character; loading
either through the executor costs a database round trip per request (its cached state, then a
SELECT of newer events). This cache skips that round trip while nothing was appended to that
stream since the state was read: an entry keeps the watch's ticket from before the read and is
good only while the watch still vouches for the stream under that ticket (append_watch.py says
when it stops doing so).

How long a change (a revoked token, an equipped item) can go unseen:
- in the process that made it: not at all — the ledger tells the watch which streams it
  appended to as soon as the append commits, before the answer leaves (and a write that
  fails voids everything: api/security.py);
- in other processes: until the commit's NOTIFY reaches their watch (its delivery time), or at
  most `WatchOptions.trust_s` if their listening connection hangs without failing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar
from uuid import UUID

from infra.services.append_watch import AppendWatch

S = TypeVar("S")


class WatchedStates(Generic[S]):
    """Latest-known (state, version) by stream id, each good only under its ticket."""

    def __init__(self, watch: AppendWatch, *, size: int = 4096) -> None:
        self.watch = watch
        self.size = size
        self.hits = 0  # answers given without the database (approximate: not locked)
        self._states: OrderedDict[UUID, tuple[int, S, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, stream_id: UUID) -> tuple[S, int] | None:
        """(state, version) if nothing can have changed the stream since it was read."""
        found = self._states.get(stream_id)
        if found is None or not self.watch.still(found[0], stream_id):
            return None
        self.hits += 1
        return found[1], found[2]

    def load(self, stream_id: UUID, read: Callable[[], tuple[S, int]]) -> tuple[S, int]:
        """From memory when it is current, else `read()` from the log (and kept)."""
        known = self.get(stream_id)
        if known is not None:
            return known
        ticket = self.ticket()
        state, version = read()
        self.put(ticket, stream_id, state, version)
        return state, version

    def ticket(self) -> int | None:
        """Take before reading a state from the log; None: do not keep what you read."""
        return self.watch.ticket()

    def put(self, ticket: int | None, stream_id: UUID, state: S, version: int) -> None:
        """Keep a state read after taking `ticket` (good only while that ticket holds)."""
        if ticket is None:
            return
        with self._lock:
            self._states[stream_id] = (ticket, state, version)
            self._states.move_to_end(stream_id)
            while len(self._states) > self.size:
                self._states.popitem(last=False)

    def written(self) -> None:
        """This process appended: nothing held so far may be served again."""
        self.watch.bump()
