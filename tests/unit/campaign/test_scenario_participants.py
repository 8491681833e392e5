"""Who may join a scenario, with which unit, and when."""

from __future__ import annotations

from uuid import UUID

import pytest

from domain.campaign import scenario_commands as sc
from domain.campaign.errors import NotPermitted, WrongState
from domain.campaign.scenario import ParticipantJoined, Scenario
from tests.unit.campaign.table import AT, GM, PLAYER, Table, stats


class Setting:
    def __init__(self) -> None:
        self.table = Table()
        self.campaign = self.table.open_campaign()
        self.aoi = self.table.register_pilot(self.campaign, stats(piloting=100))
        self.rin = self.table.register_pilot(self.campaign, stats(), name="Rin")
        self.kurenai = self.table.register_core(self.campaign, self.aoi, stats(hp=100))
        self.scenario = self.table.fresh_id()
        opening = sc.open_scenario(
            self.state, self.table.campaign(self.campaign), sc.OpenScenario(name="s"), at=AT, by=GM
        )
        self.table.append(self.scenario, opening)

    @property
    def state(self) -> Scenario:
        return self.table.scenario(self.scenario)

    def join(self, pilot: UUID, unit: UUID | None) -> list[object]:
        command = sc.JoinScenario(character_id=pilot, unit_id=unit)
        core = None if unit is None else self.table.unit(unit)
        events = sc.join(self.state, command, self.table.character(pilot), core, at=AT, by=GM)
        return list(self.table.append(self.scenario, events))


@pytest.fixture
def setting() -> Setting:
    return Setting()


def test_a_pilot_joins_with_their_own_core_and_another_on_foot(setting: Setting) -> None:
    assert isinstance(setting.join(setting.aoi, setting.kurenai)[0], ParticipantJoined)
    setting.join(setting.rin, None)

    deployed = [(p.character_id, p.unit_id) for p in setting.state.participants]
    assert deployed == [(setting.aoi, setting.kurenai), (setting.rin, None)]


def test_a_pilot_cannot_deploy_someone_else_s_core(setting: Setting) -> None:
    with pytest.raises(WrongState, match="deploy their own"):
        setting.join(setting.rin, setting.kurenai)


def test_a_pilot_joins_once(setting: Setting) -> None:
    setting.join(setting.aoi, None)
    with pytest.raises(WrongState, match="has joined already"):
        setting.join(setting.aoi, setting.kurenai)


def test_no_one_joins_after_the_start_and_an_empty_scenario_cannot_start(
    setting: Setting,
) -> None:
    options = setting.table.options(setting.campaign)
    with pytest.raises(WrongState, match="join at least one"):
        sc.start(setting.state, {}, {}, options, at=AT, by=GM)
    setting.join(setting.aoi, None)
    pilots = {setting.aoi: setting.table.character(setting.aoi)}
    setting.table.append(
        setting.scenario, sc.start(setting.state, pilots, {}, options, at=AT, by=GM)
    )

    with pytest.raises(WrongState, match="in_progress; participants join while open"):
        setting.join(setting.rin, None)
    with pytest.raises(WrongState, match="only an open one can start"):
        sc.start(setting.state, pilots, {}, options, at=AT, by=GM)


def test_a_character_of_another_campaign_cannot_join(setting: Setting) -> None:
    other = setting.table.open_campaign()
    stranger = setting.table.register_pilot(other, stats(), name="Mei")
    with pytest.raises(WrongState, match="not in this scenario's campaign"):
        setting.join(stranger, None)


def test_only_a_gm_opens_a_scenario(setting: Setting) -> None:
    fresh = setting.table.scenario(setting.table.fresh_id())
    with pytest.raises(NotPermitted, match="a GM opens scenarios"):
        sc.open_scenario(
            fresh,
            setting.table.campaign(setting.campaign),
            sc.OpenScenario(name="s"),
            at=AT,
            by=PLAYER,
        )
