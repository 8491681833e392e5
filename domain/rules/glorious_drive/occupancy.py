"""Occupied squares (占有スクエア): GD-SQ-2 with option GD-SQ-2a."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.position import Position

BodyKind = Literal["licenser", "assault_core", "large_enemy", "object"]


def occupied_squares(
    position: Position,
    size_squares: int | Fraction,
    kind: BodyKind,
    options: GloriousDriveOptions,
) -> frozenset[Position]:
    """GD-SQ-2 / GD-SQ-2a: the squares a body blocks.

    A standing Assault Core occupies its square and the one above it (縦に２つ分; the seed
    gives no threshold for it, so `size_squares` is not consulted) — pass another kind with
    a size for one whose size is "stated otherwise". Any other body occupies squares only
    when its size (edge, in 5 m squares) is at least one square, or over one under the
    `occupy_threshold` option; it then fills a cube of ceil(size) squares per edge, with
    `position` as its lowest corner. Other shapes are built square by square by the caller.
    """
    if size_squares < 0:
        raise RuleViolation(
            "GD-SQ-2",
            f"a size is 0 squares or more, not {size_squares}",
            ja=f"サイズは0スクエア以上です（{size_squares} ではなく）",
        )
    if kind == "assault_core":
        return frozenset({position, position.shifted(dz=1)})
    big_enough = size_squares >= 1 if options.occupy_threshold == "at_least" else size_squares > 1
    if not big_enough:
        return frozenset()
    edge = math.ceil(size_squares)
    return frozenset(
        position.shifted(dx, dy, dz)
        for dx in range(edge)
        for dy in range(edge)
        for dz in range(edge)
    )
