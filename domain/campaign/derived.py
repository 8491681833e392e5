"""Numbers derived from sheets: effective stats, max HP under cost, entering HP.

Pure functions over stats and items, so that the aggregates' deciders, the encounter and
the read models compute them one way. Each cites the rule whose calculator it reuses.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from domain.campaign.model import UNBOOSTED_SLOTS, Item, Ratio, SheetHp, Stats
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.cost import clamp_current_hp, max_hp_under_cost
from domain.rules.glorious_drive.hp_share import carried_ratio, entering_hp
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.stats import boosted_unit_stats


def _add(stats: Stats, items: Iterable[Item]) -> Stats:
    total = dict(stats)
    for item in items:
        for key, value in item.stats.items():
            total[key] = total.get(key, 0) + value
    return total


def equipment_cost(items: Iterable[Item]) -> int:
    """GD-COST-1: the total cost of equipment, whatever its slot."""
    return sum(item.cost for item in items)


def character_stats(base: Stats, items: Iterable[Item]) -> Stats:
    """A character's stats with its equipment's contributions (no boost: GD-STAT-2 is units')."""
    return _add(base, items)


def unit_stats(
    base: Stats, items: Iterable[Item], piloting: int, options: GloriousDriveOptions
) -> Stats:
    """GD-STAT-2 (option GD-STAT-2a): a unit's stats under its pilot's piloting.

    Weapon, armour and general items are part of the unit and boosted with it; skill and
    accessory slot contributions are added after the boost, unboosted.
    """
    items = tuple(items)
    boosted = _add(base, (i for i in items if i.slot not in UNBOOSTED_SLOTS))
    unboosted = _add({}, (i for i in items if i.slot in UNBOOSTED_SLOTS))
    return boosted_unit_stats(boosted, unboosted, piloting, options.piloting_rounding)


def max_hp_after_cost(stats: Stats, items: Iterable[Item]) -> int:
    """GD-COST-1: max HP (the `hp` stat) lowered by the equipment cost over `capacity`.

    `stats` are the final ones (character_stats or unit_stats), so an item that adds
    capacity or HP counts before the excess is taken.
    """
    return max_hp_under_cost(stats["hp"], stats["capacity"], equipment_cost(items))


def character_max_hp(base: Stats, items: Iterable[Item]) -> int:
    """GD-COST-1 for a pilot."""
    items = tuple(items)
    return max_hp_after_cost(character_stats(base, items), items)


def unit_max_hp(
    base: Stats, items: Iterable[Item], piloting: int, options: GloriousDriveOptions
) -> int:
    """GD-COST-1 for a unit: its boosted HP and capacity (GD-STAT-2), then the excess."""
    items = tuple(items)
    return max_hp_after_cost(unit_stats(base, items, piloting, options), items)


def hp_after_max_change(current_hp: int, ratio: Ratio, new_max: int) -> SheetHp:
    """GD-COST-2: clamp current HP to the new max; a rise of max never raises it.

    The carried ratio (GD-HPS-3) falls with it when HP is now a smaller share of the max
    (a clamp, or a max that rose while HP stayed), so that the next scenario cannot bring
    the pilot or the Assault Core in at more than the HP the pilot really has. It never rises.
    """
    current = clamp_current_hp(current_hp, new_max)
    share = carried_ratio(current, new_max)
    return SheetHp(
        max_hp=new_max, current_hp=current, carried_ratio=Ratio.of(min(ratio.value, share))
    )


class EnteringHp(BaseModel):
    """GD-HPS-2/3: a participant's HP and max at scenario start, pilot and unit."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ratio: Ratio
    pilot_hp: int
    pilot_max_hp: int
    unit_hp: int | None
    unit_max_hp: int | None


def entering(
    ratio: Ratio,
    pilot_current_hp: int,
    pilot_max_hp: int,
    unit_max: int | None,
    options: GloriousDriveOptions,
) -> EnteringHp:
    """GD-HPS-2/3: the unit enters at the pilot's carried ratio of its own max (after GD-COST).

    The pilot enters at the same ratio of their max, but never above the HP they have
    (GD-COST-2: HP does not rise by itself; `hps_rounding: ceil` could otherwise add one).
    """
    if pilot_current_hp > pilot_max_hp:
        raise RuleViolation(
            "GD-COST-2",
            f"HP {pilot_current_hp} above max {pilot_max_hp}",
            ja=f"生命 {pilot_current_hp} が最大値 {pilot_max_hp} を超えています",
        )
    pilot = min(pilot_current_hp, entering_hp(pilot_max_hp, ratio.value, options))
    unit = None if unit_max is None else entering_hp(unit_max, ratio.value, options)
    return EnteringHp(
        ratio=ratio,
        pilot_hp=pilot,
        pilot_max_hp=pilot_max_hp,
        unit_hp=unit,
        unit_max_hp=unit_max,
    )


def ratio_of(hp: int, max_hp: int) -> Ratio:
    """GD-HPS-1/3: the exact ratio a scenario carries from the unit last fought in."""
    return Ratio.of(carried_ratio(hp, max_hp))
