"""Issue 34 §2: every phase and step a rule system's procedure reports has its name for the table
in English and in Japanese, declared by the rule system (the page and the refusals read them).

Given a rule system, its phases and steps are read from its own types (the `Literal`s its state
and procedure report), so a phase added without its names fails here; given a command out of
turn, the Japanese refusal names the point of the procedure by those names, not by its ids.
"""

from __future__ import annotations

import re
from typing import get_args, get_type_hints

import pytest

from domain.encounter import aggregate
from domain.encounter.rulesets import RULESETS
from domain.rules.armor_knights import commands as ak
from domain.rules.armor_knights import state as ak_state
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as gd
from domain.rules.glorious_drive import state as gd_state
from domain.rules.ruleset import Labels, ProcedurePoint
from domain.rules.wizardry_round import commands as wz
from domain.rules.wizardry_round import state as wz_state
from tests.unit.encounter.table import Table, sheet
from tests.unit.rules.armor_knights.duel import P1, P2, knight, started
from tests.unit.rules.wizardry_round.test_procedure_action import rolled

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _ids(*literals: object) -> set[str]:
    return {word for literal in literals for word in get_args(literal)}


def _named(labels: Labels) -> bool:
    return bool(labels.en.strip()) and JAPANESE.search(labels.ja) is not None


def _unnamed(ruleset_id: str, reported: set[str]) -> tuple[set[str], set[str]]:
    """The ids reported without both names, and the names declared for no reported id."""
    declared = RULESETS[ruleset_id].phase_labels
    missing = {i for i in reported if i not in declared or not _named(declared[i])}
    return missing, set(declared) - reported


def test_GD_TURN_1_every_phase_and_step_of_a_glorious_drive_turn_is_named() -> None:
    hints = get_type_hints(gd_state.GdState)
    assert (hints["phase"], hints["step"]) == (gd_state.Phase, gd_state.Step)  # what it reports
    assert _unnamed("glorious_drive", _ids(gd_state.Phase, gd_state.Step)) == (set(), set())


def test_WZ_1_to_10_every_phase_of_a_wizardry_round_is_named() -> None:
    # Its step is no id but the inning under way ("inning INI 14: fighter, goblin").
    assert get_type_hints(wz_state.WzState)["phase"] == wz_state.Phase
    assert _unnamed("wizardry_round", _ids(wz_state.Phase)) == (set(), set())


def test_AK_TURN_1_every_phase_and_step_of_an_armor_knights_turn_is_named() -> None:
    assert get_type_hints(ak_state.AkState)["phase"] == ak_state.Phase
    reported = _ids(ak_state.Phase, ak_state.ProcedureStep)
    assert _unnamed("armor_knights", reported) == (set(), set())


def test_GD_TURN_1_the_seeds_names_of_the_main_action_steps() -> None:
    named = {k: v.ja for k, v in RULESETS["glorious_drive"].phase_labels.items()}
    assert named["cleanup"] == "クリーンナップステップ"
    assert named["weapon_swap"] == "武器持ち替えステップ"
    assert named["move"] == "移動ステップ"
    assert named["action"] == "行動ステップ"
    assert named["reaction"] == "対抗判定ステップ"


def _says_where(refusal: RuleViolation, point: ProcedurePoint, *japanese: str) -> None:
    ja = refusal.ja or ""
    assert f"（ターン {point.turn}、{'、'.join(japanese)}）" in ja, ja
    assert point.phase not in ja, ja
    # English keeps the ids, as the API's English callers read them.
    assert f"turn {point.turn}, {point.phase}" in refusal.detail


def test_GD_TURN_1_a_japanese_refusal_names_the_phase_and_step_in_japanese() -> None:
    table = (
        Table().open().join("ace", "p1", "pc", sheet(0, 0)).join("orc", "gm", "enemy", sheet(3, 0))
    )
    table.do(gd.RollInitiative(), faces=[1, 6])  # orc first
    table.do(gd.Cleanup(combatant_id="orc"))  # orc's weapon swap step
    point = aggregate.procedure(table.state)
    assert (point.phase, point.step) == ("main_action", "weapon_swap")
    with pytest.raises(RuleViolation) as refused:
        table.do(gd.Wait(combatant_id="ace"))
    refusal = refused.value
    assert refusal.rule_id == "GD-TURN-1"
    _says_where(refusal, point, "メイン行動フェーズ", "武器持ち替えステップ")
    assert "weapon_swap" not in (refusal.ja or "")


def test_WZ_8_a_japanese_refusal_names_the_phase_in_japanese() -> None:
    table = rolled(10, 10)  # 15 fighter, 13 mage, 11 goblin: fighter's inning
    point = aggregate.procedure(table.state)
    assert point.phase == "action"
    with pytest.raises(RuleViolation) as refused:
        table.do(wz.Act(combatant_id="goblin"))
    refusal = refused.value
    assert refusal.rule_id == "WZ-8"
    assert point.step is not None  # the inning under way, shown as it is
    _says_where(refusal, point, "アクション・フェイズ", point.step)


def test_AK_TURN_1_a_japanese_refusal_names_the_phase_and_step_in_japanese() -> None:
    table = started(red=knight(0), blue=knight(3))  # red's phase
    table.do(ak.DeclareAttack(unit_id="red", weapon="rifle"), by=P1)  # a check open
    point = aggregate.procedure(table.state)
    assert (point.phase, point.step) == ("phase", "check")
    with pytest.raises(RuleViolation) as refused:
        table.do(ak.EndPhase(unit_id="blue"), by=P2)
    refusal = refused.value
    assert refusal.rule_id == "AK-TURN-1"
    _says_where(refusal, point, "手番のフェイズ", "判定中")
