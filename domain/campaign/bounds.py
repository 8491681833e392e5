"""How large a number, and how long a text, a client may send: declared once, used by
commands and bodies.

The rules give no upper limit to a stat or a level (GD-STAT, GD-STAT-1); the database does:
the read models keep levels, costs and HP figures in PostgreSQL `integer` columns (at most
2,147,483,647). A sheet of a player's making that overflowed one would stop that read model,
so every number a client sends is bounded here, far above any sheet the game prints (stats
in the tens and hundreds, piloting 150), and low enough that every figure derived from a
bounded sheet fits: the worst case is a unit's max HP under its pilot's piloting (GD-STAT-2),
`(STAT + ITEMS × STAT) × (1 + (STAT + ITEMS × STAT) / 100)`, about 1.1 × 10⁹
(tests/unit/campaign/test_bounds.py checks it).

Texts are bounded for the same reason: a read model indexes ids and names (a btree row
holds at most 2,704 bytes: a 4,000-character combatant id stopped the rulings model, issue
33), so an id is at most ID characters, a name NAME, free text TEXT (README, "Read models").

Stored events are not bounded: what was recorded stays readable; only new commands are.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Annotated, get_args, get_origin

from annotated_types import MaxLen
from pydantic import AfterValidator, BaseModel, Field, JsonValue
from pydantic.fields import FieldInfo

from domain.campaign.errors import WrongState
from domain.campaign.model import Item, Skill, Stats, check_base_stats
from domain.errors import CommandRefused

STAT = 9_999  # |a stat| on a sheet or an item (GD-STAT): four digits
LEVEL = 999  # GD-STAT-1: a sheet's level, 1…LEVEL
COST = 9_999  # GD-COST-1: one item's or skill's cost
USES = 999  # a skill's uses per scenario
ITEMS = 32  # items equipped on one sheet (each adds to stats, cost and piloting)
SKILLS = 64  # skills learned by one pilot
HP = 1_000_000_000  # any HP figure a client reports (GD-HPS: a scenario's end HP)
# Texts: a read model indexes ids and names, and shows every text (module docstring).
ID = 64  # a combatant's, unit's, member's, status's or side's id, as a table types it
NAME = 200  # a name: a character's, a weapon's, an item's, a skill's, a dice expression
TEXT = 2_000  # free text: a note, a reason, a ruling's outcome, an action described
LIST = 100  # names or ids one command lists (weapons swapped, items equipped, free actions)
Id = Annotated[str, Field(min_length=1, max_length=ID)]
Name = Annotated[str, Field(min_length=1, max_length=NAME)]
Said = Annotated[str, Field(min_length=1, max_length=TEXT)]  # free text that must say something
Text = Annotated[str, Field(max_length=TEXT)]  # free text that may be empty

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
    if len(item.name) > NAME:
        raise ValueError(f"an item's name of {len(item.name):,} characters; at most {NAME}")
    if item.cost > COST:
        raise ValueError(f"GD-COST-1: item cost {item.cost:,} is out of range 0..{COST:,}")
    check_stat_range(item.stats)
    return item


def check_skill(skill: Skill) -> Skill:
    """A skill a client teaches: GD-COST-3 cost in 0..COST, uses in 0..USES."""
    if len(skill.name) > NAME:
        raise ValueError(f"a skill's name of {len(skill.name):,} characters; at most {NAME}")
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


_WHAT_JA = {"items": "アイテム", "skills": "スキル"}


def check_room(count: int, limit: int, what: str) -> None:
    """A sheet holds at most `limit` items or skills, so that its sums stay in range."""
    if count >= limit:
        raise WrongState(
            f"a sheet holds at most {limit} {what}; remove one before adding another",
            ja=f"シートに持てる{_WHAT_JA.get(what, what)}は {limit} 個までです。"
            "追加する前にひとつ外してください",
        )


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
    """A free-form JSON value (a sheet, a map, house rules): every number within ±limit,
    every text at most TEXT characters and every key at most NAME, nesting ≤ 8."""
    if depth > 8:
        raise ValueError("a sheet nests at most 8 levels deep")
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        if len(value) > TEXT:
            raise ValueError(f"a text of {len(value):,} characters; at most {TEXT:,}")
        return value
    if isinstance(value, int | float):
        if not -limit <= value <= limit:
            raise ValueError(f"GD-STAT: {value} is out of range; a number lies in ±{limit:,}")
        return value
    if isinstance(value, dict):
        long = next((key for key in value if len(key) > NAME), None)
        if long is not None:
            raise ValueError(f"a key of {len(long):,} characters; at most {NAME}")
    children = list(value.values()) if isinstance(value, dict) else value
    for child in children if isinstance(children, list) else ():
        check_json_numbers(child, limit=limit, depth=depth + 1)
    return value


BoundedJson = Annotated[dict[str, JsonValue], AfterValidator(check_json_numbers)]


class TextTooLong(CommandRefused):
    """A command whose text is longer than its field allows, however it was built."""


def check_texts(command: BaseModel) -> None:
    """Every text of `command` (a field, or the items of a list field) within its declared
    length: the edge's bound again, for a command built without validation (model_construct)."""
    for name, limit in _text_limits(type(command)):
        value = getattr(command, name, None)
        texts = value if isinstance(value, tuple | list) else (value,)
        long = next((t for t in texts if isinstance(t, str) and len(t) > limit), None)
        if long is not None:
            raise TextTooLong(
                f"{name}: {len(long):,} characters; send at most {limit:,}",
                ja=f"{name}：{len(long):,} 文字です。{limit:,} 文字以内で送ってください",
            )


@cache
def _text_limits(kind: type[BaseModel]) -> tuple[tuple[str, int], ...]:
    """(field, length bound) of each text field of a command class, asked once per class."""
    found = []
    for name, info in kind.model_fields.items():
        limit = _max_len(info.metadata) if info.annotation is str else _inner(info.annotation)
        if limit is not None:
            found.append((name, limit))
    return tuple(found)


def _inner(annotation: object) -> int | None:
    """The length bound of the text type inside `annotation` (`Id | None`, `tuple[Name, ...]`)."""
    if get_origin(annotation) is Annotated:
        text, *metadata = get_args(annotation)
        return _max_len(metadata) if text is str else _inner(text)
    limits = [_inner(arg) for arg in get_args(annotation)]
    return min((limit for limit in limits if limit is not None), default=None)


def _max_len(metadata: Iterable[object]) -> int | None:
    """The least MaxLen in a field's metadata (a Field(...) keeps its own in `.metadata`)."""
    flat = [inner for m in metadata for inner in (m.metadata if isinstance(m, FieldInfo) else [m])]
    return min((m.max_length for m in flat if isinstance(m, MaxLen)), default=None)
