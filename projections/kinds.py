"""Which events belong to which kind of stream: what `Projection.wants` answers from.

The campaign side (campaigns, characters, units, scenarios, access tokens) writes its own
streams; an encounter stream never holds one of its events, whatever the ruleset.
"""

from __future__ import annotations

from types import ModuleType

from domain.campaign import access, campaign, character, scenario, unit
from domain.events import DomainEvent


def events_of(*modules: ModuleType) -> tuple[type[DomainEvent], ...]:
    """Every registered event class a module defines or takes in (a campaign stream holds
    the access-token events the campaign module imports)."""
    return tuple(
        value
        for module in modules
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, DomainEvent) and value.event_type
    )


CAMPAIGN_EVENTS = events_of(campaign)
CHARACTER_EVENTS = events_of(character)
UNIT_EVENTS = events_of(unit)
CAMPAIGN_SIDE = events_of(access, campaign, character, scenario, unit)
