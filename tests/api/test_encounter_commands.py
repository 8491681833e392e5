"""The typed command bodies stay in step with the domain's commands (no database needed)."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from api.app import create_app
from api.encounter_commands import EncounterCommand, GdCommand
from api.encounter_commands_ak import AkCommand
from api.encounter_commands_wz import WzCommand
from domain.encounter.commands import JoinCombatant
from domain.rules.armor_knights import commands as ak
from domain.rules.glorious_drive.commands import COMMANDS
from domain.rules.ruleset import Command
from domain.rules.wizardry_round import commands as wz


def bodies(union: Any) -> dict[str, type[BaseModel]]:
    return {
        body.model_fields["command"].annotation.__args__[0]: body
        for body in get_args(get_args(union)[0])
    }


RULESETS: list[tuple[str, Any, list[type[Command]]]] = [
    ("glorious_drive", GdCommand, [JoinCombatant, *COMMANDS]),
    ("wizardry_round", WzCommand, list(wz.COMMANDS)),
    ("armor_knights", AkCommand, list(ak.COMMANDS)),
]
CASES = [(union, command) for _, union, commands in RULESETS for command in commands]
IDS = [f"{ruleset}-{c.command_type}" for ruleset, _, commands in RULESETS for c in commands]


@pytest.mark.parametrize(("union", "commands"), [(u, c) for _, u, c in RULESETS])
def test_every_command_the_players_and_gm_issue_has_a_typed_body(
    union: Any, commands: list[type[Command]]
) -> None:
    assert set(bodies(union)) == {c.command_type for c in commands}


@pytest.mark.parametrize(("union", "command"), CASES, ids=IDS)
def test_a_body_has_the_fields_of_its_command(union: Any, command: type[Command]) -> None:
    body = bodies(union)[command.command_type]
    own = set(body.model_fields) - {"command", "client_seed", "hand_faces"}
    assert own == set(command.model_fields)


@pytest.mark.parametrize(("union", "command"), CASES, ids=IDS)
def test_each_example_is_a_valid_body_and_command(union: Any, command: type[Command]) -> None:
    body = bodies(union)[command.command_type]
    extra = body.model_config.get("json_schema_extra")
    assert isinstance(extra, dict)
    examples: list[dict[str, Any]] = extra["examples"]  # type: ignore[assignment]
    for example in examples:
        parsed = body.model_validate(example)
        command.model_validate(parsed.payload())  # type: ignore[attr-defined]
        # The endpoint's union reads the example as this very body, not a namesake's.
        assert type(TypeAdapter(EncounterCommand).validate_python(example)) is body


def test_a_shared_name_is_told_apart_by_its_fields() -> None:
    read = TypeAdapter(EncounterCommand).validate_python
    gd, wz_, ak_ = (bodies(union) for _, union, _ in RULESETS)
    assert type(read({"command": "RollInitiative"})) is gd["RollInitiative"]
    assert (
        type(read({"command": "RollInitiative", "representative": "aoi"})) is wz_["RollInitiative"]
    )
    assert type(read({"command": "EndPhase"})) is wz_["EndPhase"]
    assert type(read({"command": "EndPhase", "unit_id": "red"})) is ak_["EndPhase"]
    attack = {"command": "DeclareAttack", "unit_id": "red", "weapon": "rifle"}
    assert type(read(attack)) is ak_["DeclareAttack"]
    assert type(read({"command": "EndCombat", "reason": "done"})) is wz_["EndCombat"]


def test_a_bad_body_is_reported_under_its_ruleset_and_command() -> None:
    read = TypeAdapter(EncounterCommand).validate_python
    with pytest.raises(ValidationError) as refused:
        read({"command": "DeclareAttack", "unit_id": "red"})
    assert [e["loc"] for e in refused.value.errors()] == [
        ("armor_knights", "DeclareAttack", "weapon")
    ]
    with pytest.raises(ValidationError, match="`command` names no command"):
        read({"command": "Teleport"})
    for odd in ({"command": ["Dodge"]}, {"command": {}}, {}, []):
        with pytest.raises(ValidationError):
            read(odd)


def test_the_openapi_schema_offers_every_ruleset_body() -> None:
    schema = create_app(lambda: None, lambda _: None).openapi()
    names = set(schema["components"]["schemas"])
    assert {"DodgeBody", "WzDeclareBody", "AkStartMoveBody"} <= names
