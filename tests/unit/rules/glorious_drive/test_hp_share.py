"""GD-HPS-1..3: HP ratio shared between pilot and Assault Core."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.hp_share import carried_ratio, entering_hp
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.rounding import Rounding


def test_EX_HPS_1_given_the_core_ends_at_100_of_400_then_the_pilot_is_carried_at_20_of_80(
    options: GloriousDriveOptions,
) -> None:
    ratio = carried_ratio(100, 400)
    assert ratio == Fraction(1, 4)
    assert entering_hp(80, ratio, options) == 20  # pilot at the scenario result
    assert entering_hp(400, ratio, options) == 100  # the core entering scenario 2
    assert entering_hp(80, ratio, options) == 20  # the pilot entering on foot


def test_EX_HPS_2_given_the_core_ends_at_minus_30_then_the_ratio_is_0_and_the_pilot_0_of_80(
    options: GloriousDriveOptions,
) -> None:
    ratio = carried_ratio(-30, 400)
    assert ratio == 0
    assert entering_hp(80, ratio, options) == 0


def test_GD_HPS_3_given_hp_above_max_then_the_ratio_is_capped_at_1() -> None:
    assert carried_ratio(500, 400) == 1


@pytest.mark.parametrize(("floor", "expected"), [("at_least_one", 1), ("allow_zero", 0)])
def test_GD_HPS_3_given_a_tiny_ratio_then_the_zero_floor_option_decides_1_or_0(
    floor: str, expected: int
) -> None:
    options = GloriousDriveOptions.model_validate({"hps_zero_floor": floor})
    assert entering_hp(80, carried_ratio(1, 400), options) == expected  # 80/400 = 0.2


@pytest.mark.parametrize(("rounding", "expected"), [("floor", 26), ("round", 27), ("ceil", 27)])
def test_GD_HPS_3_given_a_fractional_hp_then_it_rounds_per_the_option(
    rounding: Rounding, expected: int
) -> None:
    options = GloriousDriveOptions(hps_rounding=rounding)
    assert entering_hp(80, Fraction(1, 3), options) == expected  # 26.67


def test_GD_HPS_3_when_the_ratio_or_max_is_impossible_then_it_is_refused(
    options: GloriousDriveOptions,
) -> None:
    with pytest.raises(RuleViolation, match="GD-HPS-3"):
        entering_hp(80, Fraction(5, 4), options)
    with pytest.raises(RuleViolation, match="GD-HPS-3: max HP must be at least 1, not 0"):
        carried_ratio(10, 0)


@given(hp=st.integers(-1000, 1000), max_hp=st.integers(1, 1000), entering_max=st.integers(1, 999))
def test_property_the_carried_hp_is_between_0_and_max_and_0_only_for_a_ratio_of_0(
    hp: int, max_hp: int, entering_max: int
) -> None:
    ratio = carried_ratio(hp, max_hp)
    entered = entering_hp(entering_max, ratio, GloriousDriveOptions())
    assert 0 <= entered <= entering_max
    assert (entered == 0) == (ratio == 0)
