"""AK-TURN-2a under both values, as the table sees it: a recorded duel replayed under the other
reading of a tied first-move roll shows who would have had the first phase."""

from __future__ import annotations

from typing import Any

from domain.dice import commitment
from domain.encounter.replay import replay
from tests.unit.encounter.log import FIGHT, SEED, Log
from tests.unit.rules.armor_knights.duel import knight


class DuelLog(Log):
    """A recorded Armor Knights duel (every command before its effects)."""

    def __init__(self, **options: Any) -> None:
        self.events = []
        self.do(
            "OpenEncounter",
            {
                "ruleset_id": "armor_knights",
                "options": options,
                "battle_map": {"width": 8, "height": 3},
                "commitment": commitment(SEED),
            },
        )
        self.join("red", "p1", "red", knight(0))
        self.join("blue", "p2", "blue", knight(3))


def two_turns(**options: Any) -> DuelLog:
    """Turn 1: red first (blue 2, red 5). Turn 2: a tie 4–4, then blue 6, red 1."""
    log = DuelLog(**options)
    log.do("RollFirstMove", {}, faces=[2, 5])
    log.do("EndPhase", {"unit_id": "red"}, by="p1")
    log.do("EndPhase", {"unit_id": "blue"}, by="p2")
    faces = [4, 4, 6, 1] if options.get("first_move_ties", "reroll") == "reroll" else [4, 4]
    log.do("RollFirstMove", {}, faces=faces)
    return log


def test_AK_TURN_2a_reroll_the_tie_is_rolled_again_and_blue_goes_first() -> None:
    rules = two_turns().state.rules
    assert rules is not None
    assert rules.model_dump()["order"] == ("blue", "red")


def test_AK_TURN_2a_replayed_under_keep_previous_red_keeps_the_first_phase() -> None:
    result = replay(FIGHT, two_turns().events, options={"first_move_ties": "keep_previous"})
    assert result.divergence is not None
    assert result.divergence.command_type == "RollFirstMove"
    assert result.differences["red"]["order"] == {"original": 1, "replay": 0}
    assert result.differences["blue"]["first_move_total"] == {"original": 8, "replay": 6}


def test_AK_TURN_2a_replayed_under_reroll_the_keep_previous_duel_needs_more_dice() -> None:
    result = replay(FIGHT, two_turns(first_move_ties="keep_previous").events, seed=SEED)
    assert result.complete
    assert result.divergence is None  # the same options: nothing changes
    other = replay(
        FIGHT,
        two_turns(first_move_ties="keep_previous").events,
        options={"first_move_ties": "reroll"},
    )
    assert not other.complete  # the tie must be rolled again: dice never rolled
    assert other.missing is not None
