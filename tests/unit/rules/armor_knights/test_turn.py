"""AK-TURN-1..3 and AK-WIN-1: who goes first, alternating phases, points, and victory."""

from __future__ import annotations

import pytest

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights.condition_events import SideWon
from domain.rules.errors import RuleViolation
from domain.rules.records import RulingRecorded
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, P2, Duel, cell, duel, knight, started, weapon


def test_AK_TURN_1_two_sides_alternate_phases_and_make_one_turn() -> None:
    table = started()
    assert (table.ak.turn, table.ak.acting) == (1, "red")
    table.do(cmd.EndPhase(unit_id="red"), by=P1)
    assert table.ak.acting == "blue"
    table.do(cmd.EndPhase(unit_id="blue"), by=P2)
    assert (table.ak.phase, table.ak.acting) == ("first_move", None)


def test_AK_TURN_1_a_duel_needs_two_units_on_two_sides() -> None:
    table = Duel().open()
    table.join("red", "p1", "red", knight(0)).join("pink", "p2", "red", knight(3))
    with pytest.raises(RuleViolation, match="AK-TURN-1"):
        table.do(cmd.RollFirstMove(), faces=[1, 2])


def test_AK_TURN_1_a_command_out_of_turn_is_refused() -> None:
    table = started()
    with pytest.raises(RuleViolation, match="AK-TURN-1"):
        table.do(cmd.EndPhase(unit_id="blue"), by=P2)


def test_AK_TURN_2_the_higher_first_move_roll_takes_the_first_phase() -> None:
    table = duel()
    table.do(cmd.RollFirstMove(), faces=[6, 1])  # blue 6, red 1
    assert table.ak.order == ("blue", "red")


def test_AK_TURN_2a_reroll_a_tie_is_rolled_again_until_it_is_broken() -> None:
    table = duel()
    new = table.do(cmd.RollFirstMove(), faces=[3, 3, 4, 4, 1, 2])
    assert table.ak.order == ("red", "blue")
    ruling = of_type(new, RulingRecorded)[0]
    assert ruling.options == {"first_move_ties": "reroll"}
    assert len(ruling.roll_seqs) == 6


def test_AK_TURN_2a_keep_previous_a_tie_leaves_the_first_phase_with_last_turns_first() -> None:
    table = started(first_move_ties="keep_previous")  # turn 1: red first
    table.do(cmd.EndPhase(unit_id="red"), by=P1)
    table.do(cmd.EndPhase(unit_id="blue"), by=P2)
    table.do(cmd.RollFirstMove(), faces=[4, 4])
    assert table.ak.order == ("red", "blue")


def test_AK_TURN_2a_keep_previous_still_rerolls_a_tie_in_the_first_turn() -> None:
    table = duel(first_move_ties="keep_previous")
    table.do(cmd.RollFirstMove(), faces=[4, 4, 5, 1])
    assert table.ak.order == ("blue", "red")


def test_AK_TURN_3_points_are_restored_at_the_end_of_own_and_opponents_phase() -> None:
    table = started()
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.DeclareAttack(unit_id="blue", weapon="rifle"), by=P2)  # counter: response
    assert (table.u("red").active_points, table.u("blue").response_points) == (2, 1)
    table.do(cmd.ResolveAttack(hit=False, reason="GM: both miss"))
    table.do(cmd.ResolveAttack(hit=False, reason="GM: both miss"))
    table.do(cmd.EndPhase(unit_id="red"), by=P1)
    assert (table.u("red").active_points, table.u("blue").response_points) == (3, 2)


def test_AK_TURN_3_only_acquired_actions_attack_and_move_always() -> None:
    bare = knight(0, actions=[], weapons=[weapon(load_turns=1)])
    table = started(red=bare)
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.ResolveAttack(hit=False, reason="missed"))
    with pytest.raises(RuleViolation, match="AK-TURN-1"):  # reload is not offered at all
        table.do(cmd.Reload(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1),)), by=P1)


def test_AK_TURN_3_a_phase_with_no_active_points_left_ends_by_itself_recorded_as_such() -> None:
    """Issue 19: given red's last active point spent on an attack, when the GM rules the
    attack, then red's phase ends in the same decision (no one has a choice left in it),
    citing AK-TURN-3, and blue's phase begins."""
    table = started(red=knight(0, active_points=1))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    assert table.ak.acting == "red"  # a check is open: blue may still answer it
    events = table.do(cmd.ResolveAttack(hit=False, reason="missed"))
    advanced = [r for r in of_type(events, RulingRecorded) if r.outcome.get("advanced")]
    assert [(r.rule_ids, r.outcome) for r in advanced] == [(("AK-TURN-3",), {"advanced": "phase"})]
    assert [e.event_type for e in events][-3:] == [
        "RulingRecorded",  # advanced: phase
        "RulingRecorded",  # AK-TURN-1/3 points restored
        "ak.PhaseEnded",
    ]
    assert table.ak.acting == "blue"
    assert table.u("red").active_points == 1  # AK-TURN-3: restored at the end of its phase


def test_AK_TURN_3_no_active_action_without_points_and_an_explicit_end_is_told_why() -> None:
    table = started(red=knight(0, active_points=1))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.ResolveAttack(hit=False, reason="missed"))
    for late in (cmd.StartMove(unit_id="red", f_steps=(cell(1),)), cmd.EndPhase(unit_id="red")):
        with pytest.raises(RuleViolation) as refused:
            table.do(late, by=P1)
        assert refused.value.rule_id == "AK-TURN-1"
        assert "EndPhase(blue)" in refused.value.detail


def test_AK_WIN_1_a_cumulative_first_move_total_of_20_wins() -> None:
    table = duel()
    for _ in range(3):
        table.do(cmd.RollFirstMove(), faces=[6, 1])
        table.do(cmd.EndPhase(unit_id="blue"), by=P2)
        table.do(cmd.EndPhase(unit_id="red"), by=P1)
    assert table.u("blue").first_move_total == 18
    table.do(cmd.RollFirstMove(), faces=[2, 1])
    assert table.ak.winner == "blue"
    assert table.state.ended


def test_AK_WIN_1_both_reaching_20_together_is_left_to_the_gm() -> None:
    table = duel()
    for _ in range(4):
        table.do(cmd.RollFirstMove(), faces=[5, 6] if _ % 2 else [6, 5])
        first, second = table.ak.order
        table.do(cmd.EndPhase(unit_id=first), by=P1 if first == "red" else P2)
        table.do(cmd.EndPhase(unit_id=second), by=P1 if second == "red" else P2)
    table.do(cmd.RollFirstMove(), faces=[1, 2])
    assert not table.state.ended
    table.do(cmd.DeclareVictory(side="red", reason="GM: red holds the objective"))
    assert of_type(table.events, SideWon)[-1].condition == "situational"


def test_AK_WIN_1_a_situational_victory_is_recorded_by_the_gm() -> None:
    table = started()
    table.do(cmd.DeclareVictory(side="blue", reason="red's pilot ejected"))
    assert (table.ak.winner, table.state.ended) == ("blue", True)
    with pytest.raises(RuleViolation, match="AK-WIN-1"):
        started().do(cmd.DeclareVictory(side="green", reason="?"))
