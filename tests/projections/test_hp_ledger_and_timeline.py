"""hp_ledger (ratio in, ratio out, why) and campaign_timeline (scenarios, joins, losses)."""

from __future__ import annotations

from domain.campaign import scenario_commands as sc
from domain.encounter.events import EncounterOpened
from projections.campaign_timeline import TIMELINE, CampaignTimelineV2
from projections.hp_ledger import LEDGER, HpLedgerV1
from projections.memory import MemoryRows
from tests.projections import events
from tests.support.story import LoggedTable, campaign_story
from tests.unit.campaign.table import stats


def test_the_hp_ledger_shows_the_ratio_in_and_out_and_why() -> None:
    table = campaign_story()
    [row] = MemoryRows(HpLedgerV1()).feed(table.log).rows(LEDGER)

    assert (row["ratio_in_numerator"], row["ratio_in_denominator"]) == (16, 17)
    assert (row["unit_hp_in"], row["unit_max_hp_in"]) == (376, 400)
    assert (row["end_hp"], row["end_max_hp"]) == (100, 400)
    assert (row["ratio_out_numerator"], row["ratio_out_denominator"]) == (1, 4)
    assert "GD-HPS-2/3" in str(row["why_in"])
    assert "GD-HPS-1/3" in str(row["why_out"])
    assert "100/400" in str(row["why_out"])


def test_the_timeline_tells_a_campaign_in_order_and_records_a_loss() -> None:
    table = LoggedTable()
    campaign = table.open_campaign()
    aoi = table.register_pilot(campaign, stats())
    scenario = table.start_scenario(campaign, {aoi: None})
    dead = sc.ParticipantEnd(character_id=aoi, end_hp=0, injury="dead")
    table.close_scenario(campaign, scenario, dead)

    rows = MemoryRows(CampaignTimelineV2()).feed(table.log).rows(TIMELINE)
    kinds = [r["kind"] for r in sorted(rows, key=lambda r: r["position"])]

    assert kinds == [
        "campaign_opened",
        "character_joined",
        "scenario_opened",
        "participant_joined",
        "scenario_started",
        "scenario_closed",
        "character_lost",
    ]
    assert all(r["campaign_id"] == campaign for r in rows)
    lost = next(r for r in rows if r["kind"] == "character_lost")
    assert lost["line_ja"] == "Aoiがロスト（GD-INJ-4）"


def test_an_encounter_that_names_its_scenario_shows_on_the_campaign_timeline() -> None:
    table = campaign_story()
    scenario = next(e.stream_id for e in table.log if e.event.event_type == "ScenarioOpened")
    opened = EncounterOpened.model_validate(
        events.opened().model_dump() | {"scenario_id": scenario}
    )
    fight = events.in_stream(events.ENCOUNTER, opened, events.ended(), first_position=1000)

    rows = MemoryRows(CampaignTimelineV2()).feed([*table.log, *fight]).rows(TIMELINE)

    mine = [r for r in rows if r["subject_id"] == str(events.ENCOUNTER)]
    assert [r["kind"] for r in mine] == ["encounter_opened", "encounter_ended"]
    assert mine[1]["line_ja"] == "戦闘終了：one side left"
