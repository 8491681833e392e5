"""How large a number a client may put on a sheet: declared once, used by commands and bodies.

The rules give no upper limit to a stat or a level (GD-STAT, GD-STAT-1); the database does:
the read models keep levels, costs and HP figures in PostgreSQL `integer` columns (at most
2,147,483,647). A sheet of a player's making that overflowed one would stop that read model,
so every number a client sends is bounded here, far above any sheet the game prints (stats
in the tens and hundreds, piloting 150), and low enough that every figure derived from a
bounded sheet fits: the worst case is a unit's max HP under its pilot's piloting (GD-STAT-2),
`(STAT + ITEMS × STAT) × (1 + (STAT + ITEMS × STAT) / 100)`, about 1.1 × 10⁹
(tests/unit/campaign/test_bounds.py checks it).

Stored events are not bounded: what was recorded stays readable; only new commands are.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from domain.campaign.errors import WrongState
from domain.campaign.model import Item, Skill, Stats, check_base_stats

STAT = 9_999  # |a stat| on a sheet or an item (GD-STAT): four digits
LEVEL = 999  # GD-STAT-1: a sheet's level, 1…LEVEL
COST = 9_999  # GD-COST-1: one item's or skill's cost
USES = 999  # a skill's uses per scenario
ITEMS = 32  # items equipped on one sheet (each adds to stats, cost and piloting)
SKILLS = 64  # skills learned by one pilot
HP = 1_000_000_000  # any HP figure a client reports (GD-HPS: a scenario's end HP)

Level = Annotated[
    int, Field(ge=1, le=LEVEL, description=f"GD-STAT-1: the sheet's level, 1 to {LEVEL:,}.")
]
StatValue = Annotated[int, Field(ge=-STAT, le=STAT, description=f"GD-STAT: -{STAT:,} to {STAT:,}.")]
Cost = Annotated[int, Field(ge=0, le=COST, description=f"GD-COST-1: 0 to {COST:,}.")]
Uses = Annotated[int, Field(ge=0, le=USES, description=f"Uses per scenario, 0 to {USES:,}.")]
HpFigure = Annotated[int, Field(ge=-HP, le=HP, description=f"HP, -{HP:,} to {HP:,}.")]


def check_stat_range(stats: Stats) -> Stats:
    """GD-STAT: every value within ±STAT (the rules set no limit; the read models do)."""
    wrong = {key: value for key, value in stats.items() if not -STAT <= value <= STAT}
    if wrong:
        raise ValueError(
            f"GD-STAT: stats {wrong} are out of range; each stat lies in -{STAT:,}..{STAT:,}"
        )
    return stats


def check_item(item: Item) -> Item:
    """An item a client equips: GD-COST-1 cost in 0..COST, GD-STAT stats within ±STAT."""
    if item.cost > COST:
        raise ValueError(f"GD-COST-1: item cost {item.cost:,} is out of range 0..{COST:,}")
    check_stat_range(item.stats)
    return item


def check_skill(skill: Skill) -> Skill:
    """A skill a client teaches: GD-COST-3 cost in 0..COST, uses in 0..USES."""
    if skill.cost > COST:
        raise ValueError(f"GD-COST-3: skill cost {skill.cost:,} is out of range 0..{COST:,}")
    if skill.uses > USES:
        raise ValueError(f"skill uses {skill.uses:,} are out of range 0..{USES:,}")
    return skill


# A sheet's base stats as a command carries them: every GD-STAT key, hp ≥ 1, each in range.
SheetStats = Annotated[Stats, AfterValidator(check_base_stats), AfterValidator(check_stat_range)]
# An item's or a skill's contributions as a client sends them (keys checked by Item itself).
ItemStats = Annotated[dict[str, StatValue], Field(max_length=32)]
NewItem = Annotated[Item, AfterValidator(check_item)]
NewSkill = Annotated[Skill, AfterValidator(check_skill)]


def check_room(count: int, limit: int, what: str) -> None:
    """A sheet holds at most `limit` items or skills, so that its sums stay in range."""
    if count >= limit:
        raise WrongState(f"a sheet holds at most {limit} {what}; remove one before adding another")


# The numbers of an encounter command (every rule system): bounded alike, far above play.
FIGURE = 1_000_000  # a check's difficulty, an attack value, an armour amount (GD-CHK-1, AK-ARM-1)
SQUARES = 10_000  # |x|, |y|, |z| of a square (GD-SQ-1): a 50 km map
TURNS = 999  # a status's effect value in turns (GD-CHK-2), a step count, a move penalty
Figure = Annotated[int, Field(ge=-FIGURE, le=FIGURE, description=f"-{FIGURE:,} to {FIGURE:,}.")]
Coordinate = Annotated[
    int, Field(ge=-SQUARES, le=SQUARES, description=f"GD-SQ-1: -{SQUARES:,} to {SQUARES:,}.")
]
Turns = Annotated[int, Field(ge=1, le=TURNS, description=f"1 to {TURNS}.")]
Penalty = Annotated[int, Field(ge=0, le=TURNS, description=f"0 to {TURNS}.")]
Percent = Annotated[int, Field(ge=0, le=100, description="GD-DMG-4: 0 to 100 %.")]
Initiative = Annotated[int, Field(ge=-TURNS, le=TURNS, description=f"WZ-5: -{TURNS} to {TURNS}.")]


def check_json_numbers(value: object, *, limit: int = FIGURE, depth: int = 0) -> object:
    """A free-form JSON value (an encounter sheet): every number within ±limit, nesting ≤ 8."""
    if depth > 8:
        raise ValueError("a sheet nests at most 8 levels deep")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        if not -limit <= value <= limit:
            raise ValueError(f"GD-STAT: {value} is out of range; a number lies in ±{limit:,}")
        return value
    children = list(value.values()) if isinstance(value, dict) else value
    for child in children if isinstance(children, list) else ():
        check_json_numbers(child, limit=limit, depth=depth + 1)
    return value
