"""A fake application service for the campaign aggregates: an in-memory log of streams.

Each `when_*` call loads the state by rebuilding its stream (as the real service does),
asks the decider, appends what it decided and returns those events, so a test reads
as given events / when command / then events.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import TypeVar
from uuid import UUID

from pydantic import JsonValue

from domain.aggregate import AggregateKind
from domain.campaign import campaign, character, scenario, unit
from domain.campaign import campaign_commands as cc
from domain.campaign import character_commands as ch
from domain.campaign import scenario_commands as sc
from domain.campaign import unit_commands as uc
from domain.campaign.model import Stats
from domain.events import DomainEvent
from domain.rules.glorious_drive.options import GloriousDriveOptions
from domain.rules.glorious_drive.stats import STAT_KEYS

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
GM = "gm-1"
PLAYER = "player-1"
S = TypeVar("S")


def stats(**values: int) -> Stats:
    """A full GD-STAT block: zeros except the named values (max HP 80 by default)."""
    return dict.fromkeys(STAT_KEYS, 0) | {"hp": 80, "capacity": 100} | values


def new_id(n: int) -> UUID:
    return uuid.UUID(int=n)


class Table:
    """The in-memory event log of one campaign's streams."""

    def __init__(self) -> None:
        self.streams: dict[UUID, list[DomainEvent]] = {}
        self._next = 1000

    def fresh_id(self) -> UUID:
        self._next += 1
        return new_id(self._next)

    def load(self, kind: AggregateKind[S], stream: UUID) -> S:
        return kind.rebuild(stream, self.streams.get(stream, []))

    def append(self, stream: UUID, events: list[DomainEvent]) -> list[DomainEvent]:
        """Save what a decider returned; hand it back so a test can assert on it."""
        self.streams.setdefault(stream, []).extend(events)
        return events

    def campaign(self, stream: UUID) -> campaign.Campaign:
        return self.load(campaign.KIND, stream)

    def character(self, stream: UUID) -> character.Character:
        return self.load(character.KIND, stream)

    def unit(self, stream: UUID) -> unit.Unit:
        return self.load(unit.KIND, stream)

    def scenario(self, stream: UUID) -> scenario.Scenario:
        return self.load(scenario.KIND, stream)

    # -- the steps most stories share, through the real deciders ------------------------

    def open_campaign(self, **options: JsonValue) -> UUID:
        stream = self.fresh_id()
        command = cc.OpenCampaign(name="Sora no Kiseki", ruleset="glorious_drive", options=options)
        self.append(stream, cc.open_campaign(self.campaign(stream), command, at=AT, by=GM))
        return stream

    def register_pilot(self, campaign_id: UUID, base: Stats, name: str = "Aoi") -> UUID:
        stream = self.fresh_id()
        command = ch.RegisterCharacter(owner=GM, name=name, level=1, base_stats=base)
        owner = self.campaign(campaign_id)
        self.append(
            stream, ch.register_character(self.character(stream), owner, command, at=AT, by=GM)
        )
        return stream

    def register_core(self, campaign_id: UUID, pilot_id: UUID, base: Stats) -> UUID:
        stream = self.fresh_id()
        command = uc.RegisterUnit(name="Kurenai", kind="assault_core", base_stats=base)
        pilot, options = self.character(pilot_id), self.options(campaign_id)
        self.append(
            stream, uc.register_unit(self.unit(stream), pilot, command, options, at=AT, by=GM)
        )
        return stream

    def options(self, campaign_id: UUID) -> GloriousDriveOptions:
        return self.campaign(campaign_id).gd_options()

    def start_scenario(self, campaign_id: UUID, deployments: dict[UUID, UUID | None]) -> UUID:
        """Open a scenario, join each pilot (with its unit, or None on foot), start it."""
        stream = self.fresh_id()
        owner = self.campaign(campaign_id)
        command = sc.OpenScenario(name=f"scenario {stream.int}")
        self.append(stream, sc.open_scenario(self.scenario(stream), owner, command, at=AT, by=GM))
        for pilot_id, unit_id in deployments.items():
            join = sc.JoinScenario(character_id=pilot_id, unit_id=unit_id)
            core = None if unit_id is None else self.unit(unit_id)
            pilot = self.character(pilot_id)
            self.append(stream, sc.join(self.scenario(stream), join, pilot, core, at=AT, by=GM))
        pilots = {p: self.character(p) for p in deployments}
        units = {u: self.unit(u) for u in deployments.values() if u is not None}
        options = owner.gd_options()
        self.append(stream, sc.start(self.scenario(stream), pilots, units, options, at=AT, by=GM))
        return stream

    def close_scenario(
        self, campaign_id: UUID, scenario_id: UUID, *ends: sc.ParticipantEnd
    ) -> list[DomainEvent]:
        """Close with the given ends, then carry each outcome to its pilot's sheet."""
        command = sc.CloseScenario(results=ends)
        events = self.append(
            scenario_id, sc.close(self.scenario(scenario_id), command, at=AT, by=GM)
        )
        self.carry(campaign_id, scenario_id)
        return events

    def carry(self, campaign_id: UUID, scenario_id: UUID) -> None:
        """What the service does after a close: each outcome goes to its pilot's sheet,
        and to the unit's when the pilot last fought in one."""
        options = self.options(campaign_id)
        for outcome in self.scenario(scenario_id).outcomes:
            pilot = self.character(outcome.character_id)
            carried = ch.apply_scenario_result(pilot, scenario_id, outcome, options, at=AT, by=GM)
            self.append(pilot.id, carried)
            if outcome.fought_in != pilot.id:
                core = self.unit(outcome.fought_in)
                kept = uc.apply_scenario_result(core, scenario_id, outcome, options, at=AT, by=GM)
                self.append(core.id, kept)
