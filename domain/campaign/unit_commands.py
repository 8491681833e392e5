"""Deciding for the Unit aggregate: register, equip, unequip, carry a scenario's result.

A unit's numbers depend on its pilot (GD-STAT-2: +piloting %), so its deciders take the
pilot's sheet as an argument.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.campaign.bounds import ITEMS, Name, NewItem, SheetStats, check_room
from domain.campaign.character import Character
from domain.campaign.derived import character_stats, unit_max_hp
from domain.campaign.errors import WrongState
from domain.campaign.model import Item
from domain.campaign.scenario import ParticipantOutcome
from domain.campaign.unit import (
    Unit,
    UnitItemEquipped,
    UnitItemUnequipped,
    UnitKind,
    UnitRegistered,
    UnitScenarioHpCarried,
)
from domain.events import DomainEvent
from domain.rules.glorious_drive.cost import clamp_current_hp
from domain.rules.glorious_drive.hp_share import entering_hp
from domain.rules.glorious_drive.options import GloriousDriveOptions


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RegisterUnit(_Command):
    name: Name
    kind: UnitKind
    base_stats: SheetStats


class EquipUnitItem(_Command):
    item: NewItem


class UnequipUnitItem(_Command):
    item_name: Name


def piloting_of(pilot: Character) -> int:
    """GD-STAT-2: the pilot's piloting, equipment included, is the unit's % boost."""
    return character_stats(pilot.base_stats, pilot.items)["piloting"]


def register_unit(
    state: Unit,
    pilot: Character,
    command: RegisterUnit,
    options: GloriousDriveOptions,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """The unit joins its pilot's campaign at its full max HP under that pilot."""
    if state.registered:
        raise WrongState(
            f"unit {state.id} is registered already", ja=f"ユニット {state.id} は登録済みです"
        )
    if pilot.campaign_id is None:
        raise WrongState(
            f"pilot {pilot.id} is not registered; register the character first",
            ja=f"パイロット {pilot.id} は登録されていません。先にキャラクターを登録してください",
        )
    max_hp = unit_max_hp(command.base_stats, (), piloting_of(pilot), options)
    return [
        UnitRegistered(
            campaign_id=pilot.campaign_id,
            pilot_id=pilot.id,
            name=command.name,
            kind=command.kind,
            base_stats=command.base_stats,
            max_hp=max_hp,
            current_hp=max_hp,
            at=at,
            by=by,
        )
    ]


def _hp(
    state: Unit, pilot: Character, items: tuple[Item, ...], options: GloriousDriveOptions
) -> tuple[int, int]:
    """GD-COST-1 under GD-STAT-2, then the GD-COST-2 clamp of current HP."""
    if not state.registered:
        raise WrongState(
            f"unit {state.id} is not registered; register it first",
            ja=f"ユニット {state.id} は登録されていません。先に登録してください",
        )
    if pilot.id != state.pilot_id:
        raise WrongState(
            f"unit {state.id} is piloted by {state.pilot_id}, not {pilot.id}",
            ja=f"ユニット {state.id} のパイロットは {pilot.id} ではなく {state.pilot_id} です",
        )
    new_max = unit_max_hp(state.base_stats, items, piloting_of(pilot), options)
    return new_max, clamp_current_hp(state.current_hp, new_max)


def equip_unit(
    state: Unit,
    pilot: Character,
    command: EquipUnitItem,
    options: GloriousDriveOptions,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    if any(i.name == command.item.name for i in state.items):
        raise WrongState(
            f"{command.item.name!r} is equipped already; give the item another name",
            ja=f"{command.item.name!r} はすでに装備しています。アイテムに別の名前をつけてください",
        )
    check_room(len(state.items), ITEMS, "items")
    max_hp, hp = _hp(state, pilot, (*state.items, command.item), options)
    return [UnitItemEquipped(item=command.item, max_hp=max_hp, current_hp=hp, at=at, by=by)]


def unequip_unit(
    state: Unit,
    pilot: Character,
    command: UnequipUnitItem,
    options: GloriousDriveOptions,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    rest = tuple(i for i in state.items if i.name != command.item_name)
    if len(rest) == len(state.items):
        raise WrongState(
            f"{command.item_name!r} is not equipped on unit {state.id}",
            ja=f"{command.item_name!r} はユニット {state.id} に装備されていません",
        )
    max_hp, hp = _hp(state, pilot, rest, options)
    return [
        UnitItemUnequipped(item_name=command.item_name, max_hp=max_hp, current_hp=hp, at=at, by=by)
    ]


def apply_scenario_result(
    state: Unit,
    scenario_id: UUID,
    outcome: ParticipantOutcome,
    options: GloriousDriveOptions,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """GD-HPS-1/3: the unit a pilot last fought in keeps its end ratio on its sheet, once.

    Only for the unit the outcome names (`fought_in`); a second application changes nothing.
    """
    if not state.registered:
        raise WrongState(
            f"unit {state.id} is not registered; register it first",
            ja=f"ユニット {state.id} は登録されていません。先に登録してください",
        )
    if scenario_id in state.carried_scenarios:
        return []
    if outcome.fought_in != state.id:
        raise WrongState(
            f"the pilot last fought in {outcome.fought_in}, not unit {state.id}",
            ja=f"パイロットが最後に戦ったのはユニット {state.id} ではなく {outcome.fought_in} です",
        )
    hp = entering_hp(state.max_hp, outcome.ratio.value, options)
    return [
        UnitScenarioHpCarried(
            scenario_id=scenario_id, ratio=outcome.ratio, current_hp=hp, at=at, by=by
        )
    ]
