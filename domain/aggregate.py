"""How an aggregate is rebuilt: a starting state and a pure evolve function, nothing more.

Deciding is separate (each aggregate's own functions); the application service loads the
events, folds them with `evolve`, asks the decider for new events, and saves them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar
from uuid import UUID

from domain.events import DomainEvent

S = TypeVar("S")


class NotFound(LookupError):
    """No aggregate with that id (or of that kind) exists."""


@dataclass(frozen=True)
class AggregateKind(Generic[S]):
    """A named aggregate type: how it starts and how each event changes it."""

    name: str
    initial: Callable[[UUID], S]
    evolve: Callable[[S, DomainEvent], S]
    exists: Callable[[S], bool]

    def rebuild(self, stream_id: UUID, events: Iterable[DomainEvent]) -> S:
        """Same events in, same state out."""
        state = self.initial(stream_id)
        for event in events:
            state = self.evolve(state, event)
        return state
