"""GD-STAT-2 on a unit: +piloting % on the unit and its gear, not on skill and accessory slots."""

from __future__ import annotations

import pytest

from domain.campaign.derived import unit_max_hp, unit_stats
from domain.campaign.errors import WrongState
from domain.campaign.model import Item
from domain.campaign.unit import UnitItemEquipped
from domain.campaign.unit_commands import EquipUnitItem, UnequipUnitItem, equip_unit, unequip_unit
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.rounding import Rounding
from tests.unit.campaign.table import AT, GM, Table, stats

BLADE = Item(name="blade", slot="weapon", cost=20, stats={"phys_atk": 20, "melee_hit": 5})
SKILL_CHIP = Item(name="overclock", slot="skill", cost=10, stats={"phys_atk": 10})
CHARM = Item(name="charm", slot="accessory", cost=5, stats={"evasion": 7, "phys_atk": 3})
CORE = stats(hp=160, capacity=40, phys_atk=100, evasion=30, melee_hit=10)


def test_GD_STAT_2_piloting_150_boosts_the_unit_and_its_weapon_but_not_skill_or_accessory() -> None:
    """phys_atk: (100 + 20 blade) × 2.5 = 300, then + 10 skill slot + 3 accessory = 313.
    evasion: 30 × 2.5 = 75, + 7 accessory = 82. melee_hit: (10 + 5) × 2.5 = 37.5 → floor 37.
    """
    boosted = unit_stats(CORE, (BLADE, SKILL_CHIP, CHARM), 150, GloriousDriveOptions())

    assert (boosted["phys_atk"], boosted["evasion"], boosted["melee_hit"]) == (313, 82, 37)
    assert (boosted["hp"], boosted["capacity"]) == (400, 100)


@pytest.mark.parametrize(("rounding", "expected"), [("floor", 37), ("round", 38), ("ceil", 38)])
def test_GD_STAT_2a_the_piloting_rounding_option_rounds_each_boosted_stat(
    rounding: Rounding, expected: int
) -> None:
    options = GloriousDriveOptions(piloting_rounding=rounding)

    assert unit_stats(CORE, (BLADE,), 150, options)["melee_hit"] == expected  # 37.5


def test_GD_COST_1_a_unit_s_cost_is_taken_from_its_boosted_capacity() -> None:
    """Boosted capacity 100, cost 20 + 10 + 5 = 35: no excess, max 400. With a cost-95 item
    more, cost 130 → excess 30 → floor(400 × 0.7) = 280."""
    options = GloriousDriveOptions()
    assert unit_max_hp(CORE, (BLADE, SKILL_CHIP, CHARM), 150, options) == 400
    heavy = Item(name="armour", slot="armour", cost=95)
    assert unit_max_hp(CORE, (BLADE, SKILL_CHIP, CHARM, heavy), 150, options) == 280


def test_equipping_a_unit_records_its_max_hp_under_the_pilot_and_clamps_current_hp() -> None:
    table = Table()
    campaign = table.open_campaign()
    aoi = table.register_pilot(campaign, stats(piloting=150))
    core = table.register_core(campaign, aoi, CORE)
    options = table.options(campaign)
    assert (table.unit(core).current_hp, table.unit(core).max_hp) == (400, 400)

    heavy = Item(name="armour", slot="armour", cost=130)
    events = equip_unit(
        table.unit(core), table.character(aoi), EquipUnitItem(item=heavy), options, at=AT, by=GM
    )
    table.append(core, events)

    assert events == [UnitItemEquipped(item=heavy, max_hp=280, current_hp=280, at=AT, by=GM)]
    command = UnequipUnitItem(item_name="armour")
    table.append(
        core, unequip_unit(table.unit(core), table.character(aoi), command, options, at=AT, by=GM)
    )
    assert (table.unit(core).current_hp, table.unit(core).max_hp) == (280, 400)  # GD-COST-2


def test_only_the_unit_s_own_pilot_can_be_passed_in() -> None:
    table = Table()
    campaign = table.open_campaign()
    aoi = table.register_pilot(campaign, stats(piloting=150))
    rin = table.register_pilot(campaign, stats(piloting=10), name="Rin")
    core = table.register_core(campaign, aoi, CORE)

    with pytest.raises(WrongState, match="piloted by"):
        equip_unit(
            table.unit(core),
            table.character(rin),
            EquipUnitItem(item=BLADE),
            table.options(campaign),
            at=AT,
            by=GM,
        )
