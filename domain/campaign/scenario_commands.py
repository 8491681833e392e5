"""Deciding for the Scenario aggregate: open, join, start (HP in), close (HP out, once).

Starting and closing read the pilots' and units' sheets, passed in by the caller, so the
numbers recorded are the ones the sheets gave at that moment (docs/architecture.md, "Determinism").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TypeVar
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from domain.campaign.bounds import HpFigure, Name
from domain.campaign.campaign import Campaign
from domain.campaign.character import Character
from domain.campaign.derived import entering, ratio_of, unit_max_hp
from domain.campaign.errors import NotPermitted, WrongState
from domain.campaign.scenario import (
    Participant,
    ParticipantEntry,
    ParticipantJoined,
    ParticipantOutcome,
    Scenario,
    ScenarioClosed,
    ScenarioOpened,
    ScenarioStarted,
)
from domain.campaign.unit import Unit
from domain.campaign.unit_commands import piloting_of
from domain.events import DomainEvent
from domain.rules.errors import RuleViolation
from domain.rules.glorious_drive.injury import Injury
from domain.rules.glorious_drive.options import GloriousDriveOptions

_S = TypeVar("_S", Character, Unit)


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OpenScenario(_Command):
    name: Name


class JoinScenario(_Command):
    character_id: UUID
    unit_id: UUID | None = None  # None: on foot


class ParticipantEnd(_Command):
    """How a participant ended: HP of the unit last fought in, and the pilot's injury."""

    character_id: UUID
    end_hp: HpFigure
    ended_on_foot: bool = False  # the pilot left the deployed unit and fought on foot last
    injury: Injury = "none"


class CloseScenario(_Command):
    results: tuple[ParticipantEnd, ...]


def open_scenario(
    state: Scenario, campaign: Campaign, command: OpenScenario, *, at: datetime, by: str
) -> list[DomainEvent]:
    if state.opened:
        raise WrongState(
            f"scenario {state.id} is open already", ja=f"シナリオ {state.id} はすでに開かれています"
        )
    if campaign.role_of(by) != "gm":
        raise NotPermitted(
            f"{by!r} is not a GM of campaign {campaign.id}; a GM opens scenarios",
            ja=f"{by!r} はキャンペーン {campaign.id} のGMではありません。シナリオを開くのはGMです",
        )
    return [ScenarioOpened(campaign_id=campaign.id, name=command.name, at=at, by=by)]


def _not_lost(character: Character) -> None:
    if character.lost:
        raise RuleViolation(
            "GD-INJ-4",
            f"{character.name or character.id} died and is lost: no later scenario",
            ja=f"{character.name or character.id} は死亡してロストしました。"
            "以後のシナリオには参加できません",
        )


def join(
    state: Scenario,
    command: JoinScenario,
    character: Character,
    unit: Unit | None,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """A pilot joins, on foot or with a unit they own, while the scenario is still open."""
    if not state.opened or state.status != "open":
        raise WrongState(
            f"scenario {state.id} is {state.status}; participants join while open",
            ja=f"シナリオ {state.id} は {state.status} です。参加は開かれている間だけです",
        )
    if character.id != command.character_id or character.campaign_id != state.campaign_id:
        raise WrongState(
            f"character {command.character_id} is not in this scenario's campaign",
            ja=f"キャラクター {command.character_id} はこのシナリオのキャンペーンにいません",
        )
    _not_lost(character)
    if state.participant(character.id) is not None:
        raise WrongState(
            f"character {character.id} has joined already",
            ja=f"キャラクター {character.id} はすでに参加しています",
        )
    if (unit is None) != (command.unit_id is None):
        raise WrongState(
            "pass the unit's sheet exactly when the command names a unit",
            ja="コマンドがユニットを名指すときだけ、そのユニットのシートを渡してください",
        )
    if unit is not None and (unit.id != command.unit_id or unit.pilot_id != character.id):
        raise WrongState(
            f"unit {command.unit_id} is not {character.id}'s; deploy their own",
            ja=f"ユニット {command.unit_id} は {character.id} のものではありません。"
            "自分のユニットを出撃させてください",
        )
    participant = Participant(character_id=character.id, unit_id=command.unit_id)
    return [ParticipantJoined(participant=participant, at=at, by=by)]


def _entry(
    participant: Participant,
    characters: Mapping[UUID, Character],
    units: Mapping[UUID, Unit],
    options: GloriousDriveOptions,
) -> ParticipantEntry:
    pilot = _sheet(characters, participant.character_id)
    _not_lost(pilot)
    unit_max = None
    if participant.unit_id is not None:
        unit = _sheet(units, participant.unit_id)
        unit_max = unit_max_hp(unit.base_stats, unit.items, piloting_of(pilot), options)
    hp = entering(pilot.carried_ratio, pilot.current_hp, pilot.max_hp, unit_max, options)
    return ParticipantEntry(
        character_id=pilot.id,
        unit_id=participant.unit_id,
        ratio=hp.ratio,
        pilot_hp=hp.pilot_hp,
        pilot_max_hp=hp.pilot_max_hp,
        unit_hp=hp.unit_hp,
        unit_max_hp=hp.unit_max_hp,
    )


def _sheet(sheets: Mapping[UUID, _S], sheet_id: UUID) -> _S:
    sheet = sheets.get(sheet_id)
    if sheet is None:
        raise WrongState(
            f"the sheet of {sheet_id} was not passed in; load every participant's",
            ja=f"{sheet_id} のシートが渡されていません。参加者全員のシートを読み込んでください",
        )
    return sheet


def start(
    state: Scenario,
    characters: Mapping[UUID, Character],
    units: Mapping[UUID, Unit],
    options: GloriousDriveOptions,
    *,
    at: datetime,
    by: str,
) -> list[DomainEvent]:
    """GD-HPS-2/3: every pilot and deployed unit enters at the pilot's carried ratio."""
    if not state.opened or state.status != "open":
        raise WrongState(
            f"scenario {state.id} is {state.status}; only an open one can start",
            ja=f"シナリオ {state.id} は {state.status} です。"
            "開始できるのは開かれているシナリオだけです",
        )
    if not state.participants:
        raise WrongState(
            "no participant has joined; join at least one before starting",
            ja="参加者がいません。開始する前に少なくとも一人参加させてください",
        )
    entries = tuple(_entry(p, characters, units, options) for p in state.participants)
    return [ScenarioStarted(entries=entries, at=at, by=by)]


def _outcome(entry: ParticipantEntry, end: ParticipantEnd) -> ParticipantOutcome:
    if end.injury == "shutdown":
        raise RuleViolation(
            "GD-INJ-1",
            "shutdown is an Assault Core's faint; a pilot faints",
            ja="機能停止はアサルトコアの気絶です。パイロットは気絶します",
        )
    # GD-HPS-3: the unit last fought in is the deployed one, unless the pilot ended on foot.
    if entry.unit_id is not None and entry.unit_max_hp is not None and not end.ended_on_foot:
        fought_in, max_hp = entry.unit_id, entry.unit_max_hp
    else:
        fought_in, max_hp = entry.character_id, entry.pilot_max_hp
    return ParticipantOutcome(
        character_id=entry.character_id,
        fought_in=fought_in,
        end_hp=end.end_hp,
        max_hp=max_hp,
        ratio=ratio_of(end.end_hp, max_hp),
        injury=end.injury,
    )


def close(state: Scenario, command: CloseScenario, *, at: datetime, by: str) -> list[DomainEvent]:
    """GD-HPS-1/3: record each participant's end HP and carried ratio, exactly once.

    The max HP is the one the unit entered with (GD-HPS-3: its own max for this scenario).
    Closing a closed scenario changes nothing.
    """
    if state.status == "closed":
        return []
    if state.status != "in_progress":
        raise WrongState(
            f"scenario {state.id} has not started; start it before closing",
            ja=f"シナリオ {state.id} は開始されていません。閉じる前に開始してください",
        )
    ends = {end.character_id: end for end in command.results}
    expected = {e.character_id for e in state.entries}
    if set(ends) != expected or len(ends) != len(command.results):
        missing, extra = expected - set(ends), set(ends) - expected
        raise WrongState(
            f"give exactly one result per participant (missing {sorted(map(str, missing))}, "
            f"not participating {sorted(map(str, extra))}, or one named twice)",
            ja="参加者ごとに結果をちょうど一つずつ渡してください（不足 "
            f"{sorted(map(str, missing))}、不参加 {sorted(map(str, extra))}、または重複）",
        )
    outcomes = tuple(_outcome(e, ends[e.character_id]) for e in state.entries)
    return [ScenarioClosed(outcomes=outcomes, at=at, by=by)]
