"""WZ-7 initiative (WZ-7a under both readings) and WZ-8 innings, through the Encounter."""

from __future__ import annotations

import pytest

from domain.encounter import aggregate
from domain.rules.errors import RuleViolation
from domain.rules.records import RulingRecorded
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from tests.unit.encounter.table import names, of_type
from tests.unit.rules.wizardry_round.table import P1, P2, WzTable, party, to_initiative

ALL = {"fighter": 15, "mage": 13, "goblin": 11}


def rolled(pc: int, gm: int, **options: object) -> WzTable:
    table = party(**options)
    to_initiative(table, ALL)
    table.do(cmd.RollInitiative(representative="fighter"), faces=[pc, gm])
    return table


@pytest.mark.parametrize(("reading", "goblin_ini"), [("gm_minus_pc", 14), ("pc_minus_gm", 8)])
def test_WZ_7a_the_difference_added_to_every_enemys_ini(reading: str, goblin_ini: int) -> None:
    table = rolled(4, 7, initiative_difference=reading)
    innings = {m: i.ini for i in table.wz.innings for m in i.members}
    assert innings == {"fighter": 15, "mage": 13, "goblin": goblin_ini}
    ruling = of_type(table.events, RulingRecorded)[-2]
    assert ruling.options == {"initiative_difference": reading}


def test_WZ_7_only_a_pc_rolls_for_the_pcs() -> None:
    table = party()
    to_initiative(table, ALL)
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.RollInitiative(representative="goblin"), faces=[4, 7])
    assert refused.value.rule_id == "WZ-7"


def test_WZ_8_innings_follow_the_ini_after_the_roll_highest_first() -> None:
    table = rolled(4, 7)
    assert [i.ini for i in table.wz.innings] == [15, 14, 13]
    assert aggregate.procedure(table.state).acting == "fighter"
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Act(combatant_id="mage"), by=P2)
    assert refused.value.rule_id == "WZ-8"


def simultaneous() -> WzTable:
    """Given: the fighter declared INI 14 and the goblin's 11 + 3 makes 14: one inning."""
    table = party()
    to_initiative(table, {"fighter": 14, "mage": 13, "goblin": 11})
    table.do(cmd.RollInitiative(representative="fighter"), faces=[4, 7])
    return table


def test_WZ_8_equal_ini_act_in_the_same_inning_in_any_order() -> None:
    table = simultaneous()
    assert table.wz.innings[0].members == ("fighter", "goblin")
    point = aggregate.procedure(table.state)
    assert point.acting is None
    assert point.step == "inning INI 14: fighter, goblin"
    table.do(cmd.Act(combatant_id="goblin"))
    assert aggregate.procedure(table.state).acting == "fighter"
    table.do(cmd.Act(combatant_id="fighter"), by=P1)
    assert table.wz.inning is not None
    assert table.wz.inning.ini == 13


def test_WZ_8_a_bad_status_inflicted_in_an_inning_takes_effect_at_its_end() -> None:
    table = simultaneous()
    table.do(cmd.InflictStatus(target="fighter", status="paralysis", incapacitating=True))
    assert table.wc("fighter").able
    assert table.wc("fighter").statuses == ()
    table.do(cmd.RollCheck(combatant_id="fighter", expression="1D20"), faces=[11])
    assert table.wz.pending_check is not None
    assert table.wz.pending_check.total == 11
    table.do(cmd.RuleCheck(success=True, outcome="hits"))
    table.do(cmd.Act(combatant_id="fighter"), by=P1)
    events = table.do(cmd.Act(combatant_id="goblin"))
    assert names(events) == ["ActionTaken", "RulingRecorded", "StatusTookEffect", "InningEnded"]
    assert not table.wc("fighter").able


def test_WZ_8_a_status_landed_at_an_earlier_innings_end_passes_the_member_over() -> None:
    table = rolled(10, 10)  # no difference: 15 fighter, 13 mage, 11 goblin
    table.do(cmd.InflictStatus(target="mage", status="sleep", incapacitating=True))
    table.do(cmd.Act(combatant_id="fighter"), by=P1)
    assert aggregate.procedure(table.state).acting == "goblin"  # the mage's inning is passed


@pytest.mark.parametrize(
    "fallback",
    ["defensive_stance", "combat_move", "normal_move", "rest", "stand_up", "surrender"],
)
def test_WZ_8_the_declaration_may_be_dropped_for_each_fallback(fallback: str) -> None:
    table = rolled(10, 10)
    events = table.do(cmd.DropDeclaration(combatant_id="fighter", fallback=fallback), by=P1)
    dropped = of_type(events, ev.DeclarationDropped)[0]
    assert dropped.fallback == fallback
    assert not dropped.passive_kept  # the fighter declared (b): no passive to keep
    assert of_type(events, RulingRecorded)[0].outcome["spends"] == ("sub", "main")
    assert table.wc("fighter").surrendered == (fallback == "surrender")


def test_WZ_8_dropping_an_a_declaration_spends_sub_and_main_and_keeps_the_passive() -> None:
    table = party()
    table.do(cmd.EndPhase())
    table.declare("fighter", 15, form="a", passive="shield")
    table.declare("mage", 13)
    table.declare("goblin", 11)
    table.do(cmd.EndPhase())
    table.do(cmd.RollInitiative(representative="fighter"), faces=[10, 10])
    events = table.do(cmd.DropDeclaration(combatant_id="fighter", fallback="rest"), by=P1)
    assert of_type(events, ev.DeclarationDropped)[0].passive_kept


def test_WZ_8_after_the_last_inning_the_recovery_phase_begins() -> None:
    table = rolled(10, 10)
    for cid, by in (("fighter", P1), ("mage", P2)):
        table.do(cmd.Act(combatant_id=cid), by=by)
    events = table.do(cmd.Act(combatant_id="goblin"))
    assert of_type(events, ev.PhaseEntered)[0].phase == "recovery"
