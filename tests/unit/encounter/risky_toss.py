"""Test-only rulesets whose commands refuse after drawing their dice (issue 33 §1).

No rule system of Senki refuses after a draw today; nothing structural kept one from doing so.
These rulesets do it on purpose, so the Encounter's guard can be shown to record such a
refusal with its dice, and to answer it without any number a die gave:

- `RiskyToss`: the GM flips a coin (RT-1); tails refuses the flip (RT-2), quoting the face
  in its own words. `Dare` draws a d6 and refuses it by no game rule (the fight's state);
  `Bet` rules on one die, then draws a second and refuses; `Peek` is refused before any die.
- `DrawsThenRefuses`: Glorious Drive, except that a command drawing the fight's very first
  dice is refused after drawing them (GD-INIT-1, quoting the first die), so the HTTP API can be
  driven through it with GD's own command bodies.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict

from domain.aggregate import Decided
from domain.encounter import rulesets
from domain.errors import WrongState
from domain.events import DomainEvent, JsonObject
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.ruleset import GLORIOUS_DRIVE, GloriousDrive
from domain.rules.glorious_drive.state import GdState
from domain.rules.outcome import Decision
from domain.rules.records import Dice, RulingRecorded
from domain.rules.ruleset import (
    AnyRuleset,
    Command,
    CommandContext,
    Entrant,
    Labels,
    LegalCommand,
    ProcedurePoint,
    Ruleset,
)


class Flips(BaseModel):
    model_config = ConfigDict(frozen=True)
    heads: int = 0


class Flip(Command):
    command_type = "Flip"


class Dare(Command):
    command_type = "Dare"


class Bet(Command):
    command_type = "Bet"


class Peek(Command):
    command_type = "Peek"


class _Anything(BaseModel):
    model_config = ConfigDict(extra="allow")


class RiskyToss:
    """Flip after flip; a coin that lands tails refuses its flip (RT-2)."""

    id = "risky_toss"
    version = "0"
    procedure_rule = "RT-1"
    options_model: type[BaseModel] = _Anything
    map_model: type[BaseModel] = _Anything
    sheet_model: type[BaseModel] = _Anything
    state_model: type[BaseModel] = Flips
    commands: tuple[type[Command], ...] = (Flip, Dare, Bet, Peek)
    labels: Mapping[str, Labels] = MappingProxyType(
        {c.command_type: Labels(en=c.command_type, ja=c.command_type) for c in commands}
    )
    phase_labels: Mapping[str, Labels] = MappingProxyType({"toss": Labels(en="toss", ja="トス")})
    body_prefix = "Rt"

    def initial_state(self, options: JsonObject, battle_map: JsonObject) -> Flips:
        return Flips()

    def joined(self, state: Flips, entrant: Entrant) -> Flips:
        return state

    def procedure(self, state: Flips) -> ProcedurePoint:
        return ProcedurePoint(turn=state.heads, phase="toss")

    def legal_commands(self, state: Flips) -> list[LegalCommand]:
        return [LegalCommand(command=c.command_type, issuer="gm") for c in self.commands]

    def refusal(self, state: Flips, command: Command) -> RuleViolation | None:
        return None

    def decide(
        self, state: Flips, command: Command, dice: Dice, ctx: CommandContext
    ) -> list[DomainEvent]:
        if isinstance(command, Peek):
            raise RuleViolation("RT-3", "no peeking at the coin before it is flipped")
        if isinstance(command, Dare):
            face = dice.draw(6, "RT-1 dare")
            raise WrongState(f"the dare's d6 showed {face}, and dares are off")
        events = self._flip(dice, "RT-1 flip")
        if isinstance(command, Bet):
            second = dice.draw(2, "RT-1 bet")
            raise RuleViolation("RT-2", f"the bet's coin showed {second}: the bet is off")
        return events

    @staticmethod
    def _flip(dice: Dice, purpose: str) -> list[DomainEvent]:
        face = dice.draw(2, purpose)
        if face == 2:  # tails
            raise RuleViolation("RT-2", f"the coin showed {face} (tails): the flip is refused")
        decision = Decision(
            rule_ids=("RT-1",),
            inputs={},
            outcome={"heads": True},
            summary_en="heads",
            summary_ja="表",
        )
        return dice.ruling(decision)

    def evolve(self, state: Flips, event: DomainEvent) -> Flips:
        if isinstance(event, RulingRecorded):
            return state.model_copy(update={"heads": state.heads + 1})
        return state

    def log_line(self, event: DomainEvent) -> tuple[str, str] | None:
        return None


class DrawsThenRefuses(GloriousDrive):
    """Glorious Drive, but the command that draws the fight's first dice is refused after
    drawing them, in words that quote the first die (which no answer may repeat)."""

    def decide(
        self, state: GdState, command: Command, dice: Dice, ctx: CommandContext
    ) -> Decided[GdState]:
        before = dice.last_roll_seq
        decided = super().decide(state, command, dice, ctx)
        if before < 0 <= dice.last_roll_seq:
            first = next(e for e in decided.events if e.event_type == "EncounterDiceRolled")
            total = first.model_dump()["result"]["total"]
            raise RuleViolation("GD-INIT-1", f"the first die showed {total}; start again")
        return decided


@contextmanager
def registered(ruleset: AnyRuleset) -> Iterator[AnyRuleset]:
    """The ruleset stands in the registry under its id for the block (GD's own is put back)."""
    before = rulesets.RULESETS.get(ruleset.id)
    rulesets.RULESETS[ruleset.id] = ruleset
    try:
        yield ruleset
    finally:
        if before is None:
            del rulesets.RULESETS[ruleset.id]
        else:
            rulesets.RULESETS[ruleset.id] = before


def risky_toss() -> Ruleset[Flips]:
    return RiskyToss()  # satisfies the interface


def glorious_drive_refusing_first_dice() -> AnyRuleset:
    assert GLORIOUS_DRIVE.id == DrawsThenRefuses.id
    return DrawsThenRefuses()
