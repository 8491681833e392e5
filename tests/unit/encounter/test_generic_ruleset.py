"""The Encounter knows no Glorious Drive: a coin-toss ruleset runs behind the same interface.

It also shows the aggregate's guard on the dice rule: a ruleset that rules on a die it never
recorded is stopped before any event is returned.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from types import MappingProxyType

import pytest
from pydantic import BaseModel, ConfigDict

from domain.dice import commitment
from domain.encounter import aggregate, rulesets
from domain.encounter.commands import OpenEncounter
from domain.events import DomainEvent, JsonObject
from domain.rules.errors import RuleViolation
from domain.rules.outcome import Decision
from domain.rules.records import Dice, EncounterEnded, RulingRecorded
from domain.rules.ruleset import (
    OVER,
    Command,
    CommandContext,
    Entrant,
    Labels,
    LegalCommand,
    ProcedurePoint,
    Ruleset,
)
from tests.unit.encounter.table import GM, SEED, Table


class Toss(BaseModel):
    model_config = ConfigDict(frozen=True)
    tosses: int = 0
    over: bool = False


class Flip(Command):
    command_type = "Flip"


class _Nothing(BaseModel):
    model_config = ConfigDict(extra="allow")


class CoinToss:
    """Round after round, the GM flips a coin; three flips and the game is over."""

    id = "coin_toss"
    version = "0"
    procedure_rule = "CT-1"
    options_model: type[BaseModel] = _Nothing
    map_model: type[BaseModel] = _Nothing
    sheet_model: type[BaseModel] = _Nothing
    state_model: type[BaseModel] = Toss
    commands: tuple[type[Command], ...] = (Flip,)
    labels: Mapping[str, Labels] = MappingProxyType({"Flip": Labels(en="Flip", ja="コイントス")})
    phase_labels: Mapping[str, Labels] = MappingProxyType(
        {"toss": Labels(en="toss", ja="コイントス"), "over": OVER}
    )
    record_dice = True

    def initial_state(self, options: JsonObject, battle_map: JsonObject) -> Toss:
        return Toss()

    def joined(self, state: Toss, entrant: Entrant) -> Toss:
        return state

    def procedure(self, state: Toss) -> ProcedurePoint:
        return ProcedurePoint(turn=state.tosses, phase="over" if state.over else "toss")

    def legal_commands(self, state: Toss) -> list[LegalCommand]:
        return [] if state.over else [LegalCommand(command="Flip", issuer="gm")]

    def refusal(self, state: Toss, command: Command) -> RuleViolation | None:
        return None

    def decide(
        self, state: Toss, command: Command, dice: Dice, ctx: CommandContext
    ) -> list[DomainEvent]:
        face = dice.draw(2, "CT-1 flip")
        decision = Decision(
            rule_ids=("CT-1",),
            inputs={},
            outcome={"heads": face == 1},
            summary_en="heads" if face == 1 else "tails",
            summary_ja="表" if face == 1 else "裏",
        )
        events = dice.ruling(decision)
        if not self.record_dice:
            events = [e for e in events if isinstance(e, RulingRecorded)]
        if state.tosses == 2:
            events.append(
                EncounterEnded(rule_id="CT-2", reason="three flips", at=ctx.at, by=ctx.by)
            )
        return events

    def evolve(self, state: Toss, event: DomainEvent) -> Toss:
        if isinstance(event, RulingRecorded):
            return state.model_copy(update={"tosses": state.tosses + 1})
        if isinstance(event, EncounterEnded):
            return state.model_copy(update={"over": True})
        return state


@pytest.fixture
def coin() -> Iterator[CoinToss]:
    ruleset = CoinToss()
    checked: Ruleset[Toss] = ruleset  # satisfies the interface (`mypy --strict` on this file)
    rulesets.RULESETS[ruleset.id] = checked
    yield ruleset
    del rulesets.RULESETS[ruleset.id]


def opened() -> Table:
    table = Table()
    table.do(OpenEncounter(ruleset_id="coin_toss", commitment=commitment(SEED)))
    return table


@pytest.mark.usefixtures("coin")
def test_any_ruleset_behind_the_interface_runs_an_encounter_to_its_end() -> None:
    table = opened()
    for _ in range(3):
        table.do(Flip())
    assert table.state.ended
    assert table.state.roll_count == 3
    assert aggregate.legal_commands(table.state) == []
    assert aggregate.procedure(table.state).phase == "over"


@pytest.mark.usefixtures("coin")
def test_out_of_turn_the_rulesets_own_procedure_rule_is_cited() -> None:
    table = opened()
    for _ in range(3):
        table.do(Flip(), faces=[1])
    table.state = table.state.model_copy(update={"ended": False})  # pretend it went on
    with pytest.raises(RuleViolation) as refused:
        table.do(Flip(), faces=[1])
    assert refused.value.rule_id == "CT-1"


def test_a_ruling_on_a_die_that_was_not_recorded_is_stopped(coin: CoinToss) -> None:
    coin.record_dice = False
    table = opened()
    with pytest.raises(RuntimeError, match="not recorded"):
        aggregate.decide(table.state, Flip(), GM, server_seed=SEED)
