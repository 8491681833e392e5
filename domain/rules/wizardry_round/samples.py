"""One sample of every Wizardry Round fact, declared on the fact (`model_config = sample(…)`),
each loading from its stored JSON in golden/events/ (never edited; docs/architecture.md, "A
rule system's samples and golden files")."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.events import DomainEvent, samples_in
from domain.rules.wizardry_round import events, status_events

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the goldens were written at this instant
COMMON = {"at": AT, "by": "gm", "summary_en": "a log line", "summary_ja": "ログの一行"}

SAMPLES: list[DomainEvent] = samples_in(events, status_events, common=COMMON)
