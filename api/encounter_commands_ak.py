"""Typed command bodies for Armor Knights (domain/rules/armor_knights/commands.py).

The domain validates each payload again; these give clients a schema and an example each.
A unit is named by `unit_id`, as the ruleset's commands name it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from api.command_base import CommandBody, example
from domain.campaign.bounds import SQUARES, Figure, Penalty, Turns
from domain.rules.armor_knights.sheet import Band
from domain.rules.armor_knights.state import Lasts, Mode, MStep


class _Unit(CommandBody):
    unit_id: str = Field(min_length=1, description="The unit this command acts for.")


class AkRollFirstMoveBody(CommandBody):
    """AK-TURN-2 (GM): start a turn; each side rolls 1D6, the higher takes the first phase."""

    model_config = example(command="RollFirstMove")
    command: Literal["RollFirstMove"]


class AkDeclareAttackBody(_Unit):
    """AK-ORD-1: attack the opponent with an equipped weapon; `aim`: the AK-OOR-1 aim check."""

    model_config = example(command="DeclareAttack", unit_id="red", weapon="rifle", aim=False)
    command: Literal["DeclareAttack"]
    weapon: str = Field(min_length=1)
    aim: bool = False


class AkCellBody(BaseModel):
    """A cell of the field (AK-DST-1) as a client sends it; the domain reads it as a `Cell`."""

    model_config = ConfigDict(extra="forbid")

    x: Annotated[int, Field(ge=0, le=SQUARES)]
    y: Annotated[int, Field(ge=0, le=SQUARES)]


class AkStartMoveBody(_Unit):
    """AK-MOV-1/2/3: a move along M steps or F steps (cells, in order), or a fixed move."""

    model_config = example(
        command="StartMove", unit_id="red", f_steps=[{"x": 1, "y": 0}, {"x": 2, "y": 0}]
    )
    command: Literal["StartMove"]
    m_steps: list[MStep] = Field(default_factory=list, max_length=1_000)
    f_steps: list[AkCellBody] = Field(default_factory=list, max_length=1_000)
    fixed: str | None = None
    entry_band: Band | None = None


class AkAdvanceMoveBody(_Unit):
    """AK-EXC-1: carry the move in progress on by `steps`."""

    model_config = example(command="AdvanceMove", unit_id="red", steps=2)
    command: Literal["AdvanceMove"]
    steps: Turns = 1


class AkEvadeBody(_Unit):
    """AK-EXC-1: evade the attack at the top of the stack (the GM rules its effect)."""

    model_config = example(command="Evade", unit_id="blue")
    command: Literal["Evade"]


class AkReloadBody(_Unit):
    """AK-RLD-1: lower one loading weapon's load count by 1."""

    model_config = example(command="Reload", unit_id="red", weapon="cannon")
    command: Literal["Reload"]
    weapon: str = Field(min_length=1)


class AkSwapWeaponsBody(_Unit):
    """AK-SWP-1: stow several equipped weapons, or equip several stowed ones."""

    model_config = example(
        command="SwapWeapons", unit_id="blue", direction="equip", weapons=["blade"]
    )
    command: Literal["SwapWeapons"]
    direction: Literal["stow", "equip"]
    weapons: list[str] = Field(min_length=1)


class AkEndPhaseBody(_Unit):
    """AK-TURN-1/3: the acting unit ends its phase (a move still under way is lost)."""

    model_config = example(command="EndPhase", unit_id="red")
    command: Literal["EndPhase"]


class AkResolveAttackBody(CommandBody):
    """AK-ORD-1 (GM): whether the top check hit (the seed has no hit formula)."""

    model_config = example(command="ResolveAttack", hit=True, reason="GM: 直撃")
    command: Literal["ResolveAttack"]
    hit: bool
    reason: str = Field(min_length=1)


class AkApplyArmorEffectBody(CommandBody):
    """AK-ARM-1 (GM): a weapon's armour effect, with its numbers."""

    model_config = example(
        command="ApplyArmorEffect",
        target="blue",
        armor="physical",
        amount=-6,
        mode="reduced",
        lasts="turn",
        reason="GM: ライフル命中",
    )
    command: Literal["ApplyArmorEffect"]
    target: str = Field(min_length=1)
    armor: str = Field(min_length=1)
    amount: Figure
    mode: Mode
    lasts: Lasts = "turn"
    reason: str = Field(min_length=1)


class AkImposeMoveLimitBody(CommandBody):
    """AK-MOV-2 (GM): "move −X this turn" or "cannot move" on a unit."""

    model_config = example(
        command="ImposeMoveLimit", target="blue", penalty=1, reason="GM: 脚部損傷"
    )
    command: Literal["ImposeMoveLimit"]
    target: str = Field(min_length=1)
    penalty: Penalty = 0
    cannot_move: bool = False
    reason: str = Field(min_length=1)


class AkDeclareVictoryBody(CommandBody):
    """AK-WIN-1 (GM): a situational victory condition met by `side`."""

    model_config = example(command="DeclareVictory", side="red", reason="GM: 拠点を制圧")
    command: Literal["DeclareVictory"]
    side: str = Field(min_length=1)
    reason: str = Field(min_length=1)


AkCommand = Annotated[
    AkRollFirstMoveBody
    | AkDeclareAttackBody
    | AkStartMoveBody
    | AkAdvanceMoveBody
    | AkEvadeBody
    | AkReloadBody
    | AkSwapWeaponsBody
    | AkEndPhaseBody
    | AkResolveAttackBody
    | AkApplyArmorEffectBody
    | AkImposeMoveLimitBody
    | AkDeclareVictoryBody,
    Field(discriminator="command"),
]
