"""A rule system's lines in the encounter log, in English and Japanese (pure).

Each ruleset answers `log_line(event)` for its own facts (those whose event type starts with
its prefix, `gd.`): from a renderer registered for the type, or else from the fact's own
`summary_en`/`summary_ja`. The encounter log (projections/) asks the rulesets and renders
the Encounter's own facts itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.events import DomainEvent
from domain.rules.ruleset import LogLine

Renderer = Callable[[DomainEvent], LogLine]


class LogLines:
    """The renderers of one ruleset's facts, by event type."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._renderers: dict[str, Renderer] = {}

    def renders(self, *event_types: str) -> Callable[[Renderer], Renderer]:
        """Decorator: the renderer of these event types (each of this ruleset's prefix)."""

        def register(renderer: Renderer) -> Renderer:
            for event_type in event_types:
                if not event_type.startswith(self.prefix):
                    raise ValueError(f"{event_type} is not a {self.prefix} fact")
                self._renderers[event_type] = renderer
            return renderer

        return register

    def __contains__(self, event_type: object) -> bool:
        return event_type in self._renderers

    def line(self, event: DomainEvent) -> LogLine | None:
        """The fact's line: its renderer's, else its own summaries (None: not this
        ruleset's fact, or one with neither, which the log renders from its fields)."""
        if not event.event_type.startswith(self.prefix):
            return None
        renderer = self._renderers.get(event.event_type)
        if renderer is not None:
            return renderer(event)
        en, ja = field(event, "summary_en"), field(event, "summary_ja")
        if isinstance(en, str) and isinstance(ja, str):
            return en, ja
        return None


def field(event: object, name: str) -> Any:
    """A field of any event, or None: a line reads facts of older shapes, or built by hand."""
    # Looked up in the model's fields first: a missing attribute on a pydantic model raises
    # inside __getattr__, which costs more than the rest of a renderer. The answer is
    # remembered per class and name (pydantic builds `model_fields` anew on every access).
    slot = (type(event), name)
    present = _PRESENT.get(slot)
    if present is None:
        fields = getattr(slot[0], "model_fields", None)
        present = _PRESENT[slot] = fields is None or name in fields
    return getattr(event, name, None) if present else None


_PRESENT: dict[tuple[type, str], bool] = {}
