"""Movement over terrain and around occupied squares: GD-MAIN-4, GD-RNG-4/5, GD-SQ-3."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Sequence
from itertools import pairwise

from pydantic import BaseModel, ConfigDict

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.position import Position
from domain.rules.glorious_drive.terrain import (
    VERTICAL_STEP_COST,
    MoverKind,
    Terrain,
    move_cost,
)
from domain.rules.outcome import Decision

# None = off the map: such a square cannot be entered.
TerrainAt = Callable[[Position], Terrain | None]


class PathStep(BaseModel):
    """One square entered and what it cost."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    position: Position
    terrain: Terrain
    cost: int
    vertical: bool


class PathCost(BaseModel):
    """An allowed path: the squares entered, their costs, and the total against `move`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    start: Position
    steps: tuple[PathStep, ...]
    total: int
    move: int

    def decision(self) -> Decision:
        """The ruling: GD-MAIN-4 and GD-RNG-4 (GD-RNG-5 when a step went up or down)."""
        rules = ["GD-MAIN-4", "GD-RNG-4", "GD-SQ-3"]
        if any(s.vertical for s in self.steps):
            rules.append("GD-RNG-5")
        end = self.steps[-1].position if self.steps else self.start
        return Decision(
            rule_ids=tuple(rules),
            inputs={
                "start": str(self.start),
                "move": self.move,
                "path": tuple(str(s.position) for s in self.steps),
            },
            outcome={"cost": self.total, "end": str(end)},
            summary_en=f"moved {self.start} → {end} for {self.total} of {self.move} move",
            summary_ja=f"{self.start}→{end}へ移動、移動力{self.move}のうち{self.total}消費",
        )


def check_path(
    path: Sequence[Position],
    mover_kind: MoverKind,
    move: int,
    terrain_at: TerrainAt,
    occupied: Collection[Position],
    *,
    underwater: bool = False,
) -> PathCost:
    """GD-MAIN-4 / GD-RNG-4/5 / GD-SQ-3: cost of a path, or a refusal citing the rule.

    `path[0]` is where the mover stands (not paid for). Each step is one square
    orthogonally; underwater a step may also go one square straight up or down (GD-RNG-5).
    Every square entered is paid by its terrain; `occupied` squares cannot be entered
    (leave out the mover's own, and any the GM lets it climb over or dive under).
    """
    if not path:
        raise RuleViolation(
            "GD-MAIN-4",
            "a path needs at least the starting square",
            ja="移動経路には少なくとも出発するスクエアが必要です",
        )
    steps = [
        _step(
            i,
            a,
            b,
            mover_kind=mover_kind,
            terrain_at=terrain_at,
            occupied=occupied,
            underwater=underwater,
        )
        for i, (a, b) in enumerate(pairwise(path), start=1)
    ]
    total = sum(s.cost for s in steps)
    if total > move:
        breakdown = " + ".join(f"{s.terrain.value} {s.cost}" for s in steps)
        raise RuleViolation(
            "GD-RNG-4",
            f"the path costs {total} ({breakdown}); move is {move}",
            ja=f"経路のコストは {total}（{breakdown}）、移動は {move} です",
        )
    return PathCost(start=path[0], steps=tuple(steps), total=total, move=move)


def reachable_squares(
    start: Position,
    mover_kind: MoverKind,
    move: int,
    terrain_at: TerrainAt,
    occupied: Collection[Position],
    *,
    underwater: bool = False,
) -> dict[Position, int]:
    """GD-RNG-4: every square reachable with `move` points, with its cheapest cost."""
    best = {start: 0}
    queue = [(0, start.x, start.y, start.z)]
    while queue:
        spent, x, y, z = heapq.heappop(queue)
        here = Position(x=x, y=y, z=z)
        if spent > best[here]:
            continue
        for nxt, vertical in _neighbours(here, underwater):
            terrain = terrain_at(nxt)
            if terrain is None or nxt in occupied:
                continue
            cost = spent + (VERTICAL_STEP_COST if vertical else move_cost(terrain, mover_kind))
            if cost <= move and cost < best.get(nxt, move + 1):
                best[nxt] = cost
                heapq.heappush(queue, (cost, nxt.x, nxt.y, nxt.z))
    return best


def _neighbours(p: Position, underwater: bool) -> list[tuple[Position, bool]]:
    flat = [
        (p.shifted(1, 0), False),
        (p.shifted(-1, 0), False),
        (p.shifted(0, 1), False),
        (p.shifted(0, -1), False),
    ]
    if underwater:
        flat += [(p.shifted(dz=1), True), (p.shifted(dz=-1), True)]
    return flat


def _step(
    index: int,
    a: Position,
    b: Position,
    *,
    mover_kind: MoverKind,
    terrain_at: TerrainAt,
    occupied: Collection[Position],
    underwater: bool,
) -> PathStep:
    dx, dy, dz = abs(b.x - a.x), abs(b.y - a.y), abs(b.z - a.z)
    vertical = (dx, dy, dz) == (0, 0, 1)
    if vertical and not underwater:
        raise RuleViolation(
            "GD-RNG-5",
            f"step {index} {a} → {b} goes up or down; only underwater can it",
            ja=f"{index} 歩目 {a} → {b} は上下の移動です。上下に動けるのは水中だけです",
        )
    if not vertical and (dz != 0 or dx + dy != 1):
        raise RuleViolation(
            "GD-MAIN-4",
            f"step {index} {a} → {b} is not one square front, back, left or right",
            ja=f"{index} 歩目 {a} → {b} は前後左右に1スクエアの移動ではありません",
        )
    terrain = terrain_at(b)
    if terrain is None:
        raise RuleViolation(
            "GD-RNG-4",
            f"step {index} enters {b}, which is off the map",
            ja=f"{index} 歩目はマップの外の {b} に入ります",
        )
    if b in occupied:
        raise RuleViolation(
            "GD-SQ-3",
            f"step {index} enters {b}, an occupied square",
            ja=f"{index} 歩目は占有スクエアの {b} に入ります",
        )
    cost = VERTICAL_STEP_COST if vertical else move_cost(terrain, mover_kind)
    return PathStep(position=b, terrain=terrain, cost=cost, vertical=vertical)
