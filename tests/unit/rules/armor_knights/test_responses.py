"""The AK introduction: responses (対応動作) come whenever a rule allows one, in either phase.

The seed's own example (EX-EXC-1): a unit attacked while it moves in its own phase
counter-attacks at once, spending a response point, not an active one.
"""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, P2, cell, knight, started, weapon

LONG = [weapon("rifle", "far+6")]


def test_AK_responses_in_ones_own_phase_attacked_while_moving_a_unit_counter_attacks() -> None:
    table = started(red=knight(0, weapons=LONG), blue=knight(6, weapons=LONG))
    assert table.ak.acting == "red"  # red's own phase
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2))), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red", steps=1), by=P1)
    table.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle"), by=P2)
    active, response = table.u("red").active_points, table.u("red").response_points
    new = table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)  # at once
    counter = of_type(new, ev.AttackDeclared)[0]
    assert (counter.attacker, counter.response) == ("red", True)
    red = table.u("red")
    assert (red.active_points, red.response_points) == (active, response - 1)


def test_AK_responses_in_the_opponents_phase_a_unit_answers_a_move_under_way() -> None:
    table = started(red=knight(0, weapons=LONG), blue=knight(6, weapons=LONG))
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2))), by=P1)
    new = table.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle"), by=P2)
    assert of_type(new, ev.AttackDeclared)[0].response
    assert table.u("blue").response_points == 1
