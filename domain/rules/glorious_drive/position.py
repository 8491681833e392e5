"""Squares (スクエア) and the orthogonal distance: GD-SQ-1, GD-RNG-1/2."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel, ConfigDict


class Position(BaseModel):
    """A 5 m square: x, y on the map, z the height in squares (flying, high ground, depth)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    x: int
    y: int
    z: int = 0

    def shifted(self, dx: int = 0, dy: int = 0, dz: int = 0) -> Position:
        """GD-RNG-1/2: the square `dx, dy, dz` squares away (z = height)."""
        return Position(x=self.x + dx, y=self.y + dy, z=self.z + dz)

    def __str__(self) -> str:
        return f"({self.x},{self.y},{self.z})"


def distance(a: Position, b: Position) -> int:
    """GD-RNG-1/2: |dx| + |dy| + |dz| squares — orthogonal count, height difference added."""
    return abs(a.x - b.x) + abs(a.y - b.y) + abs(a.z - b.z)


def diamond(center: Position, radius: int, *, vertical: bool) -> Iterator[Position]:
    """GD-RNG-1/3: every square within `radius` orthogonal steps (in 3D if `vertical`)."""
    reach_z = radius if vertical else 0
    for dz in range(-reach_z, reach_z + 1):
        flat = radius - abs(dz)
        for dx in range(-flat, flat + 1):
            rest = flat - abs(dx)
            for dy in range(-rest, rest + 1):
                yield center.shifted(dx, dy, dz)
