"""High Roll's one fact, named `hr.` so that its ruleset answers for its log line.

A rule system of the product registers its facts with the event registry
(`domain.events.registry.register(Rolled)`) so they can be stored, and gives each a golden
file (tests/golden/events/, checked by tests/unit/test_stored_event_shapes.py). This example
is never stored, so it stays out of the registry and out of that check.
"""

from __future__ import annotations

from domain.events import DomainEvent


class Rolled(DomainEvent):
    """A combatant's roll under HR-1 (the die and its ruling come just before)."""

    event_type = "hr.Rolled"
    combatant: str
    total: int
