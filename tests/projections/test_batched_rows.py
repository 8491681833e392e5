"""Rows worked out once per batch (as the projector writes them) equal rows worked out at once."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from projections.base import Key, Later, Projection, Put, Recorded, Row, settled
from projections.catalog import PROJECTIONS
from projections.character_sheets import CharacterSheetsV1
from projections.memory import MemoryRows, as_stored
from tests.support.story import big_story, campaign_story, churn


class BatchedRows:
    """Like the projector's BatchRows without PostgreSQL: changes wait in `pending` and each
    key's last row is settled (its `Later` values worked out) when the batch ends."""

    def __init__(self, projection: Projection) -> None:
        self.projection = projection
        self.stored: dict[str, dict[Key, Row]] = {t.name: {} for t in projection.tables}
        self.pending: dict[tuple[str, Key], Row] = {}

    def get(self, table: str, key: Key) -> Row | None:
        return self.pending.get((table, key), self.stored[table].get(key))

    def feed(self, logged: Sequence[Recorded], batch: int) -> BatchedRows:
        for start in range(0, len(logged), batch):
            for item in logged[start : start + batch]:
                for change in self.projection.handle(item, self):
                    assert isinstance(change, Put), "these stories delete nothing"
                    key = self.projection.table(change.table).key_of(change.row)
                    self.pending[(change.table, key)] = change.row
            for (table, key), row in self.pending.items():
                self.stored[table][key] = as_stored(settled(row))
            self.pending.clear()
        return self


@pytest.mark.parametrize("batch", [1, 7, 500])
@pytest.mark.parametrize("projection", PROJECTIONS, ids=lambda p: p.name)
def test_rows_settled_per_batch_equal_rows_settled_per_event(
    projection: Projection, batch: int
) -> None:
    story = big_story(3)
    churn(story, story.pilots[0], 4)  # the same sheet and its unit, many times in a batch

    batched = BatchedRows(type(projection)()).feed(story.log, batch)
    at_once = MemoryRows(type(projection)()).feed(story.log)

    for table in projection.tables:
        assert batched.stored[table.name] == at_once.tables[table.name], table.name


def test_a_sheet_changed_many_times_in_one_batch_is_worked_out_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    story = campaign_story()
    churn(story, story.pilots[0], 10)  # twenty sheet changes, each moving the unit's stats
    worked: list[Later] = []
    work = Later.value
    monkeypatch.setattr(Later, "value", lambda later: worked.append(later) or work(later))
    rows = BatchedRows(CharacterSheetsV1())

    rows.feed(story.log, batch=len(story.log))

    last_rows = [row for table in rows.stored.values() for row in table.values()]
    assert len(last_rows) < len(story.log)
    # Only the rows written were worked out, each column once: none of the replaced ones.
    assert len(worked) == len({id(v) for v in worked})
    assert 0 < len(worked) <= sum(len(row) for row in last_rows)
    assert len(worked) < len(story.log)
