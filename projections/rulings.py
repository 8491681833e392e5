"""Every ruling, searchable by encounter, character, rule ID, and disputed or not.

Generic: a ruling is any event of type `RulingRecorded` (rule_ids, inputs, outcome, the dice
it cites, options, summaries), whatever ruleset recorded it. A ruling's characters are the
combatants its inputs or outcome name, with the sheet ids they joined with (`CombatantJoined`).
Disputes: an event of a type in `DISPUTE_TYPES` naming `ruling_version` (the ruling's version
in the same encounter stream) marks it disputed and keeps the dispute, history intact.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from domain.events import DomainEvent
from projections.base import Change, Column, Projection, Put, Recorded, Row, Rows, Table, field
from projections.base import position_of as _position

RULINGS = "rulings"
COMBATANTS = "rulings_combatants"
RULING = "RulingRecorded"
DISPUTE_TYPES = frozenset({"RulingDisputed"})
# Sheet fields that name the character or unit behind a combatant.
_SHEET_IDS = ("character_id", "pilot_id", "unit_id")


class RulingsV1(Projection):
    """Rulings keyed by (encounter, stream version), indexed by rule ID and subject."""

    name = "rulings"
    version = 1
    tables: ClassVar[Sequence[Table]] = (
        Table(
            RULINGS,
            (
                Column("encounter_id", "uuid", nullable=False),
                Column("version", "bigint", nullable=False),
                Column("position", "bigint", nullable=False),
                Column("at", "timestamptz", nullable=False),
                Column("by", "text", nullable=False),
                Column("rule_ids", "text[]", nullable=False),
                Column("inputs", "jsonb", nullable=False),
                Column("outcome", "jsonb", nullable=False),
                Column("dice", "jsonb", nullable=False),
                Column("options", "jsonb", nullable=False),
                Column("summary_en", "text", nullable=False),
                Column("summary_ja", "text", nullable=False),
                Column("subjects", "text[]", nullable=False),
                Column("disputed", "boolean", nullable=False),
                Column("disputes", "jsonb", nullable=False),
            ),
            key=("encounter_id", "version"),
            indexes=(("position",), ("disputed",)),
            gin=("rule_ids", "subjects"),
            lookup=False,  # read back only when a ruling is disputed
        ),
        Table(
            COMBATANTS,
            (
                Column("encounter_id", "uuid", nullable=False),
                Column("combatants", "jsonb", nullable=False),
            ),
            key=("encounter_id",),
        ),
    )

    def wants(self, event_class: type[DomainEvent]) -> bool:
        kind = event_class.event_type
        return kind == RULING or kind in DISPUTE_TYPES or "combatant_id" in event_class.model_fields

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        """Rulings, the combatants they may name, and disputes of them."""
        event = recorded.event
        if event.event_type == RULING:
            return [Put(RULINGS, self._ruling(recorded, rows))]
        if event.event_type in DISPUTE_TYPES:
            return self._dispute(recorded, rows)
        combatant = field(event, "combatant_id")
        if isinstance(combatant, str):
            return [Put(COMBATANTS, self._joined(recorded, rows, combatant))]
        return []

    def _ruling(self, recorded: Recorded, rows: Rows) -> Row:
        event = recorded.event
        data = event.model_dump(mode="json")
        known = rows.get(COMBATANTS, (recorded.stream_id,))
        combatants: dict[str, list[str]] = known["combatants"] if known else {}
        named = set(_strings(data.get("inputs"))) | set(_strings(data.get("outcome")))
        subjects = sorted({i for c in named & set(combatants) for i in (c, *combatants[c])})
        return {
            "encounter_id": recorded.stream_id,
            "version": recorded.version,
            "position": _position(recorded),
            "at": event.at,
            "by": event.by,
            "rule_ids": [str(r) for r in data.get("rule_ids", ())],
            "inputs": data.get("inputs", {}),
            "outcome": data.get("outcome", {}),
            "dice": list(data.get("roll_seqs", data.get("dice", ()))),
            "options": data.get("options", {}),
            "summary_en": str(data.get("summary_en", "")),
            "summary_ja": str(data.get("summary_ja", "")),
            "subjects": subjects,
            "disputed": False,
            "disputes": [],
        }

    def _joined(self, recorded: Recorded, rows: Rows, combatant: str) -> Row:
        known = rows.get(COMBATANTS, (recorded.stream_id,))
        combatants = dict(known["combatants"]) if known else {}
        sheet = field(recorded.event, "sheet")
        ids = [str(sheet[k]) for k in _SHEET_IDS if isinstance(sheet, dict) and sheet.get(k)]
        combatants[combatant] = ids
        return {"encounter_id": recorded.stream_id, "combatants": combatants}

    def _dispute(self, recorded: Recorded, rows: Rows) -> list[Change]:
        target = field(recorded.event, "ruling_version")
        ruling = rows.get(RULINGS, (recorded.stream_id, target)) if target else None
        if ruling is None:
            return []
        dispute = recorded.event.model_dump(mode="json") | {
            "event_type": recorded.event.event_type,
            "position": _position(recorded),
        }
        return [
            Put(RULINGS, ruling | {"disputed": True, "disputes": [*ruling["disputes"], dispute]})
        ]


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, however nested."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
