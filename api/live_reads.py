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
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from api.encounter_views import event_public, reader_of
from api.leaves import entries
from domain.encounter.state import Encounter
from domain.visibility.encounter import Policy
from infra.services import EventPublic, Lens, LogEntry, Principal, Recorded, Runtime, read_page

_KEPT = 1024  # pages kept: a few per live encounter of a table server

# The combatants a reader's lens withholds (None: the GM's, withholding nothing).
ViewKey = frozenset[str] | None


@dataclass
class _Page:
    """The events after one version of one encounter, read once, and each view's frames."""

    ticket: int | None  # the watch's, taken before the read
    want: int
    lock: threading.Lock = field(default_factory=threading.Lock)
    events: list[Recorded] | None = None  # None until read
    logs: dict[int, LogEntry] = field(default_factory=dict)
    state: Encounter | None = None  # loaded after the read, for the lenses of non-GMs
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

    def take(
        self,
        runtime: Runtime,
        who: Principal,
        encounter_id: UUID,
        *,
        after: int,
        want: int,
        frame: Callable[[EventPublic], str],
    ) -> Taken:
        """The events after `after` (at most `want`), framed as `who` may see them. Blocking:
        call it from a worker thread."""
        page = self._page(runtime, encounter_id, after, want)
        with page.lock:  # the first stream woken reads; the others of the wake wait for it
            if page.events is None:
                page.events = read_page(runtime.ledger, encounter_id, after=after, limit=want)
                page.logs = _logs(runtime, encounter_id, page.events) if page.events else {}
                self.reads += 1
            if not page.events:
                return Taken(page.ticket, [], [], whole=True)
            frames = _framed(runtime, who, encounter_id, page, frame)
        return Taken(page.ticket, page.events, frames, _whole(page, runtime, encounter_id))

    def _page(self, runtime: Runtime, encounter_id: UUID, after: int, want: int) -> _Page:
        watch = runtime.append_watch
        # The runtime in the key: a test may swap the app's runtime for another store.
        key = (id(runtime), encounter_id, after, want)
        with self._lock:
            page = self._pages.get(key)
            if page is None or not (_whole(page, runtime, encounter_id) or page.events):
                page = _Page(watch.ticket(), want)
                self._pages[key] = page
            self._pages.move_to_end(key)
            while len(self._pages) > self._kept:
                self._pages.popitem(last=False)
        return page


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
    frame: Callable[[EventPublic], str],
) -> list[str]:
    """The page's frames for `who`'s view, made once per view. Its lens is made after the
    page was read (as `lens_for` says it must be), from the state loaded then."""
    reader = reader_of(who)
    if reader.is_gm:
        key: ViewKey = None
        lens = Lens(Policy())
    else:
        if page.state is None:
            page.state, _ = runtime.encounters.state(encounter_id)
        state = page.state
        withheld = (c for c in state.combatants if c.hidden and not reader.controls(c.controller))
        key = frozenset(c.combatant_id for c in withheld)
        if key in page.frames:
            return page.frames[key]
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
