"""WZ commands: imperative requests a GM or a player issues in an encounter.

Each class is declared once: the domain reads it, and the HTTP API serves it as a body of
`POST /v1/encounters/{id}/commands` (docstring, bounds and example included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, get_args

from pydantic import Field

from domain.campaign.bounds import LIST, Figure, Id, Initiative, Name, Penalty, Said, Text
from domain.rules.declare import Declarations
from domain.rules.ruleset import Command, example
from domain.rules.wizardry_round.events import Fallback
from domain.rules.wizardry_round.state import Form

if TYPE_CHECKING:
    from domain.rules.wizardry_round.run import Run

Step = Literal[
    "any_time",  # the GM's, whenever the fight runs
    "ruling",  # WZ-1: the GM rules on the check that waits (nothing else until then)
    "check",  # WZ-1: anyone's check (in WZ-4 only those who may identify)
    "surprise",  # WZ-4: the GM resolves the encounter's surprise
    "identification",  # WZ-4: the GM names what was identified
    "end_phase",  # the GM closes a phase that ends when the table says so
    "declaration",  # WZ-5: each character able to act, once a round
    "formation",  # WZ-6: characters with a Formation skill
    "initiative",  # WZ-7: the GM rolls the round's initiative
    "inning",  # WZ-8: each member of the inning that is due
]
"""Where the procedure (procedure.py) awaits a command: a declaration names its step(s)."""

DECLARED: Declarations[Run, Step] = Declarations(get_args(Step))


class Acting(Command):
    """A command issued for one combatant (by its controller, or by the GM)."""

    combatant_id: Id = Field(description="The combatant this command acts for.")

    @property
    def combatant(self) -> str | None:
        return self.combatant_id


class ResolveSurprise(Command):
    """WZ-1: the GM rules on surprise (the seed defers to its own procedure); round 1 follows."""

    model_config = example(note="敵は気付いていた: 不意打ちなし")
    command_type = "ResolveSurprise"
    surprising: tuple[Id, ...] = Field(default=(), max_length=LIST)
    note: Said


class RollCheck(Acting):
    """A check by dice expression (`1D20+5`); the fatigue die penalty is added to a 1d20."""

    model_config = example(combatant_id="fighter", expression="1D20+4", note="斬りかかる")
    command_type = "RollCheck"
    expression: Name
    note: Text = ""


class RuleCheck(Command):
    """The GM rules on the pending check: success or not, or neither where the check has no
    such thing, and why."""

    model_config = example(success=True, outcome="ゴブリンに命中")
    command_type = "RuleCheck"
    success: bool | None = None
    outcome: Said


class NameIdentification(Command):
    """WZ-4: the GM names a creature's identification difficulty and academic skill."""

    model_config = example(target="ogre", difficulty=12, skill="lore")
    command_type = "NameIdentification"
    target: Id
    difficulty: Figure
    skill: Name


class EndPhase(Command):
    """The GM closes a phase that waits on the table (WZ-4, WZ-6, WZ-9, WZ-10)."""

    model_config = example()
    command_type = "EndPhase"


class Declare(Acting):
    """WZ-5: (a) sub + main + passive, (b) sub + main, (c) full; free actions; an INI."""

    model_config = example(
        combatant_id="fighter", form="b", sub="combat move", main="attack", ini=14
    )
    command_type = "Declare"
    form: Form
    sub: Name | None = None
    main: Name | None = None
    passive: Name | None = None
    full: Name | None = None
    free: tuple[Name, ...] = Field(default=(), max_length=LIST)
    two_handed_attack: bool = False
    ini: Initiative


class DeclareFormation(Acting):
    """WZ-6: a Formation skill of this combatant, paid with TP from its pool."""

    model_config = example(combatant_id="mage", formation="鶴翼の陣", cost=2)
    command_type = "DeclareFormation"
    formation: Name
    cost: Penalty


class RollInitiative(Command):
    """WZ-7: the PCs' representative and the GM each roll 1d10."""

    model_config = example(representative="fighter")
    command_type = "RollInitiative"
    representative: Id


class Act(Acting):
    """WZ-8: carry out the declaration in one's inning (its checks are rolled by RollCheck)."""

    model_config = example(combatant_id="fighter", note="ゴブリンを斬る")
    command_type = "Act"
    note: Text = ""


class DropDeclaration(Acting):
    """WZ-8 (A)–(F): drop the declaration and, spending sub + main, take a fallback."""

    model_config = example(combatant_id="ogre", fallback="defensive_stance")
    command_type = "DropDeclaration"
    fallback: Fallback


class InflictStatus(Command):
    """WZ-8: the GM puts a bad status on a combatant (in an inning: from its end)."""

    model_config = example(target="fighter", status="paralysis", incapacitating=True)
    command_type = "InflictStatus"
    target: Id
    status: Id
    incapacitating: bool = False


class RemoveStatus(Command):
    """WZ-9: the GM ends a bad status (a recovery check, a healing item, a spell)."""

    model_config = example(target="fighter", status="paralysis")
    command_type = "RemoveStatus"
    target: Id
    status: Id


class EndCombat(Command):
    """The GM records that the fight is over (the seed has no end-of-combat rule)."""

    model_config = example(reason="オーガが降伏した")
    command_type = "EndCombat"
    reason: Said
