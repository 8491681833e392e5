"""Request shapes shared by the character, unit, scenario and sheet routes.

The response shapes are the services' typed answers (infra/services/answers.py), re-exported
here for the routes that name them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from domain.campaign.bounds import Cost, ItemStats, StatValue, Uses
from domain.campaign.model import Item, Skill
from infra.services import (
    CharacterPublic,
    Injury,
    ItemPublic,
    RatioPublic,
    SkillPublic,
    SlotKind,
    UnitPublic,
)

__all__ = [
    "CORE_STATS",
    "PILOT_STATS",
    "STATS_DOC",
    "BaseStatsBody",
    "CharacterPublic",
    "Injury",
    "ItemBody",
    "ItemPublic",
    "RatioPublic",
    "SkillBody",
    "SkillPublic",
    "SlotKind",
    "UnitPublic",
]

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
    "ranged_hit, move, hp (max HP), reaction, piloting, resistance, capacity; each value "
    "-9,999 to 9,999 (domain/campaign/bounds.py)."
)
# A sheet's base stats as a client sends them: each value bounded (GD-STAT), keys checked by
# the domain command (every key, no other).
BaseStatsBody = Annotated[dict[str, StatValue], Field(max_length=32, description=STATS_DOC)]


class ItemBody(BaseModel):
    """A piece of equipment: its slot, its cost against capacity (GD-COST-1), its stats."""

    name: str = Field(min_length=1, max_length=200, examples=["ビームライフル"])
    slot: SlotKind = Field(examples=["weapon"])
    cost: Cost = Field(examples=[20])
    stats: ItemStats = Field(default_factory=dict, examples=[{"ranged_hit": 5}])

    def domain(self) -> Item:
        return Item.model_validate(self.model_dump())


class SkillBody(BaseModel):
    """A skill: its cost counts only while it is used (GD-COST-3), and its uses per scenario."""

    name: str = Field(min_length=1, max_length=200, examples=["緊急回避"])
    cost: Cost = Field(examples=[10])
    uses: Uses = Field(examples=[1])

    def domain(self) -> Skill:
        return Skill.model_validate(self.model_dump())
