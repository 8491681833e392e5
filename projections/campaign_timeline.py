"""A campaign's timeline: scenarios, encounters, joins and losses, one line per milestone.

Encounters appear when their opening names a campaign or a scenario (`campaign_id` or
`scenario_id`): the timeline reads those fields from any event, so a ruleset needs no code here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar
from uuid import UUID

from domain.campaign.campaign import CampaignOpened, MemberAdded, MemberRemoved
from domain.campaign.character import CharacterLost, CharacterRegistered
from domain.campaign.scenario import (
    ParticipantJoined,
    ScenarioClosed,
    ScenarioOpened,
    ScenarioStarted,
)
from domain.campaign.unit import UnitRegistered
from domain.events import DomainEvent
from projections.base import Change, Column, Projection, Put, Recorded, Rows, Table, field
from projections.base import position_of as _position

TIMELINE = "campaign_timeline"
STREAMS = "campaign_timeline_streams"
Line = tuple[str, str, str, Any]  # kind, English, Japanese, subject id
# Every class `_line` or `_starts_stream` matches (encounters by type: any ruleset's).
_MILESTONES = (
    CampaignOpened,
    MemberAdded,
    MemberRemoved,
    CharacterRegistered,
    UnitRegistered,
    ScenarioOpened,
    ParticipantJoined,
    ScenarioStarted,
    ScenarioClosed,
    CharacterLost,
)
_ENCOUNTER_ENDS = frozenset({"EncounterOpened", "EncounterEnded"})


class CampaignTimelineV2(Projection):
    """Milestones keyed by campaign and log position, read per campaign in log order."""

    name = "campaign_timeline"
    # 2: keyed by campaign and position, as positions repeat across the shards of the log (a
    # campaign lives on one shard, so within it a position is unique and orders the lines).
    version = 2
    tables: ClassVar[Sequence[Table]] = (
        Table(
            TIMELINE,
            (
                Column("position", "bigint", nullable=False),
                Column("campaign_id", "uuid", nullable=False),
                Column("at", "timestamptz", nullable=False),
                Column("by", "text", nullable=False),
                Column("kind", "text", nullable=False),
                Column("subject_id", "text"),
                Column("line_en", "text", nullable=False),
                Column("line_ja", "text", nullable=False),
            ),
            key=("campaign_id", "position"),
            lookup=False,
        ),
        Table(
            STREAMS,
            (
                Column("stream_id", "uuid", nullable=False),
                Column("campaign_id", "uuid", nullable=False),
                Column("name", "text"),
            ),
            key=("stream_id",),
        ),
    )

    def wants(self, event_class: type[DomainEvent]) -> bool:
        """Milestones and the openings of streams; most of a log (sheet changes, every event
        of a fight) is neither."""
        return issubclass(event_class, _MILESTONES) or event_class.event_type in _ENCOUNTER_ENDS

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        """A line for each milestone of a campaign (and a note of which stream is whose)."""
        event, stream = recorded.event, recorded.stream_id
        changes: list[Change] = []
        campaign_id = _campaign_of(event, stream, rows)
        if campaign_id is not None and _starts_stream(event):
            name = field(event, "name")
            row = {"stream_id": stream, "campaign_id": campaign_id, "name": name}
            changes.append(Put(STREAMS, row))
        line = _line(event, stream, rows)
        if campaign_id is None or line is None:
            return changes
        kind, en, ja, subject = line
        entry = {
            "position": _position(recorded),
            "campaign_id": campaign_id,
            "at": event.at,
            "by": event.by,
            "kind": kind,
            "subject_id": None if subject is None else str(subject),
            "line_en": en,
            "line_ja": ja,
        }
        return [*changes, Put(TIMELINE, entry)]


def _starts_stream(event: DomainEvent) -> bool:
    return isinstance(event, CampaignOpened | CharacterRegistered | ScenarioOpened) or (
        event.event_type == "EncounterOpened" or isinstance(event, UnitRegistered)
    )


def _campaign_of(event: DomainEvent, stream: UUID, rows: Rows) -> UUID | None:
    if isinstance(event, CampaignOpened):
        return stream
    direct = field(event, "campaign_id")
    if isinstance(direct, UUID):
        return direct
    scenario = field(event, "scenario_id")
    for owner in (stream, scenario):
        if isinstance(owner, UUID):
            found = rows.get(STREAMS, (owner,))
            if found is not None:
                campaign_id = found["campaign_id"]
                return campaign_id if isinstance(campaign_id, UUID) else UUID(str(campaign_id))
    return None


def _name(rows: Rows, stream: Any) -> str:
    found = rows.get(STREAMS, (stream,)) if stream is not None else None
    return str(found["name"]) if found and found["name"] else str(stream)


def _line(event: DomainEvent, stream: UUID, rows: Rows) -> Line | None:
    match event:
        case CampaignOpened(name=name, gm=gm):
            return (
                "campaign_opened",
                f"{gm} opened campaign {name}",
                f"{gm}がキャンペーン「{name}」を開始",
                stream,
            )
        case MemberAdded(member_id=member, role=role):
            return (
                "member_joined",
                f"{member} joined as {role}",
                f"{member}が{role}として参加",
                member,
            )
        case MemberRemoved(member_id=member):
            return (
                "member_left",
                f"{member} left the campaign",
                f"{member}がキャンペーンを離脱",
                member,
            )
        case CharacterRegistered(name=name, owner=owner):
            return (
                "character_joined",
                f"{name} (played by {owner}) joined",
                f"{name}（PL：{owner}）が参加",
                stream,
            )
        case UnitRegistered(name=name, kind=kind):
            return (
                "unit_joined",
                f"{kind} {name} joined",
                f"機体「{name}」（{kind}）が登録された",
                stream,
            )
        case ScenarioOpened(name=name):
            return (
                "scenario_opened",
                f"Scenario {name} opened",
                f"シナリオ「{name}」を開始準備",
                stream,
            )
        case ParticipantJoined(participant=p):
            who, scenario = _name(rows, p.character_id), _name(rows, stream)
            return (
                "participant_joined",
                f"{who} joined scenario {scenario}",
                f"{who}がシナリオ「{scenario}」に参加",
                p.character_id,
            )
        case ScenarioStarted():
            scenario = _name(rows, stream)
            return (
                "scenario_started",
                f"Scenario {scenario} started",
                f"シナリオ「{scenario}」開始",
                stream,
            )
        case ScenarioClosed():
            scenario = _name(rows, stream)
            return (
                "scenario_closed",
                f"Scenario {scenario} closed",
                f"シナリオ「{scenario}」終了",
                stream,
            )
        case CharacterLost():
            who = _name(rows, stream)
            return (
                "character_lost",
                f"{who} was lost (GD-INJ-4)",
                f"{who}がロスト（GD-INJ-4）",
                stream,
            )
    if event.event_type == "EncounterOpened":
        return "encounter_opened", "An encounter opened", "戦闘開始", stream
    if event.event_type == "EncounterEnded":
        reason = field(event, "reason")
        return "encounter_ended", f"An encounter ended: {reason}", f"戦闘終了：{reason}", stream
    return None
