"""AK-DST-1: near/mid/far inside a map, F distance between cells, ranges far+N, map entry."""

from __future__ import annotations

import pytest

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.armor_knights.sheet import range_rank
from domain.rules.errors import RuleViolation
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, cell, knight, started, weapon


def test_AK_DST_1_ranges_run_near_mid_far_then_far_plus_one_cell_each() -> None:
    assert [range_rank(r) for r in ("near", "mid", "far", "far+1", "far+4")] == [0, 1, 2, 3, 6]
    with pytest.raises(ValueError, match="far\\+N"):
        range_rank("very far")


def test_AK_DST_1_a_target_n_cells_away_needs_far_plus_n() -> None:
    arms = [weapon("short", "far+1"), weapon("long", "far+2")]
    table = started(red=knight(0, weapons=arms), blue=knight(2))
    with pytest.raises(RuleViolation, match="AK-DST-1"):
        table.do(cmd.DeclareAttack(unit_id="red", weapon="short"), by=P1)
    table.do(cmd.DeclareAttack(unit_id="red", weapon="long"), by=P1)
    assert table.ak.checks[-1].weapon == "long"


def test_AK_DST_1_inside_one_map_the_band_decides_the_range() -> None:
    arms = [weapon("blade", "near"), weapon("gun", "mid")]
    table = started(red=knight(0, weapons=arms), blue=knight(0), battle_map={"band": "mid"})
    with pytest.raises(RuleViolation, match="AK-DST-1"):
        table.do(cmd.DeclareAttack(unit_id="red", weapon="blade"), by=P1)
    table.do(cmd.StartMove(unit_id="red", m_steps=("closer",)), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red"), by=P1)
    assert table.ak.band == "near"
    table.do(cmd.DeclareAttack(unit_id="red", weapon="blade"), by=P1)


def test_AK_DST_1_an_m_move_needs_the_opponent_in_the_same_map() -> None:
    table = started()
    with pytest.raises(RuleViolation, match="AK-DST-1"):
        table.do(cmd.StartMove(unit_id="red", m_steps=("closer",)), by=P1)


def test_AK_DST_1_entering_a_map_ends_the_move_and_loses_the_rest() -> None:
    table = started(battle_map={"maps": [cell(1)]}, blue=knight(5))
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2), cell(3))), by=P1)
    new = table.do(cmd.AdvanceMove(unit_id="red", steps=3), by=P1)
    moved = of_type(new, ev.MoveAdvanced)[0]
    assert (moved.cell.x, moved.steps, moved.lost_distance) == (1, 1, 2)
    assert table.u("red").moving is None


def test_AK_DST_1_entering_the_opponents_map_engages_at_the_stated_band() -> None:
    table = started(blue=knight(2))
    with pytest.raises(RuleViolation, match="entry_band"):
        table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2))), by=P1)
    table.do(cmd.StartMove(unit_id="red", f_steps=(cell(1), cell(2)), entry_band="far"), by=P1)
    table.do(cmd.AdvanceMove(unit_id="red", steps=2), by=P1)
    assert (table.ak.engaged(), table.ak.band) == (True, "far")


def test_AK_DST_1_a_step_must_reach_an_adjacent_cell_of_the_field() -> None:
    table = started()
    with pytest.raises(RuleViolation, match="AK-DST-1"):
        table.do(cmd.StartMove(unit_id="red", f_steps=(cell(2),)), by=P1)
    with pytest.raises(RuleViolation, match="AK-DST-1"):
        table.do(cmd.StartMove(unit_id="red", f_steps=(cell(0, 3),)), by=P1)
