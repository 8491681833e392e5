"""GD-REACT-1: the dodge contest."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.dodge import resolve_dodge


def test_GD_REACT_1_given_a_higher_evasion_total_then_the_defender_dodges() -> None:
    result = resolve_dodge(hit=50, hit_die=30, evasion=40, evasion_die=41)
    assert (result.hit_total, result.evasion_total, result.dodged) == (80, 81, True)


def test_GD_REACT_1_given_equal_totals_then_the_tie_goes_to_the_attacker() -> None:
    assert resolve_dodge(hit=50, hit_die=30, evasion=40, evasion_die=40).dodged is False


def test_GD_REACT_1_given_a_higher_hit_total_then_the_attack_hits() -> None:
    assert resolve_dodge(hit=90, hit_die=1, evasion=10, evasion_die=70).dodged is False


def test_GD_REACT_1_when_a_die_is_not_a_1D100_face_then_it_is_refused() -> None:
    with pytest.raises(RuleViolation, match=r"GD-REACT-1: a 1D100 cannot show 0"):
        resolve_dodge(hit=10, hit_die=0, evasion=10, evasion_die=50)


def test_GD_REACT_1_given_a_contest_then_the_decision_records_both_dice() -> None:
    decision = resolve_dodge(hit=50, hit_die=30, evasion=40, evasion_die=41).decision()
    assert [d.face for d in decision.dice] == [30, 41]
    assert decision.rule_ids == ("GD-REACT-1",)
    assert "回避成功" in decision.summary_ja
