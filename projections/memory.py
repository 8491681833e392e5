"""Rows in a dict: the reference store for handler tests and for checking a projector."""

from __future__ import annotations

import json
from collections.abc import Iterable

from projections.base import Delete, EncodedJson, Key, Projection, Put, Recorded, Row, settled


class MemoryRows:
    """Applies changes to plain dictionaries, one per table, keyed like the real tables."""

    def __init__(self, projection: Projection) -> None:
        self.projection = projection
        self.tables: dict[str, dict[Key, Row]] = {t.name: {} for t in projection.tables}

    def get(self, table: str, key: Key) -> Row | None:
        return self.tables[table].get(key)

    def feed(self, recorded: Iterable[Recorded]) -> MemoryRows:
        """Hand every event to the projection and apply what it returns; returns self."""
        for item in recorded:
            changes = self.projection.handle(item, self)
            event_class = type(item.event)
            if changes and not self.projection.wants(event_class):
                # The projector would never have handed this event over.
                raise AssertionError(
                    f"{self.projection.name} says it does not want {event_class.__name__}, "
                    f"yet changed rows for it: fix its `wants`"
                )
            for change in changes:
                match change:
                    case Put(table=name, row=row):
                        key = self.projection.table(name).key_of(row)
                        # Worked out at once: the reference a batching projector must equal.
                        self.tables[name][key] = as_stored(settled(row))
                    case Delete(table=name, key=key):
                        self.tables[name].pop(key, None)
        return self

    def rows(self, table: str) -> list[Row]:
        """A table's rows in key order."""
        return [self.tables[table][k] for k in sorted(self.tables[table], key=str)]


def as_stored(row: Row) -> Row:
    """The row as PostgreSQL hands it back: JSON text parsed."""
    return {k: json.loads(v) if type(v) is EncodedJson else v for k, v in row.items()}
