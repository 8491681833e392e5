"""GD-INJ-4: a dead character is lost for good and can join no later scenario."""

from __future__ import annotations

import pytest

from domain.campaign import scenario_commands as sc
from domain.campaign.character import CharacterLost, InjuryRecorded
from domain.campaign.character_commands import apply_scenario_result
from domain.campaign.scenario import ParticipantOutcome
from domain.rules.errors import RuleViolation
from tests.unit.campaign.table import AT, GM, Table, stats


def test_GD_INJ_4_a_dead_pilot_is_lost_and_refused_from_a_later_scenario() -> None:
    table = Table()
    campaign = table.open_campaign()
    aoi = table.register_pilot(campaign, stats())
    first = table.start_scenario(campaign, {aoi: None})

    table.close_scenario(
        campaign, first, sc.ParticipantEnd(character_id=aoi, end_hp=-170, injury="dead")
    )

    events = table.streams[aoi][-2:]
    assert [type(e) for e in events] == [InjuryRecorded, CharacterLost]
    assert table.character(aoi).lost
    with pytest.raises(RuleViolation, match="GD-INJ-4"):
        table.start_scenario(campaign, {aoi: None})


def test_GD_INJ_4_a_pilot_who_died_after_joining_another_scenario_cannot_start_it() -> None:
    table = Table()
    campaign = table.open_campaign()
    aoi = table.register_pilot(campaign, stats())
    waiting = table.fresh_id()
    owner = table.campaign(campaign)
    table.append(
        waiting,
        sc.open_scenario(
            table.scenario(waiting), owner, sc.OpenScenario(name="later"), at=AT, by=GM
        ),
    )
    join = sc.JoinScenario(character_id=aoi)
    table.append(
        waiting, sc.join(table.scenario(waiting), join, table.character(aoi), None, at=AT, by=GM)
    )
    fatal = table.start_scenario(campaign, {aoi: None})
    table.close_scenario(
        campaign, fatal, sc.ParticipantEnd(character_id=aoi, end_hp=-200, injury="dead")
    )

    with pytest.raises(RuleViolation, match="GD-INJ-4"):
        sc.start(
            table.scenario(waiting),
            {aoi: table.character(aoi)},
            {},
            table.options(campaign),
            at=AT,
            by=GM,
        )


def test_GD_INJ_1_a_pilot_cannot_be_recorded_as_shut_down() -> None:
    table = Table()
    campaign = table.open_campaign()
    aoi = table.register_pilot(campaign, stats())
    scenario = table.start_scenario(campaign, {aoi: None})

    with pytest.raises(RuleViolation, match="GD-INJ-1"):
        table.close_scenario(
            campaign, scenario, sc.ParticipantEnd(character_id=aoi, end_hp=-5, injury="shutdown")
        )
    outcome = ParticipantOutcome.model_validate(
        {
            "character_id": aoi,
            "fought_in": aoi,
            "end_hp": -5,
            "max_hp": 80,
            "ratio": {"numerator": 0, "denominator": 1},
            "injury": "shutdown",
        }
    )
    with pytest.raises(RuleViolation, match="GD-INJ-1"):
        apply_scenario_result(
            table.character(aoi), scenario, outcome, table.options(campaign), at=AT, by=GM
        )
