"""GD-MAIN-2 cleanup (statuses), GD-CHK-2, and GD-END through the Encounter."""

from __future__ import annotations

import pytest

from domain.encounter import aggregate
from domain.encounter.errors import WrongState
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.condition_events import StatusDurationElapsed, StatusExpired
from domain.rules.records import EncounterEnded
from tests.unit.encounter.table import Table, names, of_type, player, sheet


def poisoned(turns: int) -> Table:
    """Given: the GM has put poison (effect value `turns`) on ace, who acts first each turn."""
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, reaction=20))
        .join("orc", "gm", "enemy", sheet(3, 0, reaction=1))
    )
    table.do(cmd.InflictStatus(target="ace", status="poison", effect_value=turns))
    table.do(cmd.RollInitiative(), faces=[1, 1])
    return table


def pass_turn(table: Table) -> None:
    table.do(cmd.ForgoAction(combatant_id="ace"), by=player("p1"))
    table.do(cmd.Wait(combatant_id="orc"))
    table.do(cmd.RollInitiative(), faces=[1, 1])


def test_GD_MAIN_2_a_failed_recovery_check_counts_the_duration_down() -> None:
    table = poisoned(2)
    events = table.do(cmd.Cleanup(combatant_id="ace"), faces=[1])  # 3 + 1 < 100 + 2
    assert of_type(events, StatusDurationElapsed)[0].turns_left == 1


def test_GD_CHK_1_a_critical_recovery_check_removes_the_status() -> None:
    table = poisoned(2)
    events = table.do(cmd.Cleanup(combatant_id="ace"), faces=[96])
    assert of_type(events, StatusExpired)[0].reason == "recovered"
    assert table.c("ace").statuses == ()


def test_GD_MAIN_2_a_status_whose_duration_has_ended_is_removed_without_a_check() -> None:
    table = poisoned(1)
    table.do(cmd.Cleanup(combatant_id="ace"), faces=[1])
    pass_turn(table)
    events = table.do(cmd.Cleanup(combatant_id="ace"))
    assert names(events) == ["StatusExpired", "CleanupCompleted"]
    assert of_type(events, StatusExpired)[0].reason == "duration_ended"


def test_GD_END_3_is_refused_while_every_side_has_someone_able_to_fight() -> None:
    table = poisoned(1)
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.EndCombat(clause="GD-END-3", reason="the orc is beaten"))
    assert refused.value.rule_id == "GD-END-3"
    assert table.state == before


def test_GD_END_1_the_gm_records_the_end_and_nothing_more_is_legal() -> None:
    table = poisoned(1)
    events = table.do(cmd.EndCombat(clause="GD-END-1", reason="both sides agree to stop"))
    assert names(events) == ["RulingRecorded", "EncounterEnded"]
    assert of_type(events, EncounterEnded)[0].rule_id == "GD-END-1"
    assert aggregate.legal_commands(table.state) == []
    with pytest.raises(WrongState, match="ended"):
        table.do(cmd.Cleanup(combatant_id="ace"), faces=[1])


def two() -> Table:
    return Table().open().join("ace", "p1", "pc", sheet(0, 0)).join("orc", "gm", "e", sheet(3, 0))


def test_GD_REACT_7_a_status_met_by_a_successful_resistance_check_is_not_suffered() -> None:
    table = two()
    events = table.do(
        cmd.InflictStatus(target="ace", status="stun", effect_value=2, resist_difficulty=50),
        faces=[47],  # resistance 3 + 47 ≥ 50
    )
    assert names(events) == ["EncounterDiceRolled", "RulingRecorded"]
    assert table.c("ace").statuses == ()


def test_GD_REACT_7a_the_campaigns_default_difficulty_applies_when_none_is_given() -> None:
    table = Table().open(status_resistance_default_difficulty=80)
    table.join("ace", "p1", "pc", sheet(0, 0))
    events = table.do(cmd.InflictStatus(target="ace", status="stun", effect_value=2), faces=[10])
    assert names(events)[-1] == "StatusInflicted"
    assert table.c("ace").statuses[0].turns_left == 2
