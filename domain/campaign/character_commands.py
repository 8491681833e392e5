"""Deciding for the Character aggregate: commands in, events out (or a clear refusal).

Max HP is recomputed by GD-COST-1 on every equipment or stat change, and current HP follows
GD-COST-2 exactly (`derived.hp_after_max_change`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from domain.campaign.bounds import (
    ITEMS,
    SKILLS,
    Id,
    Level,
    Name,
    NewItem,
    NewSkill,
    SheetStats,
    check_room,
)
from domain.campaign.campaign import Campaign
from domain.campaign.character import (
    Character,
    CharacterAdvanced,
    CharacterLost,
    CharacterRegistered,
    InjuryRecorded,
    ItemEquipped,
    ItemUnequipped,
    ScenarioHpCarried,
    SkillForgotten,
    SkillLearned,
)
from domain.campaign.derived import character_max_hp, hp_after_max_change
from domain.campaign.errors import NotPermitted, UnknownMember, WrongState
from domain.campaign.model import Item, SheetHp, Skill, Stats
from domain.campaign.scenario import ParticipantOutcome
from domain.events import DomainEvent
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.hp_share import entering_hp
from domain.rules.glorious_drive.options import GloriousDriveOptions


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RegisterCharacter(_Command):
    owner: Id = Field(description="The member who plays the character.")
    name: Name
    level: Level
    base_stats: SheetStats


class AdvanceCharacter(_Command):
    """GD-STAT-1: stats grow with level; the sheet records the new level and base stats."""

    level: Level
    base_stats: SheetStats


class EquipItem(_Command):
    item: NewItem


class UnequipItem(_Command):
    item_name: Name


class LearnSkill(_Command):
    skill: NewSkill


class ForgetSkill(_Command):
    skill_name: Name


def register_character(
    state: Character, campaign: Campaign, command: RegisterCharacter, *, at: datetime, by: str
) -> list[DomainEvent]:
    """A GM or the owning player registers a pilot in the campaign, at full HP."""
    if state.registered:
        raise WrongState(
            f"character {state.id} is registered already; advance it instead",
            ja=f"キャラクター {state.id} は登録済みです。成長させてください",
        )
    role = campaign.role_of(command.owner)
    if role is None or role == "viewer":
        raise UnknownMember(
            f"{command.owner!r} is not a GM or player of the campaign; add them",
            ja=f"{command.owner!r} はキャンペーンのGMでもプレイヤーでもありません。加えてください",
        )
    if by != command.owner and campaign.role_of(by) != "gm":
        raise NotPermitted(
            f"{by!r} may only register characters they own (or be a GM)",
            ja=f"{by!r} が登録できるのは自分のキャラクターだけです（GMは除く）",
        )
    max_hp = character_max_hp(command.base_stats, ())
    return [
        CharacterRegistered(
            campaign_id=campaign.id,
            owner=command.owner,
            name=command.name,
            level=command.level,
            base_stats=command.base_stats,
            max_hp=max_hp,
            current_hp=max_hp,
            at=at,
            by=by,
        )
    ]


def _recomputed(state: Character, base: Stats, items: Iterable[Item]) -> SheetHp:
    return hp_after_max_change(state.current_hp, state.carried_ratio, character_max_hp(base, items))


def _registered(state: Character) -> Character:
    if not state.registered:
        raise WrongState(
            f"character {state.id} is not registered; register it first",
            ja=f"キャラクター {state.id} は登録されていません。先に登録してください",
        )
    return state


def advance(
    state: Character, command: AdvanceCharacter, *, at: datetime, by: str
) -> list[DomainEvent]:
    _registered(state)
    hp = _recomputed(state, command.base_stats, state.items)
    return [
        CharacterAdvanced(level=command.level, base_stats=command.base_stats, hp=hp, at=at, by=by)
    ]


def equip(state: Character, command: EquipItem, *, at: datetime, by: str) -> list[DomainEvent]:
    """Equip an item; GD-COST-1 recomputes max HP and GD-COST-2 clamps current HP."""
    if _registered(state).item(command.item.name) is not None:
        raise WrongState(
            f"{command.item.name!r} is equipped already; give the item another name",
            ja=f"{command.item.name!r} はすでに装備しています。アイテムに別の名前をつけてください",
        )
    check_room(len(state.items), ITEMS, "items")
    hp = _recomputed(state, state.base_stats, (*state.items, command.item))
    return [ItemEquipped(item=command.item, hp=hp, at=at, by=by)]


def unequip(state: Character, command: UnequipItem, *, at: datetime, by: str) -> list[DomainEvent]:
    """Unequip an item; a higher max HP afterwards does not raise current HP (GD-COST-2)."""
    if _registered(state).item(command.item_name) is None:
        raise WrongState(
            f"{command.item_name!r} is not equipped; equipped: {_names(state.items)}",
            ja=f"{command.item_name!r} は装備していません。装備中：{_names(state.items)}",
        )
    rest = tuple(i for i in state.items if i.name != command.item_name)
    hp = _recomputed(state, state.base_stats, rest)
    return [ItemUnequipped(item_name=command.item_name, hp=hp, at=at, by=by)]


def learn_skill(
    state: Character, command: LearnSkill, *, at: datetime, by: str
) -> list[DomainEvent]:
    """Skills cost nothing until used (GD-COST-3), so learning one leaves max HP alone."""
    if _registered(state).skill(command.skill.name) is not None:
        raise WrongState(
            f"{command.skill.name!r} is learned already",
            ja=f"{command.skill.name!r} はすでに習得しています",
        )
    check_room(len(state.skills), SKILLS, "skills")
    return [SkillLearned(skill=command.skill, at=at, by=by)]


def forget_skill(
    state: Character, command: ForgetSkill, *, at: datetime, by: str
) -> list[DomainEvent]:
    if _registered(state).skill(command.skill_name) is None:
        raise WrongState(
            f"{command.skill_name!r} is not learned; learned: {_names(state.skills)}",
            ja=f"{command.skill_name!r} は習得していません。習得済み：{_names(state.skills)}",
        )
    return [SkillForgotten(skill_name=command.skill_name, at=at, by=by)]


def apply_scenario_result(
    state: Character,
    scenario_id: UUID,
    outcome: ParticipantOutcome,
    options: GloriousDriveOptions,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """GD-HPS-1 and GD-INJ: carry a closed scenario's ratio and injury to the sheet, once.

    The pilot's HP becomes the carried ratio of their own max; a death (GD-INJ-4) makes the
    character lost. A second application of the same scenario changes nothing.
    """
    if scenario_id in _registered(state).carried_scenarios:
        return []
    if outcome.character_id != state.id:
        raise WrongState(
            f"that outcome is {outcome.character_id}'s, not {state.id}'s",
            ja=f"その結果は {state.id} ではなく {outcome.character_id} のものです",
        )
    if outcome.injury == "shutdown":
        raise RuleViolation(
            "GD-INJ-1",
            "shutdown is an Assault Core's faint; a pilot faints",
            ja="機能停止はアサルトコアの気絶です。パイロットは気絶します",
        )
    hp = entering_hp(state.max_hp, outcome.ratio.value, options)
    events: list[DomainEvent] = [
        ScenarioHpCarried(scenario_id=scenario_id, ratio=outcome.ratio, current_hp=hp, at=at, by=by)
    ]
    if outcome.injury != "none":
        events.append(InjuryRecorded(scenario_id=scenario_id, injury=outcome.injury, at=at, by=by))
    if outcome.injury == "dead" and not state.lost:
        events.append(CharacterLost(scenario_id=scenario_id, at=at, by=by))
    return events


def _names(things: Iterable[Item | Skill]) -> list[str]:
    return [thing.name for thing in things]
