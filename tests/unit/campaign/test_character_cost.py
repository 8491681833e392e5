"""GD-COST-1..3 through the Character aggregate: equip / unequip events recompute max HP.

Aoi: max HP 80, capacity 100 (the digest's EX-COST numbers).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from domain.campaign import character_commands as ch
from domain.campaign.character import Character, ItemEquipped, ItemUnequipped, SkillLearned
from domain.campaign.errors import WrongState
from domain.campaign.model import Item, SheetHp, Skill
from domain.campaign.scenario_commands import ParticipantEnd
from domain.events import DomainEvent
from tests.unit.campaign.table import AT, GM, Table, stats


def gear(name: str, cost: int, **contributions: int) -> Item:
    return Item(name=name, slot="armour", cost=cost, stats=contributions)


class Sheet:
    """Aoi's sheet in a fresh campaign: register, then equip and unequip through deciders."""

    def __init__(self) -> None:
        self.table = Table()
        self.campaign = self.table.open_campaign()
        self.aoi = self.table.register_pilot(self.campaign, stats())

    @property
    def state(self) -> Character:
        return self.table.character(self.aoi)

    def equip(self, item: Item) -> list[DomainEvent]:
        return self.table.append(
            self.aoi, ch.equip(self.state, ch.EquipItem(item=item), at=AT, by=GM)
        )

    def unequip(self, name: str) -> list[DomainEvent]:
        command = ch.UnequipItem(item_name=name)
        return self.table.append(self.aoi, ch.unequip(self.state, command, at=AT, by=GM))

    def hp(self) -> tuple[int, int]:
        return self.state.current_hp, self.state.max_hp


@pytest.fixture
def sheet() -> Sheet:
    return Sheet()


def full(max_hp: int) -> SheetHp:
    return SheetHp.model_validate(
        {
            "max_hp": max_hp,
            "current_hp": max_hp,
            "carried_ratio": {"numerator": 1, "denominator": 1},
        }
    )


def test_EX_COST_1_equipment_150_over_capacity_100_drops_max_hp_to_40(sheet: Sheet) -> None:
    events = sheet.equip(gear("plate", 150))

    assert events == [ItemEquipped(item=gear("plate", 150), hp=full(40), at=AT, by=GM)]
    assert sheet.hp() == (40, 40)  # GD-COST-2: 80 above the new max drops to it


def test_EX_COST_2_equipment_200_drops_max_hp_to_1_never_0(sheet: Sheet) -> None:
    sheet.equip(gear("plate", 120))
    sheet.equip(gear("shield", 80))

    assert sheet.hp() == (1, 1)


def test_EX_COST_3_equipment_125_then_a_cost_25_skill_in_its_step(sheet: Sheet) -> None:
    sheet.equip(gear("plate", 125))
    learned = ch.learn_skill(
        sheet.state, ch.LearnSkill(skill=Skill(name="overdrive", cost=25, uses=2)), at=AT, by=GM
    )
    sheet.table.append(sheet.aoi, learned)

    assert isinstance(learned[0], SkillLearned)
    assert sheet.hp() == (60, 60)  # learning a skill costs nothing until it is used (GD-COST-3)
    assert sheet.state.skill("overdrive") is not None


def test_GD_COST_2_a_rise_of_max_does_not_raise_current_hp(sheet: Sheet) -> None:
    sheet.equip(gear("plate", 150))

    events = sheet.unequip("plate")

    assert isinstance(events[0], ItemUnequipped)
    assert sheet.hp() == (40, 80)
    # GD-HPS-3: the HP the pilot really has is now half their max, and that is what a
    # scenario would bring in, not the full ratio held before.
    assert sheet.state.carried_ratio.value == Fraction(1, 2)


def test_GD_COST_2_current_hp_already_below_the_new_max_is_unchanged(sheet: Sheet) -> None:
    table = sheet.table
    scenario = table.start_scenario(sheet.campaign, {sheet.aoi: None})
    table.close_scenario(
        sheet.campaign, scenario, ParticipantEnd(character_id=sheet.aoi, end_hp=20)
    )
    assert sheet.hp() == (20, 80)

    sheet.equip(gear("plate", 125))

    assert sheet.hp() == (20, 60)
    assert sheet.state.carried_ratio.value == Fraction(1, 4)  # 20/60 is more: the ratio holds


def test_GD_COST_1_an_item_that_adds_capacity_counts_before_the_excess(sheet: Sheet) -> None:
    sheet.equip(gear("frame", 50, capacity=50))  # capacity 150, cost 50

    assert sheet.hp() == (80, 80)
    sheet.equip(gear("plate", 130))  # cost 180 over capacity 150 → excess 30 → floor(80 × 0.7)

    assert sheet.hp() == (56, 56)


def test_GD_STAT_1_advancing_raises_max_but_not_current_hp(sheet: Sheet) -> None:
    command = ch.AdvanceCharacter(level=2, base_stats=stats(hp=90))

    sheet.table.append(sheet.aoi, ch.advance(sheet.state, command, at=AT, by=GM))

    assert (sheet.state.level, *sheet.hp()) == (2, 80, 90)


def test_equipping_the_same_item_name_twice_is_refused(sheet: Sheet) -> None:
    sheet.equip(gear("plate", 10))
    with pytest.raises(WrongState, match="equipped already"):
        sheet.equip(gear("plate", 10))


def test_unequipping_an_item_not_equipped_is_refused(sheet: Sheet) -> None:
    with pytest.raises(WrongState, match="'plate' is not equipped"):
        sheet.unequip("plate")


def test_forgetting_a_skill_removes_it_and_an_unknown_one_is_refused(sheet: Sheet) -> None:
    skill = Skill(name="overdrive", cost=25, uses=2)
    sheet.table.append(
        sheet.aoi, ch.learn_skill(sheet.state, ch.LearnSkill(skill=skill), at=AT, by=GM)
    )
    forget = ch.ForgetSkill(skill_name="overdrive")
    sheet.table.append(sheet.aoi, ch.forget_skill(sheet.state, forget, at=AT, by=GM))

    assert sheet.state.skills == ()
    with pytest.raises(WrongState, match="not learned"):
        ch.forget_skill(sheet.state, forget, at=AT, by=GM)


@pytest.mark.parametrize(
    ("base", "message"),
    [
        ({"hp": 80}, "missing"),
        (stats(luck=3), "unknown stat keys"),
        (stats(hp=0), "at least 1"),
    ],
)
def test_GD_STAT_base_stats_need_exactly_the_digest_s_keys(
    base: dict[str, int], message: str
) -> None:
    with pytest.raises(ValidationError, match=message):
        ch.RegisterCharacter(owner=GM, name="Aoi", level=1, base_stats=base)


def test_an_item_with_an_unknown_stat_key_is_refused() -> None:
    with pytest.raises(ValidationError, match="unknown stat keys"):
        Item(name="charm", slot="accessory", cost=1, stats={"luck": 1})
