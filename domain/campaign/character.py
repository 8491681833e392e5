"""The Character aggregate (a pilot's sheet): its events, its state and how events change it.

Every HP-changing event carries the max HP, current HP and carried ratio *as decided*, so a
replay never recomputes history under a newer rule and the log shows the numbers a table saw.
Deciding lives in `character_commands.py`.
"""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.aggregate import AggregateKind
from domain.campaign.model import FULL, Item, Ratio, SheetHp, Skill, Stats
from domain.events import DomainEvent, registry
from domain.rules.glorious_drive.injury import Injury


class CharacterRegistered(DomainEvent):
    event_type = "CharacterRegistered"
    campaign_id: UUID
    owner: str
    name: str
    level: int
    base_stats: Stats
    max_hp: int
    current_hp: int


class HpDecided(DomainEvent):
    """Not stored by itself: the HP every GD-COST-1/2 recomputation records."""

    hp: SheetHp


class CharacterAdvanced(HpDecided):
    event_type = "CharacterAdvanced"
    level: int
    base_stats: Stats


class ItemEquipped(HpDecided):
    event_type = "ItemEquipped"
    item: Item


class ItemUnequipped(HpDecided):
    event_type = "ItemUnequipped"
    item_name: str


class SkillLearned(DomainEvent):
    event_type = "SkillLearned"
    skill: Skill


class SkillForgotten(DomainEvent):
    event_type = "SkillForgotten"
    skill_name: str


class ScenarioHpCarried(DomainEvent):
    """GD-HPS-1: at the scenario result the pilot's HP follows the carried ratio."""

    event_type = "ScenarioHpCarried"
    scenario_id: UUID
    ratio: Ratio
    current_hp: int


class InjuryRecorded(DomainEvent):
    event_type = "InjuryRecorded"
    scenario_id: UUID
    injury: Injury


class CharacterLost(DomainEvent):
    """GD-INJ-4: dead, so lost (ロスト) for good: no later scenario of the campaign."""

    event_type = "CharacterLost"
    scenario_id: UUID


registry.register(
    CharacterRegistered,
    CharacterAdvanced,
    ItemEquipped,
    ItemUnequipped,
    SkillLearned,
    SkillForgotten,
    ScenarioHpCarried,
    InjuryRecorded,
    CharacterLost,
)


class ScenarioInjury(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    scenario_id: UUID
    injury: Injury


class Character(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: UUID
    campaign_id: UUID | None = None
    owner: str = ""
    name: str = ""
    level: int = 0
    base_stats: Stats = {}
    items: tuple[Item, ...] = ()
    skills: tuple[Skill, ...] = ()
    max_hp: int = 0
    current_hp: int = 0
    # GD-HPS-3: the ratio brought into the next scenario; 1 until a scenario carries one.
    carried_ratio: Ratio = FULL
    carried_scenarios: tuple[UUID, ...] = ()
    injuries: tuple[ScenarioInjury, ...] = ()
    lost: bool = False

    @property
    def registered(self) -> bool:
        return self.campaign_id is not None

    def item(self, name: str) -> Item | None:
        return next((i for i in self.items if i.name == name), None)

    def skill(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)


def _hp(event: HpDecided) -> dict[str, object]:
    return {
        "max_hp": event.hp.max_hp,
        "current_hp": event.hp.current_hp,
        "carried_ratio": event.hp.carried_ratio,
    }


def evolve(state: Character, event: DomainEvent) -> Character:
    match event:
        case CharacterRegistered():
            fields = event.model_dump(exclude={"at", "by"})
            return state.model_copy(update=fields)
        case CharacterAdvanced(level=level, base_stats=stats):
            return state.model_copy(update={"level": level, "base_stats": stats, **_hp(event)})
        case ItemEquipped(item=item):
            return state.model_copy(update={"items": (*state.items, item), **_hp(event)})
        case ItemUnequipped(item_name=name):
            items = tuple(i for i in state.items if i.name != name)
            return state.model_copy(update={"items": items, **_hp(event)})
        case SkillLearned(skill=skill):
            return state.model_copy(update={"skills": (*state.skills, skill)})
        case SkillForgotten(skill_name=name):
            skills = tuple(s for s in state.skills if s.name != name)
            return state.model_copy(update={"skills": skills})
        case ScenarioHpCarried(scenario_id=scenario, ratio=ratio, current_hp=hp):
            carried = (*state.carried_scenarios, scenario)
            update = {"carried_ratio": ratio, "current_hp": hp, "carried_scenarios": carried}
            return state.model_copy(update=update)
        case InjuryRecorded(scenario_id=scenario, injury=injury):
            injuries = (*state.injuries, ScenarioInjury(scenario_id=scenario, injury=injury))
            return state.model_copy(update={"injuries": injuries})
        case CharacterLost():
            return state.model_copy(update={"lost": True})
    return state


KIND = AggregateKind[Character](
    "character", lambda i: Character(id=i), evolve, lambda s: s.registered
)
