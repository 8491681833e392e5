"""Stored JSON of every WZ event: each golden file loads unchanged.

The shared test (tests/unit/test_stored_event_shapes.py) asks that every registered type has
a golden file; this one checks that each file still decodes to the same event.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.catalog import registry
from domain.events import DomainEvent
from domain.rules.wizardry_round import events as wz
from domain.rules.wizardry_round import status_events as wzs
from domain.rules.wizardry_round.state import Inning
from tests.unit.encounter.table import AT

GOLDEN = Path(__file__).parents[3] / "golden" / "events"
M = {"at": AT, "by": "gm", "summary_en": "a log line", "summary_ja": "ログの一行"}

SAMPLES: list[DomainEvent] = [
    wz.SurpriseResolved(surprising=("goblin",), note="the goblins lay in wait", **M),
    wz.PhaseEntered(round=1, phase="combat_start", **M),
    wz.CombatStarted(combatant="fighter", weapon="sword", strategy=2, **M),
    wz.TpGained(pool="pc", gain=2, tp=3, rule_id="WZ-2", **M),
    wz.FatigueChanged(combatant="mage", step=2, die_penalty=4, ac_penalty=4, collapsed=False, **M),
    wz.IdentificationNamed(target="ogre", difficulty=12, skill="monster lore", **M),
    wz.CheckRolled(
        combatant="mage",
        kind="action",
        expression="1D20+3",
        faces=(10,),
        fatigue_penalty=2,
        total=15,
        roll_seqs=(4,),
        **M,
    ),
    wz.CheckRuled(combatant="mage", success=True, outcome="the goblin falls asleep", **M),
    wz.ActionDeclared(
        combatant="fighter",
        form="a",
        sub="combat move",
        main="attack",
        passive="shield",
        full=None,
        free=("shout",),
        two_handed_attack=False,
        ini=15,
        **M,
    ),
    wz.FormationDeclared(combatant="fighter", formation="wedge", pool="pc", cost=2, tp=1, **M),
    wz.InitiativeRolled(
        pc_die=4,
        gm_die=7,
        difference=3,
        innings=(Inning(ini=14, members=("fighter", "goblin")), Inning(ini=13, members=("mage",))),
        **M,
    ),
    wz.ActionTaken(combatant="fighter", ini=14, note="strikes the goblin", **M),
    wz.DeclarationDropped(
        combatant="ogre", ini=11, fallback="defensive_stance", passive_kept=False, **M
    ),
    wzs.StatusInflicted(
        combatant="fighter", status="paralysis", incapacitating=True, deferred=True, **M
    ),
    wzs.StatusTookEffect(combatant="fighter", status="paralysis", incapacitating=True, **M),
    wzs.StatusRemoved(combatant="fighter", status="paralysis", **M),
    wz.InningEnded(ini=14, **M),
]


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_of_each_wz_event_still_loads_to_the_same_event(
    event: DomainEvent,
) -> None:
    path = GOLDEN / f"{registry.topic(event)}.json"
    current = json.loads(event.model_dump_json())
    if not path.exists():
        pytest.fail(
            f"no golden file; create {path} with:\n{json.dumps(current, ensure_ascii=False)}"
        )
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert registry.decode(registry.topic(event), stored) == event


def test_every_wz_event_type_has_a_sample() -> None:
    sampled = {e.event_type for e in SAMPLES}
    ours = {t for t in registry.known_types() if t.startswith("wz.")}
    assert ours <= sampled
