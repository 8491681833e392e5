"""GD-STAT-1/2: stat keys and the piloting boost."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.rounding import Rounding
from domain.rules.glorious_drive.stats import STAT_KEYS, boosted_unit_stats


def test_GD_STAT_2_given_piloting_150_then_unit_stats_are_times_2_point_5() -> None:
    """Seed: 「PCの操縦が150である場合、ユニットの能力値は+150％」."""
    boosted = boosted_unit_stats({"phys_atk": 100, "hp": 200, "move": 4}, {}, 150, "floor")
    assert boosted == {"phys_atk": 250, "hp": 500, "move": 10}


def test_GD_STAT_2_given_skill_and_accessory_slot_contributions_then_they_are_not_boosted() -> None:
    boosted = boosted_unit_stats({"phys_atk": 100}, {"phys_atk": 20, "evasion": 5}, 150, "floor")
    assert boosted == {"phys_atk": 270, "evasion": 5}


@pytest.mark.parametrize(("rounding", "expected"), [("floor", 12), ("round", 13), ("ceil", 13)])
def test_GD_STAT_2a_given_a_fractional_boost_then_it_rounds_per_the_option(
    rounding: Rounding, expected: int
) -> None:
    """Given 5 × 2.5 = 12.5: floor 12 (default), round half-up 13, ceil 13."""
    assert boosted_unit_stats({"reaction": 5}, {}, 150, rounding) == {"reaction": expected}


def test_GD_STAT_2a_given_round_then_below_half_goes_down() -> None:
    assert boosted_unit_stats({"reaction": 7}, {}, 110, "round") == {"reaction": 15}  # 14.7


def test_GD_STAT_given_the_table_then_the_keys_are_exactly_the_digests() -> None:
    assert STAT_KEYS == (
        "phys_atk",
        "phys_def",
        "perc_atk",
        "perc_def",
        "evasion",
        "melee_hit",
        "ranged_hit",
        "move",
        "hp",
        "reaction",
        "piloting",
        "resistance",
        "capacity",
    )


def test_GD_STAT_when_a_key_is_unknown_or_piloting_negative_then_it_is_refused() -> None:
    with pytest.raises(RuleViolation, match=r"GD-STAT-1: unknown stat keys \['attack'\]"):
        boosted_unit_stats({"attack": 1}, {}, 0, "floor")
    with pytest.raises(RuleViolation, match="GD-STAT-2"):
        boosted_unit_stats({"hp": 1}, {}, -10, "floor")
