"""The WZ round procedure behind the generic `Ruleset` interface: the Encounter's only view."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from domain.aggregate import Decided
from domain.events import DomainEvent, JsonObject
from domain.rules.errors import RuleViolation
from domain.rules.log import LogLines
from domain.rules.records import Dice
from domain.rules.ruleset import (
    Command,
    CommandContext,
    Entrant,
    LegalCommand,
    LogLine,
    ProcedurePoint,
)
from domain.rules.wizardry_round import action, checks, declaration, initiative, rounds
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round.evolve import evolve, joined
from domain.rules.wizardry_round.options import WizardryRoundOptions
from domain.rules.wizardry_round.procedure import legal_commands, procedure, refusal
from domain.rules.wizardry_round.run import Run
from domain.rules.wizardry_round.sheet import WzMap, WzSheet
from domain.rules.wizardry_round.state import WzState

Handler = Callable[[Run, Any], None]

_HANDLERS: dict[type[Command], Handler] = {
    cmd.ResolveSurprise: rounds.resolve_surprise,
    cmd.RollCheck: checks.roll_check,
    cmd.RuleCheck: checks.rule_check,
    cmd.NameIdentification: checks.name_identification,
    cmd.EndPhase: rounds.end_phase,
    cmd.Declare: declaration.declare,
    cmd.DeclareFormation: declaration.declare_formation,
    cmd.RollInitiative: initiative.roll_initiative,
    cmd.Act: action.act,
    cmd.DropDeclaration: action.drop_declaration,
    cmd.InflictStatus: action.inflict_status,
    cmd.RemoveStatus: action.remove_status,
    cmd.EndCombat: rounds.end_combat,
}


# Every wz. fact carries its own summary_en/summary_ja: no renderer needed.
LOG = LogLines("wz.")


class WizardryRound:
    """A Wizardry-style round procedure (INI, TP, declarations, innings), RULES.md WZ."""

    id = "wizardry_round"
    version = "1"
    procedure_rule = "WZ-8"
    options_model: type[BaseModel] = WizardryRoundOptions
    map_model: type[BaseModel] = WzMap
    sheet_model: type[BaseModel] = WzSheet
    state_model: type[BaseModel] = WzState
    commands: tuple[type[Command], ...] = cmd.COMMANDS
    body_prefix = "Wz"

    def initial_state(self, options: JsonObject, battle_map: JsonObject) -> WzState:
        return WzState(options=WizardryRoundOptions.model_validate(options))

    def joined(self, state: WzState, entrant: Entrant) -> WzState:
        return joined(state, entrant)

    def procedure(self, state: WzState) -> ProcedurePoint:
        return procedure(state)

    def legal_commands(self, state: WzState) -> list[LegalCommand]:
        return legal_commands(state)

    def refusal(self, state: WzState, command: Command) -> RuleViolation | None:
        return refusal(state, command)

    def decide(
        self, state: WzState, command: Command, dice: Dice, ctx: CommandContext
    ) -> Decided[WzState]:
        run = Run(state=state, dice=dice, ctx=ctx)
        rounds.strategy_by_itself(run, command)  # issue 19: no one's choice, so no command
        _HANDLERS[type(command)](run, command)
        return Decided(run.events, run.state)

    def evolve(self, state: WzState, event: DomainEvent) -> WzState:
        return evolve(state, event)

    def log_line(self, event: DomainEvent) -> LogLine | None:
        return LOG.line(event)


WIZARDRY_ROUND = WizardryRound()
