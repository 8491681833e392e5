"""GD-CHK-1/2a, GD-MAIN-2, GD-REACT-7a: general and status checks."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.checks import (
    general_check,
    status_recovery_check,
    status_resistance_check,
)
from domain.rules.glorious_drive.options import GloriousDriveOptions


def test_GD_CHK_1_given_stat_plus_die_reaching_the_difficulty_then_the_check_succeeds() -> None:
    assert general_check(40, 60, 100).success
    assert not general_check(40, 59, 100).success


def test_GD_CHK_1_given_a_die_of_96_or_more_then_it_succeeds_whatever_the_difficulty() -> None:
    result = general_check(0, 96, 1000)
    assert (result.critical, result.success) == (True, True)
    assert not general_check(0, 95, 1000).success


def test_GD_CHK_2a_given_effect_value_5_then_recovery_needs_resistance_plus_die_105(
    options: GloriousDriveOptions,
) -> None:
    assert status_recovery_check(30, 5, 75, options=options).success
    assert not status_recovery_check(30, 5, 74, options=options).success


def test_GD_CHK_2a_given_a_house_rule_base_then_the_difficulty_moves_with_it() -> None:
    options = GloriousDriveOptions(status_recovery_difficulty=80)
    result = status_recovery_check(30, 5, 55, options=options)
    assert (result.difficulty, result.success) == (85, True)
    assert result.rule_ids == ("GD-CHK-1", "GD-MAIN-2", "GD-CHK-2a")


def test_GD_REACT_7a_given_no_difficulty_and_no_default_then_it_is_refused(
    options: GloriousDriveOptions,
) -> None:
    with pytest.raises(RuleViolation, match="GD-REACT-7a"):
        status_resistance_check(30, 50, None, options=options)


def test_GD_REACT_7a_given_a_campaign_default_then_it_is_used_when_none_is_given() -> None:
    options = GloriousDriveOptions(status_resistance_default_difficulty=90)
    assert status_resistance_check(30, 60, None, options=options).success
    assert not status_resistance_check(30, 60, 95, options=options).success
