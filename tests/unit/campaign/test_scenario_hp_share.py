"""GD-HPS-1..3 through the Scenario and Character aggregates: HP in at start, out at close.

The stories use pilot Aoi (max HP 80, capacity 100, piloting 150) and her Assault Core
Kurenai (base HP 160, capacity 40). GD-STAT-2: piloting 150 → × 2.5, so Kurenai's max HP is
160 × 2.5 = 400 and its capacity 40 × 2.5 = 100.
"""

from __future__ import annotations

from fractions import Fraction
from uuid import UUID

import pytest
from pydantic import JsonValue

from domain.campaign import scenario_commands as sc
from domain.campaign import unit_commands as uc
from domain.campaign.character import CharacterLost, InjuryRecorded, ScenarioHpCarried
from domain.campaign.errors import WrongState
from domain.campaign.model import Item, Ratio
from domain.campaign.scenario import ScenarioClosed, ScenarioStarted
from domain.campaign.unit import UnitScenarioHpCarried
from domain.campaign.unit_commands import EquipUnitItem, equip_unit
from tests.unit.campaign.table import AT, GM, Table, stats


class Story:
    """A GD campaign with Aoi and Kurenai registered, both at full HP."""

    def __init__(self, **options: JsonValue) -> None:
        self.table = Table()
        self.campaign = self.table.open_campaign(**options)
        self.aoi = self.table.register_pilot(self.campaign, stats(piloting=150))
        self.kurenai = self.table.register_core(self.campaign, self.aoi, stats(hp=160, capacity=40))

    def start(self, unit: UUID | None) -> UUID:
        return self.table.start_scenario(self.campaign, {self.aoi: unit})

    def close(self, scenario: UUID, end_hp: int, **more: object) -> list[object]:
        end = sc.ParticipantEnd.model_validate({"character_id": self.aoi, "end_hp": end_hp, **more})
        return list(self.table.close_scenario(self.campaign, scenario, end))

    def entry(self, scenario: UUID) -> tuple[int, int, int | None, int | None]:
        entry = self.table.scenario(scenario).entry(self.aoi)
        assert entry is not None
        return entry.pilot_hp, entry.pilot_max_hp, entry.unit_hp, entry.unit_max_hp


@pytest.fixture
def story() -> Story:
    return Story()


def test_EX_HPS_1_core_ends_at_100_of_400_so_the_pilot_is_carried_at_20_of_80(
    story: Story,
) -> None:
    first = story.start(story.kurenai)
    assert story.entry(first) == (80, 80, 400, 400)

    closed = story.close(first, 100)

    assert isinstance(closed[0], ScenarioClosed)
    outcome = closed[0].outcomes[0]
    assert (outcome.fought_in, outcome.end_hp, outcome.max_hp) == (story.kurenai, 100, 400)
    assert outcome.ratio.value == Fraction(1, 4)
    aoi = story.table.character(story.aoi)
    assert (aoi.current_hp, aoi.max_hp, aoi.carried_ratio.value) == (20, 80, Fraction(1, 4))
    assert story.table.unit(story.kurenai).current_hp == 100  # its sheet shows the end too


def test_EX_HPS_1_in_scenario_2_the_core_enters_at_100_and_the_pilot_on_foot_at_20(
    story: Story,
) -> None:
    story.close(story.start(story.kurenai), 100)

    in_core = story.start(story.kurenai)
    assert story.entry(in_core) == (20, 80, 100, 400)

    on_foot = story.start(None)
    assert story.entry(on_foot) == (20, 80, None, None)


def test_EX_HPS_2_core_ends_at_minus_30_so_the_ratio_is_0_and_the_pilot_0_of_80(
    story: Story,
) -> None:
    story.close(story.start(story.kurenai), -30)

    aoi = story.table.character(story.aoi)
    assert (aoi.current_hp, aoi.carried_ratio.value) == (0, Fraction(0))
    assert story.entry(story.start(story.kurenai)) == (0, 80, 0, 400)


def test_GD_HPS_three_scenarios_on_foot_then_twice_in_the_core(story: Story) -> None:
    """Hand-computed (floor rounding, the defaults):

    1. On foot. Aoi enters 80/80 (r = 1) and ends at 50/80 → r = 50/80 = 5/8;
       carried HP floor(80 × 5/8) = 50.
    2. In Kurenai. Enters at r = 5/8: Kurenai floor(400 × 5/8) = 250/400, Aoi 50/80.
       Kurenai ends at 133/400 → r = 133/400 = 0.3325; Aoi floor(80 × 0.3325) = floor(26.6) = 26.
    3. Kurenai first takes a cost-130 cannon: capacity 100 → excess 30 →
       max floor(400 × 70 / 100) = 280 (GD-COST-1). Enters at r = 133/400:
       Kurenai floor(280 × 0.3325) = floor(93.1) = 93/280 (not 91, which Aoi's rounded 26/80
       would give: the exact ratio is carried), Aoi min(26, floor(26.6)) = 26/80.
       Kurenai ends at 35/280 → r = 1/8; Aoi floor(80 / 8) = 10.
    """
    table = story.table
    first = story.start(None)
    assert story.entry(first) == (80, 80, None, None)
    story.close(first, 50)
    assert table.character(story.aoi).carried_ratio.value == Fraction(5, 8)
    assert table.character(story.aoi).current_hp == 50

    second = story.start(story.kurenai)
    assert story.entry(second) == (50, 80, 250, 400)
    story.close(second, 133)
    assert table.character(story.aoi).carried_ratio.value == Fraction(133, 400)
    assert table.character(story.aoi).current_hp == 26

    cannon = Item(name="cannon", slot="weapon", cost=130, stats={"phys_atk": 40})
    pilot, core = table.character(story.aoi), table.unit(story.kurenai)
    command = EquipUnitItem(item=cannon)
    table.append(
        core.id, equip_unit(core, pilot, command, table.options(story.campaign), at=AT, by=GM)
    )
    assert table.unit(story.kurenai).max_hp == 280
    third = story.start(story.kurenai)
    assert story.entry(third) == (26, 80, 93, 280)
    story.close(third, 35)
    aoi = table.character(story.aoi)
    assert (aoi.carried_ratio.value, aoi.current_hp) == (Fraction(1, 8), 10)
    assert len(aoi.carried_scenarios) == 3


def test_GD_HPS_3_a_pilot_who_ends_on_foot_carries_their_own_ratio(story: Story) -> None:
    scenario = story.start(story.kurenai)

    closed = story.close(scenario, 60, ended_on_foot=True)

    assert isinstance(closed[0], ScenarioClosed)
    outcome = closed[0].outcomes[0]
    assert (outcome.fought_in, outcome.max_hp, outcome.ratio.value) == (
        story.aoi,
        80,
        Fraction(3, 4),
    )


def test_GD_HPS_3_a_unit_the_pilot_did_not_end_in_keeps_no_result(story: Story) -> None:
    scenario = story.start(story.kurenai)
    story.close(scenario, 60, ended_on_foot=True)

    outcome = story.table.scenario(scenario).outcome(story.aoi)
    assert outcome is not None
    core, options = story.table.unit(story.kurenai), story.table.options(story.campaign)
    with pytest.raises(WrongState, match="last fought in"):
        uc.apply_scenario_result(core, scenario, outcome, options, at=AT, by=GM)
    assert story.table.unit(story.kurenai).current_hp == 400


def test_GD_HPS_1_a_second_close_records_nothing_and_the_ratio_is_carried_once(
    story: Story,
) -> None:
    scenario = story.start(story.kurenai)
    story.close(scenario, 100)

    assert story.close(scenario, 400) == []
    outcome = story.table.scenario(scenario).outcome(story.aoi)
    assert outcome is not None
    assert outcome.end_hp == 100
    story.table.carry(story.campaign, scenario)  # the service retrying the carry
    events = story.table.streams[story.aoi]
    assert sum(isinstance(e, ScenarioHpCarried) for e in events) == 1
    unit_events = story.table.streams[story.kurenai]
    assert sum(isinstance(e, UnitScenarioHpCarried) for e in unit_events) == 1


def test_a_scenario_that_has_not_started_cannot_be_closed(story: Story) -> None:
    table = story.table
    scenario = table.fresh_id()
    opening = sc.open_scenario(
        table.scenario(scenario),
        table.campaign(story.campaign),
        sc.OpenScenario(name="x"),
        at=AT,
        by=GM,
    )
    table.append(scenario, opening)
    with pytest.raises(WrongState, match="start it before closing"):
        story.close(scenario, 10)


def test_a_close_must_give_exactly_one_result_per_participant(story: Story) -> None:
    scenario = story.start(story.kurenai)
    stranger = sc.ParticipantEnd(character_id=story.kurenai, end_hp=1)
    aoi = sc.ParticipantEnd(character_id=story.aoi, end_hp=1)
    state = story.table.scenario(scenario)
    for results in [(), (aoi, stranger), (aoi, aoi)]:
        with pytest.raises(WrongState, match="exactly one result per participant"):
            sc.close(state, sc.CloseScenario(results=results), at=AT, by=GM)


def test_the_start_records_every_entry_with_the_ratio_brought_in(story: Story) -> None:
    scenario = story.start(story.kurenai)

    started = [e for e in story.table.streams[scenario] if isinstance(e, ScenarioStarted)]

    assert len(started) == 1
    assert started[0].entries[0].ratio == Ratio(numerator=1, denominator=1)
    assert story.table.scenario(scenario).status == "in_progress"


def test_GD_INJ_the_pilot_s_injury_is_recorded_for_that_scenario(story: Story) -> None:
    scenario = story.start(None)

    story.close(scenario, -25, injury="critical")

    recorded = [e for e in story.table.streams[story.aoi] if isinstance(e, InjuryRecorded)]
    assert [(e.scenario_id, e.injury) for e in recorded] == [(scenario, "critical")]
    assert not any(isinstance(e, CharacterLost) for e in story.table.streams[story.aoi])


def test_GD_HPS_3_hps_zero_floor_decides_whether_a_sliver_of_hp_carries_as_1_or_0() -> None:
    """Kurenai ends at 1/400 → r = 1/400; Aoi floor(80 / 400) = floor(0.2) = 0, lifted to 1
    by the default at_least_one; with allow_zero it stays 0."""
    for floor, expected in [("at_least_one", 1), ("allow_zero", 0)]:
        story = Story(hps_zero_floor=floor)
        story.close(story.start(story.kurenai), 1)
        assert story.table.character(story.aoi).current_hp == expected


def test_GD_HPS_3_hps_rounding_round_rounds_the_carried_hp_halves_up() -> None:
    """Kurenai ends at 134/400; Aoi 80 × 134/400 = 26.8 → round 27 (floor would give 26)."""
    story = Story(hps_rounding="round")
    story.close(story.start(story.kurenai), 134)
    assert story.table.character(story.aoi).current_hp == 27
