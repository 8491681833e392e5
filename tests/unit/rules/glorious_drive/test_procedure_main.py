"""GD-MAIN-2..5 steps through the Encounter: weapon swap, move with its path check, no action."""

from __future__ import annotations

import pytest

from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive import commands as cmd
from domain.rules.glorious_drive.events import CombatantMoved, WeaponsSwapped
from domain.rules.glorious_drive.position import Position
from domain.rules.records import RulingRecorded
from tests.unit.encounter.table import Table, names, of_type, player, sheet, weapon


def acting_ace(**ace: object) -> Table:
    """Given: ace (an Assault Core) acts first and has done its cleanup."""
    fields = {"body": "assault_core", "reaction": 9} | ace
    table = (
        Table()
        .open()
        .join("ace", "p1", "pc", sheet(0, 0, **fields))
        .join("wall", "gm", "enemy", sheet(2, 0, body="large_enemy", size=1))
        .join("orc", "gm", "enemy", sheet(5, 0))
    )
    table.do(cmd.RollInitiative(), faces=[6, 1, 2])
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
    return table


def P(x: int, y: int) -> dict[str, int]:
    return {"x": x, "y": y}


def test_GD_MAIN_4_a_move_pays_terrain_per_square_and_lands_on_the_last() -> None:
    table = acting_ace()
    events = table.do(
        cmd.Move(combatant_id="ace", path=(P(0, 1), P(1, 1), P(2, 1))), by=player("p1")
    )
    (moved,) = of_type(events, CombatantMoved)
    assert moved.cost == 3
    assert table.c("ace").position == Position(x=2, y=1)
    assert of_type(events, RulingRecorded)[0].rule_ids[:2] == ("GD-MAIN-4", "GD-RNG-4")
    assert table.gd.step == "action"


def test_GD_SQ_3_a_path_through_an_occupied_square_is_refused_and_nothing_changes() -> None:
    table = acting_ace()
    before = table.state
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Move(combatant_id="ace", path=(P(1, 0), P(2, 0))), by=player("p1"))
    assert refused.value.rule_id == "GD-SQ-3"
    assert table.state == before


def test_GD_RNG_4_a_path_costing_more_than_move_is_refused_with_the_breakdown() -> None:
    table = acting_ace(stats={"move": 2})
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Move(combatant_id="ace", path=(P(0, 1), P(0, 2), P(0, 3))), by=player("p1"))
    assert refused.value.rule_id == "GD-RNG-4"
    assert "costs 3" in refused.value.detail


def test_GD_MAIN_4_one_move_per_phase() -> None:
    table = acting_ace()
    table.do(cmd.Move(combatant_id="ace", path=(P(0, 1),)), by=player("p1"))
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Move(combatant_id="ace", path=(P(0, 2),)), by=player("p1"))
    assert refused.value.rule_id == "GD-TURN-1"


def test_GD_MAIN_3_swapping_weapons_exchanges_main_and_sub() -> None:
    blade = weapon("blade", reach="melee", range=0)
    table = acting_ace(weapons=[weapon(), blade], sub_weapon="blade")
    (swapped,) = table.do(cmd.SwapWeapons(combatant_id="ace"), by=player("p1"))
    assert isinstance(swapped, WeaponsSwapped)
    assert (table.c("ace").main_weapon, table.c("ace").sub_weapon) == ("blade", "rifle")
    assert table.gd.step == "move"


def test_GD_MAIN_3_swapping_comes_before_moving() -> None:
    table = acting_ace()
    table.do(cmd.Move(combatant_id="ace", path=(P(0, 1),)), by=player("p1"))
    with pytest.raises(RuleViolation, match="not legal now"):
        table.do(cmd.SwapWeapons(combatant_id="ace"), by=player("p1"))


def test_GD_MAIN_5_forgoing_the_action_ends_the_phase_with_a_ruling() -> None:
    table = acting_ace()
    events = table.do(cmd.ForgoAction(combatant_id="ace", note="takes cover"), by=player("p1"))
    assert names(events) == ["RulingRecorded", "MainActionEnded"]
    assert table.gd.acting == "orc"


def test_GD_MAIN_2_cleanup_comes_first_when_there_is_something_to_clean_up() -> None:
    table = (
        Table().open().join("ace", "p1", "pc", sheet(0, 0)).join("orc", "gm", "enemy", sheet(3, 0))
    )
    table.do(cmd.RollInitiative(), faces=[6, 1])
    table.do(cmd.InflictStatus(target="ace", status="poison", effect_value=2))
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Move(combatant_id="ace", path=(P(0, 1),)), by=player("p1"))
    assert refused.value.rule_id == "GD-TURN-1"
    assert "Cleanup(ace)" in refused.value.detail


def test_GD_MAIN_2_a_cleanup_with_nothing_to_clean_up_runs_by_itself_recorded_as_such() -> None:
    """Issue 19: no one has a choice in it, so going on runs it first, citing GD-MAIN-2;
    waiting (GD-MAIN-1) stays open until then."""
    table = (
        Table().open().join("ace", "p1", "pc", sheet(0, 0)).join("orc", "gm", "enemy", sheet(3, 0))
    )
    table.do(cmd.RollInitiative(), faces=[6, 1])
    awaited = {a.command for a in table.state.ruleset.legal_commands(table.gd)}
    assert {"Wait", "Cleanup", "Move", "DeclareAttack"} <= awaited
    events = table.do(cmd.Move(combatant_id="ace", path=(P(0, 1),)), by=player("p1"))
    assert names(events)[:2] == ["RulingRecorded", "CleanupCompleted"]
    assert "CombatantMoved" in names(events)
    ruling = of_type(events, RulingRecorded)[0]
    assert ruling.rule_ids == ("GD-MAIN-2",)
    assert ruling.outcome == {"advanced": "cleanup"}
    assert table.gd.step == "action"  # GD-MAIN-4: the move made, the action step is next


def test_GD_RNG_5_underwater_a_move_point_also_buys_a_square_up_or_down() -> None:
    table = Table().open(battle_map={"underwater": True, "default_terrain": "water"})
    table.join("ace", "p1", "pc", sheet(0, 0)).join("orc", "gm", "enemy", sheet(5, 0))
    table.do(cmd.RollInitiative(), faces=[6, 1])
    table.do(cmd.Cleanup(combatant_id="ace"), by=player("p1"))
    path = ({"x": 0, "y": 0, "z": 1}, {"x": 0, "y": 1, "z": 1})
    (moved,) = of_type(
        table.do(cmd.Move(combatant_id="ace", path=path), by=player("p1")), CombatantMoved
    )
    assert moved.cost == 1 + 3  # up 1, then a water square for a licenser
    assert table.c("ace").position == Position(x=0, y=1, z=1)


def test_GD_RNG_5_on_land_a_move_cannot_go_up() -> None:
    table = acting_ace()
    with pytest.raises(RuleViolation) as refused:
        table.do(cmd.Move(combatant_id="ace", path=({"x": 0, "y": 0, "z": 1},)), by=player("p1"))
    assert refused.value.rule_id == "GD-RNG-5"
