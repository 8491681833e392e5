"""The WZ round procedure behind the generic `Ruleset` interface: the Encounter's only view."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from domain.aggregate import Decided
from domain.events import DomainEvent, JsonObject
from domain.rules.declare import commands_of, handlers_of, labels_of
from domain.rules.errors import RuleViolation
from domain.rules.log import LogLines
from domain.rules.records import Dice
from domain.rules.ruleset import (
    Command,
    CommandContext,
    Entrant,
    Labels,
    LegalCommand,
    LogLine,
    ProcedurePoint,
)
from domain.rules.wizardry_round import action, checks, declaration, initiative, rounds
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round.evolve import evolve, joined
from domain.rules.wizardry_round.options import WizardryRoundOptions
from domain.rules.wizardry_round.phases import PHASE_LABELS
from domain.rules.wizardry_round.procedure import legal_commands, procedure, refusal
from domain.rules.wizardry_round.run import Run
from domain.rules.wizardry_round.sheet import WzMap, WzSheet
from domain.rules.wizardry_round.state import WzState

# Every command, declared on its handler in the modules named here (domain/rules/declare.py).
DECLARED = cmd.DECLARED.sealed(action, checks, declaration, initiative, rounds)
_HANDLERS = handlers_of(DECLARED)


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
    commands: tuple[type[Command], ...] = commands_of(DECLARED)
    labels: Mapping[str, Labels] = labels_of(DECLARED)
    phase_labels: Mapping[str, Labels] = PHASE_LABELS
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
