"""The stored JSON of every campaign event: a golden file per type that must still load.

Like tests/unit/test_stored_event_shapes.py, whose golden folder these files share; this
module also loads each file back, so a silent change of a campaign event's shape fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.campaign import access, campaign, character, scenario, unit
from domain.campaign.model import FULL, Item, Ratio, SheetHp, Skill
from domain.catalog import registry
from domain.events import DomainEvent
from tests.unit.campaign.table import AT, GM, new_id, stats

GOLDEN = Path(__file__).parents[2] / "golden" / "events"
CAMPAIGN, AOI, KURENAI, SCENARIO = new_id(1), new_id(2), new_id(3), new_id(4)
PLATE = Item(name="plate", slot="armour", cost=150, stats={"phys_def": 30})
HALF = SheetHp(max_hp=40, current_hp=40, carried_ratio=FULL)
QUARTER = Ratio(numerator=1, denominator=4)
ENTRY = scenario.ParticipantEntry(
    character_id=AOI,
    unit_id=KURENAI,
    ratio=FULL,
    pilot_hp=80,
    pilot_max_hp=80,
    unit_hp=400,
    unit_max_hp=400,
)
OUTCOME = scenario.ParticipantOutcome(
    character_id=AOI, fought_in=KURENAI, end_hp=100, max_hp=400, ratio=QUARTER, injury="faint"
)

SAMPLES: list[DomainEvent] = [
    campaign.CampaignOpened(
        name="Sora no Kiseki",
        ruleset="glorious_drive",
        options={"hps_rounding": "floor"},
        gm=GM,
        at=AT,
        by=GM,
    ),
    campaign.MemberAdded(member_id="player-1", role="player", at=AT, by=GM),
    campaign.MemberRoleChanged(member_id="player-1", role="gm", at=AT, by=GM),
    campaign.MemberRemoved(member_id="player-1", at=AT, by="player-1"),
    campaign.CampaignOptionsChanged(options={"piloting_rounding": "ceil"}, at=AT, by=GM),
    access.AccessTokenIssued(
        token_id="0a1b2c3d",
        kind="member",
        member_id=GM,
        label="first GM token",
        secret_sha256="ab" * 32,
        at=AT,
        by=GM,
    ),
    access.AccessTokenRevoked(token_id="0a1b2c3d", at=AT, by=GM),
    character.CharacterRegistered(
        campaign_id=CAMPAIGN,
        owner=GM,
        name="Aoi",
        level=1,
        base_stats=stats(piloting=150),
        max_hp=80,
        current_hp=80,
        at=AT,
        by=GM,
    ),
    character.CharacterAdvanced(level=2, base_stats=stats(hp=90), hp=HALF, at=AT, by=GM),
    character.ItemEquipped(item=PLATE, hp=HALF, at=AT, by=GM),
    character.ItemUnequipped(item_name="plate", hp=HALF, at=AT, by=GM),
    character.SkillLearned(skill=Skill(name="overdrive", cost=25, uses=2), at=AT, by=GM),
    character.SkillForgotten(skill_name="overdrive", at=AT, by=GM),
    character.ScenarioHpCarried(scenario_id=SCENARIO, ratio=QUARTER, current_hp=20, at=AT, by=GM),
    character.InjuryRecorded(scenario_id=SCENARIO, injury="dead", at=AT, by=GM),
    character.CharacterLost(scenario_id=SCENARIO, at=AT, by=GM),
    unit.UnitRegistered(
        campaign_id=CAMPAIGN,
        pilot_id=AOI,
        name="Kurenai",
        kind="assault_core",
        base_stats=stats(hp=160, capacity=40),
        max_hp=400,
        current_hp=400,
        at=AT,
        by=GM,
    ),
    unit.UnitItemEquipped(item=PLATE, max_hp=280, current_hp=280, at=AT, by=GM),
    unit.UnitItemUnequipped(item_name="plate", max_hp=400, current_hp=280, at=AT, by=GM),
    unit.UnitScenarioHpCarried(scenario_id=SCENARIO, ratio=QUARTER, current_hp=100, at=AT, by=GM),
    scenario.ScenarioOpened(campaign_id=CAMPAIGN, name="Episode 1", at=AT, by=GM),
    scenario.ParticipantJoined(
        participant=scenario.Participant(character_id=AOI, unit_id=KURENAI), at=AT, by=GM
    ),
    scenario.ScenarioStarted(entries=(ENTRY,), at=AT, by=GM),
    scenario.ScenarioClosed(outcomes=(OUTCOME,), at=AT, by=GM),
]


@pytest.mark.parametrize("event", SAMPLES, ids=registry.topic)
def test_the_golden_json_of_each_campaign_event_loads_to_the_same_event(
    event: DomainEvent,
) -> None:
    path = GOLDEN / f"{registry.topic(event)}.json"
    if not path.exists():
        current = json.dumps(json.loads(event.model_dump_json()), ensure_ascii=False)
        pytest.fail(f"no golden file; create {path} with:\n{current}")
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert registry.decode(registry.topic(event), stored) == event


def test_every_campaign_event_type_has_a_sample() -> None:
    modules = (campaign, character, unit, scenario)
    declared = {
        cls.event_type
        for module in modules
        for cls in vars(module).values()
        if isinstance(cls, type) and issubclass(cls, DomainEvent) and cls.event_type
    }
    assert declared == {e.event_type for e in SAMPLES}
