"""Request and response shapes shared by the character, unit, scenario and sheet routes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from domain.campaign.model import Item, Skill

SlotKind = Literal["weapon", "armour", "skill", "accessory", "general"]
Injury = Literal["none", "faint", "shutdown", "critical", "incapacitated", "dead"]

PILOT_STATS: dict[str, int] = {
    "phys_atk": 10,
    "phys_def": 8,
    "perc_atk": 6,
    "perc_def": 8,
    "evasion": 12,
    "melee_hit": 10,
    "ranged_hit": 14,
    "move": 5,
    "hp": 80,
    "reaction": 9,
    "piloting": 150,
    "resistance": 7,
    "capacity": 100,
}
CORE_STATS: dict[str, int] = dict.fromkeys(PILOT_STATS, 0) | {
    "phys_atk": 20,
    "phys_def": 16,
    "evasion": 4,
    "move": 4,
    "hp": 160,
    "capacity": 40,
}
STATS_DOC = (
    "GD-STAT: every key of phys_atk, phys_def, perc_atk, perc_def, evasion, melee_hit, "
    "ranged_hit, move, hp (max HP), reaction, piloting, resistance, capacity."
)


class ItemBody(BaseModel):
    """A piece of equipment: its slot, its cost against capacity (GD-COST-1), its stats."""

    name: str = Field(min_length=1, max_length=200, examples=["ビームライフル"])
    slot: SlotKind = Field(examples=["weapon"])
    cost: int = Field(ge=0, examples=[20])
    stats: dict[str, int] = Field(default_factory=dict, examples=[{"ranged_hit": 5}])

    def domain(self) -> Item:
        return Item.model_validate(self.model_dump())


class SkillBody(BaseModel):
    """A skill: its cost counts only while it is used (GD-COST-3), and its uses per scenario."""

    name: str = Field(min_length=1, max_length=200, examples=["緊急回避"])
    cost: int = Field(ge=0, examples=[10])
    uses: int = Field(ge=0, examples=[1])

    def domain(self) -> Skill:
        return Skill.model_validate(self.model_dump())


class RatioPublic(BaseModel):
    """An exact ratio (GD-HPS-3) and its value for display."""

    numerator: int
    denominator: int
    value: float


class InjuryPublic(BaseModel):
    scenario_id: str
    injury: Injury


class CharacterPublic(BaseModel):
    id: str
    version: int
    campaign_id: str
    owner: str
    name: str
    level: int
    base_stats: dict[str, int]
    items: list[ItemBody]
    skills: list[SkillBody]
    max_hp: int = Field(description="GD-COST-1: max HP after equipment cost.")
    current_hp: int
    carried_ratio: RatioPublic = Field(description="GD-HPS-3: brought into the next scenario.")
    injuries: list[InjuryPublic]
    lost: bool = Field(description="GD-INJ-4: dead, so in no later scenario.")


class UnitPublic(BaseModel):
    id: str
    version: int
    campaign_id: str
    pilot_id: str
    name: str
    kind: Literal["assault_core", "carrier"]
    base_stats: dict[str, int]
    items: list[ItemBody]
    max_hp: int
    current_hp: int
