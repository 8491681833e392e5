"""character_sheets: the sheet a site shows, derived from the aggregate's own state."""

from __future__ import annotations

from domain.campaign import character, unit
from domain.campaign import character_commands as ch
from domain.campaign.model import Item
from projections.character_sheets import SHEETS, UNITS, CharacterSheetsV1
from projections.memory import MemoryRows
from tests.support.story import LoggedTable, campaign_story, churn
from tests.unit.campaign.table import AT, GM


def project(table: LoggedTable) -> MemoryRows:
    return MemoryRows(CharacterSheetsV1()).feed(table.log)


def test_the_sheet_never_disagrees_with_the_aggregate() -> None:
    table = campaign_story(pilots=2)
    sheets = project(table)

    for row in sheets.rows(SHEETS):
        aggregate = table.character(row["character_id"])
        assert character.Character.model_validate(row["state"]) == aggregate
        assert (row["current_hp"], row["max_hp"]) == (aggregate.current_hp, aggregate.max_hp)
    for row in sheets.rows(UNITS):
        assert unit.Unit.model_validate(row["state"]) == table.unit(row["unit_id"])


def test_effective_stats_hp_ratio_and_equipment_of_a_pilot_after_a_scenario() -> None:
    table = campaign_story()
    aoi = table.pilots[0]

    row = project(table).get(SHEETS, (aoi,))

    assert row is not None
    assert row["stats"]["hp"] == 85  # base 80 + the sword's 5
    assert (row["current_hp"], row["max_hp"]) == (21, 85)  # GD-HPS-1: 1/4 of 85, floored
    assert (row["carried_ratio_numerator"], row["carried_ratio_denominator"]) == (1, 4)
    assert [i["name"] for i in row["equipment"]] == ["sword"]
    assert row["equipment_cost"] == 30
    assert row["position"] == max(e.position or 0 for e in table.log if e.stream_id == aoi)


def test_a_unit_sheet_shows_stats_under_its_pilots_piloting() -> None:
    table = campaign_story()
    aoi = table.pilots[0]
    sheets = project(table)
    [core_id] = sheets.get(SHEETS, (aoi,))["unit_ids"]  # type: ignore[index]

    core = sheets.rows(UNITS)[0]

    assert str(core["unit_id"]) == core_id
    assert core["stats"]["hp"] == 400  # GD-STAT-2: 160 × 2.5 (piloting 150)


def test_a_pilots_charm_moves_their_units_stats_on_the_sheet() -> None:
    table = campaign_story()
    aoi = table.pilots[0]
    charm = Item(name="charm", slot="accessory", cost=5, stats={"piloting": 10})
    table.append(aoi, ch.equip(table.character(aoi), ch.EquipItem(item=charm), at=AT, by=GM))

    core = project(table).rows(UNITS)[0]

    assert core["stats"]["hp"] == 416  # GD-STAT-2: 160 × 2.6


def test_equipping_and_unequipping_leaves_the_sheet_as_before() -> None:
    table = campaign_story()
    before = project(table).get(SHEETS, (table.pilots[0],))
    churn(table, table.pilots[0], 3)

    after = project(table).get(SHEETS, (table.pilots[0],))

    assert before is not None
    assert after is not None
    assert after["stats"] == before["stats"]
    assert after["stream_version"] == before["stream_version"] + 6
