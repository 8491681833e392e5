"""Armor Knights behind the generic `Ruleset` interface: the Encounter's only view of AK."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from domain.aggregate import Decided
from domain.events import DomainEvent, JsonObject
from domain.rules.armor_knights import actions, armor, attack, movement, turn, victory
from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights.evolve import evolve, joined
from domain.rules.armor_knights.options import ArmorKnightsOptions
from domain.rules.armor_knights.phases import PHASE_LABELS
from domain.rules.armor_knights.procedure import legal_commands, procedure, refusal
from domain.rules.armor_knights.run import Run
from domain.rules.armor_knights.sheet import AkMap, AkSheet
from domain.rules.armor_knights.state import AkState
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

# Every command, declared on its handler in the modules named here (domain/rules/declare.py).
DECLARED = cmd.DECLARED.sealed(actions, armor, attack, movement, turn, victory)
_HANDLERS = handlers_of(DECLARED)


# Every ak. fact carries its own summary_en/summary_ja: no renderer needed.
LOG = LogLines("ak.")


class ArmorKnights:
    """The Armor Knights (装甲騎士アーマーナイツ) ruleset, RULES.md section AK."""

    id = "armor_knights"
    version = "1"
    procedure_rule = "AK-TURN-1"
    options_model: type[BaseModel] = ArmorKnightsOptions
    map_model: type[BaseModel] = AkMap
    sheet_model: type[BaseModel] = AkSheet
    state_model: type[BaseModel] = AkState
    commands: tuple[type[Command], ...] = commands_of(DECLARED)
    labels: Mapping[str, Labels] = labels_of(DECLARED)
    phase_labels: Mapping[str, Labels] = PHASE_LABELS
    body_prefix = "Ak"

    def initial_state(self, options: JsonObject, battle_map: JsonObject) -> AkState:
        field = AkMap.model_validate(battle_map)
        return AkState(
            options=ArmorKnightsOptions.model_validate(options),
            battle_map=field,
            band=field.band,
        )

    def joined(self, state: AkState, entrant: Entrant) -> AkState:
        return joined(state, entrant)

    def procedure(self, state: AkState) -> ProcedurePoint:
        return procedure(state)

    def legal_commands(self, state: AkState) -> list[LegalCommand]:
        return legal_commands(state)

    def refusal(self, state: AkState, command: Command) -> RuleViolation | None:
        return refusal(state, command)

    def decide(
        self, state: AkState, command: Command, dice: Dice, ctx: CommandContext
    ) -> Decided[AkState]:
        run = Run(state=state, dice=dice, ctx=ctx)
        _HANDLERS[type(command)](run, command)
        turn.phase_ends_by_itself(run)  # issue 19: AK-TURN-3, no one's choice
        return Decided(run.events, run.state)

    def evolve(self, state: AkState, event: DomainEvent) -> AkState:
        return evolve(state, event)

    def log_line(self, event: DomainEvent) -> LogLine | None:
        return LOG.line(event)


ARMOR_KNIGHTS = ArmorKnights()
