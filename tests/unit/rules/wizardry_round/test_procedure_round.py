"""The round around the actions: WZ-1 surprise, WZ-2 combat start, WZ-4 identification,
WZ-9 recovery and WZ-10 end, through the Encounter."""

from __future__ import annotations

import pytest

from domain.encounter import aggregate
from domain.rules.errors import RuleViolation
from domain.rules.records import RulingRecorded
from domain.rules.wizardry_round import commands as cmd
from domain.rules.wizardry_round import events as ev
from tests.unit.encounter.table import of_type
from tests.unit.rules.wizardry_round.table import P1, WzTable, party, sheet, to_initiative


def unopened_fight() -> WzTable:
    return (
        WzTable()
        .open()
        .join("fighter", "p1", "pc", sheet(15, strategy=2))
        .join("goblin", "gm", "enemy", sheet(11))
    )


def test_WZ_1_surprise_is_the_gms_recorded_ruling_and_then_round_1_begins() -> None:
    table = unopened_fight()
    assert aggregate.procedure(table.state).phase == "encounter"
    table.do(cmd.RollCheck(combatant_id="goblin", expression="1D20+2"), faces=[17])
    table.do(cmd.RuleCheck(success=True, outcome="the goblins ambush the party"))
    events = table.do(cmd.ResolveSurprise(surprising=("goblin",), note="ambush"))
    ruling = of_type(events, RulingRecorded)[0]
    assert ruling.rule_ids == ("WZ-1",)
    assert ruling.outcome["surprising"] == ("goblin",)
    assert (table.wz.round, table.wz.phase) == (1, "identification")


def test_WZ_1_a_check_is_rolled_by_expression_and_a_target_number_is_refused() -> None:
    table = unopened_fight()
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.RollCheck(combatant_id="goblin", expression="1D20>=10"), faces=[9])
    assert refused.value.rule_id == "WZ-1"
    with pytest.raises(RuleViolation, match="cannot be rolled"):
        table.do(cmd.RollCheck(combatant_id="goblin", expression="1D20+"), faces=[9])


def test_WZ_1_the_gm_must_rule_on_a_check_before_the_procedure_goes_on() -> None:
    table = unopened_fight()
    table.do(cmd.RollCheck(combatant_id="goblin", expression="1D20"), faces=[3])
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.ResolveSurprise(note="no surprise"))
    assert refused.value.rule_id == "WZ-8"
    events = table.do(cmd.RuleCheck(success=False, outcome="no ambush"))
    assert of_type(events, RulingRecorded)[0].roll_seqs == (0,)  # it cites the check's die


def test_WZ_2_each_able_character_readies_a_weapon_at_combat_start() -> None:
    table = party()
    assert table.wc("fighter").weapon == "sword"
    assert all(c.started for c in table.wz.combatants.values())


def test_WZ_2_a_character_unable_to_act_starts_combat_in_the_first_round_it_can_act() -> None:
    table = unopened_fight().join("mage", "p2", "pc", sheet(13, strategy=3))
    table.do(cmd.InflictStatus(target="mage", status="sleep", incapacitating=True))
    table.do(cmd.ResolveSurprise(note="none"))
    assert not table.wc("mage").started
    assert table.wz.tp["pc"] == 2  # the fighter's Strategy only
    to_initiative(table, {"fighter": 15, "goblin": 11})
    table.do(cmd.RollInitiative(representative="fighter"), faces=[10, 10])
    table.do(cmd.Act(combatant_id="fighter"), by=P1)
    table.do(cmd.Act(combatant_id="goblin"))
    table.do(cmd.RemoveStatus(target="mage", status="sleep"))
    tp = table.wz.tp["pc"]
    table.do(cmd.EndPhase())
    table.do(cmd.EndPhase())
    assert table.wc("mage").started
    assert table.wz.tp["pc"] == tp + 1  # WZ-2a party_highest: 3 tops up the credited 2


def test_WZ_4_the_gm_names_difficulty_and_skill_and_a_skilled_character_checks() -> None:
    table = party()
    table.do(cmd.NameIdentification(target="goblin", difficulty=12, skill="lore"))
    assert aggregate.legal_commands(table.state)[2].combatant == "mage"
    table.do(cmd.RollCheck(combatant_id="mage", expression="1D20+4"), faces=[9])
    events = table.do(cmd.RuleCheck(success=True, outcome="a goblin: weak to fire"))
    ruling = of_type(events, RulingRecorded)[0]
    assert ruling.rule_ids == ("WZ-4",)
    assert ruling.inputs["difficulty"] == 12
    assert ruling.inputs["total"] == 13


def test_WZ_4_a_character_without_the_academic_skill_may_not_check() -> None:
    table = party()
    table.do(cmd.NameIdentification(target="goblin", difficulty=12, skill="lore"))
    with pytest.raises(RuleViolation):
        table.do(cmd.RollCheck(combatant_id="fighter", expression="1D20"), faces=[9])


def test_WZ_9_recovery_checks_and_the_gm_ends_a_status_citing_WZ_9() -> None:
    table = party()
    table.do(cmd.InflictStatus(target="fighter", status="poison"))
    to_initiative(table, {"fighter": 15, "mage": 13, "goblin": 11})
    table.do(cmd.RollInitiative(representative="mage"), faces=[10, 10])
    for cid in ("fighter", "mage", "goblin"):
        table.do(cmd.Act(combatant_id=cid))
    assert table.wz.phase == "recovery"
    table.do(cmd.RollCheck(combatant_id="fighter", expression="1D20"), faces=[15])
    table.do(cmd.RuleCheck(success=True, outcome="the poison passes"))
    events = table.do(cmd.RemoveStatus(target="fighter", status="poison"))
    assert of_type(events, RulingRecorded)[0].rule_ids == ("WZ-9",)
    assert table.wc("fighter").statuses == ()
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.RemoveStatus(target="fighter", status="poison"))
    assert refused.value.rule_id == "WZ-9"


def test_WZ_10_damage_over_time_is_ruled_and_the_next_round_starts_from_WZ_3() -> None:
    table = party()
    to_initiative(table, {"fighter": 15, "mage": 13, "goblin": 11})
    table.do(cmd.RollInitiative(representative="mage"), faces=[10, 10])
    for cid in ("fighter", "mage", "goblin"):
        table.do(cmd.Act(combatant_id=cid))
    table.do(cmd.EndPhase())
    assert table.wz.phase == "end"
    table.do(cmd.RollCheck(combatant_id="goblin", expression="1D4"), faces=[3])
    events = table.do(cmd.RuleCheck(outcome="poison: 3 damage"))
    assert of_type(events, RulingRecorded)[0].rule_ids == ("WZ-10",)
    table.do(cmd.InflictStatus(target="goblin", status="choking cloud"))
    assert table.wc("goblin").statuses[0].name == "choking cloud"  # no inning: at once
    events = table.do(cmd.EndPhase())
    phases = [e.phase for e in of_type(events, ev.PhaseEntered)]
    assert phases == ["combat_start", "fatigue", "identification"]
    assert not of_type(events, ev.CombatStarted)  # WZ-1/WZ-2 only once
    assert table.wz.round == 2
