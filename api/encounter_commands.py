"""Typed bodies of `POST /v1/encounters/{id}/commands`: one model per command, told apart by
`command`. They mirror the domain's commands (domain/rules/glorious_drive/commands.py, and
api/encounter_commands_wz.py and _ak.py for the other rulesets), which validate the payload
again; here they give clients a schema and an example of each.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    JsonValue,
    Tag,
    ValidationError,
)

from api.command_base import DICE_FIELDS
from api.command_base import ActingBody as _Acting
from api.command_base import CommandBody as _Body
from api.command_base import example as _example
from api.encounter_commands_ak import AkCommand
from api.encounter_commands_wz import WzCommand
from domain.campaign.bounds import (
    Coordinate,
    Figure,
    Percent,
    Turns,
    check_json_numbers,
)
from domain.rules.glorious_drive.sheet import CheckStat
from domain.rules.glorious_drive.situation import SituationGrade


class SquareBody(BaseModel):
    """A square (GD-SQ-1) as a client sends it: x, y on the map, z the height, each bounded;
    the domain reads it as its `Position`."""

    model_config = ConfigDict(extra="forbid")

    x: Coordinate
    y: Coordinate
    z: Coordinate = 0


SheetJson = Annotated[dict[str, JsonValue], AfterValidator(check_json_numbers)]


class JoinCombatantBody(_Body):
    """GM: bring a combatant in with its sheet (`hidden` keeps the sheet from players)."""

    model_config = _example(
        command="JoinCombatant",
        combatant_id="grunt-1",
        name="量産型AC",
        side="enemy",
        controller="gm",
        sheet={"stats": {"hp": 60}, "position": {"x": 3, "y": 1}},
        hidden=True,
    )
    command: Literal["JoinCombatant"]
    combatant_id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    side: str = Field(min_length=1)
    controller: str = Field(min_length=1, description="A member id, or 'gm'.")
    sheet: SheetJson
    hidden: bool = False


class RollInitiativeBody(_Body):
    """GD-INIT-1/2 (GM): start a turn; everyone able rolls reaction + 1D6."""

    model_config = _example(command="RollInitiative")
    command: Literal["RollInitiative"]


class DelayBody(_Acting):
    """GD-INIT-3: act right after `after` instead."""

    model_config = _example(command="Delay", combatant_id="ace", after="grunt-1")
    command: Literal["Delay"]
    after: str = Field(min_length=1)


class WaitBody(_Acting):
    """GD-MAIN-1: take no step at all this turn."""

    model_config = _example(command="Wait", combatant_id="ace")
    command: Literal["Wait"]


class CleanupBody(_Acting):
    """GD-MAIN-2: run the cleanup step."""

    model_config = _example(command="Cleanup", combatant_id="ace")
    command: Literal["Cleanup"]


class SwapWeaponsBody(_Acting):
    """GD-MAIN-3: swap main and sub weapon."""

    model_config = _example(command="SwapWeapons", combatant_id="ace")
    command: Literal["SwapWeapons"]


class MoveBody(_Acting):
    """GD-MAIN-4 A: enter these squares in order (the start square is not listed)."""

    model_config = _example(
        command="Move", combatant_id="ace", path=[{"x": 2, "y": 1}, {"x": 3, "y": 1}]
    )
    command: Literal["Move"]
    path: list[SquareBody] = Field(min_length=1, max_length=1_000)


class DeclareAttackBody(_Acting):
    """GD-MAIN-5 A: attack a combatant, or a point with an area weapon."""

    model_config = _example(command="DeclareAttack", combatant_id="ace", target="grunt-1")
    command: Literal["DeclareAttack"]
    target: str | None = None
    point: SquareBody | None = None


class ReloadBody(_Acting):
    """GD-MAIN-5 E / GD-RLD: one reload action (default: the main weapon)."""

    model_config = _example(command="Reload", combatant_id="ace", weapon="rifle")
    command: Literal["Reload"]
    weapon: str | None = None


class ForgoActionBody(_Acting):
    """GD-MAIN-5 F: end the action step without an attack."""

    model_config = _example(command="ForgoAction", combatant_id="ace", note="様子を見る")
    command: Literal["ForgoAction"]
    note: str = ""


class LendItemBody(_Acting):
    """GD-MAIN-5 C: offer a general item to an adjacent ally (the borrower must consent)."""

    model_config = _example(
        command="LendItem", combatant_id="ace", item="救急キット", borrower="wing"
    )
    command: Literal["LendItem"]
    item: str | None = None
    borrower: str | None = None


class AcceptLoanBody(_Acting):
    """GD-MAIN-5 C: the borrower (or the GM recording its consent) takes the offered item."""

    model_config = _example(command="AcceptLoan", combatant_id="wing")
    command: Literal["AcceptLoan"]


class DeclineLoanBody(_Acting):
    """GD-MAIN-5 C: the borrower refuses the offered item."""

    model_config = _example(command="DeclineLoan", combatant_id="wing")
    command: Literal["DeclineLoan"]


class SwapEquipmentBody(_Acting):
    """GD-MAIN-5 C: swap carried items and equipment (never the main weapon)."""

    model_config = _example(
        command="SwapEquipment", combatant_id="ace", equip=["暗視ゴーグル"], unequip=["通信機"]
    )
    command: Literal["SwapEquipment"]
    equip: list[str] = Field(default_factory=list)
    unequip: list[str] = Field(default_factory=list)


class UseItemBody(_Acting):
    """GD-MAIN-5 D / GD-MAIN-8: use an item at its own timing."""

    model_config = _example(command="UseItem", combatant_id="ace", item="スモーク", note="視界遮断")
    command: Literal["UseItem"]
    item: str | None = None
    negates_hit: bool = False
    note: str = ""


class TakeOtherActionBody(_Acting):
    """GD-MAIN-5 F (GM): an action doable in 10 s, with the check the GM calls for."""

    model_config = _example(
        command="TakeOtherAction",
        combatant_id="ace",
        action="扉をこじ開ける",
        check_stat="phys_atk",
        difficulty=120,
    )
    command: Literal["TakeOtherAction"]
    action: str | None = None
    check_stat: CheckStat | None = None
    difficulty: Figure | None = None


class AttackUnarmedBody(_Acting):
    """GD-MAIN-6: attack with no main weapon, or bash with a ranged one."""

    model_config = _example(command="AttackUnarmed", combatant_id="ace", target="grunt-1")
    command: Literal["AttackUnarmed"]
    target: str | None = None


class ThrowItemBody(_Acting):
    """GD-MAIN-7: throw a carried (or, by the GM, a nearby) item at a combatant."""

    model_config = _example(
        command="ThrowItem", combatant_id="ace", target="grunt-1", item="鉄パイプ", item_attack=15
    )
    command: Literal["ThrowItem"]
    target: str | None = None
    item: str | None = None
    item_attack: Figure | None = Field(default=None, ge=0)


class UseMovementSkillBody(_Acting):
    """GD-MAIN-4 B: a movement skill instead of a normal move."""

    model_config = _example(
        command="UseMovementSkill",
        combatant_id="ace",
        skill="ブーストダッシュ",
        destination={"x": 6, "y": 1},
    )
    command: Literal["UseMovementSkill"]
    skill: str = Field(min_length=1)
    destination: SquareBody
    note: str = ""


class UseActiveSkillBody(_Acting):
    """GD-MAIN-5 B: an active skill as the action."""

    model_config = _example(command="UseActiveSkill", combatant_id="ace", skill="照準補正")
    command: Literal["UseActiveSkill"]
    skill: str = Field(min_length=1)
    note: str = ""


class UseCounterSkillBody(_Acting):
    """GD-REACT-2: a counter skill as the reaction."""

    model_config = _example(command="UseCounterSkill", combatant_id="ace", skill="カウンター")
    command: Literal["UseCounterSkill"]
    skill: str = Field(min_length=1)
    negates_hit: bool = False
    note: str = ""


class DodgeBody(_Acting):
    """GD-REACT-1: hit + 1D100 against evasion + 1D100."""

    model_config = _example(command="Dodge", combatant_id="ace", client_seed="aoi-lucky")
    command: Literal["Dodge"]


class GuardBody(_Acting):
    """GD-REACT-4: pay the guard cost; the cut reduces the damage."""

    model_config = _example(command="Guard", combatant_id="ace")
    command: Literal["Guard"]


class TakeHitBody(_Acting):
    """GD-REACT-5: no reaction; the attack hits."""

    model_config = _example(command="TakeHit", combatant_id="ace")
    command: Literal["TakeHit"]


class InterceptBody(_Acting):
    """GD-REACT-3: take the attack aimed at `target`."""

    model_config = _example(command="Intercept", combatant_id="ace", target="wing", guard=True)
    command: Literal["Intercept"]
    target: str = Field(min_length=1)
    guard: bool = False


class GrantSituationModifierBody(_Body):
    """GD-DMG-4 (GM): extra damage against one defender of the pending attack."""

    model_config = _example(
        command="GrantSituationModifier",
        defender="grunt-1",
        percent=20,
        grade="medium",
        reason="背後から",
    )
    command: Literal["GrantSituationModifier"]
    defender: str = Field(min_length=1)
    percent: Percent
    grade: SituationGrade | None = None
    reason: str = Field(min_length=1)


class InflictStatusBody(_Body):
    """GD-CHK-2 / GD-REACT-7 (GM): a status on a combatant, who may resist it."""

    model_config = _example(
        command="InflictStatus", target="ace", status="stun", effect_value=2, resist_difficulty=8
    )
    command: Literal["InflictStatus"]
    target: str = Field(min_length=1)
    status: str = Field(min_length=1)
    effect_value: Turns
    resist_difficulty: Figure | None = None


class EndCombatBody(_Body):
    """GD-END-1..3 (GM): the combat is over, and by which clause."""

    model_config = _example(command="EndCombat", clause="GD-END-1", reason="敵全滅")
    command: Literal["EndCombat"]
    clause: Literal["GD-END-1", "GD-END-2", "GD-END-3"]
    reason: str = Field(min_length=1)


GdCommand = Annotated[
    JoinCombatantBody
    | RollInitiativeBody
    | DelayBody
    | WaitBody
    | CleanupBody
    | SwapWeaponsBody
    | MoveBody
    | DeclareAttackBody
    | ReloadBody
    | ForgoActionBody
    | LendItemBody
    | AcceptLoanBody
    | DeclineLoanBody
    | SwapEquipmentBody
    | UseItemBody
    | TakeOtherActionBody
    | AttackUnarmedBody
    | ThrowItemBody
    | UseMovementSkillBody
    | UseActiveSkillBody
    | UseCounterSkillBody
    | DodgeBody
    | GuardBody
    | TakeHitBody
    | InterceptBody
    | GrantSituationModifierBody
    | InflictStatusBody
    | EndCombatBody,
    Field(discriminator="command"),
]

# Wizardry-style round and Armor Knights reuse some names (RollInitiative, EndPhase,
# DeclareAttack ...) with other fields, so the `command` tag alone cannot tell them apart:
# each ruleset has its own tagged union, and `ruleset_of` sends a body to one of them (every
# body forbids unknown fields, so at most one command of a name accepts it). JoinCombatant,
# shared by all, sits in the first.
RULESET_UNIONS: dict[str, Any] = {
    "glorious_drive": GdCommand,
    "wizardry_round": WzCommand,
    "armor_knights": AkCommand,
}


def _bodies(union: Any) -> dict[str, type[BaseModel]]:
    return {
        get_args(body.model_fields["command"].annotation)[0]: body
        for body in get_args(get_args(union)[0])
    }


_BODIES = {ruleset: _bodies(union) for ruleset, union in RULESET_UNIONS.items()}


def ruleset_of(body: Any) -> str | None:
    """Which ruleset's union reads `body` (None: no ruleset has such a command): the first
    whose command of that name accepts it, else the first with every field it sends."""
    if isinstance(body, BaseModel):
        return next(r for r, bodies in _BODIES.items() if type(body) in bodies.values())
    if not isinstance(body, dict):
        return None
    name = body.get("command")
    if not isinstance(name, str):
        return None
    named = [(r, bodies[name]) for r, bodies in _BODIES.items() if name in bodies]
    for ruleset, model in named:
        try:
            model.model_validate(body)
        except ValidationError:
            continue
        return ruleset
    sent = set(body) - DICE_FIELDS
    fitting = [r for r, model in named if sent <= set(model.model_fields)]
    return next(iter(fitting + [r for r, _ in named]), None)


EncounterCommand = Annotated[
    Annotated[GdCommand, Tag("glorious_drive")]
    | Annotated[WzCommand, Tag("wizardry_round")]
    | Annotated[AkCommand, Tag("armor_knights")],
    Discriminator(
        ruleset_of,
        custom_error_type="unknown_command",
        custom_error_message="`command` names no command of any ruleset",
    ),
]
