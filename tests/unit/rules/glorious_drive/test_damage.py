"""GD-DMG-1..4 and the guard of GD-REACT-4: damage step."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.damage import (
    SituationGrade,
    can_pay_guard_cost,
    minimum_guaranteed_damage,
    pay_guard_cost,
    resolve_damage,
    situation_grade_range,
)
from domain.rules.glorious_drive.options import GloriousDriveOptions, SituationTarget

DEFAULT = GloriousDriveOptions()


def test_EX_DMG_1_given_attack_120_and_defence_50_then_damage_is_70(
    options: GloriousDriveOptions,
) -> None:
    result = resolve_damage(120, 50, cut=None, options=options)
    assert (result.damage, result.hp_loss, result.minimum_applied) == (70, 70, False)


def test_EX_DMG_2_given_defence_above_attack_then_the_minimum_12_applies(
    options: GloriousDriveOptions,
) -> None:
    result = resolve_damage(120, 200, cut=None, options=options)
    assert result.raw_damage == 0
    assert (result.min_dmg, result.damage, result.minimum_applied) == (12, 12, True)


def test_EX_DMG_3_given_attack_101_then_the_minimum_rounds_up_to_11(
    options: GloriousDriveOptions,
) -> None:
    assert minimum_guaranteed_damage(101) == 11
    assert resolve_damage(101, 300, cut=None, options=options).damage == 11


def test_EX_DMG_4_guard_cost_is_paid_before_the_cut(options: GloriousDriveOptions) -> None:
    """Given a guard costing 5 HP with cut 10 against 8 damage, when resolved, then the
    damage is 0 and the HP loss is 5 — not 8 − 10 + 5 = 3 (seed: 「5を消費した後に 8-10=-2」)."""
    hp_after_cost = pay_guard_cost(hp=30, cost=5)
    result = resolve_damage(80, 72, cut=10, guard_cost=5, options=options)
    assert result.damage_before_cut == 8
    assert (result.damage, result.hp_loss) == (0, 5)
    assert hp_after_cost - result.damage == 30 - 5


def test_GD_DMG_3_given_a_guard_when_damage_is_the_minimum_then_the_cut_reduces_it_too(
    options: GloriousDriveOptions,
) -> None:
    result = resolve_damage(120, 200, cut=5, options=options)
    assert (result.min_dmg, result.damage) == (12, 7)


def test_GD_DMG_1_given_no_intermediate_below_zero_then_a_large_cut_gives_zero_not_negative(
    options: GloriousDriveOptions,
) -> None:
    assert resolve_damage(50, 10, cut=100, options=options).damage == 0


@pytest.mark.parametrize(
    ("hp", "cost", "allowed"),
    [(5, 5, True), (4, 5, False), (-3, 0, True), (-3, 1, False), (0, 0, True)],
)
def test_GD_REACT_4_given_hp_and_a_guard_cost_then_it_is_payable_only_if_hp_stays_non_negative(
    hp: int, cost: int, allowed: bool
) -> None:
    assert can_pay_guard_cost(hp, cost) is allowed


def test_GD_REACT_4_when_the_guard_cost_would_make_hp_negative_then_it_is_refused() -> None:
    with pytest.raises(RuleViolation, match=r"GD-REACT-4: guard costs 5 HP but HP is 4") as err:
        pay_guard_cost(hp=4, cost=5)
    assert err.value.rule_id == "GD-REACT-4"


def test_GD_REACT_4_given_no_guard_when_a_guard_cost_is_given_then_it_is_refused(
    options: GloriousDriveOptions,
) -> None:
    with pytest.raises(RuleViolation, match="GD-REACT-4"):
        resolve_damage(80, 72, cut=None, guard_cost=5, options=options)


@pytest.mark.parametrize(
    ("grade", "bounds"),
    [
        ("small", (10, 30)),
        ("medium", (30, 70)),
        ("large", (70, 100)),
        ("small_to_large", (10, 100)),
    ],
)
def test_GD_DMG_4_given_a_grade_then_its_range_is_the_seeds(
    grade: SituationGrade, bounds: tuple[int, int]
) -> None:
    assert situation_grade_range(grade) == bounds


@pytest.mark.parametrize(
    ("percent", "grade"), [(101, None), (-1, None), (40, "small"), (69, "large"), (0, "medium")]
)
def test_GD_DMG_4_when_the_percentage_is_outside_the_grade_or_0_100_then_it_is_refused(
    percent: int, grade: SituationGrade | None, options: GloriousDriveOptions
) -> None:
    with pytest.raises(RuleViolation, match="GD-DMG-4"):
        resolve_damage(
            100, 50, cut=None, situation_percent=percent, situation_grade=grade, options=options
        )


@pytest.mark.parametrize(("applies_to", "expected"), [("attack", 50), ("damage", 15)])
def test_GD_DMG_4a_given_a_50_percent_bonus_then_it_applies_per_the_option(
    applies_to: SituationTarget, expected: int
) -> None:
    """Given attack 100 vs defence 100 and +50 %: on the attack, 150 − 100 = 50; on the
    damage, the minimum 10 becomes 15."""
    options = GloriousDriveOptions(situation_bonus_applies_to=applies_to)
    result = resolve_damage(
        100, 100, cut=None, situation_percent=50, situation_grade="medium", options=options
    )
    assert result.damage == expected
    assert result.decision().options == {"situation_bonus_applies_to": applies_to}


def test_GD_DMG_4a_given_the_bonus_on_the_attack_then_the_minimum_uses_the_raised_attack() -> None:
    result = resolve_damage(101, 500, cut=None, situation_percent=10, options=DEFAULT)
    assert (result.effective_attack, result.min_dmg) == (111, 12)


def test_GD_DMG_1_when_attack_is_negative_then_it_is_refused(
    options: GloriousDriveOptions,
) -> None:
    with pytest.raises(RuleViolation, match="GD-DMG-1: attack must be 0 or more, not -1"):
        resolve_damage(-1, 0, cut=None, options=options)


def test_given_a_guarded_hit_then_the_decision_cites_the_damage_and_guard_rules(
    options: GloriousDriveOptions,
) -> None:
    decision = resolve_damage(80, 72, cut=10, guard_cost=5, options=options).decision()
    assert decision.rule_ids == ("GD-DMG-1", "GD-DMG-2", "GD-DMG-3", "GD-REACT-4")
    assert decision.outcome["hp_loss"] == 5
    assert "生命減少5" in decision.summary_ja


_stat = st.integers(min_value=0, max_value=5000)
_options = st.builds(
    GloriousDriveOptions, situation_bonus_applies_to=st.sampled_from(["attack", "damage"])
)


@given(attack=_stat, defence=_stat, percent=st.integers(0, 100), options=_options)
def test_property_without_a_guard_damage_is_never_negative_nor_below_the_minimum(
    attack: int, defence: int, percent: int, options: GloriousDriveOptions
) -> None:
    result = resolve_damage(attack, defence, cut=None, situation_percent=percent, options=options)
    assert result.damage >= 0
    assert result.damage >= minimum_guaranteed_damage(attack)
    assert result.hp_loss == result.damage


@given(
    attack=_stat, defence=_stat, cut=st.integers(0, 500), cost=st.integers(0, 50), options=_options
)
def test_property_with_a_guard_damage_is_never_negative_and_the_cost_is_never_cut(
    attack: int, defence: int, cut: int, cost: int, options: GloriousDriveOptions
) -> None:
    result = resolve_damage(attack, defence, cut=cut, guard_cost=cost, options=options)
    assert 0 <= result.damage <= result.damage_before_cut
    assert result.hp_loss == cost + result.damage
