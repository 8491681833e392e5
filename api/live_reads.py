"""One read of an encounter's new events per wake and process, shared by its live streams.

An append wakes every stream of its encounter in the process at once (api/live.py): each
used to read the same page of new events, load the state for its lens and look up each
event's leaf in the shard's tree. `SharedReads` does that once per (encounter, page): the
first stream woken reads, the others wait for it and take the same page. What a reader may
see is then applied once per *view*, not per stream: a lens depends only on which combatants
it withholds (`domain.visibility.encounter.Policy.for_reader`: none for the GM; for anyone
else the hidden combatants they do not control), so streams that withhold the same set get
the same frames, and a reader who may see less never gets the frames of one who sees more.

A page is reused while it is known whole: it filled its limit (versions never change), or
the append watch vouches that nothing was appended to the encounter since the ticket taken
before it was read. A page of events that is no longer known whole is still reused (its
events stay the next ones after its version; an append's own NOTIFY, heard moments after the
write woke the streams, voids its ticket): the stream sends them and reads on at once, so
it misses nothing, as a stream that read alone would not. An empty page no longer known
whole is read again.

A page this process's own append wrote needs no read at all: the append tells `SharedReads`
its events (decoded from the bytes stored, with their positions) before it wakes the streams
(`Runtime.own_appends`), for each encounter a live stream of this process follows. Its events
are the next ones after the version the command was decided on, as a read would find them:
the append succeeded at that version. Its ticket is the append watch's own after the
append, given only when nothing else was heard appended to the encounter since a ticket
taken before it (`AppendWatch.voided`): an append of another process that came after this
one, heard before it, would otherwise be covered by that ticket and missed.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from uuid import UUID

from fastapi.concurrency import run_in_threadpool

from api.encounter_views import event_public, reader_of
from api.leaves import entries
from domain.encounter.state import Encounter
from domain.visibility.encounter import Policy
from infra.services import (
    Appended,
    EventPublic,
    Lens,
    LogEntry,
    Principal,
    Recorded,
    Runtime,
    read_page,
)

_KEPT = 1024  # pages kept: a few per live encounter of a table server
LIVE_PAGE = 100  # the events an open-ended live stream reads a wake at most

# The combatants a reader's lens withholds (None: the GM's, withholding nothing).
ViewKey = frozenset[str] | None
Frame = Callable[[EventPublic], str]  # an event as the stream sends it


@dataclass
class _Page:
    """The events after one version of one encounter, read once, and each view's frames."""

    ticket: int | None  # the watch's, taken before the read
    want: int
    lock: threading.Lock = field(default_factory=threading.Lock)
    events: list[Recorded] | None = None  # None until read
    logs: dict[int, LogEntry] = field(default_factory=dict)
    state: Encounter | None = None  # loaded after the read, for the lenses of non-GMs
    # The read under way on a worker thread, by event loop (`SharedReads.taken`).
    reading: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = field(default_factory=dict)
    frames: dict[ViewKey, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Taken:
    """What one stream sends from a wake: its events, their frames for its view, and the
    ticket to check for more."""

    ticket: int | None
    events: list[Recorded]
    frames: list[str]
    whole: bool  # no event after these, as far as the watch knows: else read on at once


class SharedReads:
    """The process's recent pages of live encounters; safe across request threads."""

    def __init__(self, kept: int = _KEPT) -> None:
        self._pages: OrderedDict[tuple[int, UUID, int, int], _Page] = OrderedDict()
        self._lock = threading.Lock()
        self._kept = kept
        self.reads = 0  # pages read from the store (what sharing saves; tests count it)
        self.written = 0  # pages taken from this process's own appends
        self._followed: Counter[UUID] = Counter()  # encounters with live streams here
        self._told: weakref.WeakSet[_OwnAppends] = weakref.WeakSet()

    @contextmanager
    def following(self, runtime: Runtime, encounter_id: UUID) -> Iterator[None]:
        """While a live stream follows the encounter: its next page is taken from this
        process's own appends to it (`own_append`), not read."""
        with self._lock:
            if not any(told.runtime is runtime for told in self._told):
                told = _OwnAppends(self, runtime)
                self._told.add(told)
                runtime.own_appends.append(told)
            self._followed[encounter_id] += 1
        try:
            yield
        finally:
            with self._lock:
                self._followed[encounter_id] -= 1
                if self._followed[encounter_id] <= 0:
                    del self._followed[encounter_id]

    def own_append(self, runtime: Runtime, appended: Appended, ticket: int | None) -> None:
        """On the appending thread, before any stream is woken: the page after the version
        the append was decided on, for each followed encounter it wrote (module docstring)."""
        if ticket is None:
            return
        with self._lock:
            followed = [s for s in appended.streams if s in self._followed]
        if not followed:
            return
        written = appended.recorded()
        for encounter_id in followed:
            events = [r for r in written if r.stream_id == encounter_id]
            if not events or len(events) > LIVE_PAGE:
                continue
            page = _Page(ticket, LIVE_PAGE, events=events)
            page.logs = _logs(runtime, encounter_id, events)
            page.state = runtime.encounters.held_through(encounter_id, events)
            key = (id(runtime), encounter_id, events[0].version - 1, LIVE_PAGE)
            with self._lock:
                standing = self._pages.get(key)
                if standing is None or not standing.events:  # else read already: it stands
                    self._pages[key] = page
                    self._pages.move_to_end(key)
                    self._trim()
                    self.written += 1

    async def taken(
        self,
        runtime: Runtime,
        who: Principal,
        encounter_id: UUID,
        *,
        after: int,
        want: int,
        frame: Frame,
    ) -> Taken:
        """The events after `after` (at most `want`), framed as `who` may see them. The
        streams of one loop that a wake finds on the same page await one read on a worker
        thread, and frame from memory, without a thread hop of their own, when their view
        needs nothing more from the store."""
        page = self._page(runtime, encounter_id, after, want)
        if page.events is None:
            await self._reading(page, runtime, encounter_id, after)
        found = self._ready(page, runtime, who, encounter_id, frame)
        if found is not None:
            return found
        return await run_in_threadpool(self._take, runtime, who, frame, (encounter_id, after, want))

    def _take(
        self, runtime: Runtime, who: Principal, frame: Frame, where: tuple[UUID, int, int]
    ) -> Taken:
        """`taken` on a worker thread (blocking); `where`: the encounter, after, want."""
        encounter_id, after, want = where
        page = self._page(runtime, encounter_id, after, want)
        self._read(page, runtime, encounter_id, after)
        with page.lock:
            if not page.events:
                return Taken(page.ticket, [], [], whole=True)
            frames = _framed(runtime, who, encounter_id, page, frame, reading=True)
            assert frames is not None
        return Taken(page.ticket, page.events, frames, _whole(page, runtime, encounter_id))

    def _read(self, page: _Page, runtime: Runtime, encounter_id: UUID, after: int) -> None:
        """Read the page, unless another stream did: the first woken reads, the others of the
        wake wait for it. Its state too (no read while this process holds the encounter)."""
        with page.lock:
            if page.events is None:
                page.events = read_page(runtime.ledger, encounter_id, after=after, limit=page.want)
                page.logs = _logs(runtime, encounter_id, page.events) if page.events else {}
                if page.events:
                    page.state = runtime.encounters.through(encounter_id, page.events)
                self.reads += 1

    async def _reading(self, page: _Page, runtime: Runtime, encounter_id: UUID, after: int) -> None:
        """`_read` on a worker thread, once for all the loop's streams awaiting this page."""
        loop = asyncio.get_running_loop()
        with self._lock:
            reading = page.reading.get(loop)
            if reading is None or reading.done():  # done, and the page not read: it failed
                reading = loop.create_task(
                    run_in_threadpool(self._read, page, runtime, encounter_id, after)
                )
                page.reading[loop] = reading
        try:  # shielded: a stream whose client left does not cancel the others' read
            await asyncio.shield(reading)
        finally:
            if reading.done():
                with self._lock:
                    page.reading.pop(loop, None)  # a failed read is tried again

    def _ready(
        self,
        page: _Page,
        runtime: Runtime,
        who: Principal,
        encounter_id: UUID,
        frame: Frame,
    ) -> Taken | None:
        """What `take` gives when it needs no read and no wait: the page read, and its frames
        for `who`'s view made, or made from memory. None: call `take`."""
        if page.events is None or not page.lock.acquire(blocking=False):
            return None
        try:
            if not page.events:
                whole = _whole(page, runtime, encounter_id)
                return Taken(page.ticket, [], [], whole=True) if whole else None
            frames = _framed(runtime, who, encounter_id, page, frame, reading=False)
        finally:
            page.lock.release()
        if frames is None:
            return None
        return Taken(page.ticket, page.events, frames, _whole(page, runtime, encounter_id))

    def _page(self, runtime: Runtime, encounter_id: UUID, after: int, want: int) -> _Page:
        watch = runtime.append_watch
        # The runtime in the key: a test may swap the app's runtime for another store.
        key = (id(runtime), encounter_id, after, want)
        with self._lock:
            page = self._pages.get(key)
            if page is None or not (_whole(page, runtime, encounter_id) or page.events):
                page = self._open_ended(key) or _Page(watch.ticket(), want)
                self._pages[key] = page
            self._pages.move_to_end(key)
            self._trim()
        return page

    def _open_ended(self, key: tuple[int, UUID, int, int]) -> _Page | None:
        """An open-ended stream's page after the same version whose events fit in `want`:
        the events a read of at most `want` would find, as far as it knows (its ticket
        says); so a stream with a limit takes the page an append wrote too."""
        runtime_id, encounter_id, after, want = key
        page = self._pages.get((runtime_id, encounter_id, after, LIVE_PAGE))
        if page is None or not page.events or len(page.events) > want:
            return None
        return page

    def _trim(self) -> None:
        while len(self._pages) > self._kept:
            self._pages.popitem(last=False)


@dataclass(eq=False)
class _OwnAppends:
    """The listener `SharedReads` gives one runtime's own appends (kept weakly by it)."""

    reads: SharedReads
    runtime: Runtime

    def __call__(self, appended: Appended, ticket: int | None) -> None:
        self.reads.own_append(self.runtime, appended, ticket)


def _whole(page: _Page, runtime: Runtime, encounter_id: UUID) -> bool:
    """Whether `page` (read, or being read) holds every event there is after its version."""
    if page.events is not None and len(page.events) == page.want:
        return True  # a full page: later appends come after it
    watch = runtime.append_watch
    return page.ticket is not None and watch.still(page.ticket, encounter_id)


def _framed(
    runtime: Runtime,
    who: Principal,
    encounter_id: UUID,
    page: _Page,
    frame: Frame,
    *,
    reading: bool,
) -> list[str] | None:
    """The page's frames for `who`'s view, made once per view. Its lens is made from a
    state at least as new as the page's last event (what `lens_for` asks of a read after the
    page): it knows every combatant the page's events could name. Not `reading`: None if
    making them needs the store."""
    reader = reader_of(who)
    if reader.is_gm:
        key: ViewKey = None
        lens = Lens(Policy())
    else:
        if page.state is None:  # no read of its own while this process holds it (a command's)
            if not reading:
                return None
            assert page.events is not None
            page.state = runtime.encounters.through(encounter_id, page.events)
        state = page.state
        withheld = (c for c in state.combatants if c.hidden and not reader.controls(c.controller))
        key = frozenset(c.combatant_id for c in withheld)
        if key in page.frames:
            return page.frames[key]
        if key and not reading:  # a lens withholding combatants reads what was blocked
            return None
        lens = runtime.visibility.lens(state, reader)
    if key not in page.frames:
        assert page.events is not None
        page.frames[key] = [
            frame(event_public(r, lens, page.logs.get(r.position or 0))) for r in page.events
        ]
    return page.frames[key]


def _logs(runtime: Runtime, encounter_id: UUID, page: list[Recorded]) -> dict[int, LogEntry]:
    """Each event's leaf in its shard's tree (issue 37), as the events route gives it."""
    return entries(runtime, encounter_id, [r.position for r in page])
