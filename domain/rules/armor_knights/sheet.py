"""What a unit brings into an Armor Knights duel, and the field it fights on (AK-DST-1).

Ranges are written as the rulebook writes them: near, mid, far, far+1, far+2 … and compared
by rank (near 0, mid 1, far 2, far+N 2+N), so that a target N cells away needs far+N.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Band = Literal["near", "mid", "far"]
BANDS: tuple[Band, ...] = ("near", "mid", "far")
# AK-TURN-3: every unit has at least attack and move; the others must be acquired.
Action = Literal["attack", "move", "evade", "reload", "swap", "counter_attack", "response_move"]
ALWAYS: tuple[Action, ...] = ("attack", "move")
Scope = Literal["field", "map", "either"]  # AK-MOV-2: △F, ▲M, or no mark
Timing = Literal["active", "response"]
_RANGE = re.compile(r"^(near|mid|far)(\+[1-9][0-9]*)?$")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Cell(_Frozen):
    """A cell of the field (AK-DST-1); F distance counts orthogonal steps between cells."""

    x: int = Field(ge=0)
    y: int = Field(ge=0)

    def f_distance(self, other: Cell) -> int:
        return abs(self.x - other.x) + abs(self.y - other.y)


def range_rank(text: str) -> int:
    """AK-DST-1: near 0, mid 1, far 2, far+N 2+N."""
    match = _RANGE.match(text)
    if match is None:
        raise ValueError(f"range {text!r} is not near, mid, far or far+N")
    base = BANDS.index(match.group(1))
    return base + (int(match.group(2)[1:]) if match.group(2) else 0)


class AkWeapon(_Frozen):
    """A weapon: range, tracking corrections and reload count (装填T数)."""

    name: str = Field(min_length=1)
    range: str = Field(description="AK-DST-1: near, mid, far or far+N.")
    m_correction: int = Field(default=0, ge=0, description="AK-TRK-1 M補正.")
    f_correction: int = Field(default=0, ge=0, description="AK-TRK-1 F補正.")
    load_turns: int = Field(default=0, ge=0, description="AK-RLD-1 装填T数 set on firing.")
    equipped: bool = Field(default=True, description="AK-SWP-1: False = stowed (格納).")

    @field_validator("range")
    @classmethod
    def _known_range(cls, value: str) -> str:
        range_rank(value)
        return value

    @property
    def rank(self) -> int:
        return range_rank(self.range)


class FixedMove(_Frozen):
    """AK-MOV-2: a "move N" effect of the unit (e.g. a Super Vernier, a response)."""

    name: str = Field(min_length=1)
    distance: int = Field(ge=1)
    scope: Scope = "either"
    timing: Timing = "response"


class AkSheet(_Frozen):
    """A unit's snapshot as it joins: armour values, move values, points, weapons."""

    armor: dict[str, int] = Field(min_length=1, description="Base armour values by name.")
    m_move: int = Field(description="AK-DST-1 M move value (may be 0 or less).")
    f_move: int = Field(description="AK-DST-1 F move value (may be 0 or less).")
    active_points: int = Field(ge=0, description="AK-TURN-3 能動動作数値.")
    response_points: int = Field(ge=0, description="AK-TURN-3 対応動作数値.")
    actions: tuple[Action, ...] = ()
    weapons: tuple[AkWeapon, ...] = ()
    fixed_moves: tuple[FixedMove, ...] = ()
    cell: Cell

    def has(self, action: Action) -> bool:
        return action in ALWAYS or action in self.actions

    def weapon(self, name: str) -> AkWeapon | None:
        return next((w for w in self.weapons if w.name == name), None)

    def fixed_move(self, name: str) -> FixedMove | None:
        return next((f for f in self.fixed_moves if f.name == name), None)


class AkMap(_Frozen):
    """AK-DST-1: the field, and which of its cells hold a MAP (entering one ends a move)."""

    width: int = Field(ge=1)
    height: int = Field(ge=1)
    maps: tuple[Cell, ...] = ()
    band: Band | None = Field(
        default=None, description="The scenario's M distance for units starting in one cell."
    )

    def holds(self, cell: Cell) -> bool:
        return cell.x < self.width and cell.y < self.height

    def is_map(self, cell: Cell) -> bool:
        return cell in self.maps
