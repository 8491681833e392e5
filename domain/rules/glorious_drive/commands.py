"""Glorious Drive commands: imperative requests a GM or a player issues in an encounter."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.position import Position
from domain.rules.glorious_drive.sheet import CheckStat
from domain.rules.glorious_drive.situation import SituationGrade
from domain.rules.ruleset import Command


class _Acting(Command):
    """A command issued for one combatant (by its controller, or by the GM)."""

    combatant_id: str = Field(min_length=1)

    @property
    def combatant(self) -> str | None:
        return self.combatant_id


class RollInitiative(Command):
    """GD-INIT-1/2: the GM starts a turn; everyone able rolls reaction + 1D6."""

    command_type = "RollInitiative"


class Delay(_Acting):
    """GD-INIT-3: act right after `after` instead (never earlier)."""

    command_type = "Delay"
    after: str = Field(min_length=1)


class Wait(_Acting):
    """GD-MAIN-1: take no step at all this turn."""

    command_type = "Wait"


class Cleanup(_Acting):
    """GD-MAIN-2: run the cleanup step (status expiry and recovery, faint recovery)."""

    command_type = "Cleanup"


class SwapWeapons(_Acting):
    """GD-MAIN-3: swap main and sub weapon."""

    command_type = "SwapWeapons"


class Move(_Acting):
    """GD-MAIN-4 A: enter these squares in order (the start square is not listed)."""

    command_type = "Move"
    path: tuple[Position, ...] = Field(min_length=1)


class DeclareAttack(_Acting):
    """GD-MAIN-5 A: attack a combatant, or a target point with an area weapon."""

    command_type = "DeclareAttack"
    target: str | None = None
    point: Position | None = None


class Reload(_Acting):
    """GD-MAIN-5 E / GD-RLD: one reload action on a weapon (default: the main weapon)."""

    command_type = "Reload"
    weapon: str | None = None


class ForgoAction(_Acting):
    """GD-MAIN-5: end the action step with no action (a GM-judged one is TakeOtherAction)."""

    command_type = "ForgoAction"
    note: str = ""


def named(value: str | None, rule_id: str, what: str) -> str:
    """A name the command must give (optional in the schema, like DeclareAttack's target)."""
    if not value:
        raise RuleViolation(rule_id, f"name the {what}")
    return value


class LendItem(_Acting):
    """GD-MAIN-5 C: offer a general item to an adjacent ally; the borrower must consent."""

    command_type = "LendItem"
    item: str | None = None
    borrower: str | None = None


class AcceptLoan(_Acting):
    """GD-MAIN-5 C: the borrower (or the GM recording its consent) takes the offered item."""

    command_type = "AcceptLoan"


class DeclineLoan(_Acting):
    """GD-MAIN-5 C: the borrower refuses the offered item; the lender chooses another action."""

    command_type = "DeclineLoan"


class SwapEquipment(_Acting):
    """GD-MAIN-5 C: swap carried items and equipment (never the main weapon)."""

    command_type = "SwapEquipment"
    equip: tuple[str, ...] = ()
    unequip: tuple[str, ...] = ()


class UseItem(_Acting):
    """GD-MAIN-5 D / GD-MAIN-8: use an item at its timing; its effect is the GM's to apply."""

    command_type = "UseItem"
    item: str | None = None
    negates_hit: bool = False
    note: str = ""


class TakeOtherAction(_Acting):
    """GD-MAIN-5 F (GM): an action doable in 10 s, with the check the GM calls for, if any."""

    command_type = "TakeOtherAction"
    action: str | None = None
    check_stat: CheckStat | None = None
    difficulty: int | None = None


class AttackUnarmed(_Acting):
    """GD-MAIN-6: attack with no main weapon, or bash with a ranged main weapon."""

    command_type = "AttackUnarmed"
    target: str | None = None


class ThrowItem(_Acting):
    """GD-MAIN-7: throw a carried item (or, by the GM, a nearby one) at a combatant.

    `item_attack` is the GM's: the physical attack of a nearby item, or a carried item's
    attack lowered because the throw cannot do what the item was made for.
    """

    command_type = "ThrowItem"
    target: str | None = None
    item: str | None = None
    item_attack: int | None = Field(default=None, ge=0)


class UseMovementSkill(_Acting):
    """GD-MAIN-4 B: one movement skill (移動行動スキル) instead of a normal move."""

    command_type = "UseMovementSkill"
    skill: str = Field(min_length=1)
    destination: Position
    note: str = ""


class UseActiveSkill(_Acting):
    """GD-MAIN-5 B: one active skill as the action; its effect is the GM's to apply."""

    command_type = "UseActiveSkill"
    skill: str = Field(min_length=1)
    note: str = ""


class UseCounterSkill(_Acting):
    """GD-REACT-2: a counter skill as the reaction; only the GM may rule that it stops the hit."""

    command_type = "UseCounterSkill"
    skill: str = Field(min_length=1)
    negates_hit: bool = False
    note: str = ""


class Dodge(_Acting):
    """GD-REACT-1: hit + 1D100 against evasion + 1D100."""

    command_type = "Dodge"


class Guard(_Acting):
    """GD-REACT-4: pay the main weapon's guard cost; its cut reduces the damage."""

    command_type = "Guard"


class TakeHit(_Acting):
    """GD-REACT-5: no reaction (待機); the attack hits."""

    command_type = "TakeHit"


class Intercept(_Acting):
    """GD-REACT-3: take the attack aimed across this combatant at `target` (GD-REACT-4: guard)."""

    command_type = "Intercept"
    target: str = Field(min_length=1)
    guard: bool = False


class GrantSituationModifier(Command):
    """GD-DMG-4: the GM grants extra damage against one defender of the pending attack."""

    command_type = "GrantSituationModifier"
    defender: str = Field(min_length=1)
    percent: int
    grade: SituationGrade | None = None
    reason: str = Field(min_length=1)


class InflictStatus(Command):
    """GD-CHK-2 / GD-REACT-7: the GM puts a status on a combatant, who may resist it.

    `resist_difficulty` is the skill's or the GM's (GD-REACT-7a); None falls back on the
    option `status_resistance_default_difficulty`, and without either no check is made.
    """

    command_type = "InflictStatus"
    target: str = Field(min_length=1)
    status: str = Field(min_length=1)
    effect_value: int = Field(ge=1)
    resist_difficulty: int | None = None


class EndCombat(Command):
    """GD-END-1..3: the GM records that the combat is over, and by which clause."""

    command_type = "EndCombat"
    clause: Literal["GD-END-1", "GD-END-2", "GD-END-3"]
    reason: str = Field(min_length=1)


COMMANDS: tuple[type[Command], ...] = (
    RollInitiative,
    Delay,
    Wait,
    Cleanup,
    SwapWeapons,
    Move,
    DeclareAttack,
    Reload,
    ForgoAction,
    LendItem,
    AcceptLoan,
    DeclineLoan,
    SwapEquipment,
    UseItem,
    TakeOtherAction,
    AttackUnarmed,
    ThrowItem,
    UseMovementSkill,
    UseActiveSkill,
    UseCounterSkill,
    Dodge,
    Guard,
    TakeHit,
    Intercept,
    GrantSituationModifier,
    InflictStatus,
    EndCombat,
)
