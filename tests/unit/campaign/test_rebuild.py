"""Rebuilding from the stored events gives the live state, for any sequence of commands.

Hypothesis draws command sequences; each command is decided against the live state, refused
ones are skipped (as the service would answer them with an error), and the accepted events
are folded live. The same events, stored as JSON and read back, must rebuild the same state.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar
from uuid import UUID

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.aggregate import AggregateKind
from domain.campaign import campaign, character
from domain.campaign import campaign_commands as cc
from domain.campaign import character_commands as ch
from domain.campaign.derived import ratio_of
from domain.campaign.errors import CommandRefused
from domain.campaign.model import Item, Skill
from domain.campaign.scenario import ParticipantOutcome
from domain.catalog import registry
from domain.events import DomainEvent
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.options import GloriousDriveOptions
from tests.unit.campaign.table import AT, GM, Table, new_id, stats

S = TypeVar("S")
Decide = Callable[[S], list[DomainEvent]]
MEMBERS = [GM, "m1", "m2", "m3"]
ACTORS = [GM, GM, GM, "m1", "m2"]  # mostly a GM, so that most member commands are accepted
OPTIONS = GloriousDriveOptions()


def stored_and_read_back(events: Sequence[DomainEvent]) -> list[DomainEvent]:
    """Through JSON text, as the event store keeps them."""
    return [registry.decode(registry.topic(e), json.loads(e.model_dump_json())) for e in events]


def play(
    kind: AggregateKind[S], stream: UUID, first: Sequence[DomainEvent], steps: list[Decide[S]]
) -> tuple[S, list[DomainEvent]]:
    live, log = kind.rebuild(stream, first), list(first)
    for decide in steps:
        try:
            events = decide(live)
        except (CommandRefused, RuleViolation):
            continue
        for event in events:
            live = kind.evolve(live, event)
        log += events
    return live, log


names = st.sampled_from(["plate", "blade", "charm", "frame"])
items = st.builds(
    Item,
    name=names,
    slot=st.sampled_from(["weapon", "armour", "skill", "accessory", "general"]),
    cost=st.integers(0, 120),
    stats=st.dictionaries(
        st.sampled_from(["hp", "capacity", "evasion"]), st.integers(-30, 60), max_size=2
    ),
)
character_steps: st.SearchStrategy[Decide[character.Character]] = st.one_of(
    items.map(lambda i: lambda s: ch.equip(s, ch.EquipItem(item=i), at=AT, by=GM)),
    names.map(lambda n: lambda s: ch.unequip(s, ch.UnequipItem(item_name=n), at=AT, by=GM)),
    st.integers(1, 300).map(
        lambda hp: (
            lambda s: ch.advance(
                s, ch.AdvanceCharacter(level=s.level + 1, base_stats=stats(hp=hp)), at=AT, by=GM
            )
        )
    ),
    st.builds(Skill, name=names, cost=st.integers(0, 50), uses=st.integers(0, 3)).map(
        lambda k: lambda s: ch.learn_skill(s, ch.LearnSkill(skill=k), at=AT, by=GM)
    ),
    names.map(lambda n: lambda s: ch.forget_skill(s, ch.ForgetSkill(skill_name=n), at=AT, by=GM)),
    st.tuples(st.uuids(), st.integers(-50, 120)).map(lambda t: lambda s: carry(s, *t)),
)


def carry(state: character.Character, scenario: UUID, end_hp: int) -> list[DomainEvent]:
    """A scenario result fought on foot (GD-HPS-1), as the service applies it after a close."""
    outcome = ParticipantOutcome(
        character_id=state.id,
        fought_in=state.id,
        end_hp=end_hp,
        max_hp=state.max_hp,
        ratio=ratio_of(end_hp, state.max_hp),
        injury="none",
    )
    return ch.apply_scenario_result(state, scenario, outcome, OPTIONS, at=AT, by=GM)


@settings(max_examples=60, deadline=None)
@given(st.lists(character_steps, max_size=25))
def test_a_character_rebuilt_from_its_events_equals_the_live_sheet(
    steps: list[Decide[character.Character]],
) -> None:
    table = Table()
    aoi = table.register_pilot(table.open_campaign(), stats())

    live, log = play(character.KIND, aoi, table.streams[aoi], steps)

    assert character.KIND.rebuild(aoi, stored_and_read_back(log)) == live
    assert live.max_hp >= 1  # GD-COST-1
    assert 0 <= live.current_hp <= live.max_hp  # GD-COST-2
    assert live.carried_ratio.value <= 1


member_steps: st.SearchStrategy[Decide[campaign.Campaign]] = st.one_of(
    st.tuples(
        st.sampled_from(MEMBERS),
        st.sampled_from(["gm", "player", "viewer"]),
        st.sampled_from(MEMBERS),
    ).flatmap(
        lambda t: st.sampled_from(
            [
                lambda s: cc.add_member(s, cc.AddMember(member_id=t[0], role=t[1]), at=AT, by=t[2]),
                lambda s: cc.change_role(
                    s, cc.ChangeMemberRole(member_id=t[0], role=t[1]), at=AT, by=t[2]
                ),
                lambda s: cc.remove_member(s, cc.RemoveMember(member_id=t[0]), at=AT, by=t[2]),
            ]
        )
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(member_steps, max_size=30))
def test_a_campaign_rebuilt_from_its_events_equals_the_live_one_and_keeps_a_gm(
    steps: list[Decide[campaign.Campaign]],
) -> None:
    table = Table()
    stream = table.open_campaign()

    live, log = play(campaign.KIND, stream, table.streams[stream], steps)

    assert campaign.KIND.rebuild(stream, stored_and_read_back(log)) == live
    assert "gm" in live.members.values()


def test_an_aggregate_with_no_events_does_not_exist() -> None:
    assert not character.KIND.exists(character.KIND.rebuild(new_id(1), []))
    assert not campaign.KIND.exists(campaign.KIND.rebuild(new_id(1), []))
