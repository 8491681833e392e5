"""GD-INJ-1..5: injury checks, with the seed's worked examples."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.injury import (
    InjuryCheck,
    InjuryResult,
    faint_recovers,
    heaviest,
    resolve_injuries,
)
from domain.rules.glorious_drive.options import FaintRule, GloriousDriveOptions
from tests.unit.rules.glorious_drive.fakes import ScriptedDraw, never_draw

DEFAULT = GloriousDriveOptions()


def _check(result: InjuryResult, rule_id: str) -> InjuryCheck:
    return next(c for c in result.checks if c.rule_id == rule_id)


def _injure(
    hp: int,
    faces: list[int],
    *,
    max_hp: int = 100,
    resistance: int = 0,
    assault_core: bool = False,
    options: GloriousDriveOptions = DEFAULT,
) -> InjuryResult:
    return resolve_injuries(
        hp,
        max_hp,
        resistance,
        is_assault_core=assault_core,
        draw=ScriptedDraw(faces),
        options=options,
    )


@pytest.mark.parametrize(("rule", "faints_on_or_below"), [("example", 4), ("text", 3)])
def test_GD_INJ_1_given_hp_minus_8_and_resistance_3_then_faint_threshold_follows_the_option(
    rule: FaintRule, faints_on_or_below: int
) -> None:
    """Seed example: 「生命力が-8、抵抗が3の時は、1D6で4以下が出た場合に気絶」 — the example
    rule (≤ −1) reproduces it; the text's 「-1未満」 (< −1) gives 3 or less."""
    options = GloriousDriveOptions(faint_rule=rule)
    on_threshold = _injure(-8, [faints_on_or_below], resistance=3, options=options)
    above = _injure(-8, [faints_on_or_below + 1], resistance=3, options=options)
    assert _check(on_threshold, "GD-INJ-1").injures_on_or_below == faints_on_or_below
    assert on_threshold.injury == "faint"
    assert above.injury == "none"


@pytest.mark.parametrize(("hp", "crit_on_or_below"), [(-22, 1), (-23, 2), (-61, 40)])
def test_GD_INJ_2_given_the_seed_examples_then_critical_comes_on_those_faces(
    hp: int, crit_on_or_below: int
) -> None:
    """Seed: 「-22の時は1、-23の時は1～2、-61の時は1～40が出ると重体」."""
    hit = _injure(hp, [6, crit_on_or_below])
    miss = _injure(hp, [6, crit_on_or_below + 1])
    assert _check(hit, "GD-INJ-2").injures_on_or_below == crit_on_or_below
    assert hit.injury == "critical"
    assert miss.injury == "faint"  # resistance 0 and 1D6 6 still faint this deep


def test_GD_INJ_3_given_max_100_and_hp_minus_110_then_incapacitated_on_1_to_9() -> None:
    """Seed: 「最大生命力が100で現在の生命力が-110の時、1～9が出ると再起不能」 — so the
    check is hp + 1D100 < −max_hp (a 10 gives exactly −100 and is not enough)."""
    on_9 = _injure(-110, [6, 100, 9])
    on_10 = _injure(-110, [6, 100, 10])
    assert _check(on_9, "GD-INJ-3").injures_on_or_below == 9
    assert on_9.injury == "incapacitated"
    assert on_10.injury == "faint"


def test_GD_INJ_4_given_max_100_and_hp_minus_202_then_dead_only_on_1() -> None:
    """Seed: 「最大生命力が100で現在生命力が-202の時、1が出た場合は死亡」 — hp + 1D100 < −2×max."""
    on_1 = _injure(-202, [6, 100, 100, 1])
    on_2 = _injure(-202, [6, 100, 100, 2])
    assert _check(on_1, "GD-INJ-4").injures_on_or_below == 1
    assert on_1.injury == "dead"
    assert on_2.injury == "incapacitated"  # −202 + 100 = −102 is still below −100


def test_GD_INJ_given_several_checks_succeed_then_only_the_heaviest_applies() -> None:
    result = _injure(-202, [1, 1, 1, 1])
    assert [c.injured for c in result.checks] == [True, True, True, True]
    assert result.injury == "dead"
    assert heaviest("faint", "critical", "none") == "critical"


def test_GD_INJ_given_checks_then_they_run_in_order_and_only_where_hp_reaches() -> None:
    """Given hp −30 of max 100, when checked, then only faint (1D6) and critical (1D100) roll."""
    draw = ScriptedDraw([6, 50])
    result = resolve_injuries(-30, 100, 0, is_assault_core=False, draw=draw, options=DEFAULT)
    assert [c.rule_id for c in result.checks] == ["GD-INJ-1", "GD-INJ-2"]
    assert draw.sides_drawn == [6, 100]


def test_GD_INJ_given_hp_0_then_no_check_and_no_die() -> None:
    result = resolve_injuries(0, 100, 0, is_assault_core=False, draw=never_draw, options=DEFAULT)
    assert (result.checks, result.injury) == ((), "none")


def test_GD_INJ_1_given_an_assault_core_then_only_shutdown_is_checked() -> None:
    draw = ScriptedDraw([1])
    result = resolve_injuries(-900, 400, 0, is_assault_core=True, draw=draw, options=DEFAULT)
    assert [c.rule_id for c in result.checks] == ["GD-INJ-1"]
    assert result.injury == "shutdown"
    assert draw.sides_drawn == [6]


def test_GD_INJ_5_given_max_10_then_incapacitated_applies_before_critical() -> None:
    """Given an enemy with max 10 at hp −15, then faint and incapacitated apply, critical not."""
    result = _injure(-15, [6, 1], max_hp=10)
    assert [c.rule_id for c in result.checks] == ["GD-INJ-1", "GD-INJ-3"]
    assert result.injury == "incapacitated"


@pytest.mark.parametrize(
    ("rule", "face", "recovered"),
    [("example", 4, False), ("example", 5, True), ("text", 3, False), ("text", 4, True)],
)
def test_GD_INJ_1_given_a_fainted_character_at_cleanup_then_the_same_check_decides_recovery(
    rule: FaintRule, face: int, recovered: bool
) -> None:
    options = GloriousDriveOptions(faint_rule=rule)
    result = faint_recovers(
        -8, 3, is_assault_core=False, draw=ScriptedDraw([face]), options=options
    )
    assert result.recovered is recovered


def test_GD_INJ_1_given_an_assault_core_shutdown_then_it_never_recovers_and_rolls_nothing() -> None:
    result = faint_recovers(-8, 3, is_assault_core=True, draw=never_draw, options=DEFAULT)
    assert (result.recovered, result.check) == (False, None)


def test_GD_INJ_given_a_die_off_the_d6_then_it_is_refused() -> None:
    with pytest.raises(RuleViolation, match=r"GD-INJ-1: a 1D6 cannot show 7"):
        _injure(-8, [7], resistance=3)


def test_GD_INJ_given_checks_then_the_decision_records_dice_rules_and_option() -> None:
    decision = _injure(-30, [6, 9]).decision()
    assert decision.rule_ids == ("GD-INJ-1", "GD-INJ-2")
    assert [d.face for d in decision.dice] == [6, 9]
    assert decision.options == {"faint_rule": "example"}
    assert decision.outcome["injury"] == "critical"
    assert "重体" in decision.summary_ja
