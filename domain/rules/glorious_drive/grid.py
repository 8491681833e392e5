"""The map (GD-SQ, GD-RNG) in one import: squares, terrain, movement, range, areas."""

from domain.rules.glorious_drive.movement import (
    PathCost,
    PathStep,
    TerrainAt,
    check_path,
    reachable_squares,
)
from domain.rules.glorious_drive.occupancy import BodyKind, occupied_squares
from domain.rules.glorious_drive.position import Position, distance
from domain.rules.glorious_drive.targeting import (
    area_squares,
    can_target_point,
    check_target,
    in_area,
    in_range,
    lies_across,
    line_of_fire_blocked,
)
from domain.rules.glorious_drive.terrain import MOVE_COST, MoverKind, Terrain, move_cost

Square = Position

__all__ = [
    "MOVE_COST",
    "BodyKind",
    "MoverKind",
    "PathCost",
    "PathStep",
    "Position",
    "Square",
    "Terrain",
    "TerrainAt",
    "area_squares",
    "can_target_point",
    "check_path",
    "check_target",
    "distance",
    "in_area",
    "in_range",
    "lies_across",
    "line_of_fire_blocked",
    "move_cost",
    "occupied_squares",
    "reachable_squares",
]
