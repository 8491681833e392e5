"""Glorious Drive behind the generic `Ruleset` interface: the Encounter's only view of GD."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from domain.aggregate import Decided
from domain.events import DomainEvent, JsonObject
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
from domain.rules.glorious_drive.procedure import legal_commands, procedure, refusal
from domain.rules.glorious_drive.run import Run
from domain.rules.glorious_drive.sheet import GdMap, GdSheet
from domain.rules.glorious_drive.state import GdState
from domain.rules.records import Dice
from domain.rules.ruleset import (
    Command,
    CommandContext,
    Entrant,
    LegalCommand,
    LogLine,
    ProcedurePoint,
)

Handler = Callable[[Run, Any], None]

_HANDLERS: dict[type[Command], Handler] = {
    cmd.RollInitiative: lambda run, _: turn.roll_initiative(run),
    cmd.Delay: turn.delay,
    cmd.Wait: turn.wait,
    cmd.Cleanup: turn.cleanup,
    cmd.InflictStatus: statuses.inflict_status,
    cmd.EndCombat: turn.end_combat,
    cmd.SwapWeapons: main_steps.swap_weapons,
    cmd.Move: main_steps.move,
    cmd.Reload: main_steps.reload,
    cmd.ForgoAction: main_steps.forgo_action,
    cmd.DeclareAttack: attack.declare_attack,
    cmd.AttackUnarmed: attack.attack_unarmed,
    cmd.ThrowItem: attack.throw_item,
    cmd.LendItem: items.lend_item,
    cmd.AcceptLoan: items.accept_loan,
    cmd.DeclineLoan: items.decline_loan,
    cmd.SwapEquipment: items.swap_equipment,
    cmd.UseItem: items.use_item,
    cmd.TakeOtherAction: items.take_other_action,
    cmd.GrantSituationModifier: attack.grant_situation_modifier,
    cmd.Dodge: reaction.dodge,
    cmd.Guard: reaction.guard,
    cmd.TakeHit: reaction.take_hit,
    cmd.Intercept: reaction.intercept,
    cmd.UseMovementSkill: skills.use_movement_skill,
    cmd.UseActiveSkill: skills.use_active_skill,
    cmd.UseCounterSkill: skills.use_counter_skill,
}


class GloriousDrive:
    """The Glorious Drive (グロリアスドライヴ) ruleset, RULES.md section GD."""

    id = "glorious_drive"
    version = "1"
    procedure_rule = "GD-TURN-1"
    options_model: type[BaseModel] = GloriousDriveOptions
    map_model: type[BaseModel] = GdMap
    sheet_model: type[BaseModel] = GdSheet
    state_model: type[BaseModel] = GdState
    commands: tuple[type[Command], ...] = cmd.COMMANDS
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
