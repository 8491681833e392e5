"""A command's answer is built without validating it again (infra/services/encounter_answers.py):
every answer the scripted fights of the three rulesets give must still be what validation
would have made of it, or a client would get JSON its own generated types refuse.

Each command the fights decide is caught where it is decided (`aggregate.decided`), and its
answer built from the state and the events it decided, as the executor builds it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from domain.encounter import aggregate
from domain.events import DomainEvent
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from infra.services.encounter_answers import CommandAnswer, command_answer
from tests.unit.encounter import test_scripted_encounter_full as gd_fight
from tests.unit.rules import fights


def _gd() -> list[DomainEvent]:
    return gd_fight.play().events


FIGHTS: dict[str, Callable[[], list[DomainEvent]]] = {
    "gd": _gd,
    "wz": fights.wizardry_round,
    "ak": fights.armor_knights,
}


def answers(
    ruleset: str, monkeypatch: pytest.MonkeyPatch, states: dict[str, list[Any]] | None = None
) -> list[CommandAnswer]:
    """The answer to each command the fight decides, as the executor would build it (and,
    in `states`, the state each command reached)."""
    states = {} if states is None else states
    built: list[CommandAnswer] = []
    decided = aggregate.decided
    reached = states.setdefault(ruleset, [])

    def answering(*args: Any, **kwargs: Any) -> aggregate.Decided[aggregate.Encounter]:
        outcome = decided(*args, **kwargs)
        version = (built[-1].version if built else 0) + len(outcome.events)
        built.append(command_answer(outcome.state, version, outcome.events))
        reached.append(outcome.state)
        return outcome

    monkeypatch.setattr(aggregate, "decided", answering)
    FIGHTS[ruleset]()
    return built


@pytest.mark.parametrize("ruleset", FIGHTS)
def test_every_answer_of_a_fight_validates_as_built(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = answers(ruleset, monkeypatch)

    assert len(built) > 10
    for answer in built:
        validated = CommandAnswer.model_validate_json(answer.model_dump_json())
        assert validated == CommandAnswer.model_validate(answer.model_dump()) == answer
        assert validated.model_dump_json() == answer.model_dump_json()


@pytest.mark.parametrize("ruleset", FIGHTS)
def test_an_answer_carries_each_decided_fact_its_rolls_and_its_rulings(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = answers(ruleset, monkeypatch)
    monkeypatch.undo()
    events = FIGHTS[ruleset]()  # the same fight, its dice scripted or seeded

    facts = [f for a in built for f in a.facts]
    assert [f.type for f in facts] == [e.event_type for e in events]
    assert [f.payload for f in facts] == [
        e.model_dump(mode="json", exclude={"at", "by"}) for e in events
    ]
    assert [f.version for f in facts] == list(range(1, len(events) + 1))
    assert sum(len(a.rolls) for a in built) == sum(
        isinstance(e, EncounterDiceRolled) for e in events
    )
    assert sum(len(a.rulings) for a in built) == sum(isinstance(e, RulingRecorded) for e in events)


@pytest.mark.parametrize("ruleset", FIGHTS)
def test_an_answer_awaits_what_the_procedure_point_of_its_state_awaits(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    states: dict[str, list[Any]] = {}
    built = answers(ruleset, monkeypatch, states)

    for answer, state in zip(built, states[ruleset], strict=True):
        point = aggregate.procedure(state) if state.opened and not state.ended else None
        expected = [] if point is None else [a.model_dump() for a in point.awaiting]
        assert [a.model_dump() for a in answer.awaiting.commands] == expected
    assert any(answer.awaiting.commands for answer in built)
    assert any(not answer.awaiting.commands for answer in built)  # the fight's end
