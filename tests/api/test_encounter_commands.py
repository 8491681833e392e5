"""The typed command bodies are the domain's commands, built from the ruleset registry: one
body per command of every registered ruleset, each with its example (no database needed)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from api.app import create_app
from api.command_base import CommandBody, examples_of
from api.encounter_commands import COMMAND_BODIES, EncounterCommand
from domain.encounter.awaited import EnterDie, WithdrawAwaitedRoll
from domain.encounter.commands import JoinCombatant
from domain.encounter.rulesets import RULESETS
from domain.rules.glorious_drive.position import Position
from domain.rules.ruleset import Command

OWN: tuple[type[Command], ...] = (JoinCombatant, EnterDie, WithdrawAwaitedRoll)
CASES = [
    (ruleset_id, command)
    for ruleset_id, ruleset in RULESETS.items()
    for command in (*OWN, *ruleset.commands)
]
IDS = [f"{ruleset_id}-{command.command_type}" for ruleset_id, command in CASES]
READ = TypeAdapter(EncounterCommand).validate_python


def test_every_registered_ruleset_has_a_union_of_exactly_its_commands() -> None:
    assert set(COMMAND_BODIES.bodies) == set(RULESETS)
    for ruleset_id, ruleset in RULESETS.items():
        names = {c.command_type for c in ruleset.commands} | {c.command_type for c in OWN}
        assert set(COMMAND_BODIES.bodies[ruleset_id]) == names


@pytest.mark.parametrize(("ruleset_id", "command"), CASES, ids=IDS)
def test_a_body_is_its_command_with_the_tag_and_the_dice(
    ruleset_id: str, command: type[Command]
) -> None:
    body = COMMAND_BODIES.bodies[ruleset_id][command.command_type]
    assert issubclass(body, command)
    assert issubclass(body, CommandBody)
    assert body.carries is command
    assert set(body.model_fields) - set(command.model_fields) == {
        "command",
        "client_seed",
        "hand_faces",
        "dice",
    }
    assert body.__doc__ == command.__doc__


@pytest.mark.parametrize(("ruleset_id", "command"), CASES, ids=IDS)
def test_each_example_is_a_valid_command_read_as_this_very_body(
    ruleset_id: str, command: type[Command]
) -> None:
    body = COMMAND_BODIES.bodies[ruleset_id][command.command_type]
    examples = examples_of(command)
    assert examples, f"give {command.__name__} an example (domain.rules.ruleset.example)"
    for example in examples:
        sent = {"command": command.command_type, **example}
        parsed = READ(sent)
        assert isinstance(parsed, command)
        assert command.model_validate(parsed.payload()) == parsed.domain_command()
        if command not in OWN:  # the Encounter's own: read as the first ruleset's
            assert type(parsed) is body


def test_a_shared_name_is_told_apart_by_its_fields() -> None:
    gd, wz, ak = (COMMAND_BODIES.bodies[r] for r in RULESETS)
    assert type(READ({"command": "RollInitiative"})) is gd["RollInitiative"]
    assert (
        type(READ({"command": "RollInitiative", "representative": "aoi"})) is wz["RollInitiative"]
    )
    assert type(READ({"command": "EndPhase"})) is wz["EndPhase"]
    assert type(READ({"command": "EndPhase", "unit_id": "red"})) is ak["EndPhase"]
    attack = {"command": "DeclareAttack", "unit_id": "red", "weapon": "rifle"}
    assert type(READ(attack)) is ak["DeclareAttack"]
    assert type(READ({"command": "EndCombat", "reason": "done"})) is wz["EndCombat"]


def test_a_bad_body_is_reported_under_its_ruleset_and_command() -> None:
    with pytest.raises(ValidationError) as refused:
        READ({"command": "DeclareAttack", "unit_id": "red"})
    assert [e["loc"] for e in refused.value.errors()] == [
        ("armor_knights", "DeclareAttack", "weapon")
    ]
    with pytest.raises(ValidationError, match="`command` names no command"):
        READ({"command": "Teleport"})
    for odd in ({"command": ["Dodge"]}, {"command": {}}, {}, []):
        with pytest.raises(ValidationError):
            READ(odd)


def test_a_square_a_command_names_is_a_plain_position_of_the_board() -> None:
    """GD-SQ-1: a bounded square, read as the Position it names (a subclass would never
    equal the board's squares)."""
    move = READ({"command": "Move", "combatant_id": "ace", "path": [{"x": 2, "y": 1}]})
    assert type(move.domain_command().path[0]) is Position  # type: ignore[attr-defined]
    assert move.domain_command().path == (Position(x=2, y=1),)  # type: ignore[attr-defined]


def test_the_openapi_schema_offers_every_ruleset_body() -> None:
    schema = create_app(lambda: None, lambda _: None).openapi()  # type: ignore[arg-type]
    names = set(schema["components"]["schemas"])
    built = {body.__name__ for bodies in COMMAND_BODIES.bodies.values() for body in bodies.values()}
    assert {"DodgeBody", "WzDeclareBody", "AkStartMoveBody", "JoinCombatantBody"} <= built
    assert built <= names
    dodge: dict[str, Any] = schema["components"]["schemas"]["DodgeBody"]
    assert dodge["examples"] == [{"combatant_id": "ace", "command": "Dodge"}]
