"""AK-OOR-1 / EX-OOR-1: out-of-effective-range fire with an aim check of 1D6 ≥ 2 + F."""

from __future__ import annotations

import pytest

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from domain.rules.errors import RuleViolation
from domain.rules.records import EncounterDiceRolled, RulingRecorded
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, P2, cell, knight, started, weapon

LONG = weapon("long", "far", load_turns=1)


def shooter(*arms: dict[str, object]) -> dict[str, object]:
    return knight(0, weapons=list(arms) or [LONG])


def test_EX_OOR_1_three_cells_away_needs_5_or_6() -> None:
    table = started(red=shooter())  # blue is 3 F away
    table.do(cmd.DeclareAttack(unit_id="red", weapon="long", aim=True), faces=[4])
    aim = of_type(table.events, RulingRecorded)[-2]
    assert (aim.rule_ids, aim.outcome["need"], aim.outcome["success"]) == (
        ("AK-OOR-1",),
        5,
        False,
    )
    settled = of_type(table.events, ev.AttackSettled)
    assert [(s.outcome, s.rule_id) for s in settled] == [("missed", "AK-OOR-1")]
    again = started(red=shooter())
    again.do(cmd.DeclareAttack(unit_id="red", weapon="long", aim=True), faces=[5])
    assert again.ak.checks[-1].out_of_range


def test_AK_OOR_1_a_failed_aim_still_spends_the_point_and_starts_the_reload() -> None:
    table = started(red=shooter())
    table.do(cmd.DeclareAttack(unit_id="red", weapon="long", aim=True), faces=[1])
    assert (table.u("red").active_points, table.u("red").loads) == (2, {"long": 1})


def test_AK_OOR_1_past_effective_range_the_aim_must_be_declared() -> None:
    table = started(red=shooter())
    with pytest.raises(RuleViolation, match="AK-DST-1"):
        table.do(cmd.DeclareAttack(unit_id="red", weapon="long"), by=P1)


def test_AK_OOR_1_only_a_weapon_of_range_far_or_longer() -> None:
    table = started(red=shooter(weapon("gun", "mid")), blue=knight(1))
    with pytest.raises(RuleViolation, match="AK-OOR-1"):
        table.do(cmd.DeclareAttack(unit_id="red", weapon="gun", aim=True), faces=[6])


def test_AK_OOR_1_no_aim_check_inside_effective_range() -> None:
    table = started()
    with pytest.raises(RuleViolation, match="AK-OOR-1"):
        table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle", aim=True), faces=[6])


def test_EX_OOR_1_it_cannot_follow_a_target_that_moved_in_reaction() -> None:
    """In range → the target moves in answer → beyond range but within an aimed shot: no aim."""
    table = started(red=shooter(weapon("rifle", "far+3")))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.StartMove(unit_id="blue", f_steps=(cell(4),)), by=P2)  # now 4 F: far+4
    settled = of_type(table.events, ev.AttackSettled)
    assert [(s.outcome, s.rule_id) for s in settled] == [("missed", "AK-TRK-1")]
    purposes = [d.result.purpose for d in of_type(table.events, EncounterDiceRolled)]
    assert "AK-OOR-1" not in purposes  # the attack was never turned into an aimed shot


def test_EX_OOR_1_following_a_moved_target_is_tracking_not_an_aimed_shot() -> None:
    table = started(red=shooter(weapon("rifle", "far+3", f_correction=1)))
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    table.do(cmd.StartMove(unit_id="blue", f_steps=(cell(4),)), by=P2)
    assert [(c.out_of_range, c.moved_f) for c in table.ak.checks] == [(False, 1)]
    with pytest.raises(RuleViolation, match="AK-TURN-1"):  # no re-aiming while it is open
        table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle", aim=True), faces=[6])
