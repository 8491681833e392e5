"""Every number a client puts on a sheet is bounded, and the bounds keep every derived figure
inside the read models' PostgreSQL `integer` columns (domain/campaign/bounds.py)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from domain.campaign import bounds
from domain.campaign import character_commands as ch
from domain.campaign import scenario_commands as sc
from domain.campaign import unit_commands as uc
from domain.campaign.derived import character_max_hp, equipment_cost, unit_max_hp
from domain.campaign.model import Item, Skill
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.stats import STAT_KEYS
from tests.unit.campaign.table import new_id, stats

PG_INTEGER = 2**31 - 1


def test_gd_stat_a_sheet_with_hp_ten_to_the_nineteen_is_refused_naming_the_stat_and_range() -> None:
    with pytest.raises(ValidationError) as refused:
        ch.RegisterCharacter(owner="aoi", name="Aoi", level=1, base_stats=stats(hp=10**19))
    assert "GD-STAT" in str(refused.value)
    assert "'hp'" in str(refused.value)
    assert "-9,999..9,999" in str(refused.value)


def test_gd_stat_1_a_level_of_two_to_the_sixty_third_is_refused() -> None:
    with pytest.raises(ValidationError, match="less than or equal to 999"):
        ch.AdvanceCharacter(level=2**63, base_stats=stats())


def test_gd_stat_unit_stats_and_item_stats_are_bounded_alike() -> None:
    with pytest.raises(ValidationError, match="GD-STAT"):
        uc.RegisterUnit(name="紅", kind="assault_core", base_stats=stats(phys_atk=-(10**6)))
    with pytest.raises(ValidationError, match="GD-STAT"):
        ch.EquipItem(item=Item(name="x", slot="weapon", cost=0, stats={"hp": 10**9}))


def test_gd_cost_1_an_item_or_skill_cost_past_the_bound_is_refused() -> None:
    with pytest.raises(ValidationError, match="GD-COST-1"):
        ch.EquipItem(item=Item(name="x", slot="weapon", cost=10**12))
    with pytest.raises(ValidationError, match="GD-COST-3"):
        ch.LearnSkill(skill=Skill(name="s", cost=10**12, uses=1))


def test_gd_hps_a_scenario_end_hp_past_the_bound_is_refused() -> None:
    with pytest.raises(ValidationError, match="1000000000"):
        sc.ParticipantEnd(character_id=new_id(1), end_hp=-(10**19))


def test_stored_events_stay_readable_whatever_they_hold() -> None:
    # Bounds are for new commands: an item recorded before them still loads.
    assert Item(name="old", slot="weapon", cost=10**12).cost == 10**12


def test_the_largest_bounded_sheet_still_fits_every_integer_column() -> None:
    top = dict.fromkeys(STAT_KEYS, bounds.STAT)
    items = [
        Item(name=f"i{n}", slot="weapon", cost=bounds.COST, stats=top) for n in range(bounds.ITEMS)
    ]
    piloting = bounds.STAT * (bounds.ITEMS + 1)  # the pilot's piloting with every item on
    for rounding in ("floor", "round", "ceil"):
        options = GloriousDriveOptions.model_validate({"piloting_rounding": rounding})
        assert unit_max_hp(top, items, piloting, options) <= PG_INTEGER
    assert character_max_hp(top, items) <= PG_INTEGER
    assert equipment_cost(items) <= PG_INTEGER
