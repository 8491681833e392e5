"""GD-END-1..3: how a combat ends, each clause on its own.

GD-END-2 (「全キャラクターが離脱した場合、戦闘は終了」): the GM records that every character has
left the combat area; the engine keeps no per-character "left" state, so it is the GM's call.
"""

from __future__ import annotations

import pytest

from domain.encounter.errors import WrongState
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.records import EncounterEnded, RulingRecorded
from tests.unit.encounter.table import Table, of_type, sheet


def skirmish() -> Table:
    """Given: ace and an orc, both able to fight, turn 1 under way."""
    table = Table().open().join("ace", "p1", "pc", sheet(0, 0)).join("orc", "gm", "e", sheet(3, 0))
    table.do(cmd.RollInitiative(), faces=[6, 1])
    return table


def test_GD_END_2_when_everyone_has_left_the_combat_area_the_combat_ends() -> None:
    table = skirmish()
    reason = "ace fled past the map's edge and the orc ran the other way: both clearly out"
    events = table.do(cmd.EndCombat(clause="GD-END-2", reason=reason))
    (ruling,) = of_type(events, RulingRecorded)
    assert ruling.rule_ids == ("GD-END-2",)
    assert ruling.inputs["reason"] == reason
    ended = [(e.rule_id, e.reason) for e in of_type(events, EncounterEnded)]
    assert ended == [("GD-END-2", reason)]
    assert table.state.ended
    with pytest.raises(WrongState, match="ended"):
        table.do(cmd.RollInitiative(), faces=[6, 1])


def test_GD_END_2_needs_no_side_beaten_where_GD_END_3_does() -> None:
    with pytest.raises(RuleViolation) as refused:
        skirmish().do(cmd.EndCombat(clause="GD-END-3", reason="the orc gave up"))
    assert refused.value.rule_id == "GD-END-3"
    # Said in words a table reads, by side and name, never as a Python dict.
    said = str(refused.value)
    assert said.endswith("every side still has someone able to fight (e: orc; pc: ace)")
    left = skirmish()
    left.do(cmd.EndCombat(clause="GD-END-2", reason="ace and the orc have both left the area"))
    assert left.state.ended
