"""Issue 6: after a dispute is amended, the read models show the original ruling (marked
disputed) and the correction beside it — history intact."""

from __future__ import annotations

from domain.encounter import disputes
from domain.encounter.replay import Amendment, replay
from infra.store.mapper import Recorded
from projections.encounter_log import EncounterLogV4
from projections.memory import MemoryRows
from projections.rulings import RULINGS, RulingsV2
from tests.unit.encounter.log import FIGHT
from tests.unit.encounter.table import AT
from tests.unit.encounter.test_disputes import (
    a_medium_modifier_hit,
    damage_ruling,
    modifier_command,
)


def amended_story() -> list[Recorded]:
    log = a_medium_modifier_hit()
    ruling = damage_ruling(log)
    log.events += disputes.file_dispute(
        log.state, log.events, ruling, "it never saw ace", "0000dead", at=AT, by="p1"
    )
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
    return [
        Recorded(FIGHT, version, event, position=version)
        for version, event in enumerate(log.events, start=1)
    ]


def test_the_rulings_model_keeps_the_disputed_original() -> None:
    rows = MemoryRows(RulingsV2()).feed(amended_story()).rows(RULINGS)
    damage = next(r for r in rows if "GD-DMG-1" in r["rule_ids"])  # type: ignore[operator]
    assert damage["disputed"] is True
    assert damage["outcome"]["damage"] == 130  # type: ignore[index]  # as it was ruled


def test_the_encounter_log_shows_the_ruling_and_its_correction() -> None:
    projection = EncounterLogV4()
    memory = MemoryRows(projection).feed(amended_story())
    lines = [row for table in projection.tables for row in memory.rows(table.name)]
    texts = " ".join(str(row.get("line_en", "")) for row in lines)
    kinds = [row.get("event_type") for row in lines]
    assert "RulingRecorded" in kinds
    assert "CombatantCorrected" in kinds
    assert "334" in texts or "hp" in texts.lower()
