"""What-if replay (issue 6): given a recorded fight, when it is replayed under other options or
with one command amended, then the first divergence and the per-combatant difference."""

from __future__ import annotations

import pytest

from domain.encounter.record import CommandIssued
from domain.encounter.replay import Amendment, replay
from tests.unit.encounter.log import FIGHT, SEED, Log
from tests.unit.encounter.table import sheet


def a_hit_to_minus_8(**options: object) -> Log:
    """Ace (attack 120) hits Brute (defence 50, max HP 62, resistance 3): 70 damage → HP −8.
    GD-INJ-1: faint check 1D6 + 3 + (−8); the die shows 4 → total −1. Wing acts between
    them, so Brute's cleanup (its recovery die) is not yet due."""
    log = Log(**options)
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("wing", "p2", "pc", sheet(1, 3, reaction=5))
    log.join("brute", "gm", "enemy", sheet(3, 1, reaction=2, hp=62))
    log.do("RollInitiative", {}, faces=[1, 1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
    log.do("TakeHit", {"combatant_id": "brute"}, faces=[4])  # faints
    return log


def test_every_command_is_recorded_before_its_effects() -> None:
    log = a_hit_to_minus_8()
    recorded = [e.command_type for e in log.events if isinstance(e, CommandIssued)]
    assert recorded == [
        "JoinCombatant",
        "JoinCombatant",
        "JoinCombatant",
        "RollInitiative",
        "Cleanup",
        "DeclareAttack",
        "TakeHit",
    ]


def test_GD_INJ_1a_the_example_reading_faints_on_a_4() -> None:
    assert a_hit_to_minus_8().state.rules.combatants["brute"].injury == "faint"  # type: ignore[union-attr]


def test_GD_INJ_1a_replayed_under_the_text_reading_the_brute_does_not_faint() -> None:
    log = a_hit_to_minus_8()
    result = replay(FIGHT, log.events, options={"faint_rule": "text"})
    assert result.complete
    assert result.divergence is not None
    assert result.divergence.command_type == "TakeHit"
    assert result.differences["brute"]["injury"] == {"original": "faint", "replay": "none"}
    assert "hp" not in result.differences["brute"]  # the same damage either way


def test_a_replay_under_the_same_options_changes_nothing() -> None:
    log = a_hit_to_minus_8()
    result = replay(FIGHT, log.events)
    assert result.divergence is None
    assert result.differences == {}
    assert result.state is not None
    assert result.state.rules == log.state.rules


def a_modified_hit(percent: int) -> Log:
    log = Log()
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("brute", "gm", "enemy", sheet(3, 1, reaction=2, hp=500))
    log.do("RollInitiative", {}, faces=[1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
    log.do(
        "GrantSituationModifier",
        {"defender": "brute", "percent": percent, "grade": "medium", "reason": "caught off guard"},
    )
    log.do("TakeHit", {"combatant_id": "brute"})
    return log


@pytest.mark.parametrize(
    ("applies_to", "hp_after"),
    [("attack", 500 - (180 - 50)), ("damage", 500 - (120 - 50) * 3 // 2)],
)
def test_GD_DMG_4a_replayed_under_each_reading(applies_to: str, hp_after: int) -> None:
    """A medium modifier of 50 %: on the attack 120 → 180 − 50 = 130; on the damage 70 → 105."""
    log = a_modified_hit(50)
    result = replay(FIGHT, log.events, options={"situation_bonus_applies_to": applies_to})
    assert result.state is not None
    assert result.state.rules.combatants["brute"].hp == hp_after  # type: ignore[union-attr]


def test_extra_dice_come_from_the_seed_in_a_labelled_sequence_and_reproduce() -> None:
    log = Log()
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("brute", "gm", "enemy", sheet(3, 1, reaction=2, hp=70))
    log.do("RollInitiative", {}, faces=[1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
    log.do(
        "GrantSituationModifier",
        {"defender": "brute", "percent": 10, "grade": "small", "reason": "flank"},
    )
    log.do("TakeHit", {"combatant_id": "brute"}, faces=[6])  # 82 → HP −12: faint, still
    # Amend the modifier to large (100 %): 240 − 50 = 190 → HP −120: the faint die is reused,
    # the critical and incapacitated checks (GD-INJ-2/3) need dice the original never rolled.
    grant = next(
        i
        for i, e in enumerate(e for e in log.events if isinstance(e, CommandIssued))
        if e.command_type == "GrantSituationModifier"
    )
    amended = Amendment(
        grant,
        {
            "defender": "brute",
            "percent": 100,
            "grade": "large",
            "reason": "it never saw ace coming",
        },
    )
    before_reveal = replay(FIGHT, log.events, amendment=amended)
    assert not before_reveal.complete
    assert before_reveal.missing is not None
    assert "GD-INJ" in before_reveal.missing
    after = replay(FIGHT, log.events, amendment=amended, seed=SEED)
    again = replay(FIGHT, log.events, amendment=amended, seed=SEED)
    assert after.complete
    assert after.extra_dice
    assert after.extra_dice == again.extra_dice
    assert after.differences == again.differences
    assert after.differences["brute"]["hp"] == {"original": 70 - 82, "replay": 70 - 190}
    assert next(d["purpose"] for d in after.extra_dice).startswith("GD-INJ-2")


def a_costly_boost(**options: object) -> Log:
    """Ace fills its capacity (equipment 100 of 100, max HP 400), then declares a cost-50
    movement skill: max HP 200 during that step (GD-COST-3)."""
    log = Log(**options)
    log.join(
        "ace",
        "p1",
        "pc",
        sheet(
            1,
            1,
            reaction=10,
            hp=400,
            body="assault_core",
            base_max_hp=400,
            equipment_cost=100,
            stats={"capacity": 100},
            skills=[{"name": "Boost Dash", "skill_type": "movement", "cost": 50, "uses": 1}],
        ),
    )
    log.join("brute", "gm", "enemy", sheet(6, 1, reaction=2))
    log.do("RollInitiative", {}, faces=[1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do(
        "UseMovementSkill",
        {"combatant_id": "ace", "skill": "Boost Dash", "destination": {"x": 3, "y": 1}},
        by="p1",
    )
    return log


@pytest.mark.parametrize(("clamps", "hp"), [(True, 200), (False, 400)])
def test_GD_COST_3a_replayed_under_each_reading(clamps: bool, hp: int) -> None:
    """With the clamp (default) current HP drops to the step's max 200 for good; without it,
    the temporary max leaves current HP at 400 after the step."""
    recorded = a_costly_boost()
    result = replay(FIGHT, recorded.events, options={"skill_cost_clamps_hp": clamps})
    assert result.state is not None
    assert result.state.rules.combatants["ace"].hp == hp  # type: ignore[union-attr]
    assert (result.divergence is None) == clamps  # the recorded fight ran with the clamp
