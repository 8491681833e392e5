"""One sample of every Glorious Drive fact, declared on the fact (`model_config = sample(…)`),
each loading from its stored JSON in golden/events/ (never edited; docs/architecture.md, "A
rule system's samples and golden files")."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.events import DomainEvent, samples_in
from domain.rules.glorious_drive import condition_events, events

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the goldens were written at this instant

SAMPLES: list[DomainEvent] = samples_in(events, condition_events, common={"at": AT, "by": "gm"})
