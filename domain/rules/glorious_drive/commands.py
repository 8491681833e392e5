"""Glorious Drive commands: imperative requests a GM or a player issues in an encounter.

Each class is declared once: the domain reads it, and the HTTP API serves it as the body of
`POST /v1/encounters/{id}/commands` (its docstring, bounds and example are the schema's).
Every number a client sends is bounded (domain/campaign/bounds.py); stored events are not.
Its handler declares the rest (`DECLARED.command`: where the procedure awaits it, its labels);
the order written here is the order of the bodies and of the commands a step awaits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field

from domain.campaign.bounds import LIST, Coordinate, Figure, Id, Name, Percent, Said, Text, Turns
from domain.rules.declare import Declarations
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.position import Position
from domain.rules.glorious_drive.sheet import CheckStat
from domain.rules.glorious_drive.situation import SituationGrade
from domain.rules.ruleset import Command, example

if TYPE_CHECKING:
    from domain.rules.glorious_drive.run import Run

Step = Literal[
    "initiative",  # GD-INIT-1: the GM starts a turn
    "any_time",  # the GM's, whenever the fight runs
    "start_of_phase",  # GD-MAIN-1/2, GD-INIT-3: before the character goes on
    "delay",  # GD-INIT-3: only with someone after it
    "cleanup",  # GD-MAIN-2 (a fainted character's only one, GD-INJ-1)
    "weapon_swap",  # GD-MAIN-3
    "move",  # GD-MAIN-4 A
    "movement_skill",  # GD-MAIN-4 B: with a movement skill, in the swap or move step
    "active_skill",  # GD-MAIN-5 B: with an active skill, the action not spent
    "action",  # GD-MAIN-5 A-F: the action step (a step accepts later steps' commands)
    "action_spent",  # GD-MAIN-5 C: what a borrower who spent its action may still do
    "other_action",  # GD-MAIN-5 F: the GM's, for the acting character
    "loan",  # GD-MAIN-5 C: the borrower's consent
    "reaction",  # GD-REACT: every defender of the pending attack
    "guard",  # GD-REACT-4: a defender whose main weapon has a cut
    "counter",  # GD-REACT-2: a defender with a counter skill
    "reaction_item",  # GD-MAIN-8: a defender with a reaction item
    "intercept",  # GD-REACT-3: whoever the attack passes across
    "situation",  # GD-DMG-4: the GM, while the attack is pending
]
"""Where the procedure (procedure.py) awaits a command: a declaration names its step(s)."""

DECLARED: Declarations[Run, Step] = Declarations(get_args(Step))


class Square(Position):
    """A square (GD-SQ-1) as a command names it: x, y on the map, z the height, each bounded;
    the rules read it as the plain `Position` it names."""

    x: Coordinate
    y: Coordinate
    z: Coordinate = 0


def _fields(value: object) -> object:
    return value.model_dump() if isinstance(value, Position) else value


def _plain(square: Square) -> Position:
    # Positions compare (and hash) by type as well as fields: a command's squares must be
    # plain Positions to match the board's. (Typed Square, a Position with bounds, for mypy.)
    return Position(x=square.x, y=square.y, z=square.z)


NamedSquare = Annotated[Square, BeforeValidator(_fields), AfterValidator(_plain)]


class Acting(Command):
    """A command issued for one combatant (by its controller, or by the GM)."""

    combatant_id: Id = Field(description="The combatant this command acts for.")

    @property
    def combatant(self) -> str | None:
        return self.combatant_id


class RollInitiative(Command):
    """GD-INIT-1/2: the GM starts a turn; everyone able rolls reaction + 1D6."""

    model_config = example()
    command_type = "RollInitiative"


class Delay(Acting):
    """GD-INIT-3: act right after `after` instead (never earlier)."""

    model_config = example(combatant_id="ace", after="grunt-1")
    command_type = "Delay"
    after: Id


class Wait(Acting):
    """GD-MAIN-1: take no step at all this turn."""

    model_config = example(combatant_id="ace")
    command_type = "Wait"


class Cleanup(Acting):
    """GD-MAIN-2: run the cleanup step (status expiry and recovery, faint recovery)."""

    model_config = example(combatant_id="ace")
    command_type = "Cleanup"


class SwapWeapons(Acting):
    """GD-MAIN-3: swap main and sub weapon."""

    model_config = example(combatant_id="ace")
    command_type = "SwapWeapons"


class Move(Acting):
    """GD-MAIN-4 A: enter these squares in order (the start square is not listed)."""

    model_config = example(combatant_id="ace", path=[{"x": 2, "y": 1}, {"x": 3, "y": 1}])
    command_type = "Move"
    path: tuple[NamedSquare, ...] = Field(min_length=1, max_length=1_000)


class DeclareAttack(Acting):
    """GD-MAIN-5 A: attack a combatant, or a target point with an area weapon."""

    model_config = example(combatant_id="ace", target="grunt-1")
    command_type = "DeclareAttack"
    target: Id | None = None
    point: NamedSquare | None = None


class AttackUnarmed(Acting):
    """GD-MAIN-6: attack with no main weapon, or bash with a ranged main weapon."""

    model_config = example(combatant_id="ace", target="grunt-1")
    command_type = "AttackUnarmed"
    target: Id | None = None


class ThrowItem(Acting):
    """GD-MAIN-7: throw a carried item (or, by the GM, a nearby one) at a combatant.

    `item_attack` is the GM's: the physical attack of a nearby item, or a carried item's
    attack lowered because the throw cannot do what the item was made for.
    """

    model_config = example(combatant_id="ace", target="grunt-1", item="鉄パイプ", item_attack=15)
    command_type = "ThrowItem"
    target: Id | None = None
    item: Name | None = None
    item_attack: Figure | None = Field(default=None, ge=0)


# What `named` asks for, in Japanese (the refusal says it in both languages).
_NAMED_JA = {
    "action the GM judges doable in 10 s": "GMが10秒で行えると判断する行動",
    "borrower": "借りる側",
    "item to lend": "貸与するアイテム",
    "item to use": "使用するアイテム",
    "item to throw": "投擲するアイテム",
    "target": "対象",
}


def named(value: str | None, rule_id: str, what: str) -> str:
    """A name the command must give (optional in the schema, like DeclareAttack's target)."""
    if not value:
        raise RuleViolation(
            rule_id, f"name the {what}", ja=f"{_NAMED_JA.get(what, what)}を指定してください"
        )
    return value


class LendItem(Acting):
    """GD-MAIN-5 C: offer a general item to an adjacent ally; the borrower must consent."""

    model_config = example(combatant_id="ace", item="救急キット", borrower="wing")
    command_type = "LendItem"
    item: Name | None = None
    borrower: Id | None = None


class AcceptLoan(Acting):
    """GD-MAIN-5 C: the borrower (or the GM recording its consent) takes the offered item."""

    model_config = example(combatant_id="wing")
    command_type = "AcceptLoan"


class DeclineLoan(Acting):
    """GD-MAIN-5 C: the borrower refuses the offered item; the lender chooses another action."""

    model_config = example(combatant_id="wing")
    command_type = "DeclineLoan"


class SwapEquipment(Acting):
    """GD-MAIN-5 C: swap carried items and equipment (never the main weapon)."""

    model_config = example(combatant_id="ace", equip=["暗視ゴーグル"], unequip=["通信機"])
    command_type = "SwapEquipment"
    equip: tuple[Name, ...] = Field(default=(), max_length=LIST)
    unequip: tuple[Name, ...] = Field(default=(), max_length=LIST)


class UseItem(Acting):
    """GD-MAIN-5 D / GD-MAIN-8: use an item at its timing; its effect is the GM's to apply."""

    model_config = example(combatant_id="ace", item="スモーク", note="視界遮断")
    command_type = "UseItem"
    item: Name | None = None
    negates_hit: bool = False
    note: Text = ""


class Reload(Acting):
    """GD-MAIN-5 E / GD-RLD: one reload action on a weapon (default: the main weapon)."""

    model_config = example(combatant_id="ace", weapon="rifle")
    command_type = "Reload"
    weapon: Name | None = None


class ForgoAction(Acting):
    """GD-MAIN-5: end the action step with no action (a GM-judged one is TakeOtherAction)."""

    model_config = example(combatant_id="ace", note="様子を見る")
    command_type = "ForgoAction"
    note: Text = ""


class TakeOtherAction(Acting):
    """GD-MAIN-5 F (GM): an action doable in 10 s, with the check the GM calls for, if any."""

    model_config = example(
        combatant_id="ace", action="扉をこじ開ける", check_stat="phys_atk", difficulty=120
    )
    command_type = "TakeOtherAction"
    action: Said | None = None
    check_stat: CheckStat | None = None
    difficulty: Figure | None = None


class UseMovementSkill(Acting):
    """GD-MAIN-4 B: one movement skill (移動行動スキル) instead of a normal move."""

    model_config = example(
        combatant_id="ace", skill="ブーストダッシュ", destination={"x": 6, "y": 1}
    )
    command_type = "UseMovementSkill"
    skill: Name
    destination: NamedSquare
    note: Text = ""


class UseActiveSkill(Acting):
    """GD-MAIN-5 B: one active skill as the action; its effect is the GM's to apply."""

    model_config = example(combatant_id="ace", skill="照準補正")
    command_type = "UseActiveSkill"
    skill: Name
    note: Text = ""


class UseCounterSkill(Acting):
    """GD-REACT-2: a counter skill as the reaction; only the GM may rule that it stops the hit."""

    model_config = example(combatant_id="ace", skill="カウンター")
    command_type = "UseCounterSkill"
    skill: Name
    negates_hit: bool = False
    note: Text = ""


class Dodge(Acting):
    """GD-REACT-1: hit + 1D100 against evasion + 1D100."""

    model_config = example(combatant_id="ace")
    command_type = "Dodge"


class Guard(Acting):
    """GD-REACT-4: pay the main weapon's guard cost; its cut reduces the damage."""

    model_config = example(combatant_id="ace")
    command_type = "Guard"


class TakeHit(Acting):
    """GD-REACT-5: no reaction (待機); the attack hits."""

    model_config = example(combatant_id="ace")
    command_type = "TakeHit"


class Intercept(Acting):
    """GD-REACT-3: take the attack aimed across this combatant at `target` (GD-REACT-4: guard)."""

    model_config = example(combatant_id="ace", target="wing", guard=True)
    command_type = "Intercept"
    target: Id
    guard: bool = False


class GrantSituationModifier(Command):
    """GD-DMG-4: the GM grants extra damage against one defender of the pending attack."""

    model_config = example(defender="grunt-1", percent=20, grade="medium", reason="背後から")
    command_type = "GrantSituationModifier"
    defender: Id
    percent: Percent
    grade: SituationGrade | None = None
    reason: Said


class InflictStatus(Command):
    """GD-CHK-2 / GD-REACT-7: the GM puts a status on a combatant, who may resist it.

    `resist_difficulty` is the skill's or the GM's (GD-REACT-7a); None falls back on the
    option `status_resistance_default_difficulty`, and without either no check is made.
    """

    model_config = example(target="ace", status="stun", effect_value=2, resist_difficulty=8)
    command_type = "InflictStatus"
    target: Id
    status: Id
    effect_value: Turns
    resist_difficulty: Figure | None = None


class EndCombat(Command):
    """GD-END-1..3: the GM records that the combat is over, and by which clause."""

    model_config = example(clause="GD-END-1", reason="敵全滅")
    command_type = "EndCombat"
    clause: Literal["GD-END-1", "GD-END-2", "GD-END-3"]
    reason: Said
