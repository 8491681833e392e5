"""Character sheets as a sheet site shows them: effective stats, HP now / max, ratio, units.

Each row keeps its aggregate's state as JSON and moves it with the aggregate's own `evolve`,
then derives the shown columns with `domain.campaign.derived`: the sheet cannot disagree with
the aggregate, and a new derived column needs only a version bump and a rebuild. The costly
columns (JSON dumps, derived stats) are `Later` values: a pilot changed twenty times in one
batch is dumped once, when the projector writes the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar
from uuid import UUID

from domain.campaign import campaign, character, unit
from domain.campaign.derived import character_stats, equipment_cost, unit_stats
from domain.campaign.model import Item, Stats
from domain.events import DomainEvent
from domain.rules.glorious_drive.options import GloriousDriveOptions
from projections.base import (
    Change,
    Column,
    Later,
    Projection,
    Put,
    Recorded,
    Row,
    Rows,
    Table,
    encoded,
)
from projections.base import position_of as _position
from projections.kinds import CAMPAIGN_EVENTS, CHARACTER_EVENTS, UNIT_EVENTS
from projections.memo import StateMemo

SHEETS = "character_sheets"
UNITS = "character_sheets_units"
CAMPAIGNS = "character_sheets_campaigns"
_STATS_MEMO = 10_000

_COMMON = (
    Column("campaign_id", "uuid"),
    Column("name", "text"),
    Column("stats", "jsonb"),
    Column("base_stats", "jsonb"),
    Column("equipment", "jsonb"),
    Column("equipment_cost", "integer"),
    Column("max_hp", "integer"),
    Column("current_hp", "integer"),
    Column("state", "jsonb", nullable=False),
    Column("stream_version", "bigint", nullable=False),
    Column("position", "bigint", nullable=False),
    Column("updated_at", "timestamptz"),
)


_WANTED = (*CAMPAIGN_EVENTS, *CHARACTER_EVENTS, *UNIT_EVENTS)


class CharacterSheetsV1(Projection):
    """Pilot sheets, with their units' sheets under the pilot's piloting (GD-STAT-2)."""

    name = "character_sheets"
    version = 1
    tables: ClassVar[Sequence[Table]] = (
        Table(
            SHEETS,
            (
                Column("character_id", "uuid", nullable=False),
                Column("owner", "text"),
                Column("level", "integer"),
                Column("lost", "boolean"),
                Column("skills", "jsonb"),
                Column("carried_ratio_numerator", "integer"),
                Column("carried_ratio_denominator", "integer"),
                Column("injuries", "jsonb"),
                Column("unit_ids", "jsonb"),
                *_COMMON,
            ),
            key=("character_id",),
            indexes=(("campaign_id",),),
        ),
        Table(
            UNITS,
            (
                Column("unit_id", "uuid", nullable=False),
                Column("pilot_id", "uuid"),
                Column("kind", "text"),
                *_COMMON,
            ),
            key=("unit_id",),
            indexes=(("pilot_id",),),
        ),
        Table(
            CAMPAIGNS,
            (
                Column("campaign_id", "uuid", nullable=False),
                Column("state", "jsonb", nullable=False),
                Column("stream_version", "bigint", nullable=False),
            ),
            key=("campaign_id",),
        ),
    )

    def __init__(self) -> None:
        self._states = StateMemo()
        self._unit_stats: dict[tuple[str, int, str], Stats] = {}
        # The options of each campaign, with the state object they were read from: the memo
        # hands back the same object for as long as the campaign is at the same version.
        self._campaign_options: dict[UUID, tuple[campaign.Campaign, GloriousDriveOptions]] = {}
        self._pilotings: dict[UUID, tuple[Stats, tuple[Item, ...], int | None]] = {}

    def wants(self, event_class: type[DomainEvent]) -> bool:
        return issubclass(event_class, _WANTED)

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        """Move the aggregate state in the row, then re-derive the sheet."""
        event = recorded.event
        if isinstance(event, CAMPAIGN_EVENTS):
            return self._campaign(recorded, rows)
        if isinstance(event, CHARACTER_EVENTS):
            return self._character(recorded, rows)
        if isinstance(event, UNIT_EVENTS):
            return self._unit(recorded, rows)
        return []

    def _campaign(self, recorded: Recorded, rows: Rows) -> list[Change]:
        found = rows.get(CAMPAIGNS, (recorded.stream_id,))
        stream = recorded.stream_id
        state = (
            self._states.parse(campaign.Campaign, stream, found)
            if found
            else campaign.Campaign(id=stream)
        )
        state = campaign.evolve(state, recorded.event)
        self._states.remember(stream, recorded.version, state)
        row = {
            "campaign_id": stream,
            "state": Later(encoded, state),
            "stream_version": recorded.version,
        }
        return [Put(CAMPAIGNS, row)]

    def _character(self, recorded: Recorded, rows: Rows) -> list[Change]:
        found = rows.get(SHEETS, (recorded.stream_id,))
        pilot = (
            self._states.parse(character.Character, recorded.stream_id, found)
            if found
            else character.Character(id=recorded.stream_id)
        )
        before = self._piloting_of(pilot)
        pilot = character.evolve(pilot, recorded.event)
        self._states.remember(pilot.id, recorded.version, pilot)
        unit_ids: list[str] = list(found["unit_ids"]) if found else []
        changes: list[Change] = [Put(SHEETS, _sheet_row(pilot, unit_ids, recorded))]
        after = self._piloting_of(pilot)
        if after == before:
            return changes
        options = self._options(rows, pilot.campaign_id)
        for unit_id in map(UUID, unit_ids):  # GD-STAT-2: a pilot's piloting moves their units
            unit_row = rows.get(UNITS, (unit_id,))
            if unit_row is not None and options is not None and unit_row["base_stats"]:
                core = self._states.parse(unit.Unit, unit_id, unit_row)
                stats = Later(self._stats_of, core, after or 0, options)
                # Only the stats move: the unit's own state and HP are as its events left them.
                moved = {"stats": stats, "position": _position(recorded)}
                changes.append(Put(UNITS, unit_row | moved))
        return changes

    def _unit(self, recorded: Recorded, rows: Rows) -> list[Change]:
        found = rows.get(UNITS, (recorded.stream_id,))
        stream = recorded.stream_id
        core = self._states.parse(unit.Unit, stream, found) if found else unit.Unit(id=stream)
        core = unit.evolve(core, recorded.event)
        self._states.remember(stream, recorded.version, core)
        pilot_row = rows.get(SHEETS, (core.pilot_id,)) if core.pilot_id else None
        pilot = (
            self._states.parse(character.Character, pilot_row["character_id"], pilot_row)
            if pilot_row
            else None
        )
        base = {"position": _position(recorded), "updated_at": recorded.event.at}
        options = self._options(rows, core.campaign_id)
        row = self._unit_row(core, pilot, options, base, recorded.version)
        changes: list[Change] = [Put(UNITS, row)]
        if pilot_row is not None and str(core.id) not in pilot_row["unit_ids"]:
            unit_ids = [*pilot_row["unit_ids"], str(core.id)]
            changes.append(Put(SHEETS, pilot_row | {"unit_ids": unit_ids}))
        return changes

    def _piloting_of(self, pilot: character.Character) -> int | None:
        """The pilot's piloting, worked out again only when its inputs are new objects: each
        event asks before and after, and `evolve` keeps the fields it does not change (the
        state is frozen), so most events change neither stats nor items."""
        known = self._pilotings.get(pilot.id)
        if known is None or known[0] is not pilot.base_stats or known[1] is not pilot.items:
            if len(self._pilotings) >= _STATS_MEMO:
                self._pilotings.clear()
            known = self._pilotings[pilot.id] = (pilot.base_stats, pilot.items, _piloting(pilot))
        return known[2]

    def _options(self, rows: Rows, campaign_id: UUID | None) -> GloriousDriveOptions | None:
        found = rows.get(CAMPAIGNS, (campaign_id,)) if campaign_id else None
        if found is None:
            return None
        state = self._states.parse(campaign.Campaign, found["campaign_id"], found)
        if state.ruleset != "glorious_drive":
            return None
        known = self._campaign_options.get(state.id)
        if known is None or known[0] is not state:
            known = self._campaign_options[state.id] = (state, state.gd_options())
        return known[1]

    def _stats_of(self, core: unit.Unit, piloting: int, options: GloriousDriveOptions) -> Stats:
        """GD-STAT-2, remembered: the same sheet under the same piloting has the same stats."""
        key = (
            core.model_dump_json(include={"base_stats", "items"}),
            piloting,
            options.model_dump_json(),
        )
        found = self._unit_stats.get(key)
        if found is None:
            if len(self._unit_stats) >= _STATS_MEMO:
                self._unit_stats.clear()
            found = self._unit_stats[key] = unit_stats(
                core.base_stats, core.items, piloting, options
            )
        return dict(found)

    def _unit_row(
        self,
        core: unit.Unit,
        pilot: character.Character | None,
        options: GloriousDriveOptions | None,
        base: Row,
        stream_version: int,
    ) -> Row:
        stats: Later | None = None
        if pilot is not None and options is not None and core.base_stats:
            stats = Later(self._piloted_stats, core, pilot, options)
        return {
            "unit_id": core.id,
            "pilot_id": core.pilot_id,
            "campaign_id": core.campaign_id,
            "name": core.name,
            "kind": core.kind,
            "stats": stats,
            "base_stats": dict(core.base_stats),
            "equipment": Later(encoded, core.items),
            "equipment_cost": Later(equipment_cost, core.items),
            "max_hp": core.max_hp,
            "current_hp": core.current_hp,
            "state": Later(encoded, core),
            "stream_version": stream_version,
            "position": base["position"],
            "updated_at": base["updated_at"],
        }

    def _piloted_stats(
        self, core: unit.Unit, pilot: character.Character, options: GloriousDriveOptions
    ) -> Stats:
        piloting = character_stats(pilot.base_stats, pilot.items)["piloting"]
        return self._stats_of(core, piloting, options)


def _piloting(pilot: character.Character) -> int | None:
    return character_stats(pilot.base_stats, pilot.items).get("piloting")


def _sheet_row(pilot: character.Character, unit_ids: list[str], recorded: Recorded) -> Row:
    ratio = pilot.carried_ratio
    return {
        "character_id": pilot.id,
        "campaign_id": pilot.campaign_id,
        "owner": pilot.owner,
        "name": pilot.name,
        "level": pilot.level,
        "lost": pilot.lost,
        "stats": Later(character_stats, pilot.base_stats, pilot.items),
        "base_stats": dict(pilot.base_stats),
        "equipment": Later(encoded, pilot.items),
        "equipment_cost": Later(equipment_cost, pilot.items),
        "skills": Later(encoded, pilot.skills),
        "max_hp": pilot.max_hp,
        "current_hp": pilot.current_hp,
        "carried_ratio_numerator": ratio.numerator,
        "carried_ratio_denominator": ratio.denominator,
        "injuries": Later(encoded, pilot.injuries),
        "unit_ids": unit_ids,
        "state": Later(pilot.model_dump, mode="json"),
        "stream_version": recorded.version,
        "position": _position(recorded),
        "updated_at": recorded.event.at,
    }
