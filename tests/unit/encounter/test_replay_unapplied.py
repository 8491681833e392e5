"""A what-if replay reports every recorded command it could not apply (issue 19 item 4).

Given a recorded fight, when it is replayed under the other reading of an Interpretation,
then each recorded command the other reading refuses, or that meets a procedure awaiting a
declaration the record lacks, is skipped and listed with the rule the engine cites; the
replay goes on with the next command (domain/encounter/replay.py has the rule).
"""

from __future__ import annotations

from domain.encounter.replay import Amendment, replay
from tests.unit.encounter.log import FIGHT, SEED, Log
from tests.unit.encounter.table import sheet
from tests.unit.rules.armor_knights.test_what_if import two_turns
from tests.unit.rules.wizardry_round.table import sheet as wz_sheet
from tests.unit.rules.wizardry_round.test_what_if import WzLog


def a_shot_past_a_core() -> Log:
    """Ace at (1,1) shoots Brute at (3,3) past an Assault Core at (2,2): a shortest path goes
    round it, so the default reading of GD-SQ-3 lets the shot through (70 damage)."""
    log = Log()
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("brute", "gm", "enemy", sheet(3, 3, reaction=2, hp=500))
    log.join("wall", "gm", "enemy", sheet(2, 2, reaction=1, body="assault_core"))
    log.do("RollInitiative", {}, faces=[1, 1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
    log.do("TakeHit", {"combatant_id": "brute"})
    return log


def test_the_same_reading_applies_every_command() -> None:
    result = replay(FIGHT, a_shot_past_a_core().events)
    assert result.unapplied == []


def test_GD_SQ_3_under_the_strict_line_of_fire_the_shot_and_its_reaction_are_both_reported() -> (
    None
):
    result = replay(
        FIGHT, a_shot_past_a_core().events, options={"line_of_fire": "any_shortest_path"}
    )
    assert result.complete
    shot, reaction = result.unapplied
    assert (shot.command_type, shot.combatant, shot.reason, shot.rule_id) == (
        "DeclareAttack",
        "ace",
        "refused",
        "GD-SQ-3",
    )
    assert "beyond an occupied square" in shot.message
    # With the shot refused, no reaction window opens: the replay awaits Ace's action
    # instead, a declaration the record does not hold at this point.
    assert (reaction.command_type, reaction.combatant, reaction.reason) == (
        "TakeHit",
        "brute",
        "needs_declaration",
    )
    assert reaction.rule_id == "GD-TURN-1"
    assert "DeclareAttack(ace)" in reaction.awaiting
    assert result.differences["brute"]["hp"] == {"original": 430, "replay": 500}


def a_faint_and_a_second_turn() -> Log:
    """Brute, an Assault Core, is hit to −8 and shuts down on a 4 (GD-INJ-1a, the example's
    reading: an Assault Core's faint), which no cleanup check ends, and in turn 2 Ace shoots
    it again."""
    log = Log()
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("brute", "gm", "enemy", sheet(3, 1, reaction=2, hp=62, body="assault_core"))
    log.do("RollInitiative", {}, faces=[1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
    log.do("TakeHit", {"combatant_id": "brute"}, faces=[4])  # shuts down
    log.do("RollInitiative", {}, faces=[1])  # only Ace is able to act
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
    return log


def test_GD_INJ_1a_under_the_text_reading_the_brute_stays_up_and_its_action_is_missing() -> None:
    """Awake, Brute takes its main action: the replay awaits it, the record has none, so each
    later command is reported as needing that declaration, none applied by invention."""
    log = a_faint_and_a_second_turn()
    result = replay(FIGHT, log.events, options={"faint_rule": "text"}, seed=SEED)
    assert result.complete
    assert [(u.command_type, u.reason) for u in result.unapplied] == [
        ("RollInitiative", "needs_declaration"),
        ("Cleanup", "needs_declaration"),
        ("DeclareAttack", "needs_declaration"),
    ]
    assert all("DeclareAttack(brute)" in u.awaiting for u in result.unapplied)
    assert all(u.rule_id == "GD-TURN-1" for u in result.unapplied)
    versions = [u.version for u in result.unapplied]
    assert versions == sorted(set(versions))
    assert len(versions) == 3
    assert result.differences["brute"]["injury"] == {"original": "shutdown", "replay": "none"}
    assert result.differences["brute"]["hp"] == {"original": 62 - 70 - 70, "replay": 62 - 70}


def test_an_amended_command_the_rules_refuse_is_reported_and_the_rest_replayed() -> None:
    """Amend Ace's shot to target no one in the fight: refused, so Brute's TakeHit has no shot."""
    log = a_shot_past_a_core()
    amended = Amendment(5, {"combatant_id": "ace", "target": "nobody"})
    result = replay(FIGHT, log.events, amendment=amended)
    assert [u.command for u in result.unapplied] == [5, 6]
    assert result.unapplied[0].reason == "refused"
    assert result.unapplied[1].reason == "needs_declaration"


def a_tired_fighter() -> WzLog:
    """A fighter with endurance 2 and Fatigue 3 (k = −1) declares in round 1."""
    log = WzLog()
    log.join("fighter", "pc", wz_sheet(15, endurance=2, fatigue=3))
    log.join("goblin", "enemy", wz_sheet(11))
    log.do("ResolveSurprise", {"note": "none"})
    log.do("EndPhase", {})
    for cid, ini in (("fighter", 15), ("goblin", 11)):
        declared = {"form": "b", "sub": "move", "main": "attack", "ini": ini}
        log.do("Declare", {"combatant_id": cid} | declared)
    log.do("EndPhase", {})
    log.do("RollInitiative", {"representative": "fighter"}, faces=[4, 7])
    return log


def test_WZ_3b_under_the_literal_reading_the_fighter_starts_collapsed_and_cannot_declare() -> None:
    result = replay(
        FIGHT, a_tired_fighter().events, options={"nonpositive_fatigue_interval": "collapse"}
    )
    assert result.complete
    [declare] = result.unapplied
    assert (declare.command_type, declare.combatant, declare.reason, declare.rule_id) == (
        "Declare",
        "fighter",
        "refused",
        "WZ-3",
    )
    assert "collapsed" in declare.message
    # The goblin's declaration and the initiative roll still apply.
    assert result.differences["fighter"]["collapsed"] == {"original": False, "replay": True}


def test_AK_TURN_2a_under_keep_previous_blue_ends_a_phase_red_holds() -> None:
    """Recorded with rerolls: blue won turn 2's first phase. Under keep_previous red keeps it,
    so blue's EndPhase meets red's phase: the replay awaits red's declarations."""
    log = two_turns()
    log.do("EndPhase", {"unit_id": "blue"}, by="p2")
    log.do("EndPhase", {"unit_id": "red"}, by="p1")
    result = replay(FIGHT, log.events, options={"first_move_ties": "keep_previous"})
    assert result.complete
    [blue] = result.unapplied
    assert (blue.command_type, blue.combatant, blue.reason, blue.rule_id) == (
        "EndPhase",
        "blue",
        "needs_declaration",
        "AK-TURN-1",
    )
    assert "EndPhase(red)" in blue.awaiting
    assert all(a.endswith("(red)") for a in blue.awaiting)
