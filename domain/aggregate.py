"""How an aggregate is rebuilt: a starting state and a pure evolve function, nothing more.

Deciding is separate (each aggregate's own functions); the application service loads the
events, folds them with `evolve`, asks the decider for new events, and saves them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar
from uuid import UUID

from domain.events import DomainEvent, JsonObject

S = TypeVar("S")


@dataclass(frozen=True)
class Decided(Generic[S]):
    """A decision's events and the state they lead to, reached while deciding them: the
    caller keeps `state` instead of evolving every event a second time. `state` is exactly
    what folding `evolve` over `events` from the state decided on gives (a property test
    checks it for every ruleset)."""

    events: list[DomainEvent]
    state: S


class NotFound(LookupError):
    """No aggregate with that id (or of that kind) exists."""


@dataclass(frozen=True)
class Snapshotter(Generic[S]):
    """How a long-lived aggregate's state is saved and read back, to skip replaying old events.

    `version` names the shape and the evolve logic it was taken with: bump it when either
    changes, and older snapshots are ignored (the events are always the truth).
    """

    version: str
    dump: Callable[[S], JsonObject]
    load: Callable[[JsonObject], S]
    every: int = 200


@dataclass(frozen=True)
class AggregateKind(Generic[S]):
    """A named aggregate type: how it starts and how each event changes it."""

    name: str
    initial: Callable[[UUID], S]
    evolve: Callable[[S, DomainEvent], S]
    exists: Callable[[S], bool]
    snapshot: Snapshotter[S] | None = None

    def rebuild(self, stream_id: UUID, events: Iterable[DomainEvent]) -> S:
        """Same events in, same state out."""
        state = self.initial(stream_id)
        for event in events:
            state = self.evolve(state, event)
        return state
