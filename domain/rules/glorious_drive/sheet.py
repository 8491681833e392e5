"""What a combatant brings into a Glorious Drive encounter, and the map it fights on.

The sheet is a snapshot taken when the combatant joins: effective stats (piloting boost and
GD-COST already applied by whoever built the sheet), weapons with their contributions, and
skills. Weapon contributions are kept apart from the stats so that swapping main and sub
weapon (GD-MAIN-3) and unarmed attacks (GD-MAIN-6) can be computed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from domain.rules.glorious_drive.occupancy import BodyKind
from domain.rules.glorious_drive.position import Position
from domain.rules.glorious_drive.terrain import Terrain

AttackType = Literal["physical", "perceptive"]
Reach = Literal["melee", "ranged"]
SkillType = Literal["active", "counter", "movement"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GdStats(_Frozen):
    """GD-STAT: effective stats without the weapons' contributions; `hp` is the max HP."""

    phys_atk: int = Field(ge=0)
    phys_def: int = Field(ge=0)
    perc_atk: int = Field(ge=0)
    perc_def: int = Field(ge=0)
    evasion: int
    melee_hit: int
    ranged_hit: int
    move: int = Field(ge=0)
    hp: int = Field(ge=1)
    reaction: int
    piloting: int = 0
    resistance: int = 0
    capacity: int = 0


class Weapon(_Frozen):
    """A weapon or guard gear: what it adds to attack and hit, its range, reload and cut."""

    name: str = Field(min_length=1)
    attack_type: AttackType
    reach: Reach
    range: int = Field(ge=0)
    attack: int = Field(default=0, ge=0, description="Added to phys_atk or perc_atk.")
    hit: int = Field(default=0, description="Added to melee_hit or ranged_hit.")
    area: int = Field(default=0, ge=0, description="GD-RNG-3 area radius; 0 = one target.")
    reload_interval: int | None = Field(default=None, ge=1, description="GD-RLD-1 n.")
    reload_time: int = Field(default=1, ge=1, description="GD-RLD-2 t.")
    cut: int | None = Field(default=None, ge=0, description="GD-REACT-4 cut value.")
    guard_cost: int = Field(default=0, ge=0, description="GD-REACT-4 HP paid to guard.")


class Skill(_Frozen):
    """A skill as listed on the sheet: type, cost (GD-COST-3) and uses per scenario."""

    name: str = Field(min_length=1)
    skill_type: SkillType
    cost: int = Field(default=0, ge=0)
    uses: int | None = Field(default=None, ge=0, description="None = unlimited.")


class GdSheet(_Frozen):
    """A combatant's snapshot as it joins a Glorious Drive encounter."""

    stats: GdStats
    hp: int | None = Field(default=None, description="Current HP; None = full (stats.hp).")
    weapons: tuple[Weapon, ...] = ()
    main_weapon: str | None = None
    sub_weapon: str | None = None
    skills: tuple[Skill, ...] = ()
    position: Position
    base_max_hp: int | None = Field(
        default=None, ge=1, description="GD-COST-1 max HP before any cost; None = stats.hp."
    )
    equipment_cost: int = Field(default=0, ge=0, description="GD-COST-1 cost of equipment.")
    body: BodyKind = "licenser"
    size: int = Field(default=0, ge=0, description="GD-SQ-2 edge in squares (not for cores).")

    @property
    def is_assault_core(self) -> bool:
        """GD-INJ: an Assault Core shuts down instead of fainting and has no other injury."""
        return self.body == "assault_core"

    def skill(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    @model_validator(mode="after")
    def _weapons_known(self) -> GdSheet:
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError(f"weapon names must be unique, got {names}")
        for slot in (self.main_weapon, self.sub_weapon):
            if slot is not None and slot not in names:
                raise ValueError(f"{slot!r} is not among the weapons {names}")
        return self


class TerrainSquare(_Frozen):
    """One square whose terrain is not the map's default."""

    x: int
    y: int
    terrain: Terrain


class GdMap(_Frozen):
    """The battle map: a grid of 5 m squares (GD-SQ-1) with a default terrain."""

    width: int = Field(default=20, ge=1)
    height: int = Field(default=20, ge=1)
    default_terrain: Terrain = Terrain.FLAT
    squares: tuple[TerrainSquare, ...] = ()
    underwater: bool = Field(default=False, description="GD-RNG-5: moves may go up or down.")

    def terrain_at(self, p: Position) -> Terrain | None:
        """GD-RNG-4: the terrain of a square, None when off the map."""
        if not (0 <= p.x < self.width and 0 <= p.y < self.height):
            return None
        for square in self.squares:
            if (square.x, square.y) == (p.x, p.y):
                return square.terrain
        return self.default_terrain
