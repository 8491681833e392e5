"""High Roll's one fact, named `hr.` so that its ruleset answers for its log line."""

from __future__ import annotations

from domain.events import DomainEvent, registry


class Rolled(DomainEvent):
    """A combatant's roll under HR-1 (the die and its ruling come just before)."""

    event_type = "hr.Rolled"
    combatant: str
    total: int


registry.register(Rolled)
