"""Parsed aggregate states, remembered by stream and version.

Parsing a row's state JSON back into the aggregate costs more than everything else a sheet
handler does; the state at a stream's version is fixed by the log, so a parse can be reused
for as long as the row still says that version. Bounded, and only ever a shortcut.
"""

from __future__ import annotations

from typing import Any, TypeVar
from uuid import UUID

from pydantic import BaseModel

from projections.base import now

M = TypeVar("M", bound=BaseModel)
_SIZE = 100_000


class StateMemo:
    """The last parsed state of each stream, with the version it is at."""

    def __init__(self) -> None:
        self._states: dict[UUID, tuple[int, BaseModel]] = {}

    def parse(self, model: type[M], stream_id: UUID, row: dict[str, Any]) -> M:
        """The state in `row` (JSON with its `stream_version`), parsed at most once."""
        hit = self._states.get(stream_id)
        if hit is not None and hit[0] == row["stream_version"] and isinstance(hit[1], model):
            return hit[1]
        stored = now(row["state"])  # JSON text as the projector wrote it, or parsed as read
        state = (
            model.model_validate_json(stored)
            if isinstance(stored, bytes | str)
            else model.model_validate(stored)
        )
        self.remember(stream_id, int(row["stream_version"]), state)
        return state

    def remember(self, stream_id: UUID, version: int, state: BaseModel) -> None:
        if len(self._states) >= _SIZE:
            self._states.clear()
        self._states[stream_id] = (version, state)
