"""Typed command bodies for the Wizardry-style round (domain/rules/wizardry_round/commands.py).

The domain validates each payload again; these give clients a schema and an example each.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from api.command_base import ActingBody, CommandBody, example
from domain.campaign.bounds import Figure, Initiative, Penalty
from domain.rules.wizardry_round.events import Fallback
from domain.rules.wizardry_round.state import Form


class WzResolveSurpriseBody(CommandBody):
    """WZ-1 (GM): rule on surprise; round 1 follows."""

    model_config = example(command="ResolveSurprise", note="敵は気付いていた: 不意打ちなし")
    command: Literal["ResolveSurprise"]
    surprising: list[str] = Field(default_factory=list)
    note: str = Field(min_length=1)


class WzRollCheckBody(ActingBody):
    """A check by dice expression; the fatigue die penalty is added to a 1d20."""

    model_config = example(
        command="RollCheck", combatant_id="fighter", expression="1D20+4", note="斬りかかる"
    )
    command: Literal["RollCheck"]
    expression: str = Field(min_length=1)
    note: str = ""


class WzRuleCheckBody(CommandBody):
    """The GM rules on the pending check: success or not (null: no such thing) and why."""

    model_config = example(command="RuleCheck", success=True, outcome="ゴブリンに命中")
    command: Literal["RuleCheck"]
    success: bool | None = None
    outcome: str = Field(min_length=1)


class WzNameIdentificationBody(CommandBody):
    """WZ-4 (GM): a creature's identification difficulty and academic skill."""

    model_config = example(command="NameIdentification", target="ogre", difficulty=12, skill="lore")
    command: Literal["NameIdentification"]
    target: str = Field(min_length=1)
    difficulty: Figure
    skill: str = Field(min_length=1)


class WzEndPhaseBody(CommandBody):
    """WZ-4, WZ-6, WZ-9, WZ-10 (GM): close a phase that waits on the table."""

    model_config = example(command="EndPhase")
    command: Literal["EndPhase"]


class WzDeclareBody(ActingBody):
    """WZ-5: (a) sub + main + passive, (b) sub + main, (c) full; free actions; an INI."""

    model_config = example(
        command="Declare",
        combatant_id="fighter",
        form="b",
        sub="combat move",
        main="attack",
        ini=14,
    )
    command: Literal["Declare"]
    form: Form
    sub: str | None = None
    main: str | None = None
    passive: str | None = None
    full: str | None = None
    free: list[str] = Field(default_factory=list)
    two_handed_attack: bool = False
    ini: Initiative


class WzDeclareFormationBody(ActingBody):
    """WZ-6: a Formation skill of this combatant, paid with TP from its pool."""

    model_config = example(
        command="DeclareFormation", combatant_id="mage", formation="鶴翼の陣", cost=2
    )
    command: Literal["DeclareFormation"]
    formation: str = Field(min_length=1)
    cost: Penalty


class WzRollInitiativeBody(CommandBody):
    """WZ-7 (GM): the PCs' representative and the GM each roll 1d10."""

    model_config = example(command="RollInitiative", representative="fighter")
    command: Literal["RollInitiative"]
    representative: str = Field(min_length=1)


class WzActBody(ActingBody):
    """WZ-8: carry out the declaration in one's inning (its checks are rolled by RollCheck)."""

    model_config = example(command="Act", combatant_id="fighter", note="ゴブリンを斬る")
    command: Literal["Act"]
    note: str = ""


class WzDropDeclarationBody(ActingBody):
    """WZ-8 (A)–(F): drop the declaration and take a fallback."""

    model_config = example(
        command="DropDeclaration", combatant_id="ogre", fallback="defensive_stance"
    )
    command: Literal["DropDeclaration"]
    fallback: Fallback


class WzInflictStatusBody(CommandBody):
    """WZ-8 (GM): a bad status on a combatant (in an inning: from its end)."""

    model_config = example(
        command="InflictStatus", target="fighter", status="paralysis", incapacitating=True
    )
    command: Literal["InflictStatus"]
    target: str = Field(min_length=1)
    status: str = Field(min_length=1)
    incapacitating: bool = False


class WzRemoveStatusBody(CommandBody):
    """WZ-9 (GM): end a bad status (a recovery check, a healing item, a spell)."""

    model_config = example(command="RemoveStatus", target="fighter", status="paralysis")
    command: Literal["RemoveStatus"]
    target: str = Field(min_length=1)
    status: str = Field(min_length=1)


class WzEndCombatBody(CommandBody):
    """(GM): the fight is over (the seed has no end-of-combat rule)."""

    model_config = example(command="EndCombat", reason="オーガが降伏した")
    command: Literal["EndCombat"]
    reason: str = Field(min_length=1)


WzCommand = Annotated[
    WzResolveSurpriseBody
    | WzRollCheckBody
    | WzRuleCheckBody
    | WzNameIdentificationBody
    | WzEndPhaseBody
    | WzDeclareBody
    | WzDeclareFormationBody
    | WzRollInitiativeBody
    | WzActBody
    | WzDropDeclarationBody
    | WzInflictStatusBody
    | WzRemoveStatusBody
    | WzEndCombatBody,
    Field(discriminator="command"),
]
