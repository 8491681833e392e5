"""One sample of every Armor Knights fact, declared on the fact (`model_config = sample(…)`),
each loading from its stored JSON in golden/events/ (never edited; docs/architecture.md, "A
rule system's samples and golden files")."""

from __future__ import annotations

from datetime import UTC, datetime

from domain.events import DomainEvent, samples_in
from domain.rules.armor_knights import condition_events, events

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the goldens were written at this instant
# Each AK fact also reads as a line of the log (the wording is free; the shape is checked).
COMMON = {
    "at": AT,
    "by": "gm",
    "summary_en": "red's move is interrupted",
    "summary_ja": "redの移動動作は中断",
}

SAMPLES: list[DomainEvent] = samples_in(events, condition_events, common=COMMON)
