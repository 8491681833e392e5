"""Terrain and the movement cost table (移動力消費例): GD-RNG-4."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

MoverKind = Literal["licenser", "assault_core"]


class Terrain(StrEnum):
    """Terrain of a square; step1..3 are height steps up to 1×, 2×, 3× the mover's height."""

    FLAT = "flat"  # 平地
    ROUGH = "rough"  # 荒地
    WATER = "water"  # 水面
    FOREST = "forest"  # 森
    MOUNTAIN = "mountain"  # 山
    STEP1 = "step1"  # 高低所（～身長×1）
    STEP2 = "step2"  # 高低所（～身長×2）
    STEP3 = "step3"  # 高低所（～身長×3）
    BARRICADE = "barricade"  # バリケード


# GD-RNG-4: move points paid per square entered, exactly as the seed's table.
# Enemies pay the same; the GM may rule other costs for a situation (a recorded ruling).
MOVE_COST: dict[MoverKind, dict[Terrain, int]] = {
    "licenser": {
        Terrain.FLAT: 1,
        Terrain.ROUGH: 2,
        Terrain.WATER: 3,
        Terrain.FOREST: 2,
        Terrain.MOUNTAIN: 2,
        Terrain.STEP1: 1,
        Terrain.STEP2: 2,
        Terrain.STEP3: 3,
        Terrain.BARRICADE: 3,
    },
    "assault_core": {
        Terrain.FLAT: 1,
        Terrain.ROUGH: 1,
        Terrain.WATER: 2,
        Terrain.FOREST: 2,
        Terrain.MOUNTAIN: 2,
        Terrain.STEP1: 1,
        Terrain.STEP2: 2,
        Terrain.STEP3: 3,
        Terrain.BARRICADE: 2,
    },
}

# GD-RNG-5: underwater, one move point buys one square up or down, whatever the terrain.
VERTICAL_STEP_COST = 1


def move_cost(terrain: Terrain, mover_kind: MoverKind) -> int:
    """GD-RNG-4: the move points a mover pays to enter a square of this terrain."""
    return MOVE_COST[mover_kind][terrain]
