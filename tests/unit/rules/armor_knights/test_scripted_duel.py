"""A scripted duel to a shot-down victory, replayed from its stored events.

Turn 1: red's move is interrupted by its own counter (EX-EXC-1); blue's Super Vernier is
tracked (AK-TRK-1); blue's aimed shot past effective range (AK-OOR-1) is lost when red
dodges beyond a correction of 0. Turn 2: red closes to a map and shoots blue down (AK-ARM-2).
"""

from __future__ import annotations

import json

from domain.catalog import registry
from domain.encounter import aggregate
from domain.encounter.commands import RevealSeed
from domain.events import DomainEvent
from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import condition_events as cev
from domain.rules.armor_knights import events as ev
from domain.rules.records import EncounterEnded, RulingRecorded
from tests.unit.encounter.table import ENCOUNTER, SEED, of_type
from tests.unit.rules.armor_knights.duel import P1, P2, Duel, cell, duel, knight, weapon

VERNIER = {"name": "super vernier", "distance": 1, "scope": "either", "timing": "response"}


def line_up() -> Duel:
    red = knight(0, weapons=[weapon(f_correction=1, m_correction=1)])
    blue = knight(5, weapons=[weapon(), weapon("blade", "near")], fixed_moves=[VERNIER])
    return duel(red, blue, battle_map={"maps": [cell(4)]})


def turn_1(t: Duel) -> None:
    t.do(cmd.RollFirstMove(), faces=[2, 5])  # blue 2, red 5: red first
    t.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2), cell(3))), by=P1)
    t.do(cmd.AdvanceMove(unit_id="red", steps=2), by=P1)
    t.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle"), by=P2)  # answers the move
    t.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)  # counter: move lost
    assert of_type(t.events, ev.ActionInterrupted)[0].lost_distance == 1
    t.do(cmd.StartMove(unit_id="blue", f_steps=(cell(6),), fixed="super vernier"), by=P2)
    assert of_type(t.events, ev.TrackingChecked)[-1].tracked  # 1 ≤ F correction 1
    assert [c.attacker for c in t.ak.checks] == ["red"]  # blue's own attack was lost
    t.do(cmd.ResolveAttack(hit=True, reason="GM: the rifle hits the fleeing knight"))
    t.do(
        cmd.ApplyArmorEffect(
            target="blue", armor="physical", amount=-6, mode="reduced", reason="GM: rifle hit"
        )
    )
    t.do(cmd.EndPhase(unit_id="red"), by=P1)
    t.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle", aim=True), faces=[6])  # 6 ≥ 2 + 4
    assert t.ak.checks[-1].out_of_range
    t.do(cmd.StartMove(unit_id="red", f_steps=(cell(1),)), by=P1)  # emergency: F 1 > 0
    assert of_type(t.events, ev.AttackSettled)[-1].rule_id == "AK-TRK-1"
    t.do(cmd.EndPhase(unit_id="blue"), by=P2)
    assert t.u("blue").armor["physical"] == 10  # the turn-long reduction ended


def turn_2(t: Duel) -> None:
    t.do(cmd.RollFirstMove(), faces=[1, 4])
    t.do(cmd.StartMove(unit_id="red", f_steps=(cell(2), cell(3), cell(4))), by=P1)
    t.do(cmd.AdvanceMove(unit_id="red", steps=3), by=P1)  # into the map at cell 4
    t.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    t.do(cmd.Evade(unit_id="blue"), by=P2)
    t.do(cmd.ResolveAttack(hit=True, reason="GM: the evade comes too late"))
    t.do(
        cmd.ApplyArmorEffect(
            target="blue",
            armor="physical",
            amount=-15,
            mode="reduced",
            lasts="until_shot_down",
            reason="GM: armour-piercing hit",
        )
    )


def stored(events: list[DomainEvent]) -> list[DomainEvent]:
    """What the event store would give back: topic + JSON, decoded through the registry."""
    rows = [(registry.topic(e), json.loads(e.model_dump_json())) for e in events]
    return [registry.decode(topic, data) for topic, data in rows]


def test_a_two_turn_duel_ends_with_blue_shot_down() -> None:
    table = line_up()
    turn_1(table)
    turn_2(table)
    assert table.state.ended
    assert of_type(table.events, EncounterEnded)[0].rule_id == "AK-WIN-1"
    assert of_type(table.events, cev.UnitShotDown)[0].value == -5
    assert table.ak.winner == "red"
    assert (table.u("red").cell.x, table.u("blue").cell.x) == (4, 6)


def test_the_duel_replays_from_its_stored_events_to_the_identical_state() -> None:
    table = line_up()
    turn_1(table)
    turn_2(table)
    table.do(RevealSeed(server_seed=SEED.hex()))
    rebuilt = aggregate.KIND.rebuild(ENCOUNTER, stored(table.events))
    assert rebuilt == table.state
    assert rebuilt.version == len(table.events)


def test_every_duel_fact_reads_as_a_log_line_and_follows_the_ruling_that_produced_it() -> None:
    table = line_up()
    turn_1(table)
    turn_2(table)
    facts = [e for e in table.events if e.event_type.startswith("ak.")]
    assert facts
    assert all(e.summary_en and e.summary_ja for e in facts)  # type: ignore[attr-defined]
    first = table.events.index(facts[0])
    assert any(isinstance(e, RulingRecorded) for e in table.events[:first])
