"""The HP ledger: per pilot and scenario, the unit, the ratio in, the ratio out, and why.

GD-HPS-2/3 bring a pilot in at their carried ratio (ScenarioStarted); GD-HPS-1/3 carry out
the end HP of the unit last fought in over its max (ScenarioClosed). The `why` columns say
so in words, with the rule IDs, so a table can check the numbers without the rulebook.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from domain.campaign.scenario import (
    ParticipantEntry,
    ParticipantJoined,
    ParticipantOutcome,
    ScenarioClosed,
    ScenarioOpened,
    ScenarioStarted,
)
from domain.events import DomainEvent
from projections.base import Change, Column, Projection, Put, Recorded, Row, Rows, Table
from projections.base import position_of as _position

LEDGER = "hp_ledger"
SCENARIOS = "hp_ledger_scenarios"
_WANTED = (ScenarioOpened, ParticipantJoined, ScenarioStarted, ScenarioClosed)


class HpLedgerV1(Projection):
    """One row per pilot per scenario, filled in as the scenario starts and closes."""

    name = "hp_ledger"
    version = 1
    tables: ClassVar[Sequence[Table]] = (
        Table(
            LEDGER,
            (
                Column("scenario_id", "uuid", nullable=False),
                Column("character_id", "uuid", nullable=False),
                Column("campaign_id", "uuid"),
                Column("scenario_name", "text"),
                Column("unit_id", "uuid"),
                Column("ratio_in_numerator", "integer"),
                Column("ratio_in_denominator", "integer"),
                Column("pilot_hp_in", "integer"),
                Column("pilot_max_hp_in", "integer"),
                Column("unit_hp_in", "integer"),
                Column("unit_max_hp_in", "integer"),
                Column("fought_in", "uuid"),
                Column("end_hp", "integer"),
                Column("end_max_hp", "integer"),
                Column("ratio_out_numerator", "integer"),
                Column("ratio_out_denominator", "integer"),
                Column("injury", "text"),
                Column("why_in", "text"),
                Column("why_out", "text"),
                Column("started_at", "timestamptz"),
                Column("closed_at", "timestamptz"),
                Column("position", "bigint", nullable=False),
            ),
            key=("scenario_id", "character_id"),
            indexes=(("character_id",), ("campaign_id",)),
        ),
        Table(
            SCENARIOS,
            (
                Column("scenario_id", "uuid", nullable=False),
                Column("campaign_id", "uuid"),
                Column("name", "text"),
            ),
            key=("scenario_id",),
        ),
    )

    def wants(self, event_class: type[DomainEvent]) -> bool:
        return issubclass(event_class, _WANTED)

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        """Scenario events only: opening names it, joins, start and close fill the rows."""
        event, scenario_id = recorded.event, recorded.stream_id
        if isinstance(event, ScenarioOpened):
            row = {"scenario_id": scenario_id, "campaign_id": event.campaign_id, "name": event.name}
            return [Put(SCENARIOS, row)]
        if isinstance(event, ParticipantJoined):
            part = event.participant
            row = self._row(rows, recorded, part.character_id) | {"unit_id": part.unit_id}
            return [Put(LEDGER, row)]
        if isinstance(event, ScenarioStarted):
            return [Put(LEDGER, self._entered(rows, recorded, e)) for e in event.entries]
        if isinstance(event, ScenarioClosed):
            return [Put(LEDGER, self._closed(rows, recorded, o)) for o in event.outcomes]
        return []

    def _row(self, rows: Rows, recorded: Recorded, character_id: object) -> Row:
        found = rows.get(LEDGER, (recorded.stream_id, character_id))
        if found is not None:
            return found | {"position": _position(recorded)}
        scenario = rows.get(SCENARIOS, (recorded.stream_id,)) or {}
        blank = {c.name: None for c in self.tables[0].columns}
        return blank | {
            "scenario_id": recorded.stream_id,
            "character_id": character_id,
            "campaign_id": scenario.get("campaign_id"),
            "scenario_name": scenario.get("name"),
            "position": _position(recorded),
        }

    def _entered(self, rows: Rows, recorded: Recorded, e: ParticipantEntry) -> Row:
        ratio = e.ratio
        why = (
            f"GD-HPS-2/3: entered at carried ratio {ratio.numerator}/{ratio.denominator}: "
            f"pilot {e.pilot_hp}/{e.pilot_max_hp}"
            + (f", unit {e.unit_hp}/{e.unit_max_hp}" if e.unit_id is not None else ", on foot")
        )
        return self._row(rows, recorded, e.character_id) | {
            "unit_id": e.unit_id,
            "ratio_in_numerator": ratio.numerator,
            "ratio_in_denominator": ratio.denominator,
            "pilot_hp_in": e.pilot_hp,
            "pilot_max_hp_in": e.pilot_max_hp,
            "unit_hp_in": e.unit_hp,
            "unit_max_hp_in": e.unit_max_hp,
            "why_in": why,
            "started_at": recorded.event.at,
        }

    def _closed(self, rows: Rows, recorded: Recorded, o: ParticipantOutcome) -> Row:
        where = "on foot" if o.fought_in == o.character_id else f"in unit {o.fought_in}"
        why = (
            f"GD-HPS-1/3: last fought {where}, ended at {o.end_hp}/{o.max_hp}: carries "
            f"{o.ratio.numerator}/{o.ratio.denominator}; GD-INJ: {o.injury}"
        )
        return self._row(rows, recorded, o.character_id) | {
            "fought_in": o.fought_in,
            "end_hp": o.end_hp,
            "end_max_hp": o.max_hp,
            "ratio_out_numerator": o.ratio.numerator,
            "ratio_out_denominator": o.ratio.denominator,
            "injury": o.injury,
            "why_out": why,
            "closed_at": recorded.event.at,
        }
