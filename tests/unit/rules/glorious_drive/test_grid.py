"""GD-SQ-1..4 and GD-RNG-1..3: distance, range, occupied squares, line of fire, areas."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.grid import (
    Position,
    area_squares,
    can_target_point,
    check_target,
    distance,
    in_area,
    in_range,
    lies_across,
    line_of_fire_blocked,
    occupied_squares,
)
from domain.rules.glorious_drive.options import GloriousDriveOptions

DEFAULT = GloriousDriveOptions()
STRICT = GloriousDriveOptions(line_of_fire="any_shortest_path")


def P(x: int, y: int, z: int = 0) -> Position:
    return Position(x=x, y=y, z=z)


def test_GD_RNG_1_given_two_squares_then_distance_is_counted_orthogonally() -> None:
    assert distance(P(0, 0), P(3, 2)) == 5  # a diamond, not a square: no diagonal steps


def test_EX_RNG_1_given_3_squares_away_and_2_up_then_range_5_is_needed() -> None:
    """Seed: 「距離差3スクエア、高低差2スクエア分の上空に位置する敵…射程5が必要」."""
    attacker, flyer = P(0, 0), P(3, 0, 2)
    assert distance(attacker, flyer) == 5
    assert in_range(attacker, flyer, 5)
    assert not in_range(attacker, flyer, 4)


def test_GD_SQ_1_given_the_same_square_then_a_range_1_weapon_can_be_used_at_range_0() -> None:
    assert in_range(P(2, 2), P(2, 2), 1)
    assert in_range(P(2, 2), P(2, 2), 0)
    assert not in_range(P(2, 2), P(2, 3), 0)


def test_GD_SQ_1_given_a_weapon_whose_text_forbids_range_0_then_the_same_square_is_out() -> None:
    assert not in_range(P(2, 2), P(2, 2), 3, usable_at_zero=False)


def test_EX_RNG_2_given_range_5_area_2_then_every_square_within_2_of_a_point_within_5() -> None:
    """Seed: 「射程5、範囲2の回復スキル」."""
    caster = P(0, 0)
    point = P(5, 0)
    assert can_target_point(caster, point, 5, set(), options=DEFAULT)
    assert not can_target_point(caster, P(6, 0), 5, set(), options=DEFAULT)
    area = area_squares(point, 2)
    assert len(area) == 13
    assert all(distance(point, sq) <= 2 for sq in area)
    assert max(distance(caster, sq) for sq in area) == 7


def test_GD_RNG_3_given_an_area_then_it_ignores_occupied_squares_and_hits_friend_and_foe() -> None:
    wall = occupied_squares(P(1, 0), 1, "object", DEFAULT)
    area = area_squares(P(0, 0), 2)
    assert {P(1, 0), P(2, 0)} <= area
    assert wall <= area


def test_GD_RNG_3_given_vertical_then_the_area_reaches_up_and_down() -> None:
    assert len(area_squares(P(0, 0), 1, vertical=True)) == 7
    assert in_area(P(0, 0), 2, P(1, 0, 1))
    assert not in_area(P(0, 0), 2, P(1, 0, 2))


def test_GD_SQ_2_given_a_standing_assault_core_then_it_occupies_two_squares_vertically() -> None:
    assert occupied_squares(P(4, 4), 1, "assault_core", DEFAULT) == {P(4, 4), P(4, 4, 1)}


@pytest.mark.parametrize(("threshold", "occupies"), [("at_least", True), ("over", False)])
def test_GD_SQ_2a_given_a_body_exactly_one_square_then_the_threshold_option_decides(
    threshold: str, occupies: bool
) -> None:
    options = GloriousDriveOptions.model_validate({"occupy_threshold": threshold})
    assert bool(occupied_squares(P(0, 0), 1, "large_enemy", options)) is occupies


def test_GD_SQ_2_given_a_body_smaller_than_a_square_then_it_occupies_nothing() -> None:
    assert occupied_squares(P(0, 0), Fraction(1, 2), "licenser", DEFAULT) == frozenset()


def test_GD_SQ_2_given_a_large_enemy_of_size_2_then_it_fills_a_2_cube() -> None:
    squares = occupied_squares(P(0, 0), 2, "large_enemy", DEFAULT)
    assert len(squares) == 8
    assert P(1, 1, 1) in squares


def test_GD_SQ_3_given_a_body_in_a_straight_row_then_the_square_beyond_cannot_be_targeted() -> None:
    core = occupied_squares(P(2, 0), 1, "assault_core", DEFAULT)
    assert line_of_fire_blocked(P(0, 0), P(4, 0), core, options=DEFAULT)
    with pytest.raises(RuleViolation, match="GD-SQ-3: the target at \\(4,0,0\\) is beyond"):
        check_target(P(0, 0), P(4, 0), 5, core, options=DEFAULT)


def test_GD_SQ_3_given_a_body_beside_a_diagonal_shot_then_it_is_blocked_only_when_strict() -> None:
    """Given a body at (1,0) and a target at (2,1): a shortest path via (0,1) is clear."""
    body = {P(1, 0)}
    assert not line_of_fire_blocked(P(0, 0), P(2, 1), body, options=DEFAULT)
    assert line_of_fire_blocked(P(0, 0), P(2, 1), body, options=STRICT)


def test_GD_SQ_3_given_a_target_behind_a_wall_across_every_path_then_it_is_blocked() -> None:
    wall = {P(1, 0), P(0, 1), P(1, 1)}
    assert line_of_fire_blocked(P(0, 0), P(2, 2), wall, options=DEFAULT)


def test_GD_SQ_3_given_a_flyer_above_a_core_then_the_shot_goes_over_it() -> None:
    core = occupied_squares(P(1, 0), 1, "assault_core", DEFAULT)
    assert not line_of_fire_blocked(P(0, 0), P(3, 0, 2), core, options=DEFAULT)
    assert line_of_fire_blocked(P(0, 0), P(3, 0, 1), core, options=DEFAULT)


def test_GD_SQ_3_given_the_target_itself_occupies_squares_then_it_can_still_be_targeted() -> None:
    core = occupied_squares(P(3, 0), 1, "assault_core", DEFAULT)
    check_target(P(0, 0), P(3, 0), 3, core, options=DEFAULT)


def test_GD_SQ_4_given_a_point_across_an_occupied_square_then_it_cannot_be_chosen() -> None:
    assert not can_target_point(P(0, 0), P(3, 0), 5, {P(1, 0)}, options=DEFAULT)


def test_GD_RNG_1_when_the_target_is_out_of_range_then_the_refusal_gives_both_numbers() -> None:
    with pytest.raises(RuleViolation, match="GD-RNG-1: the target is 6 squares away; range is 5"):
        check_target(P(0, 0), P(6, 0), 5, set(), options=DEFAULT)


_pos = st.builds(Position, x=st.integers(-50, 50), y=st.integers(-50, 50), z=st.integers(-5, 5))


@given(a=_pos, b=_pos, c=_pos)
def test_property_distance_is_a_metric(a: Position, b: Position, c: Position) -> None:
    assert distance(a, b) >= 0
    assert (distance(a, b) == 0) == (a == b)
    assert distance(a, b) == distance(b, a)
    assert distance(a, c) <= distance(a, b) + distance(b, c)


_small = st.builds(Position, x=st.integers(-3, 3), y=st.integers(-3, 3), z=st.integers(0, 1))


@given(a=_small, b=_small, occupied=st.sets(_small, max_size=10))
def test_property_the_strict_line_of_fire_blocks_whenever_the_default_does(
    a: Position, b: Position, occupied: set[Position]
) -> None:
    if line_of_fire_blocked(a, b, occupied, options=DEFAULT):
        assert line_of_fire_blocked(a, b, occupied, options=STRICT)
    assert line_of_fire_blocked(a, b, occupied, options=DEFAULT) == line_of_fire_blocked(
        b, a, occupied, options=DEFAULT
    )


@pytest.mark.parametrize(("weapon_range", "squares"), [(3, 25), (1, 5)])
def test_GD_RNG_1_given_range_3_or_1_then_the_reach_is_the_seeds_diamond(
    weapon_range: int, squares: int
) -> None:
    """Seed figures: range 3 (left) and range 1 (right), own square included (range 0)."""
    reach = [
        P(x, y)
        for x in range(-4, 5)
        for y in range(-4, 5)
        if in_range(P(0, 0), P(x, y), weapon_range)
    ]
    assert len(reach) == squares


def test_GD_REACT_3_given_a_character_in_a_straight_line_then_it_lies_across_the_shot() -> None:
    assert lies_across(P(0, 0), P(3, 0), P(1, 0), options=DEFAULT)
    assert not lies_across(P(0, 0), P(3, 0), P(1, 1), options=DEFAULT)
    assert not lies_across(P(0, 0), P(3, 0), P(3, 0), options=DEFAULT)


def test_GD_REACT_3_given_a_diagonal_shot_then_a_side_square_crosses_only_when_strict() -> None:
    assert not lies_across(P(0, 0), P(2, 2), P(1, 0), options=DEFAULT)
    assert lies_across(P(0, 0), P(2, 2), P(1, 0), options=STRICT)
