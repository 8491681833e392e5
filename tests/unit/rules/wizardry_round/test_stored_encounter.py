"""WZ-3a: an encounter stored before the default became `hold` keeps the `rise` it opened with.

The golden stream was recorded by the engine of ruleset version 1 when `rise` was the default
(domain/rules/wizardry_round/golden/streams/wz.fatigue-rise.ruleset-v1.json, never edited): a
PC with k = 1 (endurance 2, Fatigue 1) against a goblin, three rounds played, round 4 begun.
EncounterOpened holds every option, defaults filled in, so neither rebuilding nor re-deciding
it reads today's default.
"""

from __future__ import annotations

import json
from pathlib import Path

from domain.catalog import registry
from domain.encounter import aggregate
from domain.encounter.events import EncounterOpened
from domain.encounter.replay import replay
from domain.events import DomainEvent
from domain.rules import wizardry_round
from domain.rules.wizardry_round.events import FatigueChanged
from domain.rules.wizardry_round.options import WizardryRoundOptions
from domain.rules.wizardry_round.state import WzState
from tests.unit.encounter.log import FIGHT

STORED = (
    Path(wizardry_round.__file__).parent / "golden" / "streams" / "wz.fatigue-rise.ruleset-v1.json"
)


def stored() -> list[DomainEvent]:
    rows = json.loads(STORED.read_text(encoding="utf-8"))
    return [registry.decode(row["topic"], row["data"]) for row in rows]


def test_WZ_3a_the_stored_encounter_recorded_rise_while_the_default_is_now_hold() -> None:
    opened = stored()[0]
    assert isinstance(opened, EncounterOpened)
    assert (opened.ruleset_version, opened.options["fatigue_ac_after_second"]) == ("1", "rise")
    assert WizardryRoundOptions().fatigue_ac_after_second == "hold"


def test_WZ_3a_rebuilt_the_stored_encounter_still_rises_past_2k() -> None:
    rules = aggregate.KIND.rebuild(FIGHT, stored()).rules
    assert isinstance(rules, WzState)
    tired = rules.combatants["tired"]
    assert (rules.round, tired.die_penalty, tired.ac_penalty) == (4, 6, 6)


def test_WZ_3a_re_decided_the_stored_encounter_replays_identically() -> None:
    events = stored()
    same = replay(FIGHT, events)
    assert same.complete
    assert same.divergence is None
    assert same.differences == {}
    assert same.options["fatigue_ac_after_second"] == "rise"
    assert isinstance(same.state, aggregate.Encounter)
    assert isinstance(same.state.rules, WzState)
    assert same.state.rules.combatants["tired"].ac_penalty == 6


def test_WZ_3a_replayed_under_hold_the_stored_encounter_ends_with_ac_4_not_6() -> None:
    held = replay(FIGHT, stored(), options={"fatigue_ac_after_second": "hold"})
    assert held.divergence is not None  # the first fatigue ruling read the other option
    changed = [e for e in held.divergence.replayed if e["type"] == FatigueChanged.event_type]
    assert changed
    assert held.differences["tired"]["ac_penalty"] == {"original": 6, "replay": 4}
