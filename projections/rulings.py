"""Every ruling, searchable by encounter, character, rule ID, and disputed or not.

Generic: a ruling is any event of type `RulingRecorded` (rule_ids, inputs, outcome, the dice
it cites, options, summaries), whatever ruleset recorded it. A ruling's characters are the
combatants its inputs or outcome name, with the sheet ids they joined with (`CombatantJoined`).
Disputes: an event of a type in `DISPUTE_TYPES` naming `ruling_version` (the ruling's version
in the same encounter stream) marks it disputed and keeps the dispute, history intact.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from domain.events import DomainEvent
from projections.base import (
    Change,
    Column,
    Projection,
    Put,
    Recorded,
    Row,
    Rows,
    Table,
    encoded,
    field,
)
from projections.base import position_of as _position

RULINGS = "rulings"
COMBATANTS = "rulings_combatants"
RULING = "RulingRecorded"
JOINED = "CombatantJoined"
DISPUTE_TYPES = frozenset({"RulingDisputed"})
# Sheet fields that name the character or unit behind a combatant.
_SHEET_IDS = ("character_id", "pilot_id", "unit_id")


class RulingsV2(Projection):
    """Rulings keyed by (encounter, stream version), indexed by rule ID and subject."""

    name = "rulings"
    # 2: only a join names the sheets behind a combatant; a correction of the combatant no
    # longer wipes them (its event also has a `combatant_id`).
    version = 2
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
        return kind in {RULING, JOINED} or kind in DISPUTE_TYPES

    def handle(self, recorded: Recorded, rows: Rows) -> list[Change]:
        """Rulings, the combatants they may name, and disputes of them."""
        event = recorded.event
        if event.event_type == RULING:
            return [Put(RULINGS, self._ruling(recorded, rows))]
        if event.event_type in DISPUTE_TYPES:
            return self._dispute(recorded, rows)
        combatant = field(event, "combatant_id")
        if event.event_type == JOINED and isinstance(combatant, str):
            return [Put(COMBATANTS, self._joined(recorded, rows, combatant))]
        return []

    def _ruling(self, recorded: Recorded, rows: Rows) -> Row:
        event = recorded.event
        # Read field by field, not dumped whole: rulings are a sixth of a fight's events.
        inputs, outcome = field(event, "inputs") or {}, field(event, "outcome") or {}
        dice = field(event, "roll_seqs")
        known = rows.get(COMBATANTS, (recorded.stream_id,))
        combatants: dict[str, list[str]] = known["combatants"] if known else {}
        named = _strings(outcome, _strings(inputs, set()))
        subjects = sorted({i for c in named & set(combatants) for i in (c, *combatants[c])})
        return {
            "encounter_id": recorded.stream_id,
            "version": recorded.version,
            "position": _position(recorded),
            "at": event.at,
            "by": event.by,
            "rule_ids": [str(r) for r in field(event, "rule_ids") or ()],
            "inputs": encoded(inputs),
            "outcome": encoded(outcome),
            "dice": list(dice if dice is not None else field(event, "dice") or ()),
            "options": encoded(field(event, "options") or {}),
            "summary_en": str(field(event, "summary_en") or ""),
            "summary_ja": str(field(event, "summary_ja") or ""),
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


def _strings(value: Any, found: set[str]) -> set[str]:
    """Every string in a JSON value, however nested, added to `found` (returned). Recursion
    into one set, not nested generators: `yield from` chains cost a ruling 14 µs."""
    if isinstance(value, str):
        found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, found)
    elif isinstance(value, list | tuple):
        for item in value:
            _strings(item, found)
    return found
