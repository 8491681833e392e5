"""Glorious Drive behind the generic `Ruleset` interface: the Encounter's only view of GD."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from domain.aggregate import Decided
from domain.events import DomainEvent, JsonObject
from domain.rules.declare import commands_of, handlers_of, labels_of
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import (
    attack,
    items,
    main_steps,
    reaction,
    skills,
    statuses,
    turn,
)
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.evolve import evolve, joined
from domain.rules.glorious_drive.log import LOG
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.phases import PHASE_LABELS
from domain.rules.glorious_drive.procedure import legal_commands, procedure, refusal
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.sheet import GdMap, GdSheet
from domain.rules.glorious_drive.state import GdState
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
DECLARED = cmd.DECLARED.sealed(attack, items, main_steps, reaction, skills, statuses, turn)
_HANDLERS = handlers_of(DECLARED)


class GloriousDrive:
    """The Glorious Drive (グロリアスドライヴ) ruleset, RULES.md section GD."""

    id = "glorious_drive"
    version = "1"
    procedure_rule = "GD-TURN-1"
    options_model: type[BaseModel] = GloriousDriveOptions
    map_model: type[BaseModel] = GdMap
    sheet_model: type[BaseModel] = GdSheet
    state_model: type[BaseModel] = GdState
    commands: tuple[type[Command], ...] = commands_of(DECLARED)
    labels: Mapping[str, Labels] = labels_of(DECLARED)
    phase_labels: Mapping[str, Labels] = PHASE_LABELS
    body_prefix = ""

    def initial_state(self, options: JsonObject, battle_map: JsonObject) -> GdState:
        return GdState(
            options=GloriousDriveOptions.model_validate(options),
            battle_map=GdMap.model_validate(battle_map),
        )

    def joined(self, state: GdState, entrant: Entrant) -> GdState:
        return joined(state, entrant)

    def procedure(self, state: GdState) -> ProcedurePoint:
        return procedure(state)

    def legal_commands(self, state: GdState) -> list[LegalCommand]:
        return legal_commands(state)

    def refusal(self, state: GdState, command: Command) -> RuleViolation | None:
        return refusal(state, command)

    def decide(
        self, state: GdState, command: Command, dice: Dice, ctx: CommandContext
    ) -> Decided[GdState]:
        run = Run(state=state, dice=dice, ctx=ctx)
        turn.cleanup_by_itself(run, command)  # issue 19: no one's choice, so no command
        _HANDLERS[type(command)](run, command)
        dice.runs_by_itself()  # issue 35 §6: what follows takes none of the command's faces
        turn.fainted_cleanups_by_themselves(run)  # issue 19: GD-INJ-1, no one's choice
        return Decided(run.events, run.state)

    def evolve(self, state: GdState, event: DomainEvent) -> GdState:
        return evolve(state, event)

    def log_line(self, event: DomainEvent) -> LogLine | None:
        return LOG.line(event)


GLORIOUS_DRIVE = GloriousDrive()
