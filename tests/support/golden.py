"""A stored shape's check: its golden JSON still loads to the same event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain.catalog import registry
from domain.events import DomainEvent


def assert_loads_to(path: Path, event: DomainEvent) -> None:
    """The golden file at `path` decodes to `event`; missing, the failure prints its JSON."""
    current = json.loads(event.model_dump_json())
    if not path.exists():
        pytest.fail(
            f"no golden file; create {path} with:\n{json.dumps(current, ensure_ascii=False)}"
        )
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert registry.decode(registry.topic(event), stored) == event
