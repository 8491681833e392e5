"""A fourth rule system is one folder plus one registry line (issue 16): High Roll
(tests/support/high_roll/) is adjudicated, served over HTTP and logged with no other edit."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from api.encounter_commands import CommandBodies
from domain.dice import commitment
from domain.encounter.commands import JoinCombatant, OpenEncounter
from domain.encounter.errors import WrongState
from domain.encounter.rulesets import RULESETS, ruleset_for
from projections.render import render
from tests.support.high_roll.commands import Roll
from tests.support.high_roll.ruleset import HIGH_ROLL
from tests.unit.encounter.table import SEED, Table


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    # The one line a fourth rule system adds to domain/encounter/rulesets.py.
    monkeypatch.setitem(RULESETS, HIGH_ROLL.id, HIGH_ROLL)


def _fight() -> Table:
    table = Table()
    table.do(OpenEncounter(ruleset_id="high_roll", commitment=commitment(SEED)))
    for who in ("ace", "bolt"):
        table.do(JoinCombatant(combatant_id=who, name=who, side=who, controller=who, sheet={}))
    table.do(Roll(combatant_id="ace"), faces=[5])
    table.do(Roll(combatant_id="bolt"), faces=[3])
    return table


def test_without_its_registry_line_no_encounter_opens_under_it() -> None:
    with pytest.raises(WrongState, match="unknown ruleset 'high_roll'"):
        ruleset_for("high_roll")


@pytest.mark.usefixtures("registered")
def test_hr_1_the_encounter_adjudicates_it_with_recorded_dice() -> None:
    table = _fight()

    assert table.state.rules.rolls == {"ace": 5, "bolt": 3}
    assert table.state.ruleset.procedure(table.state.rules).phase == "over"
    types = [e.event_type for e in table.events[-3:]]
    assert types == ["EncounterDiceRolled", "RulingRecorded", "hr.Rolled"]


@pytest.mark.usefixtures("registered")
def test_hr_1_its_facts_read_as_lines_of_the_encounter_log() -> None:
    lines = [render(e) for e in _fight().events if e.event_type == "hr.Rolled"]

    assert lines == [
        ("ace rolled 5 (HR-1)", "aceが5を出した（HR-1）"),
        ("bolt rolled 3 (HR-1)", "boltが3を出した（HR-1）"),
    ]


@pytest.mark.usefixtures("registered")
def test_the_http_api_takes_its_commands_as_bodies_built_from_the_registry() -> None:
    bodies = CommandBodies(RULESETS)  # what api/encounter_commands.py builds at import
    read = TypeAdapter(bodies.union)

    body = read.validate_python({"command": "Roll", "combatant_id": "ace", "client_seed": "s"})

    assert type(body).__name__ == "HrRollBody"
    assert bodies.ruleset_of(body) == "high_roll"
    assert body.domain_command() == Roll(combatant_id="ace")
    schema = read.json_schema()["$defs"]["HrRollBody"]
    assert schema["examples"] == [{"command": "Roll", "combatant_id": "ace"}]
    assert schema["description"] == Roll.__doc__
