"""AK-EXC-1 / EX-EXC-1 (exclusive actions) and AK-ORD-1 (responses resolve first)."""

from __future__ import annotations

import pytest

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.errors import RuleViolation
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, P2, cell, knight, started, weapon

FAR_AWAY = knight(6, weapons=[weapon("rifle", "far+6")])


def test_EX_EXC_1_moving_3_attacked_after_2_counter_attacks_and_the_last_1_is_lost() -> None:
    table = started(red=knight(0, weapons=[weapon("rifle", "far+6")]), blue=FAR_AWAY)
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2), cell(3))), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red", steps=2), by=P1)
    table.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle"), by=P2)  # answers the move
    new = table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)  # the counter
    lost = of_type(new, ev.ActionInterrupted)[0]
    assert (lost.action, lost.lost_distance) == ("move", 1)
    assert table.u("red").cell.x == 2
    table.do(cmd.ResolveAttack(hit=False, reason="GM: no hit"))
    table.do(cmd.ResolveAttack(hit=False, reason="GM: no hit"))
    with pytest.raises(RuleViolation, match="AK-TURN-1"):  # no move left to carry on
        table.do(cmd.AdvanceMove(unit_id="red"), by=P1)


def test_AK_EXC_1_an_attack_in_progress_is_lost_when_its_attacker_moves() -> None:
    table = started(blue=knight(3, weapons=[weapon(f_correction=1)]))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle"), by=P2)  # counter on red
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(0, 1),)), by=P1)  # emergency move
    assert [(c.attacker, c.target) for c in table.ak.checks] == [("blue", "red")]
    interrupted = of_type(table.events, ev.ActionInterrupted)
    assert [i.action for i in interrupted] == ["attack"]


def test_AK_EXC_1_an_evade_in_progress_is_lost_when_the_evader_moves() -> None:
    table = started()
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.Evade(unit_id="blue"), by=P2)
    assert table.ak.checks[-1].evading
    table.do(cmd.StartMove(unit_id="blue", f_steps=(cell(3, 1),)), by=P2)
    assert of_type(table.events, ev.ActionInterrupted)[-1].action == "evade"


def test_AK_EXC_1_an_attack_during_ones_own_move_interrupts_it() -> None:
    table = started(blue=FAR_AWAY)
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2))), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red"), by=P1)
    with pytest.raises(RuleViolation, match="AK-DST-1"):  # rifle far+3 does not reach 5
        table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(2), cell(3))), by=P1)  # a new move
    assert of_type(table.events, ev.ActionInterrupted)[-1].lost_distance == 1


def test_AK_ORD_1_responses_resolve_before_the_action_they_answer() -> None:
    table = started(blue=knight(3, weapons=[weapon(load_turns=2)]))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle"), by=P2)
    assert table.u("blue").loads == {"rifle": 2}  # reload started on declaring
    new = table.do(cmd.ResolveAttack(hit=True, reason="GM: the counter lands first"))
    assert of_type(new, ev.AttackSettled)[0].attacker == "blue"
    new = table.do(cmd.ResolveAttack(hit=False, reason="GM: red's shot goes wide"))
    assert of_type(new, ev.AttackSettled)[0].attacker == "red"
    assert table.ak.checks == ()


def test_AK_ORD_1_only_the_target_of_the_top_check_answers_it() -> None:
    table = started()
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    with pytest.raises(RuleViolation, match="AK-TURN-1"):
        table.do(cmd.EndPhase(unit_id="red"), by=P1)
    with pytest.raises(RuleViolation, match="AK-TURN-1"):
        table.do(cmd.Evade(unit_id="red"), by=P1)
