"""The encounter log: one readable line per event of every encounter, with its rule IDs.

Generic: an encounter is any stream that begins with `EncounterOpened`; every later event of
that stream gets a line, whatever ruleset recorded it (`projections.render`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from domain.events import DomainEvent
from projections.base import Change, Column, Projection, Put, Recorded, Rows, Table
from projections.base import position_of as _position
from projections.kinds import CAMPAIGN_SIDE
from projections.render import render, rule_ids

LOG = "encounter_log"
ENCOUNTERS = "encounter_log_encounters"
OPENING = "EncounterOpened"


class EncounterLogV4(Projection):
    """Lines keyed by encounter and version; read by encounter in stream order."""

    name = "encounter_log"
    # 2: readable lines for recorded commands, disputes and corrections; 3: keyed by encounter
    # and version, as positions repeat across the shards of the log; 4: a readable line for
    # every event of the three rulesets.
    version = 4
    tables: ClassVar[Sequence[Table]] = (
        Table(
            LOG,
            (
                Column("position", "bigint", nullable=False),
                Column("encounter_id", "uuid", nullable=False),
                Column("version", "bigint", nullable=False),
                Column("event_type", "text", nullable=False),
                Column("at", "timestamptz", nullable=False),
                Column("by", "text", nullable=False),
                Column("line_en", "text", nullable=False),
                Column("line_ja", "text", nullable=False),
                Column("rule_ids", "text[]", nullable=False),
            ),
            key=("encounter_id", "version"),
            gin=("rule_ids",),
            lookup=False,
        ),
        Table(
            ENCOUNTERS,
            (
                Column("encounter_id", "uuid", nullable=False),
                Column("opened_at", "timestamptz"),
            ),
            key=("encounter_id",),
        ),
    )

    def wants(self, event_class: type[DomainEvent]) -> bool:
        return not issubclass(event_class, CAMPAIGN_SIDE)  # never in an encounter stream

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        """A line for each event of an encounter stream; other streams are not encounters."""
        event = recorded.event
        changes: list[Change] = []
        if event.event_type == OPENING:
            changes.append(
                Put(ENCOUNTERS, {"encounter_id": recorded.stream_id, "opened_at": event.at})
            )
        elif rows.get(ENCOUNTERS, (recorded.stream_id,)) is None:
            return []
        en, ja = render(event)
        line = {
            "position": _position(recorded),
            "encounter_id": recorded.stream_id,
            "version": recorded.version,
            "event_type": event.event_type,
            "at": event.at,
            "by": event.by,
            "line_en": en,
            "line_ja": ja,
            "rule_ids": rule_ids(event),
        }
        return [*changes, Put(LOG, line)]
