"""The base of every stored fact: a frozen pydantic model with a stable name and shape version.

Stored events are named by `event_type` and `version`, never by Python module path, so that
moving a class does not orphan the log; an old shape is read through an upcaster
(docs/architecture.md, "Versioned events").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from types import ModuleType
from typing import Any, ClassVar, Self, cast

from pydantic import BaseModel, ConfigDict, Field

JsonObject = dict[str, Any]
Upcaster = Callable[[JsonObject], JsonObject]


class DomainEvent(BaseModel):
    """A past-tense fact: who caused it (`by`) and when (`at`), plus its own fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    event_type: ClassVar[str] = ""
    version: ClassVar[int] = 1

    at: datetime = Field(description="When it happened (passed in; the domain has no clock).")
    by: str = Field(min_length=1, description="Who caused it: a member id, 'gm', or 'system'.")

    @classmethod
    def stamped(cls, fields: Mapping[str, object], *, at: datetime, by: str) -> Self:
        """The fact with these fields, stamped with when and who, validated as
        `model_validate` validates it: by the model's own validator, without the wrapper's
        argument handling (a third of a small event's validation, for every fact decided)."""
        return cast(
            Self, cls.__pydantic_validator__.validate_python({**fields, "at": at, "by": by})
        )


def sample(**fields: Any) -> ConfigDict:
    """A fact's sample, declared on it as a command's example is (`model_config = sample(…)`):
    its stored JSON in the rule system's golden/events/ must load to it, so a stored shape
    cannot drift unseen (tests/unit/rules/test_event_shapes.py). A new fact is then one class
    with its sample, its golden file and what it changes (docs/architecture.md)."""
    return ConfigDict(json_schema_extra={"examples": [fields]})


def samples_in(*modules: ModuleType, common: Mapping[str, object]) -> list[DomainEvent]:
    """The sample of every fact the modules declare, in the order they are written; `common`
    gives each the fields it has of these (`at`, `by`, a log line). A fact with no sample is
    an error: its stored shape would go unpinned."""
    found: list[DomainEvent] = []
    for module in modules:
        for cls in vars(module).values():
            if not (
                isinstance(cls, type)
                and issubclass(cls, DomainEvent)
                and cls.__module__ == module.__name__
                and cls.event_type
            ):
                continue
            extra = cls.model_config.get("json_schema_extra")
            if not isinstance(extra, dict) or not extra.get("examples"):
                raise TypeError(f"{cls.__name__} declares no sample (model_config = sample(...))")
            (fields,) = cast(list[JsonObject], extra["examples"])
            given = {k: v for k, v in common.items() if k in cls.model_fields}
            found.append(cls.model_validate({**given, **fields}))
    return found


class UnknownEventType(LookupError):
    """A stored event names a type this build does not know."""


class EventRegistry:
    """Maps stored names to classes and upgrades old shapes step by step."""

    def __init__(self) -> None:
        self._classes: dict[str, type[DomainEvent]] = {}
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        # Topics already resolved: a projector asks for every event of the log.
        self._topics: dict[str, tuple[type[DomainEvent], int]] = {}
        self._topic_of: dict[type[DomainEvent], str] = {}  # and each class's own, to append

    def register(self, *classes: type[DomainEvent]) -> None:
        for cls in classes:
            if not cls.event_type:
                raise TypeError(f"{cls.__name__} has no event_type")
            known = self._classes.get(cls.event_type)
            if known is not None and known is not cls:
                raise TypeError(f"event_type {cls.event_type!r} is taken by {known.__name__}")
            self._classes[cls.event_type] = cls

    def upcaster(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Decorator: turns the stored JSON of version `from_version` into `from_version + 1`."""

        def decorate(function: Upcaster) -> Upcaster:
            self._upcasters[(event_type, from_version)] = function
            return function

        return decorate

    def topic(self, event: DomainEvent) -> str:
        """`<event_type>.v<version>`, made once per class (every event appended asks)."""
        kind = type(event)
        topic = self._topic_of.get(kind)
        if topic is None:
            topic = self._topic_of[kind] = f"{kind.event_type}.v{kind.version}"
        return topic

    def decode(self, topic: str, data: JsonObject) -> DomainEvent:
        cls, stored_version = self._class_of(topic)
        for version in range(stored_version, cls.version):
            data = self._upcasters[(cls.event_type, version)](data)
        return cls.model_validate(data)

    def decode_json(self, topic: str, text: bytes) -> DomainEvent:
        """`decode` of the stored JSON text: in one step when no upcaster applies (the
        projector decodes every event of the log, and this is about twice as fast)."""
        cls, stored_version = self._class_of(topic)
        if stored_version == cls.version:
            return cls.model_validate_json(text)
        return self.decode(topic, json.loads(text))

    def stored_topics(self) -> dict[str, type[DomainEvent]]:
        """Every topic an event of this build may be stored under (old versions included),
        with the class it decodes to."""
        return {
            f"{cls.event_type}.v{version}": cls
            for cls in self._classes.values()
            for version in range(1, cls.version + 1)
        }

    def event_class(self, topic: str) -> type[DomainEvent]:
        """The class that `decode` of `topic` gives, without decoding anything."""
        return self._class_of(topic)[0]

    def _class_of(self, topic: str) -> tuple[type[DomainEvent], int]:
        known = self._topics.get(topic)
        if known is None:
            known = self._topics[topic] = self._resolve(topic)
        return known

    def _resolve(self, topic: str) -> tuple[type[DomainEvent], int]:
        event_type, _, version_text = topic.rpartition(".v")
        cls = self._classes.get(event_type)
        if cls is None or not version_text.isdigit():
            raise UnknownEventType(f"no event class for stored topic {topic!r}")
        stored_version = int(version_text)
        if stored_version > cls.version:
            raise UnknownEventType(
                f"{topic!r} is newer than this build (v{cls.version}); upgrade Senki"
            )
        return cls, stored_version

    def known_types(self) -> Iterable[str]:
        return sorted(self._classes)


registry = EventRegistry()
"""The one registry of this build; each aggregate module registers its events on import."""
