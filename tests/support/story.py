"""Campaign stories for read-model tests: real deciders, events kept in the order decided."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from uuid import UUID

from domain.campaign import character_commands as ch
from domain.campaign import scenario_commands as sc
from domain.campaign.model import Item
from domain.events import DomainEvent
from infra.store.ledger import Ledger, StreamWrite
from tests.unit.campaign.table import AT, GM, Table, stats


@dataclass(frozen=True)
class Logged:
    """What `infra.store.mapper.Recorded` carries, for handler tests without a database."""

    stream_id: UUID
    version: int
    event: DomainEvent
    position: int | None


class LoggedTable(Table):
    """A Table that also keeps one log of every stream, in the order events were decided."""

    def __init__(self) -> None:
        super().__init__()
        self.log: list[Logged] = []
        self.pilots: list[UUID] = []

    def append(self, stream: UUID, events: list[DomainEvent]) -> list[DomainEvent]:
        for event in events:
            version = len(self.streams.get(stream, [])) + 1
            super().append(stream, [event])
            self.log.append(Logged(stream, version, event, len(self.log) + 1))
        return events


def campaign_story(table: LoggedTable | None = None, *, pilots: int = 1) -> LoggedTable:
    """A campaign, pilots with Assault Cores, one equipped item, one scenario run and closed."""
    table = table or LoggedTable()
    campaign = table.open_campaign()
    pairs = []
    for n in range(pilots):
        pilot = table.register_pilot(campaign, stats(piloting=150), name=f"Aoi {n}")
        core = table.register_core(campaign, pilot, stats(hp=160, capacity=40))
        pairs.append((pilot, core))
        table.pilots.append(pilot)
    first = pairs[0][0]
    sword = ch.EquipItem(item=Item(name="sword", slot="weapon", cost=30, stats={"hp": 5}))
    table.append(first, ch.equip(table.character(first), sword, at=AT, by=GM))
    scenario = table.start_scenario(campaign, dict(pairs))
    ends = [sc.ParticipantEnd(character_id=p, end_hp=100) for p, _ in pairs]
    table.close_scenario(campaign, scenario, *ends)
    return table


def churn(table: LoggedTable, pilot: UUID, times: int) -> None:
    """Equip and unequip a charm `times` times: many sheet changes, each moving the units too."""
    charm = Item(name="charm", slot="accessory", cost=5, stats={"piloting": 10})
    for _ in range(times):
        table.append(
            pilot, ch.equip(table.character(pilot), ch.EquipItem(item=charm), at=AT, by=GM)
        )
        off = ch.UnequipItem(item_name="charm")
        table.append(pilot, ch.unequip(table.character(pilot), off, at=AT, by=GM))


def fight(table: LoggedTable, campaign: UUID) -> None:
    """The scripted three-turn Glorious Drive fight (134 events: dice, declarations, rulings,
    reactions, injuries), once more under a new encounter stream of `campaign`."""
    opened, *rest = _scripted_fight()
    table.append(table.fresh_id(), [opened.model_copy(update={"campaign_id": campaign}), *rest])


@cache
def _scripted_fight() -> tuple[DomainEvent, ...]:
    from tests.unit.encounter import test_scripted_encounter as script

    fought = script.line_up()
    for turn in (script.turn_1, script.turn_2, script.turn_3):
        turn(fought)
    return tuple(fought.events)


def big_story(
    campaigns: int, *, pilots: int = 5, churn_times: int = 10, fights: int = 0
) -> LoggedTable:
    """Several campaign stories in one log, with sheet churn and, if asked, fights: a backlog
    worth projecting."""
    table = LoggedTable()
    for _ in range(campaigns):
        campaign_story(table, pilots=pilots)
        churn(table, table.pilots[-1], churn_times)
        campaign = table.character(table.pilots[-1]).campaign_id
        for _ in range(fights):
            assert campaign is not None
            fight(table, campaign)
    return table


def write(
    ledger: Ledger, logged: list[Logged], versions: dict[UUID, int] | None = None, chunk: int = 100
) -> None:
    """Append the logged events to a real ledger in the same order, `chunk` per transaction."""
    versions = {} if versions is None else versions
    for start in range(0, len(logged), chunk):
        writes: list[StreamWrite] = []
        for item in logged[start : start + chunk]:
            current = versions.get(item.stream_id, 0)
            if writes and writes[-1].stream_id == item.stream_id:
                last = writes[-1]
                writes[-1] = StreamWrite(
                    last.stream_id, last.expected_version, [*last.events, item.event]
                )
            else:
                writes.append(StreamWrite(item.stream_id, current, [item.event]))
            versions[item.stream_id] = current + 1
        ledger.append(writes)
