"""Value objects shared by characters, units and scenarios: stats, items, skills, ratios."""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from domain.rules.glorious_drive.stats import STAT_KEYS

SlotKind = Literal["weapon", "armour", "skill", "accessory", "general"]
Stats = dict[str, int]

# GD-STAT-2: contributions from these slots are added after the piloting boost, unboosted.
UNBOOSTED_SLOTS: frozenset[SlotKind] = frozenset({"skill", "accessory"})


def check_stat_keys(stats: Stats, *, complete: bool) -> Stats:
    """GD-STAT: keys exactly as the digest's table; base stats must name every one."""
    unknown = sorted(set(stats) - set(STAT_KEYS))
    if unknown:
        raise ValueError(f"GD-STAT: unknown stat keys {unknown}; use {list(STAT_KEYS)}")
    missing = [key for key in STAT_KEYS if key not in stats]
    if complete and missing:
        raise ValueError(f"GD-STAT: base stats need every key; missing {missing}")
    return stats


def check_base_stats(stats: Stats) -> Stats:
    """Complete GD-STAT keys, and a max HP of at least 1 (GD-COST-1 never goes below 1)."""
    check_stat_keys(stats, complete=True)
    if stats["hp"] < 1:
        raise ValueError(f"GD-STAT: base hp (max HP) must be at least 1, not {stats['hp']}")
    return stats


# Base stats of a sheet (character or unit): every GD-STAT key, hp at least 1.
BaseStats = Annotated[Stats, AfterValidator(check_base_stats)]


class Item(BaseModel):
    """A piece of equipment: its slot, its cost against capacity (GD-COST), its stats."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    slot: SlotKind
    cost: int = Field(ge=0)
    stats: Stats = Field(default_factory=dict)

    @field_validator("stats")
    @classmethod
    def _known_keys(cls, stats: Stats) -> Stats:
        return check_stat_keys(stats, complete=False)


class Skill(BaseModel):
    """A skill: its cost counts only while active (GD-COST-3), and its uses per scenario."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    cost: int = Field(ge=0)
    uses: int = Field(ge=0)


class Ratio(BaseModel):
    """An exact ratio in [0, 1] (GD-HPS-3), stored as two integers so JSON keeps it exact."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    numerator: int = Field(ge=0)
    denominator: int = Field(ge=1)

    @model_validator(mode="after")
    def _at_most_one(self) -> Ratio:
        if self.numerator > self.denominator:
            raise ValueError(f"GD-HPS-3: a carried ratio is at most 1, not {self.value}")
        return self

    @classmethod
    def of(cls, value: Fraction) -> Ratio:
        return cls(numerator=value.numerator, denominator=value.denominator)

    @property
    def value(self) -> Fraction:
        return Fraction(self.numerator, self.denominator)


FULL = Ratio(numerator=1, denominator=1)


class SheetHp(BaseModel):
    """HP as decided after a sheet change (GD-COST-1/2) and the ratio it carries (GD-HPS-3)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_hp: int = Field(ge=1)
    current_hp: int
    carried_ratio: Ratio
