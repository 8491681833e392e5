"""Disputes (issue 6): given a ruling, when a player disputes it and the GM upholds or amends,
then the history stays and corrections follow."""

from __future__ import annotations

import pytest

from domain.encounter import disputes
from domain.encounter.dispute_events import CombatantCorrected, DisputeAmended
from domain.encounter.record import CommandIssued
from domain.encounter.replay import Amendment, replay
from domain.errors import NotPermitted, WrongState
from domain.rules.records import RulingRecorded
from tests.unit.encounter.log import FIGHT, Log
from tests.unit.encounter.table import AT, sheet


def a_medium_modifier_hit() -> Log:
    """Ace (120) hits Brute (defence 50, HP 500) with a medium 50 % modifier: 180 − 50 = 130."""
    log = Log()
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("brute", "gm", "enemy", sheet(3, 1, reaction=2, hp=500))
    log.do("RollInitiative", {}, faces=[1, 1])
    log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
    log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
    log.do(
        "GrantSituationModifier",
        {"defender": "brute", "percent": 50, "grade": "medium", "reason": "careless"},
    )
    log.do("TakeHit", {"combatant_id": "brute"})
    return log


def damage_ruling(log: Log) -> int:
    return next(
        v
        for v, e in enumerate(log.events, start=1)
        if isinstance(e, RulingRecorded) and "GD-DMG-1" in e.rule_ids
    )


def modifier_command(log: Log) -> int:
    commands = [e for e in log.events if isinstance(e, CommandIssued)]
    return next(i for i, e in enumerate(commands) if e.command_type == "GrantSituationModifier")


def test_a_player_disputes_a_ruling_with_a_reason() -> None:
    log = a_medium_modifier_hit()
    filed = disputes.file_dispute(
        log.state,
        log.events,
        damage_ruling(log),
        "it never saw ace: that is large",
        "0000dead",
        at=AT,
        by="p1",
    )
    log.events += filed
    assert log.state.disputes["0000dead"].status == "open"


def test_only_a_ruling_can_be_disputed() -> None:
    log = a_medium_modifier_hit()
    with pytest.raises(WrongState, match="not a ruling"):
        disputes.file_dispute(log.state, log.events, 1, "no", "0000dead", at=AT, by="p1")


def test_a_player_cannot_settle_a_dispute() -> None:
    log = a_medium_modifier_hit()
    log.events += disputes.file_dispute(
        log.state, log.events, damage_ruling(log), "large!", "0000dead", at=AT, by="p1"
    )
    with pytest.raises(NotPermitted):
        disputes.uphold(log.state, "0000dead", "", is_gm=False, at=AT, by="p1")


def test_the_gm_upholds_and_nothing_else_changes() -> None:
    log = a_medium_modifier_hit()
    log.events += disputes.file_dispute(
        log.state, log.events, damage_ruling(log), "large!", "0000dead", at=AT, by="p1"
    )
    before = log.state.rules
    log.events += disputes.uphold(log.state, "0000dead", "medium it is", is_gm=True, at=AT, by="gm")
    assert log.state.disputes["0000dead"].status == "upheld"
    assert log.state.rules == before


def test_GD_DMG_4_a_medium_modifier_amended_to_large_appends_hp_corrections() -> None:
    """Large 80 %: 120 × 1.8 = 216 − 50 = 166 instead of 130 → HP 334 instead of 370."""
    log = a_medium_modifier_hit()
    ruling = damage_ruling(log)
    log.events += disputes.file_dispute(
        log.state, log.events, ruling, "it never saw ace", "0000dead", at=AT, by="p1"
    )
    history = list(log.events)
    amendment = Amendment(
        modifier_command(log),
        {"defender": "brute", "percent": 80, "grade": "large", "reason": "unaware"},
    )
    result = replay(FIGHT, log.events, amendment=amendment)
    log.events += disputes.amend(
        log.state,
        "0000dead",
        result,
        "large after all",
        amendment=amendment,
        options={},
        is_gm=True,
        at=AT,
        by="gm",
    )
    assert log.events[: len(history)] == history  # nothing edited, nothing removed
    (correction,) = [e for e in log.events if isinstance(e, CombatantCorrected)]
    assert (correction.previous, correction.changes) == ({"hp": 370}, {"hp": 334})
    assert log.state.rules.combatants["brute"].hp == 334  # type: ignore[union-attr]
    assert log.state.disputes["0000dead"].status == "amended"
    adopted = next(e for e in log.events if isinstance(e, DisputeAmended))
    assert adopted.divergence_version is not None


def test_a_settled_dispute_cannot_be_settled_again() -> None:
    log = a_medium_modifier_hit()
    log.events += disputes.file_dispute(
        log.state, log.events, damage_ruling(log), "large!", "0000dead", at=AT, by="p1"
    )
    log.events += disputes.uphold(log.state, "0000dead", "", is_gm=True, at=AT, by="gm")
    with pytest.raises(WrongState, match="already upheld"):
        disputes.uphold(log.state, "0000dead", "", is_gm=True, at=AT, by="gm")
