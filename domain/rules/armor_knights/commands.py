"""Armor Knights commands: imperative requests a GM or a player issues in a duel.

Each class is declared once: the domain reads it, and the HTTP API serves it as a body of
`POST /v1/encounters/{id}/commands` (docstring, bounds and example included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field

from domain.campaign.bounds import LIST, SQUARES, Figure, Id, Name, Penalty, Said, Turns
from domain.rules.armor_knights.sheet import Band, Cell
from domain.rules.armor_knights.state import Lasts, Mode, MStep
from domain.rules.declare import Declarations
from domain.rules.ruleset import Command, example

if TYPE_CHECKING:
    from domain.rules.armor_knights.run import Run

Step = Literal[
    "any_time",  # the GM's, whenever the fight runs
    "first_move",  # AK-TURN-2: the GM rolls who moves first
    "act",  # AK-TURN-1: the acting unit's phase
    "moving",  # AK-MOV: a move under way goes on
    "reload",  # AK-RLD: with the reload skill and a weapon to load
    "swap",  # AK-SWP-1: with the swap skill
    "end_phase",  # AK-TURN-3: the acting unit ends its phase
    "counter_attack",  # AK-ORD-1: a unit with counter-attack answers (a check, a move)
    "evade",  # AK-ORD-1: the target evades the top check (once)
    "response_move",  # AK-ORD-1: the target answers with an emergency move
    "ruling",  # AK-ORD-1: the GM rules the top check
]
"""Where the procedure (procedure.py) awaits a command: a declaration names its step(s)."""

DECLARED: Declarations[Run, Step] = Declarations(get_args(Step))


class FieldCell(Cell):
    """A cell of the field (AK-DST-1) as a command names it, each coordinate bounded; the
    rules read it as the plain `Cell` it names."""

    x: Annotated[int, Field(ge=0, le=SQUARES)]
    y: Annotated[int, Field(ge=0, le=SQUARES)]


def _fields(value: object) -> object:
    return value.model_dump() if isinstance(value, Cell) else value


def _plain(cell: FieldCell) -> Cell:
    # Cells compare (and hash) by type as well as fields: a command's cells must be plain
    # Cells to match the field's. (Typed FieldCell, a Cell with bounds, for mypy.)
    return Cell(x=cell.x, y=cell.y)


NamedCell = Annotated[FieldCell, BeforeValidator(_fields), AfterValidator(_plain)]


class Acting(Command):
    """A command issued for one unit (by its controller, or by the GM)."""

    unit_id: Id = Field(description="The unit this command acts for.")

    @property
    def combatant(self) -> str | None:
        return self.unit_id


class RollFirstMove(Command):
    """AK-TURN-2: the GM starts a turn; each side rolls 1D6, the higher takes the first phase."""

    model_config = example()
    command_type = "RollFirstMove"


class DeclareAttack(Acting):
    """AK-ORD-1: attack the opponent with an equipped weapon; `aim` = AK-OOR-1 aim check."""

    model_config = example(unit_id="red", weapon="rifle", aim=False)
    command_type = "DeclareAttack"
    weapon: Name
    aim: bool = False


class StartMove(Acting):
    """AK-MOV-1/2/3: a move along M steps (closer/farther) or F steps (cells, in order).

    `fixed` names one of the sheet's fixed moves (AK-MOV-2); None is a normal move.
    `entry_band` is the M distance on entering the opponent's cell: the rules give none,
    so the table states it and the ruling records it.
    """

    model_config = example(unit_id="red", f_steps=[{"x": 1, "y": 0}, {"x": 2, "y": 0}])
    command_type = "StartMove"
    m_steps: tuple[MStep, ...] = Field(default=(), max_length=1_000)
    f_steps: tuple[NamedCell, ...] = Field(default=(), max_length=1_000)
    fixed: Name | None = None
    entry_band: Band | None = None


class AdvanceMove(Acting):
    """AK-EXC-1: carry the move in progress on by `steps` (the opponent may answer between)."""

    model_config = example(unit_id="red", steps=2)
    command_type = "AdvanceMove"
    steps: Turns = 1


class Evade(Acting):
    """AK-EXC-1: evade the attack at the top of the stack (a response; the GM rules its effect)."""

    model_config = example(unit_id="blue")
    command_type = "Evade"


class Reload(Acting):
    """AK-RLD-1: lower one loading weapon's load count by 1 (an active action)."""

    model_config = example(unit_id="red", weapon="cannon")
    command_type = "Reload"
    weapon: Name


class SwapWeapons(Acting):
    """AK-SWP-1: stow several equipped weapons, or equip several stowed ones."""

    model_config = example(unit_id="blue", direction="equip", weapons=["blade"])
    command_type = "SwapWeapons"
    direction: Literal["stow", "equip"]
    weapons: tuple[Name, ...] = Field(min_length=1, max_length=LIST)


class EndPhase(Acting):
    """AK-TURN-1/3: the acting unit ends its phase (a move still under way is lost)."""

    model_config = example(unit_id="red")
    command_type = "EndPhase"


class ResolveAttack(Command):
    """AK-ORD-1: the GM rules whether the top check hit (the seed has no hit formula)."""

    model_config = example(hit=True, reason="GM: 直撃")
    command_type = "ResolveAttack"
    hit: bool
    reason: Said


class ApplyArmorEffect(Command):
    """AK-ARM-1: the GM applies a weapon's armour effect with its numbers."""

    model_config = example(
        target="blue",
        armor="physical",
        amount=-6,
        mode="reduced",
        lasts="turn",
        reason="GM: ライフル命中",
    )
    command_type = "ApplyArmorEffect"
    target: Id
    armor: Name
    amount: Figure
    mode: Mode
    lasts: Lasts = "turn"
    reason: Said


class ImposeMoveLimit(Command):
    """AK-MOV-2: the GM records "move −X this turn" or "cannot move" on a unit."""

    model_config = example(target="blue", penalty=1, reason="GM: 脚部損傷")
    command_type = "ImposeMoveLimit"
    target: Id
    penalty: Penalty = 0
    cannot_move: bool = False
    reason: Said


class DeclareVictory(Command):
    """AK-WIN-1: the GM records a situational victory condition met by `side`."""

    model_config = example(side="red", reason="GM: 拠点を制圧")
    command_type = "DeclareVictory"
    side: Id
    reason: Said
