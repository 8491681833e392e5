"""Stored JSON of every Armor Knights event: each golden file loads unchanged.

The shared test (tests/unit/test_stored_event_shapes.py) asks that every registered type has
a golden file; this one checks that each file still decodes to the same event.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.catalog import registry
from domain.events import DomainEvent
from domain.rules.armor_knights import condition_events as cev
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.sheet import Cell
from tests.unit.encounter.table import AT

GOLDEN = Path(__file__).parents[3] / "golden" / "events"
M = {"at": AT, "by": "gm"}
HERE = Cell(x=2, y=0)


# Each AK fact also reads as a line of the log (the wording is free; the shape is checked).
LINE = {"summary_en": "red's move is interrupted", "summary_ja": "redの移動動作は中断"}


SAMPLES: list[DomainEvent] = [
    ev.FirstMoveDecided(
        turn=1,
        order=("red", "blue"),
        totals={"red": 5, "blue": 2},
        **M,
        **LINE,
    ),
    ev.AttackDeclared(
        attacker="red",
        target="blue",
        weapon="rifle",
        response=False,
        points_left=2,
        load_turns=1,
        m_correction=1,
        f_correction=2,
        out_of_range=True,
        **M,
        **LINE,
    ),
    ev.AttackSettled(
        attacker="red",
        target="blue",
        outcome="missed",
        rule_id="AK-TRK-1",
        **M,
        **LINE,
    ),
    ev.ActionInterrupted(
        unit="red",
        action="move",
        lost_distance=1,
        **M,
        **LINE,
    ),
    ev.EvadeDeclared(
        unit="blue",
        attacker="red",
        points_left=1,
        **M,
        **LINE,
    ),
    ev.MoveStarted(
        unit="red",
        kind="fixed",
        emergency=True,
        axis="F",
        f_steps=(HERE,),
        entry_band="far",
        response=True,
        points_left=1,
        **M,
        **LINE,
    ),
    ev.MoveAdvanced(
        unit="red",
        steps=1,
        cell=HERE,
        band="far",
        remaining=0,
        lost_distance=1,
        **M,
        **LINE,
    ),
    ev.TrackingChecked(
        attacker="red",
        target="blue",
        moved_m=0,
        moved_f=2,
        tracked=True,
        **M,
        **LINE,
    ),
    ev.WeaponReloaded(
        unit="red",
        weapon="cannon",
        load_turns=1,
        points_left=2,
        **M,
        **LINE,
    ),
    ev.WeaponsSwapped(
        unit="red",
        stowed=("blade",),
        now_equipped=("rifle",),
        points_left=2,
        **M,
        **LINE,
    ),
    cev.ArmorEffectApplied(
        unit="blue",
        armor="physical",
        amount=-5,
        mode="treated",
        lasts="turn",
        stored=10,
        effective=5,
        **M,
        **LINE,
    ),
    cev.MoveLimitImposed(
        unit="red",
        penalty=1,
        cannot_move=False,
        **M,
        **LINE,
    ),
    cev.UnitShotDown(
        unit="blue",
        armor="physical",
        value=-5,
        **M,
        **LINE,
    ),
    cev.SideWon(
        side="red",
        condition="shot_down",
        **M,
        **LINE,
    ),
    ev.PhaseEnded(
        unit="red",
        active_points=3,
        opponent="blue",
        opponent_response_points=2,
        **M,
        **LINE,
    ),
    ev.TurnEnded(
        turn=1,
        loads={"red": {"cannon": 1}},
        armor={"blue": {"physical": 10, "beam": 8}},
        **M,
        **LINE,
    ),
]


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_of_each_armor_knights_event_still_loads_to_the_same_event(
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


def test_every_armor_knights_event_type_has_a_sample() -> None:
    sampled = {e.event_type for e in SAMPLES}
    ours = {t for t in registry.known_types() if t.startswith("ak.")}
    assert ours <= sampled
