"""AK-TRK-1 / EX-TRK-1: an attack follows emergency moves up to its M or F correction."""

from __future__ import annotations

from domain.rules.armor_knights import commands as cmd
from domain.rules.armor_knights import events as ev
from tests.unit.encounter.table import of_type
from tests.unit.rules.armor_knights.duel import P1, P2, Duel, cell, knight, started, weapon


def attacked(f_correction: int = 2, m_correction: int = 0, **map_: object) -> Duel:
    """Red attacks blue (3 cells away, or in one map) with the given corrections."""
    rifle = weapon(f_correction=f_correction, m_correction=m_correction)
    blue = knight(0 if map_ else 3)
    table = started(red=knight(0, weapons=[rifle]), blue=blue, battle_map=dict(map_) or None)
    table.do(cmd.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)
    return table


def dodge(table: Duel, *cells: int) -> None:
    """An emergency move of blue along the line, one cell per step."""
    steps = tuple(cell(x) for x in cells)
    table.do(cmd.StartMove(unit_id="blue", f_steps=steps), by=P2)


def outcome(table: Duel) -> list[str]:
    return [s.outcome for s in of_type(table.events, ev.AttackSettled)]


def test_EX_TRK_1_f_correction_2_target_moves_2_and_is_still_attacked() -> None:
    table = attacked()
    dodge(table, 4, 5)
    assert [c.moved_f for c in table.ak.checks] == [2]
    assert outcome(table) == []


def test_EX_TRK_1_f_correction_2_target_moves_1_then_1_and_is_still_attacked() -> None:
    table = attacked()
    dodge(table, 4)
    dodge(table, 5)
    assert of_type(table.events, ev.TrackingChecked)[-1].tracked
    table.do(cmd.ResolveAttack(hit=True, reason="GM: it hits"))
    assert outcome(table) == ["hit"]


def test_EX_TRK_1_f_correction_2_target_moves_1_then_2_and_the_attack_misses() -> None:
    table = attacked()
    dodge(table, 4)
    dodge(table, 5, 6)
    settled = of_type(table.events, ev.AttackSettled)
    assert [(s.outcome, s.rule_id) for s in settled] == [("missed", "AK-TRK-1")]
    assert table.ak.checks == ()


def test_AK_TRK_1_without_correction_any_emergency_move_makes_the_attack_miss() -> None:
    table = attacked(f_correction=0)
    dodge(table, 4)
    assert outcome(table) == ["missed"]


def test_AK_TRK_1_m_correction_follows_moves_inside_the_map() -> None:
    table = attacked(m_correction=1, band="near")
    table.do(cmd.StartMove(unit_id="blue", m_steps=("farther",)), by=P2)
    assert outcome(table) == []
    table.do(cmd.StartMove(unit_id="blue", m_steps=("farther",)), by=P2)
    assert outcome(table) == ["missed"]
    assert table.ak.band == "far"


def test_AK_TRK_1_an_f_move_is_not_followed_by_m_correction() -> None:
    table = attacked(f_correction=0, m_correction=3, band="far")
    dodge(table, 1)
    assert outcome(table) == ["missed"]
