"""Typed bodies of `POST /v1/encounters/{id}/commands`, built from the ruleset registry
(domain/encounter/rulesets.py): one body per command of each ruleset (api/command_base.py),
so adding a command is one class in its rule system's folder.

Rulesets reuse some names (RollInitiative, EndPhase, DeclareAttack ...) with other fields,
so the `command` tag alone cannot tell them apart: each ruleset has its own tagged union,
and `ruleset_of` sends a body to one of them (every body forbids unknown fields, so at most
one command of a name accepts it). Every union starts with the Encounter's own
JoinCombatant, which a body of that name always reads as the first ruleset's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import BaseModel, Discriminator, Field, Tag, ValidationError

from api.command_base import DICE_FIELDS, CommandBody, body_of
from domain.encounter.awaited import EnterDie, WithdrawAwaitedRoll
from domain.encounter.commands import JoinCombatant
from domain.encounter.rulesets import RULESETS
from domain.rules.ruleset import AnyRuleset

_JOIN = body_of(JoinCombatant, "")
# The Encounter's own commands every ruleset takes the same: entering an awaited hand die.
_OWN = (_JOIN, body_of(EnterDie, ""), body_of(WithdrawAwaitedRoll, ""))


def bodies_of(ruleset: AnyRuleset) -> dict[str, type[CommandBody]]:
    """The bodies an encounter of this ruleset takes, by command name."""
    found = {body.carries.command_type: body for body in _OWN}
    for command in ruleset.commands:
        found[command.command_type] = body_of(command, ruleset.body_prefix)
    return found


def _tagged(bodies: Mapping[str, type[CommandBody]]) -> Any:
    return Annotated[Union[tuple(bodies.values())], Field(discriminator="command")]  # noqa: UP007


class CommandBodies:
    """Every ruleset's bodies, their tagged unions, and the union of those (`union`)."""

    def __init__(self, rulesets: Mapping[str, AnyRuleset]) -> None:
        self.bodies = {ruleset_id: bodies_of(r) for ruleset_id, r in rulesets.items()}
        _check_names_unique(self.bodies)
        members = tuple(Annotated[_tagged(b), Tag(r)] for r, b in self.bodies.items())
        self.union: Any = Annotated[
            Union[members],  # noqa: UP007
            Discriminator(
                self.ruleset_of,
                custom_error_type="unknown_command",
                custom_error_message="`command` names no command of any ruleset",
            ),
        ]

    def ruleset_of(self, body: Any) -> str | None:
        """Which ruleset's union reads `body` (None: no ruleset has such a command): the
        first whose command of that name accepts it, else the first with every field it
        sends."""
        if isinstance(body, BaseModel):
            return next(r for r, bodies in self.bodies.items() if type(body) in bodies.values())
        if not isinstance(body, dict):
            return None
        name = body.get("command")
        if not isinstance(name, str):
            return None
        named = [(r, bodies[name]) for r, bodies in self.bodies.items() if name in bodies]
        for ruleset, model in named:
            try:
                model.model_validate(body)
            except ValidationError:
                continue
            return ruleset
        sent = set(body) - DICE_FIELDS
        fitting = [r for r, model in named if sent <= set(model.model_fields)]
        return next(iter(fitting + [r for r, _ in named]), None)


def _check_names_unique(bodies: Mapping[str, Mapping[str, type[CommandBody]]]) -> None:
    """Two bodies of one name would leave the OpenAPI document with a qualified name (or
    one schema for both): a ruleset's `body_prefix` must set its bodies apart."""
    seen: dict[str, type[CommandBody]] = {}
    for ruleset_id, by_name in bodies.items():
        for body in by_name.values():
            other = seen.setdefault(body.__name__, body)
            if other is not body:
                raise TypeError(
                    f"ruleset {ruleset_id!r}: body {body.__name__} is taken; give the ruleset "
                    "a body_prefix of its own"
                )


COMMAND_BODIES = CommandBodies(RULESETS)
ruleset_of = COMMAND_BODIES.ruleset_of

if TYPE_CHECKING:
    EncounterCommand = CommandBody
else:
    EncounterCommand = COMMAND_BODIES.union
