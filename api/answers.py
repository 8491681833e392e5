"""Heavy answers kept while their encounter is unchanged: a replay, its procedure points, the
fight as it stood at a turn.

Such an answer is determined by the encounter's events (its stream and version), the
reader's visibility (campaign, role and member) and the request (its path, query and body);
nothing else. An answer is kept with the append watch's ticket taken before it was computed,
and served again only while the watch vouches that nothing was appended to that encounter
since (append_watch.py): one append voids it, and so does any doubt (the watch's connection
lost or silent). So it is served again only while it is what computing it now would give.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from uuid import UUID

from infra.services import AppendWatch

MOST_BYTES = 32 * 1024 * 1024  # kept in all, whatever the count
MOST_BYTES_EACH = 2 * 1024 * 1024  # a larger answer is computed again each time


@dataclass(frozen=True)
class Kept:
    ticket: int
    encounter_id: UUID
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


class Answers:
    """At most `entries` answers, least recently served dropped first."""

    def __init__(self, entries: int) -> None:
        self.entries = entries
        self._kept: OrderedDict[tuple[object, ...], Kept] = OrderedDict()
        self._bytes = 0

    def get(self, key: tuple[object, ...], watch: AppendWatch) -> Kept | None:
        found = self._kept.get(key)
        if found is None:
            return None
        if not watch.still(found.ticket, found.encounter_id):
            self._drop(key)
            return None
        self._kept.move_to_end(key)
        return found

    def keep(self, key: tuple[object, ...], kept: Kept) -> None:
        if self.entries == 0 or len(kept.body) > MOST_BYTES_EACH:
            return
        if key in self._kept:
            self._drop(key)
        self._kept[key] = kept
        self._bytes += len(kept.body)
        while len(self._kept) > self.entries or self._bytes > MOST_BYTES:
            self._drop(next(iter(self._kept)))

    def _drop(self, key: tuple[object, ...]) -> None:
        self._bytes -= len(self._kept.pop(key).body)
