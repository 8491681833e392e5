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
# GD-MAIN-5 A with the main weapon; GD-MAIN-6 with no weapon or bashing; GD-MAIN-7 thrown item.
AttackMeans = Literal["weapon", "unarmed", "bash", "thrown"]
SkillType = Literal["active", "counter", "movement"]
# GD-CHK-1: a stat a general check may add to its 1D100.
CheckStat = Literal[
    "phys_atk",
    "phys_def",
    "perc_atk",
    "perc_def",
    "evasion",
    "melee_hit",
    "ranged_hit",
    "move",
    "reaction",
    "piloting",
    "resistance",
]
# GD-MAIN-5 C/D: an item's 種別 (kind). Only general items (一般アイテム) may be lent; only
# flavour items (フレーバーアイテム) may be used from the carried items without being equipped.
ItemKind = Literal["general", "flavour", "weapon", "armour", "other"]
# GD-MAIN-8: the step an item is used in; "action" unless its rules name another timing.
ItemTiming = Literal["action", "reaction"]


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
    weapon_type: str | None = Field(default=None, description="武器種, for skills that need one.")


class Skill(_Frozen):
    """A skill as listed on the sheet: type, cost (GD-COST-3) and uses per scenario."""

    name: str = Field(min_length=1)
    skill_type: SkillType
    cost: int = Field(default=0, ge=0)
    uses: int | None = Field(default=None, ge=0, description="None = unlimited.")
    weapon_type: str | None = Field(
        default=None, description="GD-MAIN-6: the main weapon's type the skill requires."
    )


class Item(_Frozen):
    """An item (アイテム) other than the weapons: its kind, its rules text and timing."""

    name: str = Field(min_length=1)
    kind: ItemKind = "general"
    rules: str = Field(default="", description="The item's ルール text, applied by the GM.")
    timing: ItemTiming = Field(default="action", description="GD-MAIN-8 step it is used in.")
    phys_atk: int = Field(default=0, ge=0, description="GD-MAIN-7 physical attack when thrown.")
    range: int = Field(default=1, ge=0, description="GD-MAIN-7 throwing range in squares.")


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
    # GD-STAT-3: no number or check reads the body; only the rules that say so do (GD-INJ
    # shutdown, GD-SQ-2 occupied squares).
    body: BodyKind = "licenser"
    size: int = Field(default=0, ge=0, description="GD-SQ-2 edge in squares (not for cores).")
    items: tuple[Item, ...] = Field(default=(), description="Every item held (GD-MAIN-5 C/D).")
    equipped_items: tuple[str, ...] = Field(
        default=(), description="Names of the equipped items (装備); the rest are carried (携帯品)."
    )
    item_slots: int | None = Field(
        default=None, ge=0, description="How many items may be equipped; None = no limit."
    )

    @property
    def is_assault_core(self) -> bool:
        """GD-INJ: an Assault Core shuts down instead of fainting and has no other injury."""
        return self.body == "assault_core"

    def skill(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    def item(self, name: str) -> Item | None:
        return next((i for i in self.items if i.name == name), None)

    @model_validator(mode="after")
    def _weapons_known(self) -> GdSheet:
        names = [w.name for w in self.weapons]
        if len(set(names)) != len(names):
            raise ValueError(f"weapon names must be unique, got {names}")
        for slot in (self.main_weapon, self.sub_weapon):
            if slot is not None and slot not in names:
                raise ValueError(f"{slot!r} is not among the weapons {names}")
        items = [i.name for i in self.items]
        if len(set(items)) != len(items) or set(items) & set(names):
            raise ValueError(f"item names must be unique and differ from weapons, got {items}")
        if not set(self.equipped_items) <= set(items):
            raise ValueError(f"equipped items {self.equipped_items} must be among {items}")
        if self.item_slots is not None and len(self.equipped_items) > self.item_slots:
            count = len(self.equipped_items)
            raise ValueError(f"{count} items equipped in {self.item_slots} slots")
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
