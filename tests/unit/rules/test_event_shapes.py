"""Stored JSON of every rule system's facts: each golden file loads to the same event.

A rule system keeps its facts' samples and goldens in its own folder (domain/rules/<id>/
samples.py, golden/events/<topic>.json), so a new fact touches that folder only; this test
finds them for every ruleset in the registry. The shared test (tests/unit/
test_stored_event_shapes.py) asks that every registered type has a golden file somewhere.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import domain.rules
from domain.catalog import registry
from domain.encounter.rulesets import RULESETS
from domain.events import DomainEvent
from tests.support.golden import assert_loads_to

RULES = Path(domain.rules.__file__).parent


def samples_of(system: str) -> list[DomainEvent]:
    samples: list[DomainEvent] = importlib.import_module(f"domain.rules.{system}.samples").SAMPLES
    return samples


CASES = [(system, event) for system in sorted(RULESETS) for event in samples_of(system)]


@pytest.mark.parametrize(
    ("system", "event"), CASES, ids=[registry.topic(event) for _, event in CASES]
)
def test_the_golden_json_of_each_rule_systems_fact_still_loads_to_the_same_event(
    system: str, event: DomainEvent
) -> None:
    path = RULES / system / "golden" / "events" / f"{registry.topic(event)}.json"
    assert_loads_to(path, event)


@pytest.mark.parametrize("system", sorted(RULESETS))
def test_every_fact_of_a_rule_system_has_a_sample(system: str) -> None:
    sampled = {e.event_type for e in samples_of(system)}
    ours = {
        kind.event_type
        for kind in registry.stored_topics().values()
        if kind.__module__.startswith(f"domain.rules.{system}.")
    }
    assert ours, f"no fact of {system} is registered"
    assert ours <= sampled, f"add a sample to domain/rules/{system}/samples.py: {ours - sampled}"


@pytest.mark.parametrize("system", sorted(RULESETS))
def test_every_golden_file_in_a_rule_systems_folder_is_one_of_its_samples(system: str) -> None:
    """A golden file is kept for good (an old version stays when a new one comes), so each
    one must be read by a sample: none lies there unchecked."""
    read = {registry.topic(e) for e in samples_of(system)}
    kept = {p.stem for p in (RULES / system / "golden" / "events").glob("*.json")}
    assert kept - read == set()
