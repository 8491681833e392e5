"""Time travel (issue 6): the state at any version, or at the start of a turn, phase or step."""

from __future__ import annotations

import pytest

from domain.encounter.history import at_point
from domain.errors import WrongState
from tests.unit.encounter.log import FIGHT, Log
from tests.unit.encounter.table import sheet


def two_turns() -> Log:
    log = Log()
    log.join("ace", "p1", "pc", sheet(1, 1, reaction=10))
    log.join("brute", "gm", "enemy", sheet(3, 1, reaction=2, hp=500))
    for _ in range(2):
        log.do("RollInitiative", {}, faces=[1, 1])
        log.do("Cleanup", {"combatant_id": "ace"}, by="p1")
        log.do("DeclareAttack", {"combatant_id": "ace", "target": "brute"}, by="p1")
        log.do("TakeHit", {"combatant_id": "brute"})
        log.do("Cleanup", {"combatant_id": "brute"})
        log.do("ForgoAction", {"combatant_id": "brute", "note": "reels"})
    return log


def test_the_start_of_turn_2_shows_the_hp_after_turn_1() -> None:
    log = two_turns()
    state = at_point(FIGHT, log.events, 2)
    assert state.rules.turn == 2  # type: ignore[union-attr]
    assert state.rules.combatants["brute"].hp == 500 - 70  # type: ignore[union-attr]


def test_the_start_of_a_step_is_found() -> None:
    state = at_point(FIGHT, two_turns().events, 1, "main_action", "reaction")
    assert state.rules.step == "reaction"  # type: ignore[union-attr]
    assert state.rules.pending is not None  # type: ignore[union-attr]  # the attack awaits


def test_a_point_never_reached_is_refused() -> None:
    with pytest.raises(WrongState, match="never reached turn 9"):
        at_point(FIGHT, two_turns().events, 9)
