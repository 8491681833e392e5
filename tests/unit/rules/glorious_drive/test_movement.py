"""GD-MAIN-4, GD-RNG-4/5, GD-SQ-3: moving over terrain and around occupied squares."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.grid import (
    MOVE_COST,
    MoverKind,
    Position,
    Terrain,
    check_path,
    occupied_squares,
    reachable_squares,
)
from domain.rules.glorious_drive.options import GloriousDriveOptions


def P(x: int, y: int, z: int = 0) -> Position:
    return Position(x=x, y=y, z=z)


def everywhere(terrain: Terrain) -> Callable[[Position], Terrain | None]:
    return lambda _: terrain


FLAT = everywhere(Terrain.FLAT)


def test_GD_RNG_4_given_the_seed_table_then_costs_are_exactly_as_printed() -> None:
    order = [
        Terrain.FLAT,
        Terrain.ROUGH,
        Terrain.WATER,
        Terrain.FOREST,
        Terrain.MOUNTAIN,
        Terrain.STEP1,
        Terrain.STEP2,
        Terrain.STEP3,
        Terrain.BARRICADE,
    ]
    assert [MOVE_COST["licenser"][t] for t in order] == [1, 2, 3, 2, 2, 1, 2, 3, 3]
    assert [MOVE_COST["assault_core"][t] for t in order] == [1, 1, 2, 2, 2, 1, 2, 3, 2]


@pytest.mark.parametrize(("move", "squares"), [(3, 25), (2, 13)])
def test_GD_RNG_4_given_flat_ground_then_a_move_reaches_an_orthogonal_diamond(
    move: int, squares: int
) -> None:
    """Seed figure: move 3 (left) and move 2 (right) reach a diamond of squares."""
    reached = reachable_squares(P(0, 0), "licenser", move, FLAT, set())
    assert len(reached) == squares
    assert all(abs(p.x) + abs(p.y) <= move for p in reached)


def test_GD_RNG_4_when_a_licenser_overspends_on_rough_then_the_refusal_cites_costs() -> None:
    def rough_then_flat(p: Position) -> Terrain | None:
        return Terrain.ROUGH if p.x <= 2 else Terrain.FLAT

    path = [P(0, 0), P(1, 0), P(2, 0), P(3, 0)]
    with pytest.raises(RuleViolation) as err:
        check_path(path, "licenser", 4, rough_then_flat, set())
    assert err.value.rule_id == "GD-RNG-4"
    assert str(err.value) == "GD-RNG-4: the path costs 5 (rough 2 + rough 2 + flat 1); move is 4"


def test_GD_RNG_4_given_rough_terrain_then_an_assault_core_pays_1_per_square() -> None:
    path = [P(0, 0), P(1, 0), P(2, 0), P(3, 0)]
    assert check_path(path, "assault_core", 3, everywhere(Terrain.ROUGH), set()).total == 3


def test_GD_MAIN_4_given_a_path_that_stays_put_then_it_costs_nothing() -> None:
    assert check_path([P(0, 0)], "licenser", 0, FLAT, set()).total == 0


def test_GD_MAIN_4_when_a_step_is_diagonal_or_longer_than_one_square_then_it_is_refused() -> None:
    with pytest.raises(RuleViolation, match=r"GD-MAIN-4: step 1 \(0,0,0\) → \(1,1,0\)"):
        check_path([P(0, 0), P(1, 1)], "licenser", 5, FLAT, set())
    with pytest.raises(RuleViolation, match="GD-MAIN-4: step 1"):
        check_path([P(0, 0), P(2, 0)], "licenser", 5, FLAT, set())


def test_GD_SQ_3_when_a_path_enters_an_occupied_square_then_it_is_refused() -> None:
    core = occupied_squares(P(1, 0), 1, "assault_core", GloriousDriveOptions())
    with pytest.raises(RuleViolation, match=r"GD-SQ-3: step 1 enters \(1,0,0\), an occupied"):
        check_path([P(0, 0), P(1, 0), P(2, 0)], "licenser", 5, FLAT, core)


def test_GD_SQ_3_given_an_occupied_square_then_reachable_squares_go_around_it() -> None:
    reached = reachable_squares(P(0, 0), "licenser", 4, FLAT, {P(1, 0)})
    assert P(1, 0) not in reached
    assert reached[P(2, 0)] == 4


def test_GD_RNG_5_given_water_then_one_move_point_buys_one_square_up_or_down() -> None:
    path = [P(0, 0, 0), P(0, 0, -1), P(0, 0, -2), P(1, 0, -2)]
    result = check_path(path, "licenser", 3, FLAT, set(), underwater=True)
    assert result.total == 3
    assert "GD-RNG-5" in result.decision().rule_ids


def test_GD_RNG_5_when_not_underwater_a_step_up_is_refused() -> None:
    with pytest.raises(RuleViolation, match="GD-RNG-5"):
        check_path([P(0, 0), P(0, 0, 1)], "licenser", 3, FLAT, set())


def test_GD_RNG_4_when_a_step_leaves_the_map_then_it_is_refused() -> None:
    def on_map(p: Position) -> Terrain | None:
        return Terrain.FLAT if p.x < 2 else None

    with pytest.raises(RuleViolation, match="off the map"):
        check_path([P(0, 0), P(1, 0), P(2, 0)], "licenser", 5, on_map, set())


_terrain = st.sampled_from(list(Terrain))
_step = st.sampled_from([(1, 0), (-1, 0), (0, 1), (0, -1)])


@given(
    steps=st.lists(_step, max_size=12),
    grid=st.dictionaries(st.tuples(st.integers(-12, 12), st.integers(-12, 12)), _terrain),
    kind=st.sampled_from(["licenser", "assault_core"]),
)
def test_property_path_cost_is_monotonic_in_the_steps_taken(
    steps: list[tuple[int, int]], grid: dict[tuple[int, int], Terrain], kind: MoverKind
) -> None:
    path = [P(0, 0)]
    for dx, dy in steps:
        path.append(path[-1].shifted(dx, dy))

    def terrain_at(p: Position) -> Terrain:
        return grid.get((p.x, p.y), Terrain.FLAT)

    costs = [
        check_path(path[: i + 1], kind, 10_000, terrain_at, set()).total for i in range(len(path))
    ]
    assert costs[0] == 0
    assert all(a < b for a, b in pairwise(costs))
    assert costs[-1] >= len(steps)
