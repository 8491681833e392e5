"""The Unit aggregate: an Assault Core or a carrier (GD-CHK-3) owned by one pilot.

Events, state and `evolve`; deciding lives in `unit_commands.py`. The HP each event records
is the one decided at that time: a unit's numbers depend on its pilot (GD-STAT-2).
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.aggregate import AggregateKind
from domain.campaign.model import Item, Ratio, Stats
from domain.events import DomainEvent, registry

UnitKind = Literal["assault_core", "carrier"]


class UnitRegistered(DomainEvent):
    event_type = "UnitRegistered"
    campaign_id: UUID
    pilot_id: UUID
    name: str
    kind: UnitKind
    base_stats: Stats
    max_hp: int
    current_hp: int


class UnitItemEquipped(DomainEvent):
    event_type = "UnitItemEquipped"
    item: Item
    max_hp: int
    current_hp: int


class UnitItemUnequipped(DomainEvent):
    event_type = "UnitItemUnequipped"
    item_name: str
    max_hp: int
    current_hp: int


class UnitScenarioHpCarried(DomainEvent):
    """GD-HPS-1: the unit deployed in a scenario keeps the ratio it ended at, on its sheet."""

    event_type = "UnitScenarioHpCarried"
    scenario_id: UUID
    ratio: Ratio
    current_hp: int


registry.register(UnitRegistered, UnitItemEquipped, UnitItemUnequipped, UnitScenarioHpCarried)


class Unit(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: UUID
    campaign_id: UUID | None = None
    pilot_id: UUID | None = None
    name: str = ""
    kind: UnitKind = "assault_core"
    base_stats: Stats = {}
    items: tuple[Item, ...] = ()
    max_hp: int = 0  # as decided at the last change; `derived.unit_max_hp` for a new pilot
    # Between scenarios informative only: a unit enters each one at its pilot's carried
    # ratio (GD-HPS-2), whatever this says.
    current_hp: int = 0
    carried_scenarios: tuple[UUID, ...] = ()

    @property
    def registered(self) -> bool:
        return self.campaign_id is not None


def evolve(state: Unit, event: DomainEvent) -> Unit:
    match event:
        case UnitRegistered():
            return state.model_copy(update=event.model_dump(exclude={"at", "by"}))
        case UnitItemEquipped(item=item, max_hp=max_hp, current_hp=hp):
            items = (*state.items, item)
            return state.model_copy(update={"items": items, "max_hp": max_hp, "current_hp": hp})
        case UnitItemUnequipped(item_name=name, max_hp=max_hp, current_hp=hp):
            items = tuple(i for i in state.items if i.name != name)
            return state.model_copy(update={"items": items, "max_hp": max_hp, "current_hp": hp})
        case UnitScenarioHpCarried(scenario_id=scenario, current_hp=hp):
            carried = (*state.carried_scenarios, scenario)
            return state.model_copy(update={"current_hp": hp, "carried_scenarios": carried})
    return state


KIND = AggregateKind[Unit]("unit", lambda i: Unit(id=i), evolve, lambda s: s.registered)
