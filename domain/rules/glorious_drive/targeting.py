"""Range, line of fire and areas: GD-SQ-1/3/4, GD-RNG-1..3.

"Across" (跨いだ) on an orthogonal grid (proposed interpretation GD-SQ-3a, option
`line_of_fire`): range is counted along orthogonal steps (GD-RNG-1), so the natural
line between two squares is a shortest orthogonal path. By default a square is across
an occupied square when *every* shortest path to it goes through one: a straight row is
blocked by any body in it, while a body off to the side of a diagonal-ish shot can be
gone around, as the count of the range itself goes around it. `any_shortest_path` is the
strict reading: any occupied square inside the box spanned by the two squares blocks.
"""

from __future__ import annotations

from collections.abc import Collection
from itertools import product

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.position import Position, diamond, distance


def in_range(
    attacker: Position, target: Position, weapon_range: int, *, usable_at_zero: bool = True
) -> bool:
    """GD-SQ-1 / GD-RNG-1/2: the target is within `weapon_range` orthogonal squares.

    Same square is range 0; a weapon of range ≥ 1 may be used there too unless its text
    says otherwise (`usable_at_zero=False`).
    """
    d = distance(attacker, target)
    if d == 0 and weapon_range >= 1 and not usable_at_zero:
        return False
    return d <= weapon_range


def line_of_fire_blocked(
    attacker: Position,
    target: Position,
    occupied: Collection[Position],
    *,
    options: GloriousDriveOptions,
) -> bool:
    """GD-SQ-3: the target is beyond (across) an occupied square (option `line_of_fire`).

    `occupied` should not hold the attacker's or the target's own bodies; the two end
    squares are ignored in any case, since only squares strictly between can be crossed.
    """
    if options.line_of_fire == "any_shortest_path":
        ends = (attacker, target)
        return any(p in occupied for p in _box(attacker, target) if p not in ends)
    return not _clear_path_exists(attacker, target, occupied)


def lies_across(
    attacker: Position, target: Position, square: Position, *, options: GloriousDriveOptions
) -> bool:
    """GD-REACT-3/4: a character in `square` is crossed by the attack (may intercept or guard).

    The same geometry as GD-SQ-3 (option `line_of_fire`), with that one square in the way.
    """
    if square in (attacker, target):
        return False
    return line_of_fire_blocked(attacker, target, {square}, options=options)


def can_target_point(
    attacker: Position,
    point: Position,
    weapon_range: int,
    occupied: Collection[Position],
    *,
    options: GloriousDriveOptions,
) -> bool:
    """GD-SQ-4 / GD-RNG-3: a target point must be in range and not across an occupied square."""
    return in_range(attacker, point, weapon_range) and not line_of_fire_blocked(
        attacker, point, occupied, options=options
    )


def check_target(
    attacker: Position,
    target: Position,
    weapon_range: int,
    occupied: Collection[Position],
    *,
    options: GloriousDriveOptions,
) -> None:
    """GD-SQ-1/3, GD-RNG-1/2: refuse a target out of range or beyond an occupied square."""
    d = distance(attacker, target)
    if not in_range(attacker, target, weapon_range):
        height = abs(target.z - attacker.z)
        if height:  # GD-RNG-2: the height difference is part of the range needed
            raise RuleViolation(
                "GD-RNG-2",
                f"the target is {d} squares away, {height} of them height; range is {weapon_range}",
                ja=f"対象は {d} スクエア先で、うち {height} は高低差です。"
                f"射程は {weapon_range} です",
            )
        raise RuleViolation(
            "GD-RNG-1",
            f"the target is {d} squares away; range is {weapon_range}",
            ja=f"対象は {d} スクエア先です。射程は {weapon_range} です",
        )
    if line_of_fire_blocked(attacker, target, occupied, options=options):
        raise RuleViolation(
            "GD-SQ-3",
            f"the target at {target} is beyond an occupied square",
            ja=f"{target} の対象は占有スクエアの向こうです（射線が遮られています）",
        )


def area_squares(center: Position, radius: int, *, vertical: bool = False) -> frozenset[Position]:
    """GD-RNG-3: squares within `radius` of the target point; occupied squares do not matter.

    By default the squares on the point's own level (the map); `vertical=True` adds the
    squares above and below, counted as GD-RNG-2 counts height (air, underwater).
    """
    if radius < 0:
        raise RuleViolation(
            "GD-RNG-3",
            f"an area is 0 squares or more, not {radius}",
            ja=f"範囲は0スクエア以上です（{radius} ではなく）",
        )
    return frozenset(diamond(center, radius, vertical=vertical))


def in_area(center: Position, radius: int, position: Position) -> bool:
    """GD-RNG-1..3: a combatant is in the area when its distance (height included) ≤ radius."""
    return distance(center, position) <= radius


def _axis(a: int, b: int) -> range:
    step = 1 if b >= a else -1
    return range(a, b + step, step)


def _box(a: Position, b: Position) -> list[Position]:
    return [
        Position(x=x, y=y, z=z)
        for x, y, z in product(_axis(a.x, b.x), _axis(a.y, b.y), _axis(a.z, b.z))
    ]


def _clear_path_exists(a: Position, b: Position, occupied: Collection[Position]) -> bool:
    # Squares of the box in order of distance from `a`: one reachable by a clear
    # shortest path has a clear, reachable predecessor one step closer to `a`. Squares are
    # (x, y, z) tuples here: the walk builds three neighbours of every square of the box.
    sx, sy, sz = (1 if b.x >= a.x else -1), (1 if b.y >= a.y else -1), (1 if b.z >= a.z else -1)
    start, end = (a.x, a.y, a.z), (b.x, b.y, b.z)
    blocked = {(p.x, p.y, p.z) for p in occupied}
    box = product(_axis(a.x, b.x), _axis(a.y, b.y), _axis(a.z, b.z))
    reach: set[tuple[int, int, int]] = set()
    for p in sorted(box, key=lambda q: abs(q[0] - a.x) + abs(q[1] - a.y) + abs(q[2] - a.z)):
        if p == start:
            reach.add(p)
            continue
        if p != end and p in blocked:
            continue
        x, y, z = p
        if (x - sx, y, z) in reach or (x, y - sy, z) in reach or (x, y, z - sz) in reach:
            reach.add(p)
    return end in reach
