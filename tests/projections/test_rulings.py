"""rulings: every ruling, by encounter, character, rule ID, and disputed or not."""

from __future__ import annotations

from domain.encounter.dispute_events import CombatantCorrected
from projections.memory import MemoryRows
from projections.rulings import RULINGS, RulingsV2
from tests.projections.events import (
    AT,
    ENCOUNTER,
    PILOT,
    RulingDisputed,
    encounter,
    joined,
    ruling,
)


def rulings(*logged: object) -> list[dict[str, object]]:
    return MemoryRows(RulingsV2()).feed(logged).rows(RULINGS)  # type: ignore[arg-type]


def test_a_ruling_keeps_rules_inputs_outcome_dice_and_both_summaries() -> None:
    [row] = rulings(*encounter(joined("ace"), ruling("ace", "GD-MAIN-5")))

    assert row["encounter_id"] == ENCOUNTER
    assert row["rule_ids"] == ["GD-MAIN-5"]
    assert row["inputs"] == {"attacker": "ace", "hit": 70}
    assert row["outcome"] == {"hits": True}
    assert row["dice"] == [0]
    assert (row["summary_en"], row["summary_ja"]) == ("ace hits", "aceの命中")
    assert row["disputed"] is False


def test_a_ruling_names_the_combatants_it_mentions_and_the_characters_behind_them() -> None:
    [row] = rulings(
        *encounter(joined("ace", character_id=str(PILOT)), joined("bolt"), ruling("ace", "R-1"))
    )

    assert row["subjects"] == sorted(["ace", str(PILOT)])


def test_a_correction_after_the_join_keeps_the_character_behind_the_combatant() -> None:
    amended = CombatantCorrected(
        dispute_id="d-1", combatant_id="ace", changes={"hp": 334}, previous={"hp": 300},
        at=AT, by="gm",
    )  # fmt: skip
    joined_ace = joined("ace", character_id=str(PILOT))

    [row] = rulings(*encounter(joined_ace, amended, ruling("ace", "R-1")))

    assert row["subjects"] == sorted(["ace", str(PILOT)])


def test_a_dispute_marks_the_ruling_and_keeps_the_history() -> None:
    dispute = RulingDisputed(ruling_version=3, reason="cover was heavy", at=AT, by="p1")
    [row] = rulings(*encounter(joined("ace"), ruling("ace", "R-1"), dispute))

    assert row["disputed"] is True
    assert [d["reason"] for d in row["disputes"]] == ["cover was heavy"]  # type: ignore[attr-defined]
    assert row["rule_ids"] == ["R-1"]


def test_a_dispute_of_a_ruling_that_is_not_there_changes_nothing() -> None:
    dispute = RulingDisputed(ruling_version=9, reason="?", at=AT, by="p1")

    assert rulings(*encounter(dispute)) == []
