"""WZ-3 fatigue (with WZ-3a and WZ-3b under both values, WZ-3c), as a calculator and in a fight."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.rules.records import RulingRecorded
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round.fatigue import fatigue
from domain.rules.wizardry_round.options import WizardryRoundOptions
from domain.rules.wizardry_round.state import WzState
from tests.unit.encounter.table import of_type
from tests.unit.rules.wizardry_round.table import WzTable, sheet

DEFAULT = WizardryRoundOptions()
HOLD = WizardryRoundOptions(fatigue_ac_after_second="hold")
RISE = WizardryRoundOptions(fatigue_ac_after_second="rise")
COLLAPSE = WizardryRoundOptions(nonpositive_fatigue_interval="collapse")


def penalties(elapsed: int, k: int = 3, options: WizardryRoundOptions = DEFAULT) -> tuple[int, int]:
    level = fatigue(k, 0, elapsed, options)
    return level.die_penalty, level.ac_penalty


def test_WZ_3_no_penalty_before_the_rounds_elapsed_reach_k() -> None:
    assert penalties(2) == (0, 0)


def test_WZ_3_at_k_rounds_the_die_and_ac_take_plus_2() -> None:
    assert penalties(3) == (2, 2)


def test_WZ_3_at_2k_rounds_the_die_and_ac_take_plus_4_in_all() -> None:
    assert penalties(6) == (4, 4)


def test_WZ_3_k_is_endurance_minus_fatigue_level() -> None:
    assert fatigue(7, 4, 3, DEFAULT).die_penalty == 2
    assert fatigue(7, 4, 3, DEFAULT).interval == 3


def test_WZ_3_every_further_k_adds_2_to_the_die_until_10_collapses() -> None:
    assert [penalties(e)[0] for e in (9, 12, 15, 30)] == [6, 8, 10, 10]
    assert not fatigue(3, 0, 12, DEFAULT).collapsed
    assert fatigue(3, 0, 15, DEFAULT).collapsed


@pytest.mark.parametrize(
    ("options", "ac_at_3k", "ac_at_4k"), [(RISE, 6, 8), (HOLD, 4, 4)], ids=["rise", "hold"]
)
def test_WZ_3a_past_2k_the_ac_rises_with_the_die_or_holds_at_4(
    options: WizardryRoundOptions, ac_at_3k: int, ac_at_4k: int
) -> None:
    assert penalties(9, options=options) == (6, ac_at_3k)
    assert penalties(12, options=options) == (8, ac_at_4k)
    assert penalties(6, options=options) == (4, 4)  # up to 2k both readings agree


def test_WZ_3a_by_default_the_ac_holds_at_4_past_2k_while_the_die_grows() -> None:
    assert DEFAULT.fatigue_ac_after_second == "hold"
    assert [penalties(e) for e in (6, 9, 12)] == [(4, 4), (6, 4), (8, 4)]


def test_WZ_3a_a_new_encounter_records_hold_among_its_options() -> None:
    table = tired()
    assert table.state.options["fatigue_ac_after_second"] == "hold"
    state = rounds_played(table, 3)  # round 4: three rounds elapsed, k = 1: die +6
    fighter = state.combatants["tired"]
    assert (fighter.die_penalty, fighter.ac_penalty, fighter.ac) == (6, 4, 9)


def test_WZ_3c_round_1_has_no_rounds_elapsed_and_round_2_has_one() -> None:
    table = tired()  # k = 1: a penalty as soon as one round has elapsed
    assert table.wz.combatants["tired"].die_penalty == 0  # round 1: none elapsed yet
    rounds_played(table, 1)
    rulings = of_type(table.events, RulingRecorded)
    fatigued = [r for r in rulings if "WZ-3c" in r.rule_ids]
    assert [(r.inputs["elapsed"], r.outcome["die_penalty"]) for r in fatigued] == [(1, 2)]


@pytest.mark.parametrize(
    ("options", "die_at_round_1", "collapsed"),
    [(DEFAULT, 0, False), (COLLAPSE, 10, True)],
    ids=["count_as_one", "collapse"],
)
def test_WZ_3b_a_non_positive_k_counts_as_1_or_collapses_at_once(
    options: WizardryRoundOptions, die_at_round_1: int, collapsed: bool
) -> None:
    level = fatigue(2, 3, 0, options)
    assert (level.die_penalty, level.collapsed) == (die_at_round_1, collapsed)
    if options == DEFAULT:
        assert level.interval == 1
        assert fatigue(2, 3, 2, options).die_penalty == 4  # k = 1: +4 after two rounds


def rounds_played(table: WzTable, rounds: int) -> WzState:
    """Rounds in which nobody does anything: declarations, initiative, one pass."""
    for _ in range(rounds):
        table.do(cmd.EndPhase())
        for cid, c in table.wz.combatants.items():
            if c.able:
                table.declare(cid, 5)
        table.do(cmd.EndPhase())
        table.do(cmd.RollInitiative(representative="tired"), faces=[5, 5])
        for cid in list(table.wz.combatants):
            if cid in table.wz.awaiting_in_inning():
                table.do(cmd.Act(combatant_id=cid))
        table.do(cmd.EndPhase())
        table.do(cmd.EndPhase())
    return table.wz


def tired(**options: object) -> WzTable:
    """Given: a PC with k = 1 (endurance 2, Fatigue 1) and round 1 begun."""
    table = WzTable().open(**options).join("tired", "p1", "pc", sheet(10, endurance=2, fatigue=1))
    table.do(cmd.ResolveSurprise(note="none"))
    return table


def test_WZ_3_the_fatigue_phase_applies_the_step_each_round_and_ac_follows() -> None:
    table = tired()
    state = rounds_played(table, 2)  # round 3: two rounds elapsed, k = 1
    fighter = state.combatants["tired"]
    assert (fighter.fatigue_step, fighter.die_penalty, fighter.ac) == (2, 4, 9)


def test_WZ_3_a_collapsed_character_cannot_act_or_declare() -> None:
    table = tired()
    state = rounds_played(table, 5)  # round 6: five steps, +10
    assert state.combatants["tired"].collapsed
    table.do(cmd.EndPhase())
    assert table.wz.phase == "strategy"  # no one able to declare: straight on


def test_WZ_3_a_1d20_check_carries_the_die_penalty_and_other_dice_do_not() -> None:
    table = tired()
    rounds_played(table, 1)  # round 2: +2
    table.do(cmd.EndPhase())
    table.declare("tired", 5)
    table.do(cmd.EndPhase())
    table.do(cmd.RollInitiative(representative="tired"), faces=[5, 5])
    table.do(cmd.RollCheck(combatant_id="tired", expression="1D20+1"), faces=[9])
    assert table.wz.pending_check is not None
    assert table.wz.pending_check.total == 12
    table.do(cmd.RuleCheck(success=False, outcome="miss"))
    table.do(cmd.RollCheck(combatant_id="tired", expression="2D6"), faces=[3, 4])
    assert table.wz.pending_check.total == 7


@given(
    endurance=st.integers(-5, 20),
    level=st.integers(0, 10),
    elapsed=st.integers(0, 60),
    ac_rule=st.sampled_from(["rise", "hold"]),
    interval_rule=st.sampled_from(["count_as_one", "collapse"]),
)
def test_WZ_3_penalties_only_grow_stay_even_and_stop_at_the_collapse(
    endurance: int, level: int, elapsed: int, ac_rule: str, interval_rule: str
) -> None:
    options = WizardryRoundOptions.model_validate(
        {"fatigue_ac_after_second": ac_rule, "nonpositive_fatigue_interval": interval_rule}
    )
    now = fatigue(endurance, level, elapsed, options)
    later = fatigue(endurance, level, elapsed + 1, options)
    assert now.die_penalty <= later.die_penalty <= 10
    assert now.die_penalty % 2 == 0
    assert now.ac_penalty <= now.die_penalty
    assert now.collapsed == (now.die_penalty == 10)
