"""AK-MOV-1..3: normal, fixed (△F / ▲M) and emergency moves."""

from __future__ import annotations

import pytest

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.errors import RuleViolation
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, P2, cell, knight, started, weapon

VERNIER = {"name": "vernier", "distance": 1, "scope": "either", "timing": "response"}
DASH_F = {"name": "dash", "distance": 2, "scope": "field", "timing": "active"}
STEP_M = {"name": "step", "distance": 1, "scope": "map", "timing": "active"}


def limit(penalty: int = 0, cannot_move: bool = False) -> cmd.ImposeMoveLimit:
    return cmd.ImposeMoveLimit(
        target="red", penalty=penalty, cannot_move=cannot_move, reason="GM: a weapon's effect"
    )


def test_AK_MOV_1_a_normal_move_is_limited_by_the_move_value_and_its_penalties() -> None:
    table = started(blue=knight(6))
    path = (cell(1), cell(2), cell(3), cell(4))
    with pytest.raises(RuleViolation, match="AK-MOV-1"):
        table.do(cmd.StartMove(unit_id="red", f_steps=path), by=P1)
    table.do(limit(penalty=1))
    with pytest.raises(RuleViolation, match="AK-MOV-1"):
        table.do(cmd.StartMove(unit_id="red", f_steps=path[:3]), by=P1)
    table.do(cmd.StartMove(unit_id="red", f_steps=path[:2]), by=P1)


def test_AK_MOV_1_a_normal_move_is_an_active_action_of_ones_own_phase() -> None:
    table = started()
    with pytest.raises(RuleViolation, match="AK-TURN-1"):
        table.do(cmd.StartMove(unit_id="blue", f_steps=(cell(4),)), by=P2)


def test_AK_MOV_2_a_fixed_move_goes_exactly_n_whatever_move_values_and_penalties() -> None:
    table = started(red=knight(0, f_move=0, fixed_moves=[DASH_F]), blue=knight(6))
    table.do(limit(penalty=3))
    with pytest.raises(RuleViolation, match="AK-MOV-2"):
        table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1),), fixed="dash"), by=P1)
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2)), fixed="dash"), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red", steps=2), by=P1)
    assert table.u("red").cell.x == 2


def test_AK_MOV_2_cannot_move_still_wins_over_a_fixed_move() -> None:
    table = started(red=knight(0, fixed_moves=[DASH_F]), blue=knight(6))
    table.do(limit(cannot_move=True))
    with pytest.raises(RuleViolation, match="AK-MOV-2"):
        table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2)), fixed="dash"), by=P1)


def test_AK_MOV_2_field_only_and_map_only_scopes() -> None:
    red = knight(0, fixed_moves=[DASH_F, STEP_M])
    table = started(red=red, blue=knight(0), battle_map={"band": "far"})
    with pytest.raises(RuleViolation, match="▲M"):
        table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1),), fixed="step"), by=P1)
    with pytest.raises(RuleViolation, match="△F"):
        table.do(cmd.StartMove(unit_id="red", m_steps=("closer", "closer"), fixed="dash"), by=P1)
    table.do(cmd.StartMove(unit_id="red", m_steps=("closer",), fixed="step"), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red"), by=P1)
    assert table.ak.band == "mid"


def test_AK_MOV_2_field_only_cannot_leave_a_map_at_mid_or_near_range() -> None:
    red = knight(0, fixed_moves=[DASH_F])
    table = started(red=red, blue=knight(0), battle_map={"band": "mid"})
    with pytest.raises(RuleViolation, match="cannot leave a map at mid"):
        table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2)), fixed="dash"), by=P1)
    far = started(red=red, blue=knight(0), battle_map={"band": "far"})
    far.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2)), fixed="dash"), by=P1)


def test_AK_MOV_3_any_move_during_a_check_is_an_emergency_move() -> None:
    blue = knight(3, fixed_moves=[VERNIER])
    table = started(red=knight(0, weapons=[weapon(f_correction=3)]), blue=blue)
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.StartMove(unit_id="blue", f_steps=(cell(4),), fixed="vernier"), by=P2)
    table.do(cmd.StartMove(unit_id="blue", f_steps=(cell(5),)), by=P2)  # a normal one too
    started_moves = of_type(table.events, ev.MoveStarted)
    assert [(m.kind, m.emergency) for m in started_moves] == [("fixed", True), ("normal", True)]
    assert table.u("blue").cell.x == 5  # resolved at once, before the attack
    assert table.u("blue").moving is None


def test_AK_MOV_1_a_move_still_under_way_when_the_phase_ends_is_lost() -> None:
    table = started(blue=knight(6))
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2), cell(3))), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red"), by=P1)
    new = table.do(cmd.EndPhase(unit_id="red"), by=P1)
    assert of_type(new, ev.MoveAdvanced)[0].lost_distance == 2
    assert (table.u("red").cell.x, table.u("red").moving) == (1, None)


def test_AK_MOV_1_the_procedure_shows_a_move_under_way_and_who_may_answer_it() -> None:
    table = started(blue=knight(6))
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2))), by=P1)
    point = table.state.ruleset.procedure(table.ak)
    assert (point.step, point.acting) == ("moving", "red")
    awaited = {(a.command, a.combatant) for a in point.awaiting}
    assert {("AdvanceMove", "red"), ("DeclareAttack", "blue")} <= awaited
