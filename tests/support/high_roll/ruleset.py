"""High Roll behind the generic `Ruleset` interface: state, procedure, decide, evolve."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict

from domain.events import DomainEvent, JsonObject
from domain.rules.outcome import Decision
from domain.rules.records import Dice
from domain.rules.ruleset import (
    OVER,
    Command,
    CommandContext,
    Entrant,
    Labels,
    LegalCommand,
    LogLine,
    ProcedurePoint,
)
from tests.support.high_roll.commands import COMMANDS, Roll
from tests.support.high_roll.events import Rolled
from tests.support.high_roll.log import LOG


class Nothing(BaseModel):
    """No options, no map, no sheet: High Roll needs none."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class HrState(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    combatants: tuple[str, ...] = ()
    rolls: dict[str, int] = {}


class HighRoll:
    id = "high_roll"
    version = "1"
    procedure_rule = "HR-1"
    options_model: type[BaseModel] = Nothing
    map_model: type[BaseModel] = Nothing
    sheet_model: type[BaseModel] = Nothing
    state_model: type[BaseModel] = HrState
    commands: tuple[type[Command], ...] = COMMANDS
    labels: Mapping[str, Labels] = MappingProxyType({"Roll": Labels(en="Roll", ja="ダイスを振る")})
    phase_labels: Mapping[str, Labels] = MappingProxyType(
        {"rolling": Labels(en="rolling", ja="ダイスを振る"), "over": OVER}
    )
    body_prefix = "Hr"

    def initial_state(self, options: JsonObject, battle_map: JsonObject) -> HrState:
        return HrState()

    def joined(self, state: HrState, entrant: Entrant) -> HrState:
        return state.model_copy(update={"combatants": (*state.combatants, entrant.combatant_id)})

    def procedure(self, state: HrState) -> ProcedurePoint:
        awaiting = tuple(self.legal_commands(state))
        return ProcedurePoint(turn=1, phase="rolling" if awaiting else "over", awaiting=awaiting)

    def legal_commands(self, state: HrState) -> list[LegalCommand]:
        waiting = [c for c in state.combatants if c not in state.rolls]
        return [LegalCommand(command="Roll", issuer="controller", combatant=c) for c in waiting]

    def decide(
        self, state: HrState, command: Command, dice: Dice, ctx: CommandContext
    ) -> list[DomainEvent]:
        assert isinstance(command, Roll)
        who = command.combatant_id
        total = dice.draw(6, "HR-1")
        ruling = Decision(
            rule_ids=("HR-1",),
            inputs={"combatant": who},
            outcome={"total": total},
            summary_en=f"HR-1: {who} rolls 1D6 = {total}",
            summary_ja=f"HR-1：{who}の1D6＝{total}",
        )
        return [*dice.ruling(ruling), Rolled(combatant=who, total=total, at=ctx.at, by=ctx.by)]

    def evolve(self, state: HrState, event: DomainEvent) -> HrState:
        if isinstance(event, Rolled):
            return state.model_copy(update={"rolls": state.rolls | {event.combatant: event.total}})
        return state

    def log_line(self, event: DomainEvent) -> LogLine | None:
        return LOG.line(event)


HIGH_ROLL = HighRoll()
