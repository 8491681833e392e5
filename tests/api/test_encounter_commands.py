"""The typed command bodies stay in step with the domain's commands (no database needed)."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from pydantic import BaseModel

from api.encounter_commands import EncounterCommand
from domain.encounter.commands import JoinCombatant
from domain.rules.glorious_drive.commands import COMMANDS
from domain.rules.ruleset import Command

BODIES: dict[str, type[BaseModel]] = {
    body.model_fields["command"].annotation.__args__[0]: body  # type: ignore[union-attr]
    for body in get_args(get_args(EncounterCommand)[0])
}
DOMAIN: list[type[Command]] = [JoinCombatant, *COMMANDS]


def test_every_command_the_players_and_gm_issue_has_a_typed_body() -> None:
    assert set(BODIES) == {c.command_type for c in DOMAIN}


@pytest.mark.parametrize("command", DOMAIN, ids=lambda c: c.command_type)
def test_a_body_has_the_fields_of_its_command(command: type[Command]) -> None:
    body = BODIES[command.command_type]
    own = set(body.model_fields) - {"command", "client_seed", "hand_faces"}
    assert own == set(command.model_fields)


@pytest.mark.parametrize("command", DOMAIN, ids=lambda c: c.command_type)
def test_each_example_is_a_valid_body_and_command(command: type[Command]) -> None:
    body = BODIES[command.command_type]
    extra = body.model_config.get("json_schema_extra")
    assert isinstance(extra, dict)
    examples: list[dict[str, Any]] = extra["examples"]  # type: ignore[assignment]
    for example in examples:
        parsed = body.model_validate(example)
        command.model_validate(parsed.payload())  # type: ignore[attr-defined]
