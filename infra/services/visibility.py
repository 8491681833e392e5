"""The read side's redaction, over the store: one `Lens` per reader and encounter, which
every read surface (API routes, exports) applies to what it answers (docs/visibility.md).

The policy itself is pure (`domain.visibility`); this adds what it needs from the log: which
versions of a stream belong to a command block that names a hidden combatant. That fold is
kept per encounter and advanced from where it stopped, so a reader pays for new events only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from pydantic import JsonValue

from domain.encounter.state import Encounter
from domain.events import DomainEvent
from domain.visibility.encounter import Blocks, Policy, Reader
from infra.store.ledger import Ledger
from infra.store.mapper import Recorded
from infra.store.stream_page import read_page

_PAGE = 2000
_KEPT = 512  # encounters whose fold is kept (the live ones of a table server)

# Recorded events whose payload is public as stored (the encounter's dice).
PUBLIC_EVENTS = frozenset({"EncounterDiceRolled", "EncounterOpened", "EncounterSeedRevealed"})


_STAMP = {"at", "by"}  # who and when: an event's fact carries them beside its payload


def payload_of(event: DomainEvent) -> dict[str, JsonValue]:
    """The event's fields but who and when, as JSON values: what model_dump(mode="json")
    gives, from the model's serializer itself (its wrapper's argument handling was a third
    of the time, for every fact of every answer)."""
    dumped: dict[str, JsonValue] = event.__pydantic_serializer__.to_python(
        event, mode="json", exclude=_STAMP
    )
    return dumped


@dataclass(frozen=True)
class Lens:
    """One reader's view of one encounter: the policy and the block of each version."""

    policy: Policy
    blocks: Blocks | None = None

    @property
    def sees_all(self) -> bool:
        return self.policy.sees_all

    def about_hidden(self, version: int) -> bool:
        if self.blocks is None:
            return False
        if version > self.blocks.fed:
            return True  # written after the lens was made: its block is unknown, so withhold
        return self.blocks.about_hidden(version, self.policy)

    def event(self, version: int, event_type: str, payload: dict[str, JsonValue]) -> JsonValue:
        """A stored event's payload as this reader may see it."""
        if self.sees_all or event_type in PUBLIC_EVENTS:
            return payload
        return self.policy.record(payload, about_hidden=self.about_hidden(version) or None)

    def record(self, version: int, value: JsonValue) -> JsonValue:
        """Anything built from the event at `version` (a ruling row, an audit entry)."""
        if self.sees_all:
            return value
        return self.policy.record(value, about_hidden=self.about_hidden(version) or None)

    def text(self, version: int, text: str) -> str:
        if self.sees_all:
            return text
        return self.policy.text(text, about_hidden=self.about_hidden(version) or None)


def reader(role: str, member_id: str | None) -> Reader:
    return Reader(role, member_id)


def everyone(state: Encounter) -> Policy:
    """Withholding every hidden combatant: the policy a reader controlling none is under."""
    return Policy.of(c for c in state.combatants if c.hidden)


class VisibilityService:
    """Lenses over encounters; one per process, safe across request threads."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        # Each fold with its own lock: two readers of one encounter advance it in turn.
        self._folds: OrderedDict[UUID, tuple[Blocks, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def lens(self, state: Encounter, who: Reader, *, blocks: bool = True) -> Lens:
        """`who`'s view of the encounter `state` (its combatants say who is hidden)."""
        policy = Policy.for_reader(who, state.combatants)
        if policy.sees_all or not blocks:
            return Lens(policy)
        return Lens(policy, self._advanced(state.id, everyone(state)))

    def _advanced(self, encounter_id: UUID, everyone_: Policy) -> Blocks:
        with self._lock:
            kept = self._folds.pop(encounter_id, None)
            if kept is None or kept[0].everyone.hidden != everyone_.hidden:
                kept = (Blocks(everyone_), threading.Lock())  # a new hidden one: afresh
            self._folds[encounter_id] = kept
            while len(self._folds) > _KEPT:
                self._folds.popitem(last=False)
        fold, lock = kept
        with lock:  # outside the cache's lock: one slow read holds up only its encounter
            while True:
                page = read_page(self.ledger, encounter_id, after=fold.fed, limit=_PAGE)
                feed(fold, page)
                if len(page) < _PAGE:
                    return fold


def feed(fold: Blocks, recorded: Sequence[Recorded]) -> None:
    for item in recorded:
        if item.version > fold.fed:
            fold.feed(item.version, item.event.event_type, payload_of(item.event))
