"""A scripted die for the `draw` callables: hands out given faces and records each call."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ScriptedDraw:
    """Returns the scripted faces in order; fails the test if asked for one too many."""

    faces: list[int]
    calls: list[tuple[int, str]] = field(default_factory=list)

    def __call__(self, sides: int, purpose: str) -> int:
        assert self.faces, f"no scripted face left for 1D{sides} ({purpose})"
        self.calls.append((sides, purpose))
        return self.faces.pop(0)

    @property
    def sides_drawn(self) -> list[int]:
        return [sides for sides, _ in self.calls]


def never_draw(sides: int, purpose: str) -> int:
    """A draw that must not be called."""
    raise AssertionError(f"no die should be drawn, got 1D{sides} for {purpose}")
