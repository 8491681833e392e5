"""The Scenario aggregate: who takes part in which unit, HP in at the start and out at the close.

Status runs open → in progress → closed. The start records each participant's entering HP
(GD-HPS-2/3) and the close records, once, the end HP of the unit each last fought in and the
ratio it carries (GD-HPS-1/3). Deciding lives in `scenario_commands.py`.
"""

from __future__ import annotations

from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.aggregate import AggregateKind
from domain.campaign.model import Ratio
from domain.events import DomainEvent, registry
from domain.rules.glorious_drive.injury import Injury

Status = Literal["open", "in_progress", "closed"]


class Participant(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    character_id: UUID
    unit_id: UUID | None  # None: the pilot fights on foot


class ParticipantEntry(BaseModel):
    """GD-HPS-2/3: HP and max of the pilot and the deployed unit as the scenario starts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    character_id: UUID
    unit_id: UUID | None
    ratio: Ratio  # the pilot's carried ratio brought in
    pilot_hp: int
    pilot_max_hp: int
    unit_hp: int | None
    unit_max_hp: int | None


class ParticipantOutcome(BaseModel):
    """GD-HPS-1/3: the unit last fought in, its end HP over its max, and the ratio carried."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    character_id: UUID
    fought_in: UUID  # the unit's id, or the character's own when last on foot
    end_hp: int
    max_hp: int
    ratio: Ratio
    injury: Injury  # the pilot's heaviest injury of the scenario (GD-INJ)


class ScenarioOpened(DomainEvent):
    event_type = "ScenarioOpened"
    campaign_id: UUID
    name: str


class ParticipantJoined(DomainEvent):
    event_type = "ParticipantJoined"
    participant: Participant


class ScenarioStarted(DomainEvent):
    event_type = "ScenarioStarted"
    entries: tuple[ParticipantEntry, ...]


class ScenarioClosed(DomainEvent):
    event_type = "ScenarioClosed"
    outcomes: tuple[ParticipantOutcome, ...]


registry.register(ScenarioOpened, ParticipantJoined, ScenarioStarted, ScenarioClosed)


class Scenario(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: UUID
    campaign_id: UUID | None = None
    name: str = ""
    status: Status = "open"
    participants: tuple[Participant, ...] = ()
    entries: tuple[ParticipantEntry, ...] = ()
    outcomes: tuple[ParticipantOutcome, ...] = ()

    @property
    def opened(self) -> bool:
        return self.campaign_id is not None

    def participant(self, character_id: UUID) -> Participant | None:
        return next((p for p in self.participants if p.character_id == character_id), None)

    def entry(self, character_id: UUID) -> ParticipantEntry | None:
        return next((e for e in self.entries if e.character_id == character_id), None)

    def outcome(self, character_id: UUID) -> ParticipantOutcome | None:
        return next((o for o in self.outcomes if o.character_id == character_id), None)


def evolve(state: Scenario, event: DomainEvent) -> Scenario:
    match event:
        case ScenarioOpened(campaign_id=campaign, name=name):
            return state.model_copy(update={"campaign_id": campaign, "name": name})
        case ParticipantJoined(participant=participant):
            return state.model_copy(update={"participants": (*state.participants, participant)})
        case ScenarioStarted(entries=entries):
            return state.model_copy(update={"status": "in_progress", "entries": entries})
        case ScenarioClosed(outcomes=outcomes):
            return state.model_copy(update={"status": "closed", "outcomes": outcomes})
    return state


KIND = AggregateKind[Scenario]("scenario", lambda i: Scenario(id=i), evolve, lambda s: s.opened)
