"""Armor Knights commands: imperative requests a GM or a player issues in a duel."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from domain.rules.armor_knights.sheet import Band, Cell
from domain.rules.armor_knights.state import Lasts, Mode, MStep
from domain.rules.ruleset import Command


class _Acting(Command):
    """A command issued for one unit (by its controller, or by the GM)."""

    unit_id: str = Field(min_length=1)

    @property
    def combatant(self) -> str | None:
        return self.unit_id


class RollFirstMove(Command):
    """AK-TURN-2: the GM starts a turn; each side rolls 1D6, the higher takes the first phase."""

    command_type = "RollFirstMove"


class DeclareAttack(_Acting):
    """AK-ORD-1: attack the opponent with an equipped weapon; `aim` = AK-OOR-1 aim check."""

    command_type = "DeclareAttack"
    weapon: str = Field(min_length=1)
    aim: bool = False


class StartMove(_Acting):
    """AK-MOV-1/2/3: a move along M steps (closer/farther) or F steps (cells, in order).

    `fixed` names one of the sheet's fixed moves (AK-MOV-2); None is a normal move.
    `entry_band` is the M distance on entering the opponent's cell: the rules give none,
    so the table states it and the ruling records it.
    """

    command_type = "StartMove"
    m_steps: tuple[MStep, ...] = ()
    f_steps: tuple[Cell, ...] = ()
    fixed: str | None = None
    entry_band: Band | None = None


class AdvanceMove(_Acting):
    """AK-EXC-1: carry the move in progress on by `steps` (the opponent may answer between)."""

    command_type = "AdvanceMove"
    steps: int = Field(default=1, ge=1)


class Evade(_Acting):
    """AK-EXC-1: evade the attack at the top of the stack (a response; the GM rules its effect)."""

    command_type = "Evade"


class Reload(_Acting):
    """AK-RLD-1: lower one loading weapon's load count by 1 (an active action)."""

    command_type = "Reload"
    weapon: str = Field(min_length=1)


class SwapWeapons(_Acting):
    """AK-SWP-1: stow several equipped weapons, or equip several stowed ones."""

    command_type = "SwapWeapons"
    direction: Literal["stow", "equip"]
    weapons: tuple[str, ...] = Field(min_length=1)


class EndPhase(_Acting):
    """AK-TURN-1/3: the acting unit ends its phase (a move still under way is lost)."""

    command_type = "EndPhase"


class ResolveAttack(Command):
    """AK-ORD-1: the GM rules whether the top check hit (the seed has no hit formula)."""

    command_type = "ResolveAttack"
    hit: bool
    reason: str = Field(min_length=1)


class ApplyArmorEffect(Command):
    """AK-ARM-1: the GM applies a weapon's armour effect with its numbers."""

    command_type = "ApplyArmorEffect"
    target: str = Field(min_length=1)
    armor: str = Field(min_length=1)
    amount: int
    mode: Mode
    lasts: Lasts = "turn"
    reason: str = Field(min_length=1)


class ImposeMoveLimit(Command):
    """AK-MOV-2: the GM records "move −X this turn" or "cannot move" on a unit."""

    command_type = "ImposeMoveLimit"
    target: str = Field(min_length=1)
    penalty: int = Field(default=0, ge=0)
    cannot_move: bool = False
    reason: str = Field(min_length=1)


class DeclareVictory(Command):
    """AK-WIN-1: the GM records a situational victory condition met by `side`."""

    command_type = "DeclareVictory"
    side: str = Field(min_length=1)
    reason: str = Field(min_length=1)


COMMANDS: tuple[type[Command], ...] = (
    RollFirstMove,
    DeclareAttack,
    StartMove,
    AdvanceMove,
    Evade,
    Reload,
    SwapWeapons,
    EndPhase,
    ResolveAttack,
    ApplyArmorEffect,
    ImposeMoveLimit,
    DeclareVictory,
)
