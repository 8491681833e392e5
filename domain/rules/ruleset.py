"""The interface every rule system (GD, WZ, AK) implements, so the Encounter stays generic.

A ruleset owns its own state (a frozen pydantic model) and answers four questions about it:
where the procedure stands (`procedure`), which commands are legal there and who may issue
them (`legal_commands`), what a command means (`decide`: events, or a RuleViolation that
changes nothing), and what an event changes (`evolve`, pure). Dice come in through `Dice`
(domain.rules.records), which records every die before the ruling that uses it.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from datetime import datetime
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from domain.aggregate import Decided
from domain.events import DomainEvent, JsonObject
from domain.rules.errors import RuleViolation
from domain.rules.records import Dice

IssuerRole = Literal["gm", "controller"]
LogLine = tuple[str, str]  # (English, Japanese)


class Labels(NamedTuple):
    """A name for the table: a command's (the page's buttons, the log) or a phase's or step's."""

    en: str
    ja: str


# Phases more than one rule system's procedure reports around its own turns: before the first
# one, and once the fight is decided. No seed names them, so they are plain words.
SETUP = Labels(en="setup", ja="準備")
OVER = Labels(en="over", ja="戦闘終了")

_WRITTEN = itertools.count(1)


class Command(BaseModel):
    """An imperative request (`DeclareAttack`); the ruleset turns it into events or refuses it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command_type: ClassVar[str] = ""
    written: ClassVar[int] = 0
    """Its place among the commands written so far: a rule system lists its commands (its
    bodies, the commands a step awaits) in the order its commands.py writes them."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Plain Python's hook: only a counter is set, nothing of the model's fields is read.
        super().__init_subclass__(**kwargs)
        cls.written = next(_WRITTEN)

    @property
    def combatant(self) -> str | None:
        """The combatant the command acts for (None: a command of the table, e.g. the GM's)."""
        return None


def example(**fields: Any) -> ConfigDict:
    """A command's example as a client sends it, less the `command` tag the API adds: the
    OpenAPI document shows it, and a test checks that it is a valid command."""
    return ConfigDict(json_schema_extra={"examples": [fields]})


class LegalCommand(BaseModel):
    """A command that may be issued now: by the GM, or by the controller of `combatant`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    command: str
    issuer: IssuerRole
    combatant: str | None = None


class ProcedurePoint(BaseModel):
    """Where the procedure stands: turn/round, phase, step, who acts, and what is awaited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int = Field(ge=0, description="Turn (GD) or round (WZ); 0 before the first.")
    phase: str
    step: str | None = None
    acting: str | None = None
    awaiting: tuple[LegalCommand, ...] = ()


class Entrant(BaseModel):
    """A combatant as it joins: generic identity plus the ruleset's own sheet (JSON)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    combatant_id: str = Field(min_length=1)
    name: str
    side: str = Field(min_length=1)
    controller: str = Field(min_length=1, description="A member id, or 'gm' for the GM's.")
    sheet: JsonObject
    hidden: bool = Field(default=False, description="The GM keeps the sheet from players.")


class CommandContext(BaseModel):
    """Who issues the command and when (the domain has no clock), and their client seed."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: datetime
    by: str = Field(min_length=1)
    is_gm: bool = False
    client_seed: str | None = None


S = TypeVar("S", bound=BaseModel)


class Ruleset(Protocol[S]):
    """A rule system behind the Encounter; pure functions over its own state `S`."""

    @property
    def id(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def procedure_rule(self) -> str:
        """The rule ID cited when a command comes out of turn (GD-TURN-1, WZ-8, AK-TURN-1)."""
        ...

    @property
    def options_model(self) -> type[BaseModel]:
        """Pydantic model whose defaults are the Interpretations of RULES.md."""
        ...

    @property
    def map_model(self) -> type[BaseModel]: ...

    @property
    def sheet_model(self) -> type[BaseModel]: ...

    @property
    def state_model(self) -> type[BaseModel]:
        """The ruleset's own state type, so a snapshot can be read back into it."""
        ...

    @property
    def commands(self) -> tuple[type[Command], ...]:
        """Every command it takes: each one class, which is also the HTTP body (api/ builds
        the ruleset's tagged union of bodies from these)."""
        ...

    @property
    def labels(self) -> Mapping[str, Labels]:
        """Each command's name for the table in English and Japanese, by command name (the
        page shows them; they come from the declarations, domain/rules/declare.py)."""
        ...

    @property
    def phase_labels(self) -> Mapping[str, Labels]:
        """Each phase and step its procedure reports (`ProcedurePoint.phase`, `.step`) by id,
        with its name for the table in English and Japanese (the seed's, where it names one):
        the page and the refusals name the point of the procedure by these."""
        ...

    @property
    def body_prefix(self) -> str:
        """What names its bodies in the OpenAPI document (`Wz` + `Declare` + `Body`): unique
        among the rulesets ('' for GD, whose bodies were named first)."""
        ...

    def initial_state(self, options: JsonObject, battle_map: JsonObject) -> S: ...

    def joined(self, state: S, entrant: Entrant) -> S: ...

    def procedure(self, state: S) -> ProcedurePoint: ...

    def legal_commands(self, state: S) -> list[LegalCommand]: ...

    def refusal(self, state: S, command: Command) -> RuleViolation | None:
        """The rule that keeps the command's combatant from acting (fainted, shot down…),
        cited before the procedure rule when the command is not legal now; None if none."""
        ...

    def decide(
        self, state: S, command: Command, dice: Dice, ctx: CommandContext
    ) -> Decided[S] | list[DomainEvent]:
        """The command's events; with the state they lead to (`Decided`) if deciding applied
        them already, so the Encounter does not evolve them again."""
        ...

    def evolve(self, state: S, event: DomainEvent) -> S: ...

    def log_line(self, event: DomainEvent) -> LogLine | None:
        """The encounter log's line for one of its own facts, in English and Japanese (None:
        not its fact). domain/rules/log.py builds one from renderers and summaries."""
        ...


AnyRuleset = Ruleset[Any]
