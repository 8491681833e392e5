"""GD-COST-1..3: equipment cost over capacity."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from domain.rules.glorious_drive.cost import clamp_current_hp, max_hp_under_cost, skill_step_hp
from domain.rules.glorious_drive.options import GloriousDriveOptions


def test_EX_COST_1_given_max_80_capacity_100_and_cost_150_then_max_hp_is_40() -> None:
    assert max_hp_under_cost(80, 100, 150) == 40


def test_EX_COST_2_given_cost_200_then_max_hp_is_1_never_0() -> None:
    assert max_hp_under_cost(80, 100, 200) == 1


def test_EX_COST_3_given_cost_125_and_a_cost_25_skill_then_60_and_40_during_its_step(
    options: GloriousDriveOptions,
) -> None:
    step = skill_step_hp(80, 100, equipment_cost=125, skill_cost=25, current_hp=60, options=options)
    assert max_hp_under_cost(80, 100, 125) == 60
    assert (step.equipment_max_hp, step.step_max_hp) == (60, 40)


def test_GD_COST_1_given_cost_within_capacity_then_max_hp_is_unchanged() -> None:
    assert max_hp_under_cost(80, 100, 100) == 80


def test_GD_COST_1_given_cost_far_over_capacity_then_max_hp_still_is_1() -> None:
    assert max_hp_under_cost(80, 100, 1000) == 1


def test_GD_COST_2_given_current_above_the_new_max_then_it_drops_to_it() -> None:
    assert clamp_current_hp(75, 40) == 40


def test_GD_COST_2_given_current_below_the_new_max_then_it_is_unchanged() -> None:
    """Also what happens when max rises again: a later rise does not raise current HP."""
    assert clamp_current_hp(30, 40) == 30
    assert clamp_current_hp(clamp_current_hp(75, 40), 80) == 40


def test_GD_COST_3a_given_the_clamp_option_then_the_skill_step_clamps_current_hp(
    options: GloriousDriveOptions,
) -> None:
    step = skill_step_hp(80, 100, equipment_cost=125, skill_cost=25, current_hp=55, options=options)
    assert (step.hp_in_step, step.clamped) == (40, True)
    assert step.decision().rule_ids == ("GD-COST-1", "GD-COST-3", "GD-COST-2")


def test_GD_COST_3a_given_no_clamp_option_then_current_hp_is_untouched_in_the_step() -> None:
    options = GloriousDriveOptions(skill_cost_clamps_hp=False)
    step = skill_step_hp(80, 100, equipment_cost=125, skill_cost=25, current_hp=55, options=options)
    assert (step.step_max_hp, step.hp_in_step, step.clamped) == (40, 55, False)
    assert step.decision().options == {"skill_cost_clamps_hp": False}


@given(max_hp=st.integers(1, 10_000), capacity=st.integers(0, 500), cost=st.integers(0, 1000))
def test_property_max_hp_under_cost_stays_between_1_and_max_and_falls_as_cost_rises(
    max_hp: int, capacity: int, cost: int
) -> None:
    reduced = max_hp_under_cost(max_hp, capacity, cost)
    assert 1 <= reduced <= max_hp
    assert max_hp_under_cost(max_hp, capacity, cost + 1) <= reduced
