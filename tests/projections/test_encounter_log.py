"""encounter_log: one line per encounter event, in English and Japanese, with rule IDs."""

from __future__ import annotations

import uuid

from projections.encounter_log import LOG, EncounterLogV4
from projections.memory import MemoryRows
from tests.projections.events import (
    AT,
    MysteryHappened,
    encounter,
    ended,
    in_stream,
    joined,
    ruling,
)


def lines(*logged: object) -> list[dict[str, object]]:
    return MemoryRows(EncounterLogV4()).feed(logged).rows(LOG)  # type: ignore[arg-type]


def test_every_event_of_an_encounter_gets_a_line_in_both_languages_in_order() -> None:
    rows = lines(*encounter(joined("ace"), ruling("ace", "GD-MAIN-5", "GD-ATK-1"), ended()))

    assert [r["version"] for r in rows] == [1, 2, 3, 4]
    assert all(r["line_en"] and r["line_ja"] for r in rows)
    assert rows[1]["line_en"] == "Ace (ace) joined on side blue, controlled by p1"
    assert rows[1]["line_ja"] == "Ace（ace）が陣営「blue」で参加（操作：p1）"


def test_a_ruling_line_is_its_own_summary_and_carries_its_rule_ids() -> None:
    row = lines(*encounter(ruling("ace", "GD-MAIN-5", "GD-ATK-1")))[1]

    assert (row["line_en"], row["line_ja"]) == ("ace hits", "aceの命中")
    assert row["rule_ids"] == ["GD-MAIN-5", "GD-ATK-1"]


def test_an_end_cites_its_single_rule_id() -> None:
    assert lines(*encounter(ended()))[1]["rule_ids"] == ["GD-END-1"]


def test_an_event_nobody_wrote_a_renderer_for_still_reads_from_its_fields() -> None:
    row = lines(*encounter(MysteryHappened(combatant="ace", at=AT, by="gm")))[1]

    assert row["line_en"] == 'gm: xx.MysteryHappened (combatant=ace, rule_ids=["XX-1"])'
    assert "xx.MysteryHappened" in str(row["line_ja"])
    assert row["rule_ids"] == ["XX-1"]


def test_streams_that_are_not_encounters_get_no_lines() -> None:
    other = in_stream(uuid.UUID(int=7), MysteryHappened(combatant="x", at=AT, by="gm"))

    assert lines(*other) == []
